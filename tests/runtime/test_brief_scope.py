"""A turn reads the records it can be about, not the account (docs/adr/0020-what-a-brief-shows.md).

Counted, never timed: the rows a turn reads from the store and the labels it computes
are the same for an account of a handful of records and one of hundreds, and the brief
holds what the ADR lists (in view, the conversation's, cards, carried acts, found by
the user's words).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import replace
from datetime import date
from typing import Any

import anyio
import pytest

from turnframe.core import Actor, CaseRef, TurnInput, UsageError
from turnframe.core.acts import ProposedTarget, SemanticAct, Understanding
from turnframe.core.events import EventDraft
from turnframe.core.workflow import Execution
from turnframe.runtime import BriefLimits, FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import complete_records, seed_order, seed_state, travel_application
from turnframe.samples.travel.traveler import TravelerWorkflow
from turnframe.samples.travel.trip import TripWorkflow
from turnframe.store import InMemoryStore
from turnframe.store.base import CaseRow
from turnframe.store.search import MAX_PAGE
from turnframe.understand import Brief, ScriptedUnderstanding

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))

RECORDS: list[dict[str, Any]] = [
    {"key": "T1", "workflow": "trip", "name": "Lisbon", "start": "2026-05-12", "end": "2026-05-15"},
    {"key": "T3", "workflow": "trip", "name": "Porto", "start": "2026-07-01", "end": "2026-07-04"},
    {"key": "P1", "workflow": "traveler", "full_name": "Kim Lee", "birth_date": "1980-04-02"},
    {"key": "P2", "workflow": "traveler", "full_name": "Ana Silva", "birth_date": "1991-02-10"},
]


def _fillers(n: int) -> list[dict[str, Any]]:
    """Records that share no word of three or more letters with the turns' messages."""
    out: list[dict[str, Any]] = []
    for i in range(n):
        tag = "".join("qxzvw"[int(d)] if int(d) < 5 else "jkyuf"[int(d) - 5] for d in f"{i:04d}")
        if i % 2:
            out.append({"key": f"F{i}", "workflow": "traveler", "full_name": f"Oxq {tag}"})
        else:
            out.append(
                {
                    "key": f"F{i}",
                    "workflow": "trip",
                    "name": f"Zzq {tag}",
                    "start": "2026-09-01",
                    "end": "2026-09-03",
                }
            )
    return out


class CountingStore(InMemoryStore):
    """An in-memory store that counts the case rows every read returns."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: Counter[str] = Counter()

    async def load_case(self, case: CaseRef) -> CaseRow | None:
        row = await super().load_case(case)
        self.rows["load_case"] += 1
        return row

    async def list_cases(self, account: str) -> Sequence[CaseRow]:
        rows = await super().list_cases(account)
        self.rows["list_cases"] += len(rows)
        return rows

    async def list_cases_page(self, account: str, **kw: Any) -> Any:
        page = await super().list_cases_page(account, **kw)  # type: ignore[misc]
        self.rows["list_cases_page"] += len(page.rows)
        return page

    async def find_cases(self, account: str, words: str, **kw: Any) -> Any:
        page = await super().find_cases(account, words, **kw)  # type: ignore[misc]
        self.rows["find_cases"] += len(page.rows)
        return page


def _script(refs: dict[str, CaseRef], seen: list[Brief]) -> Any:
    def read(brief: Brief) -> Understanding:
        seen.append(brief)
        return Understanding(
            acts=(
                SemanticAct(
                    id="a1",
                    operation="trip.rename",
                    target=ProposedTarget(handles=(_handle(brief, refs["T1"]),)),
                    args={"name": "Summer"},
                    evidence={"name": "Summer"},
                ),
                SemanticAct(
                    id="a2",
                    operation="trip.add_traveler",
                    target=ProposedTarget(find="Porto"),
                    args={"traveler": "Ana Silva"},
                    evidence={"traveler": "Ana Silva"},
                ),
            )
        )

    return read


_RUNTIME: list[Runtime] = []


def _handle(brief: Brief, case: CaseRef) -> str:
    return _RUNTIME[-1].handle_for(brief.turn_id, case)


_IN_VIEW = object()
"""``_turn``'s default: the turn runs with the Lisbon trip (T1) in view."""


async def _turn(
    fillers: int, labels: Counter[str], in_view: Any = _IN_VIEW
) -> tuple[CountingStore, Any, Brief]:
    store = CountingStore()
    seen: list[Brief] = []
    refs: dict[str, CaseRef] = {}
    understanding = ScriptedUnderstanding()
    runtime = Runtime(
        travel_application(), store, understanding, clock=FixedClock(TODAY), ids=SequentialIds()
    )
    _RUNTIME.append(runtime)
    for record in seed_order(complete_records(RECORDS + _fillers(fillers))):
        workflow, state = seed_state(record, refs)
        refs[str(record["key"])] = await runtime.seed(
            "acme", workflow, state, case_id=str(record["key"]).lower()
        )
    understanding.push(_script(refs, seen))
    store.rows.clear()
    labels.clear()
    result = await runtime.run_turn(
        ACTOR,
        "c1",
        TurnInput(text="Rename the Lisbon trip to Summer and add Ana Silva to Porto"),
        in_view=[refs["T1"]] if in_view is _IN_VIEW else in_view,
    )
    return store, (result, refs), seen[0]


@pytest.fixture
def labels(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    counted: Counter[str] = Counter()
    for cls in (TripWorkflow, TravelerWorkflow):
        original = cls.candidate_label

        def label(self: Any, case: CaseRef, state: Any, locale: str, _o: Any = original) -> str:
            counted[case.workflow] += 1
            return str(_o(self, case, state, locale))

        monkeypatch.setattr(cls, "candidate_label", label)
    return counted


def test_rows_read_and_labels_made_do_not_grow_with_the_account(labels: Counter[str]) -> None:
    small_store, (small, refs), small_brief = anyio.run(_turn, 6, labels)
    small_labels = sum(labels.values())
    big_store, (big, _), big_brief = anyio.run(_turn, 300, labels)
    big_labels = sum(labels.values())
    # The turn did the same thing on both accounts...
    for result in (small, big):
        assert result.results["a1"].status.value == "committed"
        assert result.results["a2"].status.value == "committed"
    # ...reading the same rows and labelling the same records.
    assert sum(big_store.rows.values()) == sum(small_store.rows.values()), (
        small_store.rows,
        big_store.rows,
    )
    assert big_labels == small_labels
    assert big_store.rows["list_cases"] == 0
    # The brief holds the record in view and those the words find, not the account.
    assert len(big_brief.records) == len(small_brief.records) <= len(RECORDS)
    runtime = _RUNTIME[-1]
    shown = set(big_brief.handles)
    for key in ("T1", "T3", "P2"):  # in view; "Porto"; "Ana", "Silva"
        assert runtime.handle_for(big_brief.turn_id, refs[key]) in shown, key
    assert runtime.handle_for(big_brief.turn_id, refs["P1"]) not in shown


def test_the_conversations_cases_are_briefed_on_its_next_turn(labels: Counter[str]) -> None:
    async def go() -> tuple[Brief, dict[str, CaseRef]]:
        store, (_, refs), _ = await _turn(20, labels)
        runtime = _RUNTIME[-1]
        seen: list[Brief] = []

        def read(brief: Brief) -> Understanding:
            seen.append(brief)
            return Understanding()

        assert isinstance(runtime.understander, ScriptedUnderstanding)
        runtime.understander.push(read)
        await runtime.run_turn(ACTOR, "c1", TurnInput(text="thanks"), in_view=[])
        return seen[0], refs

    brief, refs = anyio.run(go)
    runtime = _RUNTIME[-1]
    shown = set(brief.handles)
    # The turn before renamed T1 and added Ana Silva (P2) to Porto (T3).
    for key in ("T1", "T3"):
        assert runtime.handle_for(brief.turn_id, refs[key]) in shown, key
    assert len(brief.records) <= 4


def _ids(cases: Collection[CaseRef]) -> set[str]:
    return {str(c) for c in cases}


def test_a_record_on_screen_stays_briefed_when_its_word_names_too_many(
    labels: Counter[str],
) -> None:
    # "Lisbon" names many trips here; the one on screen is still offered (the surface's
    # choice, ADR 0020 rule 2), the others are not, and the word is marked unlisted.
    many = [
        {
            "key": f"L{i}",
            "workflow": "trip",
            "name": "Lisbon",
            "start": "2026-09-01",
            "end": "2026-09-03",
        }
        for i in range(25)
    ]

    async def go() -> tuple[Brief, dict[str, CaseRef], Runtime]:
        store = CountingStore()
        seen: list[Brief] = []
        refs: dict[str, CaseRef] = {}

        def read(brief: Brief) -> Understanding:
            seen.append(brief)
            return Understanding()

        runtime = Runtime(
            travel_application(),
            store,
            ScriptedUnderstanding([read, read]),
            clock=FixedClock(TODAY),
            ids=SequentialIds(),
        )
        for record in seed_order(complete_records(RECORDS + many)):
            workflow, state = seed_state(record, refs)
            refs[str(record["key"])] = await runtime.seed(
                "acme", workflow, state, case_id=str(record["key"]).lower()
            )
        await runtime.run_turn(ACTOR, "c1", TurnInput(text="the Lisbon trip"), in_view=[refs["T1"]])
        await runtime.run_turn(ACTOR, "c1", TurnInput(text="the Lisbon trip"), in_view=[])
        return seen[0], refs, runtime

    (brief, refs, runtime) = anyio.run(go)
    shown = set(brief.handles)
    assert runtime.handle_for(brief.turn_id, refs["T1"]) in shown
    assert not any(runtime.handle_for(brief.turn_id, refs[f"L{i}"]) in shown for i in range(25))
    assert brief.unlisted == ("lisbon",)


# ------------------------------------------------------------ the default view (rule 5)
def test_the_default_brief_reads_the_same_rows_whatever_the_account(
    labels: Counter[str],
) -> None:
    """``in_view=None`` over more records than ``BriefLimits.recent``: a bounded, marked brief."""
    recent = travel_application().brief_limits.recent
    small_store, (small, refs), small_brief = anyio.run(_turn, recent + 6, labels, None)
    small_labels = sum(labels.values())
    big_store, (big, _), big_brief = anyio.run(_turn, 300, labels, None)
    big_labels = sum(labels.values())
    for result in (small, big):
        assert result.results["a1"].status.value == "committed"  # T1 by handle: "Lisbon"
        assert result.results["a2"].status.value == "committed"
    assert sum(big_store.rows.values()) == sum(small_store.rows.values()), (
        small_store.rows,
        big_store.rows,
    )
    assert big_labels == small_labels
    assert big_store.rows["list_cases"] == 0
    assert big_store.rows["list_cases_page"] <= recent + len(RECORDS)
    assert small_brief.records_cut and big_brief.records_cut
    assert len(big_brief.records) == len(small_brief.records) <= recent + len(RECORDS)
    runtime = _RUNTIME[-1]
    shown = set(big_brief.handles)
    for key in ("T1", "T3", "P2"):  # "Lisbon"; "Porto"; "Ana", "Silva"
        assert runtime.handle_for(big_brief.turn_id, refs[key]) in shown, key


def test_a_default_view_holding_the_account_briefs_it_whole_in_creation_order(
    labels: Counter[str],
) -> None:
    """An account of at most ``recent`` records: every record, as the whole-account brief did."""
    store, (result, refs), brief = anyio.run(_turn, 6, labels, None)
    assert store.rows["list_cases"] == 0  # one recent page, not a listing
    runtime = _RUNTIME[-1]
    cases = [r.case for r in anyio.run(store.list_cases, "acme")]
    assert len(cases) == len(RECORDS) + 6
    assert list(brief.handles) == [runtime.handle_for(brief.turn_id, c) for c in cases]
    assert not brief.records_cut and brief.unlisted == ()
    assert result.results["a1"].status.value == "committed"


def test_the_default_view_follows_changes_and_hides_what_a_common_word_names() -> None:
    """The newest changes are briefed; one that a too-common word names is left out."""
    many = [
        {"key": f"L{i}", "workflow": "trip", "name": "Lisbon", "start": "2026-09-01"}
        for i in range(6)
    ]

    async def go() -> tuple[list[Brief], dict[str, CaseRef], Runtime]:
        seen: list[Brief] = []
        refs: dict[str, CaseRef] = {}

        def read(brief: Brief) -> Understanding:
            seen.append(brief)
            return Understanding()

        app = replace(travel_application(), brief_limits=BriefLimits(recent=3, found=4))
        runtime = Runtime(
            app,
            InMemoryStore(),
            ScriptedUnderstanding([read, read]),
            clock=FixedClock(TODAY),
            ids=SequentialIds(),
        )
        for record in seed_order(complete_records(RECORDS + many)):
            workflow, state = seed_state(record, refs)
            refs[str(record["key"])] = await runtime.seed(
                "acme", workflow, state, case_id=str(record["key"]).lower()
            )
        for key in ("L0", "P1"):  # changed last: the newest with L5
            await runtime.external_update(
                "acme",
                refs[key],
                source="test",
                reference=key,
                transition=lambda state: Execution(
                    state=state,
                    events=(EventDraft(type="touched", data={}, operation="test.touch"),),
                ),
            )
        await runtime.run_turn(ACTOR, "c1", TurnInput(text="hello there"))
        await runtime.run_turn(ACTOR, "c1", TurnInput(text="the Lisbon trip"))
        return seen, refs, runtime

    (hello, lisbon), refs, runtime = anyio.run(go)

    def briefed(brief: Brief) -> set[str]:
        return {k for k, c in refs.items() if runtime.handle_for(brief.turn_id, c) in brief.handles}

    assert briefed(hello) == {"L0", "L5", "P1"} and hello.records_cut
    # "lisbon" names seven trips (more than found=4): none is briefed, L0 and L5 neither.
    assert briefed(lisbon) == {"P1"} and lisbon.unlisted == ("lisbon",) and lisbon.records_cut


def test_recent_is_validated_like_the_other_limits() -> None:
    for bad in (-1, True, 1.5, MAX_PAGE + 1):
        with pytest.raises(UsageError, match="BriefLimits.recent"):
            BriefLimits(recent=bad)
    assert BriefLimits(recent=0).recent == 0 and BriefLimits(recent=MAX_PAGE).recent == MAX_PAGE
