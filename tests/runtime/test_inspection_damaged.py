"""No damage to a stored record crashes the inspector or its replay (docs/inspector.md).

The defect class: a reader that trusts a record's shape (an ``int`` where an object was,
a list cut short, a key gone) and raises instead of showing what is there. Real records
(a multi-act text turn, a model-chain turn, a click) are damaged at a random place with
a random JSON value; the view and the replay must still be built, and stay JSON.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_inspection import (
    AMBIGUOUS,
    MULTI,
    RENAME,
    Travel,
    ambiguous,
    model_chain,
    multi_act,
)

from turnframe.runtime.inspection import InspectionView, inspection_for, replay_view
from turnframe.store.base import TurnRecord


async def _records() -> tuple[Any, dict[str, tuple[TurnRecord, Any, Any]]]:
    t = Travel()
    await t.seed()
    await t.text(MULTI, "t-multi", multi_act(t))
    first = await t.text(AMBIGUOUS, "t-amb", ambiguous(t))
    card = first.interactions_created[0]
    await t.click(card, card.spec.options[0].id, "t-pick")
    await t.text(RENAME, "t-model", model=model_chain(RENAME))
    out = {}
    for turn_id in ("t-multi", "t-pick", "t-model"):
        turn = await t.store.get_turn("acme", turn_id)
        assert turn is not None
        out[turn_id] = (
            turn,
            await t.store.load_replay("acme", turn_id),
            await t.store.load_reply("acme", turn_id),
        )
    return t.runtime.registry, out


REGISTRY, RECORDS = anyio.run(_records)


class Frozen:
    """A store that answers the inspector's reads from one turn's stored values."""

    def __init__(self, turn: TurnRecord, record: Any, blocks: Any) -> None:
        self.turn, self.record, self.blocks = turn, record, blocks

    async def get_turn(self, account: str, turn_id: str) -> TurnRecord | None:
        return self.turn if turn_id == self.turn.turn_id else None

    async def load_replay(self, account: str, turn_id: str) -> Any:
        return self.record

    async def load_reply(self, account: str, turn_id: str) -> Any:
        return self.blocks

    async def events_by_id(self, ids: Any) -> list[Any]:
        return []

    async def lookup_command(self, account: str, key: str) -> None:
        return None

    async def get_interaction(self, account: str, conversation_id: str, card: str) -> None:
        return None


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 3) | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*at, k))
    elif isinstance(value, list):
        for n, v in enumerate(value):
            out += _paths(v, (*at, n))
    return out


def _damaged(value: Any, path: tuple[Any, ...], new: Any, drop: bool) -> Any:
    if not path:
        return new
    root = copy.deepcopy(value)
    holder = root
    for part in path[:-1]:
        holder = holder[part]
    if drop:
        del holder[path[-1]]
    else:
        holder[path[-1]] = new
    return root


@settings(max_examples=150)
@given(st.sampled_from(sorted(RECORDS)), st.sampled_from(["replay", "input", "data"]), st.data())
def test_a_record_damaged_anywhere_still_gives_a_view_and_a_replay(
    turn_id: str, part: str, data: Any
) -> None:
    turn, record, blocks = RECORDS[turn_id]
    target = {"replay": record, "input": turn.input, "data": turn.data}[part]
    path = data.draw(st.sampled_from(_paths(target)), label="path")
    drop = bool(path) and data.draw(st.booleans(), label="drop")
    new = data.draw(JSON, label="value")
    damaged = _damaged(target, path, new, drop)
    if part == "replay":
        store = Frozen(turn, damaged, blocks)
    else:
        fixed = damaged if isinstance(damaged, dict) else {}
        store = Frozen(replace(turn, **{part: fixed}), record, blocks)

    view = anyio.run(inspection_for, store, REGISTRY, "acme", turn_id)
    assert isinstance(view, InspectionView)
    assert InspectionView.model_validate_json(view.model_dump_json()) == view
    for span in view.message.evidence:
        if span.start is not None and span.end is not None:
            assert 0 <= span.start <= span.end <= len(view.message.text or "")
    replayed = replay_view(
        damaged if part == "replay" and isinstance(damaged, dict) else record, REGISTRY
    )
    json.dumps(replayed.model_dump(mode="json"))
    if replayed.same is False:
        assert replayed.diff


@pytest.mark.parametrize("value", [":", "3", 2.5, True, None, [1], {"n": 1}])
def test_a_planned_revision_that_is_no_integer_reads_as_zero(value: Any) -> None:
    """A stored plan's ``expected_revision`` of another JSON type (a string ``":"`` once
    crashed the view): the command is still shown, at revision 0."""
    turn, record, blocks = RECORDS["t-multi"]
    path = ("reduction", "plan", "batches", 0, "envelopes", 0, "expected_revision")
    store = Frozen(turn, _damaged(record, path, value, False), blocks)
    view = anyio.run(inspection_for, store, REGISTRY, "acme", "t-multi")
    revisions = [c.expected_revision for act in view.acts for c in act.commands]
    assert 0 in revisions
