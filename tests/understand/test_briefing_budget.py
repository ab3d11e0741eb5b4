"""BriefingBudget: a briefing travels under the deployment's budget, and a cut is marked.

docs/adr/0020-what-a-brief-shows.md: the cut is recorded in the brief
(``BriefRecord.briefing_cut``) and shown to the task (``BRIEFING_CUT_MARK``), never silent.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from understand_kit import ACTOR, travel_runtime

from turnframe.core import TurnInput, UsageError
from turnframe.core.acts import Understanding
from turnframe.runtime import Application, Runtime
from turnframe.understand import Brief, BriefingBudget, BriefRecord, ScriptedUnderstanding
from turnframe.understand.brief import BRIEFING_CUT_MARK, brief_from_json, brief_to_json
from turnframe.understand.units import record_data

LONG = "This record is being planned and several things about it can still change today."


def test_a_briefing_within_the_budget_travels_whole() -> None:
    assert BriefingBudget(per_record=200, total=200).cut([LONG]) == ((LONG, 0),)


def test_a_long_briefing_is_cut_at_a_word_and_the_cut_is_counted() -> None:
    ((kept, cut),) = BriefingBudget(per_record=20, total=1000).cut([LONG])
    assert kept == "This record is being"
    assert cut == len(LONG) - len(kept)


def test_the_total_is_shared_in_record_order_and_a_record_past_it_is_cut_to_nothing() -> None:
    out = BriefingBudget(per_record=1000, total=len(LONG) + 12).cut([LONG, LONG, LONG])
    assert out[0] == (LONG, 0)
    assert out[1] == ("This record", len(LONG) - len("This record"))
    assert out[2] == ("", len(LONG))


@given(
    st.lists(st.text(alphabet="ab \n", max_size=60), max_size=6),
    st.integers(0, 80),
    st.integers(0, 200),
)
def test_nothing_is_ever_lost_silently(texts: list[str], per_record: int, total: int) -> None:
    out = BriefingBudget(per_record=per_record, total=total).cut(texts)
    assert len(out) == len(texts)
    assert sum(len(kept) for kept, _ in out) <= total
    for text, (kept, cut) in zip(texts, out, strict=True):
        assert text.startswith(kept) and len(kept) <= per_record
        assert cut == len(text) - len(kept)  # whatever is not shown is counted


@pytest.mark.parametrize("bad", [-1, 1.5, True, "10"])
def test_a_budget_out_of_range_is_a_usage_error(bad: Any) -> None:
    with pytest.raises(UsageError, match="BriefingBudget"):
        BriefingBudget(per_record=bad)
    with pytest.raises(UsageError, match="BriefingBudget"):
        BriefingBudget(total=bad)


def test_a_task_sees_the_cut_marked_and_an_uncut_briefing_unmarked() -> None:
    cut = BriefRecord(handle="h1", workflow="w", label="L", phase="p", briefing="x", briefing_cut=9)
    whole = BriefRecord(handle="h2", workflow="w", label="L", phase="p", briefing="y")
    gone = BriefRecord(handle="h3", workflow="w", label="L", phase="p", briefing_cut=30)
    shown: Any = record_data([cut, whole, gone])
    assert shown[0]["briefing"] == "x" + BRIEFING_CUT_MARK
    assert shown[0]["briefing_cut"] == "9 characters not shown"
    assert shown[1]["briefing"] == "y" and "briefing_cut" not in shown[1]
    assert shown[2]["briefing"] == BRIEFING_CUT_MARK.strip() or shown[2]["briefing"].endswith(
        BRIEFING_CUT_MARK
    )
    assert shown[2]["briefing_cut"] == "30 characters not shown"


def test_the_replay_record_keeps_the_cut() -> None:
    brief = Brief(
        turn_id="t",
        text="x",
        locale="en",
        today="2026-05-01",
        records=(
            BriefRecord(
                handle="h1", workflow="w", label="L", phase="p", briefing="a", briefing_cut=4
            ),
        ),
        unlisted=("silva",),
    )
    again = brief_from_json(brief_to_json(brief))
    assert again.records[0].briefing_cut == 4
    assert again.unlisted == ("silva",)


# ----------------------------------------------------------------- in a runtime turn
def _brief_of_a_turn(budget: BriefingBudget | None) -> Brief:
    seen: list[Brief] = []

    def read(brief: Brief) -> Understanding:
        seen.append(brief)
        return Understanding()

    async def go() -> None:
        runtime, _, _ = await travel_runtime(ScriptedUnderstanding([read]))
        if budget is not None:
            app = runtime.app
            runtime = Runtime(
                Application(
                    name=app.name,
                    registry=app.registry,
                    knowledge=app.knowledge,
                    briefing_budget=budget,
                ),
                runtime.store,
                runtime.understander,
                clock=runtime.clock,
                ids=runtime.ids,
            )
        await runtime.run_turn(ACTOR, "c1", TurnInput(text="hello"))

    anyio.run(go)
    return seen[0]


def test_the_runtime_cuts_briefings_to_the_deployments_budget_and_marks_it() -> None:
    whole = _brief_of_a_turn(None)
    assert whole.records and all(r.briefing_cut == 0 for r in whole.records)
    longest = max(len(r.briefing) for r in whole.records)
    assert longest > 40
    cut = _brief_of_a_turn(BriefingBudget(per_record=40, total=10_000))
    by_handle = {r.handle: r for r in whole.records}
    assert {r.handle for r in cut.records} == set(by_handle)
    for record in cut.records:
        full = by_handle[record.handle].briefing
        assert full.startswith(record.briefing) and len(record.briefing) <= 40
        assert record.briefing_cut == len(full) - len(record.briefing)
    assert any(r.briefing_cut for r in cut.records)


# ----------------------------------------------------------------- a cut default view
def test_a_cut_default_view_is_marked_where_the_task_reads_the_records() -> None:
    """``Brief.records_cut`` (ADR 0020 rule 5): route and the merged read show the note."""
    from turnframe.understand.brief import RECORDS_CUT_NOTE
    from turnframe.understand.merged import merged_task
    from turnframe.understand.route import route_task
    from turnframe.understand.units import Unit, records_cut_data
    from turnframe.understand.words import Words

    record = BriefRecord(handle="h1", workflow="w", label="L", phase="p")
    whole = Brief(turn_id="t", text="rename it", locale="en", today="2026-05-01", records=(record,))
    cut = Brief(
        turn_id="t",
        text="rename it",
        locale="en",
        today="2026-05-01",
        records=(record,),
        records_cut=True,
    )
    assert records_cut_data(whole) == {} and records_cut_data(cut) == {
        "records_cut": RECORDS_CUT_NOTE
    }
    words = Words.of("rename it")
    units = [Unit(id="u1", kind="request", start=0, end=1)]
    for brief, shown in ((whole, False), (cut, True)):
        route: Any = route_task(brief, words, units, units).data
        merged: Any = merged_task(brief, words, offers=None, check=lambda _a: None).data
        for data in (route, merged):
            assert ("records_cut" in data["data"]) is shown
            assert data["data"]["records"][0]["handle"] == "h1"
    assert brief_from_json(brief_to_json(cut)).records_cut is True
    assert brief_from_json(brief_to_json(whole)).records_cut is False
