"""Recorded turns read again: the same reading is the same plan, another one is reported exactly.

The recorded traffic is ``shadow_traffic``'s (a commit, an ambiguity card, its click, a
new record); the shadow readings are the turns' own calls (``recorded_calls``) or
scripted tables that read a message otherwise (docs/shadow.md).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from shadow_traffic import ACTOR, TODAY, TURNS, handle_of

from turnframe.core import CaseRef, ProposedTarget, SemanticAct, Understanding
from turnframe.core.errors import UsageError
from turnframe.eval.shadow import NO_ANSWER, NO_BRIEF, ShadowReport, recorded_calls, shadow_turns
from turnframe.eval.shadow_diff import ShadowDifference, plan_differences, plan_side
from turnframe.eval.shadow_input import OUTSIDE, shadow_reduction
from turnframe.providers import ScriptedProvider
from turnframe.runtime.reduce import reduce_turn
from turnframe.runtime.replay import recorded_brief, recorded_seen, reduction_input
from turnframe.runtime.snapshots import snapshot_of
from turnframe.samples.travel import travel_application
from turnframe.store.readonly import open_sqlite_readonly

UNIT = {"kind": "request", "hypothetical": False, "continues": None}
ROUTE = {"topic": None, "constraint": None, "card": None, "corrects": None, "cancels": None}
OK = {"verdict": "ok", "grounding": "user", "findings": []}


def table(to: int, operation: str, locate: Any, values: list[dict[str, Any]]) -> dict[str, Any]:
    """A scripted reading of one unit (words 0..to) as ``operation``."""
    out: dict[str, Any] = {
        "segment": {"units": [{"id": "u1", "from": 0, "to": to, **UNIT}]},
        "route": {"routes": [{"unit": "u1", "operations": [operation], **ROUTE}]},
        "extract": [{"values": values}],
        "verify": OK,
    }
    if locate is not None:
        out["locate"] = [locate]
    return out


def shadow(path: Path, provider: Any, turns: tuple[str, ...] = TURNS) -> ShadowReport:
    async def go() -> ShadowReport:
        store = open_sqlite_readonly(path)
        try:
            return await shadow_turns(
                travel_application(), store, provider, turns, account=ACTOR.account, model="t"
            )
        finally:
            await store.close()

    return anyio.run(go)


def test_the_recorded_reading_gives_the_recorded_plan_for_every_turn(recorded_db: Path) -> None:
    report = shadow(recorded_db, recorded_calls)
    status = {t.turn_id: t.status for t in report.turns}
    assert status == {
        "t-rename": "same",
        "t-cancel": "same",
        "t-click": "skipped",
        "t-confirm": "skipped",
        "t-start": "same",
    }
    for click in report.turns[2:4]:
        assert click.reason == NO_BRIEF and click.model_calls == 0
    for turn in report.turns:
        assert turn.differences == [] and turn.outside == []
        if turn.status == "same":
            assert turn.replay_same is True and turn.model_calls > 0 and turn.prompt_tokens > 0
            assert turn.recorded_model == "scripted:scripted"
    totals = report.totals
    assert (totals.turns, totals.read, totals.same, totals.different) == (5, 3, 3, 0)
    assert (totals.outside, totals.skipped) == (0, 2)
    assert totals.by_dimension == {"acts": 0, "targets": 0, "results": 0, "commands": 0}
    assert totals.model_calls == sum(t.model_calls for t in report.turns)
    assert totals.prompt_tokens == sum(t.prompt_tokens for t in report.turns)


def test_a_reading_with_other_values_is_reported_exactly(recorded_db: Path) -> None:
    find = {"handles": [], "find": {"from": 1, "to": 3, "copy": "the Porto trip"}}
    short = table(
        6, "trip.rename", find, [{"argument": "name", "from": 5, "to": 5, "copy": "Summer"}]
    )
    report = shadow(recorded_db, ScriptedProvider(short), ("t-rename",))
    (turn,) = report.turns
    assert turn.status == "different"
    act = {"act": "a1", "operation": "trip.rename", "hypothetical": False}
    command = {"operation": "trip.rename", "case": "trip/t3"}
    assert turn.differences == [
        ShadowDifference(
            dimension="acts", change="removed", item={**act, "args": {"name": "Summer Offsite"}}
        ),
        ShadowDifference(
            dimension="acts", change="added", item={**act, "args": {"name": "Summer"}}
        ),
        ShadowDifference(
            dimension="commands",
            change="removed",
            item={**command, "arguments": {"name": "Summer Offsite"}},
        ),
        ShadowDifference(
            dimension="commands", change="added", item={**command, "arguments": {"name": "Summer"}}
        ),
    ]
    assert report.totals.by_dimension == {"acts": 1, "targets": 0, "results": 0, "commands": 1}
    assert report.totals.different == 1 and turn.model_calls > 0


def test_a_new_record_keeps_the_recorded_case_id(recorded_db: Path) -> None:
    other = table(5, "trip.start", None, [{"argument": "name", "from": 4, "to": 4, "copy": "Oslo"}])
    (turn,) = shadow(recorded_db, ScriptedProvider(other), ("t-start",)).turns
    commands = [d for d in turn.differences if d.dimension == "commands"]
    assert [(d.change, d.item["case"], d.item["arguments"]["name"]) for d in commands] == [
        ("removed", "trip/trip-1", "Oslo Summit"),
        ("added", "trip/trip-1", "Oslo"),
    ]
    assert not [d for d in turn.differences if d.dimension in ("targets", "results")]


def test_a_record_without_seen_names_a_record_the_turn_did_not_read_as_outside(
    recorded_db: Path,
) -> None:
    # A record written before ``seen`` (the key dropped from a copy: a test-only write):
    # the ambiguous reading read no snapshot, so naming one Lisbon trip by its handle
    # would need that trip's state at the time, which such a record does not hold.
    conn = sqlite3.connect(recorded_db)
    conn.execute("UPDATE replays SET record = json_remove(record, '$.seen')")
    conn.commit()
    conn.close()
    h = handle_of("t-cancel", "T1")
    chosen = table(3, "trip.cancel", {"handles": [h], "find": None}, [])
    (turn,) = shadow(recorded_db, ScriptedProvider(chosen), ("t-cancel",)).turns
    assert turn.status == "outside" and turn.replay_same is None
    assert turn.outside == [
        f"a1: {OUTSIDE} (the case of handle {h} was not read by the recorded turn)"
    ]
    assert all(d.dimension == "acts" for d in turn.differences)
    # The old records still read again as they were.
    report = shadow(recorded_db, recorded_calls)
    assert [t.status for t in report.turns] == ["same", "same", "skipped", "skipped", "same"]


def test_words_the_recorded_turn_did_not_look_up_are_outside(recorded_db: Path) -> None:
    find = {"handles": [], "find": {"from": 2, "to": 2, "copy": "Porto"}}
    words = table(
        6, "trip.rename", find, [{"argument": "name", "from": 5, "to": 6, "copy": "Summer Offsite"}]
    )
    (turn,) = shadow(recorded_db, ScriptedProvider(words), ("t-rename",)).turns
    assert turn.status == "outside"
    assert turn.outside == [f"a1: {OUTSIDE} (words to look up ('Porto') the recorded turn did not)"]
    # Only the way the record was named differs: the acts (operation, values) are the same.
    assert turn.differences == []


def test_unknown_turns_and_an_empty_selection_are_usage_errors(recorded_db: Path) -> None:
    with pytest.raises(UsageError, match="no turn 'nope'"):
        shadow(recorded_db, recorded_calls, ("t-rename", "nope"))
    with pytest.raises(UsageError, match="at least one turn"):
        shadow(recorded_db, recorded_calls, ())


def test_handles_that_name_two_read_records_plan_a_choice(recorded_db: Path) -> None:
    """The resolver on the record: two read records both fit, so the target is ambiguous."""

    async def go() -> tuple[Any, Any, Any]:
        store = open_sqlite_readonly(recorded_db)
        try:
            record: Any = await store.load_replay(ACTOR.account, "t-rename")
            t2 = await store.load_case(CaseRef("trip", "t2"))
        finally:
            await store.close()
        return record, t2, recorded_brief(record)

    record, t2, brief = anyio.run(go)
    registry = travel_application().registry
    recorded = reduction_input(record["reduction"]["input"], registry)
    # As if the recorded reduction had read trip t2 too (its snapshot from the stored row).
    snap = snapshot_of(registry, t2.case, t2, TODAY, recorded.locale)
    widened = replace(recorded, snapshots={**recorded.snapshots, t2.case: snap})
    act = SemanticAct(
        id="a1",
        operation="trip.rename",
        target=ProposedTarget(handles=(handle_of("t-rename", "T3"), handle_of("t-rename", "T2"))),
        args={"name": "Summer Offsite"},
        evidence={"name": "Summer Offsite"},
    )
    built = shadow_reduction(widened, Understanding(acts=(act,)), brief, registry)
    assert built.reduction is not None and built.outside == ()
    (given,) = built.reduction.acts
    assert given.resolution is not None and given.resolution.kind == "ambiguous"
    plan = reduce_turn(built.reduction, registry)
    before = plan_side(recorded.understanding, recorded.acts, (), reduce_turn(recorded, registry))
    after = plan_side(built.reduction.understanding, built.reduction.acts, (), plan)
    changed = {d.dimension for d in plan_differences(before, after)}
    assert changed == {"targets", "results", "commands"}
    (result,) = plan.results
    assert result.status.value == "needs_clarification" and plan.batches == ()


def test_recorded_calls_that_no_longer_answer_are_a_skipped_turn_not_an_outage(
    recorded_db: Path,
) -> None:
    # A damaged copy: t-rename's recorded calls are gone (a test-only write to a copy).
    conn = sqlite3.connect(recorded_db)
    conn.execute(
        "UPDATE replays SET record = json_set(record, '$.calls', json('[]')) WHERE turn_id = ?",
        ("t-rename",),
    )
    conn.commit()
    conn.close()
    report = shadow(recorded_db, recorded_calls, ("t-rename", "t-start"))
    damaged, whole = report.turns
    assert damaged.status == "skipped" and damaged.reason is not None
    assert damaged.reason.startswith(NO_ANSWER)
    assert whole.status == "same"


def test_a_seen_record_at_its_seen_revision_is_read_and_one_moved_on_is_outside(
    recorded_db: Path,
) -> None:
    # t-cancel saw both Lisbon trips at revision 1 (its record's own ``seen``);
    # t-confirm then cancelled one of them.
    conn = sqlite3.connect(recorded_db)
    (raw,) = conn.execute("SELECT record FROM replays WHERE turn_id = 't-cancel'").fetchone()
    revisions = dict(conn.execute("SELECT case_id, revision FROM cases WHERE workflow = 'trip'"))
    conn.close()
    seen = recorded_seen(json.loads(raw))
    assert seen[CaseRef("trip", "t1")] == seen[CaseRef("trip", "t2")] == 1
    moved = next(k for k in ("t1", "t2") if revisions[k] == 2)
    kept = next(k for k in ("t1", "t2") if revisions[k] == 1)

    def reading(key: str) -> ScriptedProvider:
        h = handle_of("t-cancel", key.upper())
        return ScriptedProvider(table(3, "trip.cancel", {"handles": [h], "find": None}, []))

    (turn,) = shadow(recorded_db, reading(kept), ("t-cancel",)).turns
    assert turn.status == "different" and turn.outside == []
    targets = [
        (d.change, d.item["target"]["kind"]) for d in turn.differences if d.dimension == "targets"
    ]
    assert targets == [("removed", "ambiguous"), ("added", "exact")]
    added = [d.item for d in turn.differences if d.dimension == "targets" and d.change == "added"]
    assert added[0]["target"]["case"] == f"trip/{kept}"
    results = [(d.change, d.item["status"]) for d in turn.differences if d.dimension == "results"]
    assert results[0] == ("removed", "needs_clarification") and results[1][0] == "added"
    (turn,) = shadow(recorded_db, reading(moved), ("t-cancel",)).turns
    h = handle_of("t-cancel", moved.upper())
    assert turn.status == "outside"
    assert turn.outside == [
        f"a1: {OUTSIDE} (the case of handle {h} moved on since the turn (revision 1 then, 2 now))"
    ]


def test_a_reducer_reading_an_unrecorded_case_is_outside_and_a_failure_is_shown(
    recorded_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import turnframe.eval.shadow as module

    real = module.reduce_turn
    raised: list[Exception] = [KeyError(CaseRef("trip", "t9")), RuntimeError("boom")]
    calls: list[int] = []

    def new_reading_fails(inp: Any, registry: Any) -> Any:
        # Each turn reduces twice: the recorded input again, then the new reading's.
        calls.append(1)
        if len(calls) % 2:
            return real(inp, registry)
        raise raised.pop(0)

    monkeypatch.setattr(module, "reduce_turn", new_reading_fails)
    first, second = shadow(recorded_db, recorded_calls, ("t-rename", "t-start")).turns
    assert first.status == "outside"
    assert first.outside == [
        f"{OUTSIDE}: the reducer read case trip/t9, which the recorded turn did not"
    ]
    assert second.status == "skipped"
    assert second.reason == "the reducer failed on this reading: RuntimeError: boom"
    assert len(calls) == 4 and raised == []
