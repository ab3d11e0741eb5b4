"""The ticket workflow's turns, run scripted through the real runtime and an in-memory store."""

from __future__ import annotations

import anyio

from bench import Bench, registration_problems, words


def test_the_workflow_registers_without_problems() -> None:
    assert registration_problems() == []


def test_open_then_ambiguity_card_between_two_records() -> None:
    async def main() -> None:
        bench = Bench()
        opened = await bench.say(
            "New ticket: printer broken", "ticket.open", title="Printer broken", requester="Ana"
        )
        assert opened.results["a1"].status.value == "committed"
        assert "Opened ticket Printer broken (normal priority)." in words(opened)
        mine = opened.commands[0][1]
        other = await bench.seed(title="Printer broken", requester="Rui", priority="high")

        asked = await bench.say(
            "Make the printer ticket urgent",
            "ticket.set_priority",
            (mine, other),
            priority="urgent",
        )
        assert asked.results["a1"].code == "ambiguous_target" and asked.commands == ()
        (card,) = asked.interactions_created
        labels = [option.label for option in card.spec.options]
        assert labels == ["Printer broken · Ana · normal", "Printer broken · Rui · high"]
        assert "Which ticket did you mean?" in words(asked)

        picked = await bench.click(card.id, card.spec.options[0].id, 1)
        assert picked.commands == (("ticket.set_priority", mine),)
        assert (await bench.state(mine))["priority"] == "urgent"
        assert (await bench.state(other))["priority"] == "high"

    anyio.run(main)


def test_close_needs_a_confirmation_and_a_double_click_closes_once() -> None:
    async def main() -> None:
        bench = Bench()
        record = await bench.seed(title="VPN down", requester="Rui")
        asked = await bench.say("Close the VPN ticket", "ticket.close", (record,))
        assert asked.results["a1"].status.value == "awaiting_confirmation" and asked.commands == ()
        (card,) = asked.interactions_created
        assert card.spec.kind.value == "confirm" and "Close ticket VPN down" in words(asked)

        first = await bench.click(card.id, "confirm", 1)
        assert first.commands == (("ticket.close", record),)
        assert "Closed ticket VPN down." in words(first)
        second = await bench.click(card.id, "confirm", 1)
        assert second.commands == () and "already answered" in words(second)
        closes = [e for e in await bench.store.case_events(record) if e.type == "ticket.closed"]
        assert len(closes) == 1

    anyio.run(main)


def test_reopen_a_closed_record_and_no_reopen_of_an_open_one() -> None:
    async def main() -> None:
        bench = Bench()
        record = await bench.seed(title="Mail quota", status="closed")
        reopened = await bench.say(
            "Reopen the mail ticket", "ticket.reopen", (record,), reason="still full"
        )
        assert reopened.commands == (("ticket.reopen", record),)
        assert "Reopened ticket Mail quota." in words(reopened)
        again = await bench.say("Reopen the mail ticket", "ticket.reopen", (record,))
        assert again.results["a1"].status.value == "rejected" and again.commands == ()
        assert (await bench.state(record))["status"] == "open"

    anyio.run(main)


def test_assign_twice_to_the_same_agent_changes_nothing_and_comments_add_up() -> None:
    async def main() -> None:
        bench = Bench()
        record = await bench.seed(title="Laptop slow")
        assigned = await bench.say("Give it to Kim", "ticket.assign", (record,), assignee="Kim")
        assert "Assigned ticket Laptop slow to Kim." in words(assigned)
        same = await bench.say("Give it to Kim", "ticket.assign", (record,), assignee="Kim")
        assert same.results["a1"].status.value == "no_change" and same.commands == ()
        await bench.say(
            "Note: RAM upgrade ordered", "ticket.comment", (record,), text="RAM upgrade ordered"
        )
        assert (await bench.state(record))["comments"] == ["RAM upgrade ordered"]

    anyio.run(main)
