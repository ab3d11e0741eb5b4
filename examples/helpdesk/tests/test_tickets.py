"""The helpdesk's turns, run scripted through the real runtime and an in-memory store."""

from __future__ import annotations

import anyio

from desk import Desk, words
from helpdesk.workflow import TicketWorkflow


def test_the_workflow_registers_without_problems() -> None:
    assert TicketWorkflow().registration_problems(("en",)) == []


def test_open_then_ambiguity_card_between_two_tickets() -> None:
    async def main() -> None:
        desk = Desk()
        opened = await desk.say(
            "New ticket: printer broken", "ticket.open", title="Printer broken", requester="Ana"
        )
        assert opened.results["a1"].status.value == "committed"
        assert "Opened ticket Printer broken (normal priority)." in words(opened)
        mine = opened.commands[0][1]
        other = await desk.ticket(title="Printer broken", requester="Rui", priority="high")

        asked = await desk.say(
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

        picked = await desk.click(card.id, card.spec.options[0].id, 1)
        assert picked.commands == (("ticket.set_priority", mine),)
        assert (await desk.state(mine))["priority"] == "urgent"
        assert (await desk.state(other))["priority"] == "high"

    anyio.run(main)


def test_close_needs_a_confirmation_and_a_double_click_closes_once() -> None:
    async def main() -> None:
        desk = Desk()
        ticket = await desk.ticket(title="VPN down", requester="Rui")
        asked = await desk.say("Close the VPN ticket", "ticket.close", (ticket,))
        assert asked.results["a1"].status.value == "awaiting_confirmation" and asked.commands == ()
        (card,) = asked.interactions_created
        assert card.spec.kind.value == "confirm" and "Close ticket VPN down" in words(asked)

        first = await desk.click(card.id, "confirm", 1)
        assert first.commands == (("ticket.close", ticket),)
        assert "Closed ticket VPN down." in words(first)
        second = await desk.click(card.id, "confirm", 1)
        assert second.commands == () and "already answered" in words(second)
        closes = [e for e in await desk.store.case_events(ticket) if e.type == "ticket.closed"]
        assert len(closes) == 1

    anyio.run(main)


def test_reopen_a_closed_ticket_and_no_reopen_of_an_open_one() -> None:
    async def main() -> None:
        desk = Desk()
        ticket = await desk.ticket(title="Mail quota", status="closed")
        reopened = await desk.say(
            "Reopen the mail ticket", "ticket.reopen", (ticket,), reason="still full"
        )
        assert reopened.commands == (("ticket.reopen", ticket),)
        assert "Reopened ticket Mail quota." in words(reopened)
        again = await desk.say("Reopen the mail ticket", "ticket.reopen", (ticket,))
        assert again.results["a1"].status.value == "rejected" and again.commands == ()
        assert (await desk.state(ticket))["status"] == "open"

    anyio.run(main)


def test_assign_twice_to_the_same_agent_changes_nothing_and_comments_add_up() -> None:
    async def main() -> None:
        desk = Desk()
        ticket = await desk.ticket(title="Laptop slow")
        assigned = await desk.say("Give it to Kim", "ticket.assign", (ticket,), assignee="Kim")
        assert "Assigned ticket Laptop slow to Kim." in words(assigned)
        same = await desk.say("Give it to Kim", "ticket.assign", (ticket,), assignee="Kim")
        assert same.results["a1"].status.value == "no_change" and same.commands == ()
        await desk.say(
            "Note: RAM upgrade ordered", "ticket.comment", (ticket,), text="RAM upgrade ordered"
        )
        assert (await desk.state(ticket))["comments"] == ["RAM upgrade ordered"]

    anyio.run(main)
