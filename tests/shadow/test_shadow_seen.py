"""The replay record's ``seen`` pairs: written by the runtime for every case a turn loaded,
read back by ``recorded_seen`` as data (well-formed pairs only, never a crash)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter
from shadow_traffic import ACTOR, TODAY, TURNS, record_turns

from turnframe.core import CaseRef
from turnframe.runtime.parts import handle
from turnframe.runtime.replay import recorded_brief, recorded_seen, reduction_input
from turnframe.runtime.turn import PreparedTurn
from turnframe.runtime.turn_writes import REPLAY_ONLY, plan_json, replay_first
from turnframe.samples.travel import travel_application

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=10,
)
PAIR = st.tuples(
    st.sampled_from(["trip", "traveler"]), st.sampled_from(["t1", "t2", "p1"]), st.integers(0, 9)
)


@given(JSON)
def test_any_json_reads_without_error(seen: Any) -> None:
    out = recorded_seen({"seen": seen})
    assert all(isinstance(c, CaseRef) and isinstance(r, int) for c, r in out.items())


@given(st.lists(PAIR, max_size=6), st.lists(JSON, max_size=4))
def test_well_formed_pairs_are_read_and_the_rest_left_out(pairs: Any, noise: Any) -> None:
    junk = [n for n in noise if not (isinstance(n, list) and len(n) == 2 and isinstance(n[0], str))]
    seen = [[f"{w}/{c}", r] for w, c, r in pairs] + junk
    expected = {CaseRef(w, c): r for w, c, r in pairs}
    assert recorded_seen({"seen": seen}) == expected
    assert recorded_seen({}) == {} and recorded_seen(None) == {}


def test_each_turn_records_every_case_it_loaded_at_the_revision_it_had(tmp_path: Path) -> None:
    """The runtime writes ``seen``: every case loaded, at its revision before the turn."""
    from turnframe.store.sqlite import SqliteStore

    path = tmp_path / "turns.db"
    before: dict[str, dict[CaseRef, int]] = {}

    async def revisions(turn_id: str) -> None:
        conn = sqlite3.connect(path)
        try:
            rows = conn.execute("SELECT workflow, case_id, revision FROM cases").fetchall()
        finally:
            conn.close()
        before[turn_id] = {CaseRef(w, c): r for w, c, r in rows}

    async def go() -> dict[str, Any]:
        store = await SqliteStore.open(path)
        try:
            await record_turns(store, before=revisions)
            return {t: await store.load_replay(ACTOR.account, t) for t in TURNS}
        finally:
            await store.close()

    records = anyio.run(go)
    registry = travel_application().registry
    minted = 0
    for turn_id, record in records.items():
        raw = record["seen"]
        seen = recorded_seen(record)
        assert len(seen) == len(raw), f"{turn_id}: a case twice or a malformed pair"
        for case, revision in seen.items():
            # A case absent before the turn (minted by it) was seen at revision 0.
            assert revision == before[turn_id].get(case, 0), (turn_id, case)
            minted += case not in before[turn_id]
        brief = recorded_brief(record)
        if brief is not None:
            shown = {handle(turn_id, c) for c in seen}
            assert set(brief.handles) <= shown, turn_id
        reduction = record.get("reduction")
        if reduction:
            read = reduction_input(reduction["input"], registry).snapshots
            assert {c: s.revision for c, s in read.items()}.items() <= seen.items(), turn_id
    assert minted == 1  # t-start's new trip


def test_the_plan_leaves_seen_to_the_replay_record() -> None:
    prepared = PreparedTurn(
        turn_id="t",
        conversation_id="c",
        actor=ACTOR,
        today=TODAY,
        locale="en",
        results=(),
        seen=(("trip/t1", 3), ("trip/t9", 0)),
    )
    assert "seen" in REPLAY_ONLY and "seen" not in plan_json(prepared)
    assert replay_first(prepared)["seen"] == [["trip/t1", 3], ["trip/t9", 0]]
    assert "seen" not in replay_first(replace(prepared, seen=()))
    # A plan stored without it (and one stored before it existed) loads with none.
    assert TypeAdapter(PreparedTurn).validate_python(plan_json(prepared)).seen == ()
