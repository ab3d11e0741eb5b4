"""The behaviour docs/guides/interactions.md describes, through the real ``Runtime``.

Each test is cited by the guide next to the sentence it proves: the drawn status machine
names exactly the statuses of ``InteractionStatus``; a card's hash covers its commands'
arguments; a double click is replayed; a foreign or unknown card id reads as missing; a
stale revision is refused and the card re-issued; a superseded or declined card does
nothing more; what a client sends is ids and a revision, never a meaning.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import anyio
import pytest
from guides_kit import EVE, desk, label, words
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from turnframe.core import InteractionResponse
from turnframe.core.interactions import (
    InteractionKind,
    InteractionOption,
    InteractionSpec,
    InteractionStatus,
    OptionMeaning,
    ProposedCommand,
)
from turnframe.serve.models import ClickBody, TurnRequestBody

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "interactions.md"
ADD = "expense_report.add_line"
DINNER = {"description": "Dinner", "amount": "€30"}


def _diagram() -> tuple[set[str], set[tuple[str, str]]]:
    text = GUIDE.read_text(encoding="utf-8")
    block = re.search(r"```mermaid\n(stateDiagram-v2\n.*?)```", text, re.S)
    assert block, "the guide draws the status machine in a mermaid stateDiagram-v2 block"
    edges = set(re.findall(r"^\s*(\[\*\]|\w+)\s*-->\s*(\[\*\]|\w+)", block.group(1), re.M))
    states = {s for edge in edges for s in edge} - {"[*]"}
    return states, edges


def test_the_drawn_status_machine_is_the_codes() -> None:
    states, edges = _diagram()
    assert states == {s.value for s in InteractionStatus}
    # every card starts open; every closed status is final (a click on it replays)
    assert ("[*]", "open") in edges
    assert {a for a, _ in edges} <= {"[*]", "open", *{s.value for s in InteractionStatus}}
    assert {(a, b) for a, b in edges if a not in ("[*]", "open") and b != "[*]"} == set()
    assert {b for a, b in edges if a == "open"} == {s.value for s in InteractionStatus} - {"open"}


def _confirm(arguments: dict[str, str], revision: int = 1) -> InteractionSpec:
    return InteractionSpec(
        kind=InteractionKind.CONFIRM,
        case=None,
        prompt="Please confirm.",
        options=(
            InteractionOption(id="confirm", label="Confirm", meaning=OptionMeaning.CONFIRM),
            InteractionOption(id="decline", label="Cancel", meaning=OptionMeaning.DECLINE),
        ),
        bound_revision=revision,
        operations=(ADD,),
        commands=(ProposedCommand(operation=ADD, arguments=dict(arguments), text="Add it"),),
    )


@settings(max_examples=60)
@given(
    st.dictionaries(st.sampled_from(["description", "amount", "currency"]), st.text(max_size=8)),
    st.sampled_from(["description", "amount", "currency"]),
    st.text(max_size=8),
)
def test_a_cards_hash_changes_when_its_commands_arguments_change(
    arguments: dict[str, str], name: str, value: str
) -> None:
    changed = {**arguments, name: value}
    before, after = _confirm(arguments), _confirm(changed)
    assert (before.payload_hash() == after.payload_hash()) == (arguments == changed)
    assert len(before.payload_hash()) == 64
    # the revision it is bound to and the words it shows are covered too
    assert _confirm(arguments, revision=2).payload_hash() != before.payload_hash()
    reworded = replace(before, commands=(replace(before.commands[0], text="Add that"),))
    assert reworded.payload_hash() != before.payload_hash()


def test_a_double_click_is_replayed() -> None:
    async def main() -> None:
        d = await desk()
        (card,) = (await d.say("Add dinner, 30 euros.", ADD, DINNER)).interactions_created
        first = await d.click(card, "confirm")
        second = await d.click(card, "confirm")
        assert label(first, "a1") == "committed" and len(first.commands) == 1
        assert label(second, "a1") == "committed" and second.commands == ()
        assert second.interactions_created == () and second.events == ()
        assert words(second) == ["That card was already answered; nothing was done again."]
        assert await d.lines() == ["Hotel Avenida", "Taxi", "Dinner"]
        stored = await d.store.get_interaction("acme", "c1", card.id)
        assert stored is not None and stored.status is InteractionStatus.RESOLVED
        assert stored.resolution is not None and stored.resolution.results == {"a1": "committed"}

    anyio.run(main)


def test_a_foreign_card_id_reads_as_missing() -> None:
    async def main() -> None:
        d = await desk()
        (card,) = (await d.say("Add dinner, 30 euros.", ADD, DINNER)).interactions_created
        foreign = await d.click(card, "confirm", actor=EVE)
        elsewhere = await d.click(card, "confirm", conversation="c2")
        unknown = await d.click("card-none", "confirm")
        wrong_option = await d.click(card, "approve")
        for turn in (foreign, elsewhere, unknown, wrong_option):
            assert label(turn, "click") == "rejected:not_found"
            assert words(turn) == words(unknown) and turn.commands == ()
        assert await d.store.get_interaction("other", "c1", card.id) is None
        stored = await d.store.get_interaction("acme", "c1", card.id)
        assert stored is not None and stored.status is InteractionStatus.OPEN
        done = await d.click(card, "confirm")  # the owner's click still works
        assert label(done, "a1") == "committed"

    anyio.run(main)


@pytest.mark.parametrize("how", ["record_changed", "wrong_expected_revision"])
def test_a_stale_revision_is_refused_and_the_card_reissued(how: str) -> None:
    async def main() -> None:
        d = await desk()
        (card,) = (await d.say("Add dinner, 30 euros.", ADD, DINNER)).interactions_created
        if how == "record_changed":
            removed = await d.say(
                "Remove the taxi.", "expense_report.remove_line", {"line": "taxi"}
            )
            assert label(removed, "a1") == "committed"
            stale = await d.click(card, "confirm")
        else:
            stale = await d.click(card, "confirm", expected=(card.spec.bound_revision or 0) + 5)
        assert label(stale, "click") == "rejected:stale" and stale.commands == ()
        # Each cause its own sentence: a wrong revision from the client is not a changed
        # record (the report is unchanged then, and the fresh card shows the same payload).
        assert (
            words(stale)[0]
            == {
                "record_changed": "That card is out of date because the record changed.",
                "wrong_expected_revision": (
                    "That click was sent for a different version of the record than its card "
                    "showed, so nothing was done."
                ),
            }[how]
        )
        (fresh,) = stale.interactions_created
        row = await d.store.load_case(d.report)
        assert row is not None and fresh.spec.bound_revision == row.revision
        assert fresh.payload_hash != card.payload_hash or how == "wrong_expected_revision"
        old = await d.store.get_interaction("acme", "c1", card.id)
        assert old is not None and old.status is InteractionStatus.STALE
        done = await d.click(fresh, "confirm")
        assert label(done, "a1") == "committed" and len(done.commands) == 1
        assert (await d.lines())[-1] == "Dinner"

    anyio.run(main)


def test_a_superseded_or_declined_card_does_nothing_more() -> None:
    async def main() -> None:
        d = await desk()
        (first,) = (await d.say("Add dinner, 30 euros.", ADD, DINNER)).interactions_created
        taxi = {"description": "Taxi back", "amount": "€9"}
        newer = await d.say("Add the taxi back, 9 euros.", ADD, taxi)
        (second,) = newer.interactions_created
        assert "was replaced by a new one" in words(newer)[0]
        late = await d.click(first, "confirm")
        assert label(late, "click") == "rejected:superseded" and late.commands == ()
        declined = await d.click(second, "decline")
        assert label(declined, "a1") == "no_change:declined" and declined.commands == ()
        again = await d.click(second, "confirm")  # a confirm after the decline replays it
        assert label(again, "a1") == "no_change:declined" and again.commands == ()
        assert await d.lines() == ["Hotel Avenida", "Taxi"]

    anyio.run(main)


def test_a_click_carries_ids_and_a_revision_never_a_meaning() -> None:
    assert set(ClickBody.model_fields) == {
        "interaction_id",
        "option_id",
        "expected_revision",
        "value",
    }
    assert set(InteractionResponse.__dataclass_fields__) == {
        "interaction_id",
        "option_id",
        "expected_revision",
        "free_value",
    }
    click = {"interaction_id": "card-1", "option_id": "confirm", "expected_revision": 1}
    assert TurnRequestBody.model_validate({"click": click}).click is not None
    for extra in ("meaning", "label", "operation", "arguments", "case"):
        with pytest.raises(ValidationError):
            TurnRequestBody.model_validate({"click": {**click, extra: "confirm"}})
    for bad in ({**click, "interaction_id": ""}, {**click, "option_id": "x" * 201}):
        with pytest.raises(ValidationError):
            TurnRequestBody.model_validate({"click": bad})
