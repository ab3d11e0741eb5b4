"""The store-backed directory answers from the store's pages and word index (issue 9).

Its ``find`` must answer exactly what the full scan it replaced answered (every case read,
typed, its ``search_text`` lower-cased and matched in Python), for every hint; its pages
keep the no-guess rule (``more``); cases committed without a search text are indexed
before a lookup.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import pytest

from turnframe.core import ProposedTarget, SemanticAct, TurnInput, Understanding
from turnframe.core.events import EventDraft
from turnframe.core.ids import Actor, CaseRef
from turnframe.runtime import FixedClock, Runtime, SequentialIds, StoredCaseDirectory
from turnframe.runtime.mention_identity import identify
from turnframe.samples.travel import seed_all, travel_application
from turnframe.store import CommitRequest, InMemoryStore, TurnStore
from turnframe.store.sqlite import SqliteStore
from turnframe.understand import ScriptedUnderstanding

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
_APP = travel_application()
_REGISTRY = _APP.registry

_RECORDS: list[dict[str, Any]] = [
    {"key": "T1", "workflow": "trip", "name": "Porto", "destination": "Porto",
     "start": "2026-07-01", "end": "2026-07-04", "travelers": ["K1"]},
    {"key": "T2", "workflow": "trip", "name": "Lisbon", "start": "2026-05-20",
     "end": "2026-05-22", "status": "cancelled"},
    {"key": "K1", "workflow": "traveler", "full_name": "Kim Lee", "birth_date": "1980-04-02"},
    {"key": "A1", "workflow": "traveler", "full_name": "Ana Silva", "birth_date": "1991-02-10",
     "email": "ana@example.com"},
    {"key": "A2", "workflow": "traveler", "full_name": "Ana Silva", "birth_date": "1975-09-30"},
    {"key": "A3", "workflow": "traveler", "full_name": "Mariana Silva", "status": "deleted"},
    {"key": "O1", "workflow": "traveler", "full_name": "Ana Silva", "account": "other"},
]  # fmt: skip

_MENTIONS = ["ana", "Ana Silva", "silva", "SIL", "mariana", "a", "porto", "lisbon", "july",
             "julho 2026", "ana@example.com", "kim lee", "nobody", "", "  ", "2026",
             "the traveler", "the Porto trip", "trips", "o viajante Kim", "the"]  # fmt: skip
_HINTS: list[tuple[str | None, str | None, str | None]] = [
    (None, None, None),
    ("traveler", None, None),
    ("trip", None, None),
    ("trip", "trip.cancel", None),
    ("trip", "trip.rename", None),
    ("traveler", "traveler.delete", None),
    ("traveler", "trip.add_traveler", "traveler"),
]


@asynccontextmanager
async def _store(kind: str, tmp_path: Path) -> AsyncIterator[TurnStore]:
    store: TurnStore = (
        InMemoryStore() if kind == "memory" else await SqliteStore.open(tmp_path / "d.db")
    )
    try:
        yield store
    finally:
        await store.close()


async def _seed(store: TurnStore) -> dict[str, CaseRef]:
    runtime = Runtime(
        _APP, store, ScriptedUnderstanding(), clock=FixedClock(TODAY), ids=SequentialIds()
    )
    refs = {}
    for key, case, state in seed_all(
        [{k: v for k, v in r.items() if k != "account"} for r in _RECORDS]
    ):
        account = next(r.get("account", ACTOR.account) for r in _RECORDS if r["key"] == key)
        refs[key] = await runtime.seed(account, case.workflow, state, case_id=key)
    return refs


async def _full_scan(
    store: TurnStore,
    workflow: str | None,
    words: str,
    operation: str | None,
    argument: str | None,
) -> list[CaseRef]:
    """The directory's ``find`` before the index: every case read and matched in Python.

    Over the mention's identifying words (articles, determiners and the searched
    workflow's kind words identify nothing, ``turnframe.runtime.mention_identity``);
    none left and a kind word: every record of that workflow.
    """
    mention = identify(_REGISTRY, words, workflow)
    wanted = list(mention.identifying)
    every = mention.every
    found = []
    for row in await store.list_cases(ACTOR.account):
        if mention.workflow is not None and row.case.workflow != mention.workflow:
            continue
        erased = _REGISTRY.workflow(row.case.workflow)
        typed = erased.typed(row.state)
        text = erased.definition.search_text(typed).lower()
        if every is not None:
            if row.case.workflow != every:
                continue
        elif not (wanted and all(w in text for w in wanted)):
            continue
        if operation is not None:
            view = erased.definition.project(typed, TODAY)
            if argument is not None:
                if erased.terminal(view):
                    continue
            elif not erased.fits(view, ACTOR, operation):
                continue
        found.append(row.case)
    return found


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_find_equals_the_full_scan(kind: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with _store(kind, tmp_path) as store:
            await _seed(store)
            directory = StoredCaseDirectory(_REGISTRY, store)
            for mention in _MENTIONS:
                for workflow, operation, argument in _HINTS:
                    expected = await _full_scan(store, workflow, mention, operation, argument)
                    got = await directory.find(
                        ACTOR,
                        workflow,
                        mention,
                        operation=operation,
                        argument=argument,
                        today=TODAY,
                    )
                    assert list(got) == expected, (mention, workflow, operation, argument)

    anyio.run(main)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_find_page_keeps_the_no_guess_rule(kind: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with _store(kind, tmp_path) as store:
            refs = await _seed(store)
            directory = StoredCaseDirectory(_REGISTRY, store)
            one = await directory.find_page(ACTOR, "traveler", "ana silva", limit=1)
            assert one.cases == (refs["A1"],) and one.more
            rest = await directory.find_page(
                ACTOR, "traveler", "ana silva", limit=1, after=one.cursor
            )
            assert rest.cases == (refs["A2"],) and rest.more  # Mariana Silva follows
            # The deleted Mariana does not fit: the filtered answer ends after A2.
            fit = await directory.find_page(
                ACTOR, "traveler", "silva", operation="traveler.delete", today=TODAY, limit=2
            )
            assert fit.cases == (refs["A1"], refs["A2"]) and not fit.more
            single = await directory.find_page(ACTOR, None, "kim", limit=1)
            assert single.cases == (refs["K1"],) and not single.more
            entry, row, typed = single.items[0]
            assert entry.label and row.case == refs["K1"] and typed.full_name == "Kim Lee"

    anyio.run(main)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_page_with_states_filters_and_lists_like_list_with_states(
    kind: str, tmp_path: Path
) -> None:
    async def main() -> None:
        async with _store(kind, tmp_path) as store:
            refs = await _seed(store)
            directory = StoredCaseDirectory(_REGISTRY, store)
            whole = await directory.list_with_states(ACTOR)
            assert [e.case for e, _, _ in whole] == [r.case for r in await store.list_cases("acme")]
            wanted = {refs["A2"], refs["T1"], refs["O1"], CaseRef("trip", "nope")}
            page = await directory.page_with_states(ACTOR, cases=wanted)
            assert page.cases == tuple(c for c in (e.case for e, _, _ in whole) if c in wanted)
            assert not page.more
            assert [tuple(i) for i in page.items] == [t for t in whole if t[0].case in wanted]
            trips = await directory.page_with_states(ACTOR, workflow="trip", limit=1)
            assert trips.cases == (refs["T1"],) and trips.more

    anyio.run(main)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_cases_committed_without_search_text_are_found(kind: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with _store(kind, tmp_path) as store:
            refs = await _seed(store)
            row = await store.load_case(refs["A1"])
            assert row is not None
            # An adopter's commit that does not know the search text unindexes the case.
            state = dict(row.state, full_name="Ana Costa")
            await store.commit(
                CommitRequest(
                    account=ACTOR.account,
                    case=refs["A1"],
                    expected_revision=row.revision,
                    state=state,
                    events=(EventDraft(type="x", data={}, operation="x"),),
                    idempotency_key="k",
                    request_hash="h",
                    turn_id="",
                )
            )
            assert [r.case for r in await store.unindexed_cases(ACTOR.account)] == [refs["A1"]]
            directory = StoredCaseDirectory(_REGISTRY, store)
            assert list(await directory.find(ACTOR, None, "costa")) == [refs["A1"]]
            found = await directory.find(ACTOR, None, "ana silva")
            assert list(found) == [refs["A2"], refs["A3"]]  # Mariana Silva too
            assert list(await store.unindexed_cases(ACTOR.account)) == []

    anyio.run(main)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_runtime_seed_indexes_in_the_commit(kind: str, tmp_path: Path) -> None:
    """``Runtime.seed`` passes the search text: nothing is left to index afterwards."""

    async def main() -> None:
        async with _store(kind, tmp_path) as store:
            await _seed(store)
            assert list(await store.unindexed_cases(ACTOR.account)) == []
            page = await store.find_cases(ACTOR.account, "ana silva")
            assert [r.case.case_id for r in page.rows] == ["A1", "A2", "A3"]

    anyio.run(main)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_turns_commit_carries_the_new_search_text(kind: str, tmp_path: Path) -> None:
    """A turn that renames a trip re-indexes it in its commit, not on a later lookup."""

    async def main() -> None:
        async with _store(kind, tmp_path) as store:
            understander = ScriptedUnderstanding()
            runtime = Runtime(
                _APP, store, understander, clock=FixedClock(TODAY), ids=SequentialIds()
            )
            refs = {}
            for key, case, state in seed_all([r for r in _RECORDS if "account" not in r]):
                refs[key] = await runtime.seed(ACTOR.account, case.workflow, state, case_id=key)

            def read(brief: Any) -> Understanding:
                handle = runtime.handle_for(brief.turn_id, refs["T1"])
                act = SemanticAct(
                    id="a1",
                    operation="trip.rename",
                    target=ProposedTarget(handles=(handle,)),
                    args={"name": "Oporto Autumn"},
                )
                return Understanding(acts=(act,))

            understander.push(read)
            result = await runtime.run_turn(ACTOR, "c", TurnInput(text="rename it"))
            assert [r.status.value for r in result.results.values()] == ["committed"]
            assert list(await store.unindexed_cases(ACTOR.account)) == []
            page = await store.find_cases(ACTOR.account, "autumn")
            assert [r.case for r in page.rows] == [refs["T1"]]

    anyio.run(main)
