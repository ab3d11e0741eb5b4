"""An adopter's WorkflowExecutor, records in its own table (docs/adr/0025-adopter-executors.md).

The executor keeps each case in a dict with its own revisions (numbered from 101, so a
revision the store's copy holds is never mistaken for its own). The runtime must load
every snapshot through it, apply through it, commit through it, and I12 must hold for
its records: a stale revision rejects the act as ``conflict`` with nothing written.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date
from typing import Any

import anyio
import pytest

from turnframe.core import (
    Actor,
    CaseRef,
    InteractionResponse,
    ProposedTarget,
    ResultStatus,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.core.commands import CommandEnvelope
from turnframe.core.ids import JSONObject
from turnframe.core.ports import LoadedCase, Transition
from turnframe.core.turn import TurnPhase
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime import (
    FixedClock,
    Runtime,
    SequentialIds,
    TurnInterrupted,
    apply_commands,
    journal_commit,
)
from turnframe.samples.travel import seed_order, seed_state, travel_application
from turnframe.store import InMemoryStore
from turnframe.store.base import CommitRequest, CommitResult, TurnStore
from turnframe.store.errors import RevisionConflict, StoreUnavailable
from turnframe.understand import Brief, UnderstandingResult

ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
TODAY = date(2026, 5, 1)
RECORDS = [
    {"key": "T1", "workflow": "trip", "name": "Lisbon", "start": "2026-05-12", "end": "2026-05-15"},
    {"key": "T2", "workflow": "trip", "name": "Porto", "start": "2026-06-12", "end": "2026-06-15"},
]


class DictExecutor:
    """Records in a dict with their own revisions; Turnframe's side via ``journal_commit``."""

    def __init__(self, registry: WorkflowRegistry, store: TurnStore) -> None:
        self.registry, self.store = registry, store
        self.rows: dict[CaseRef, tuple[JSONObject, int]] = {}
        self.calls: Counter[str] = Counter()
        self.today, self.turn_id, self.locale = TODAY, "", "en"
        self.before_write: Callable[[CommitRequest], None] | None = None
        self.fail_commits = 0
        self.lock = anyio.Lock()

    def for_turn(self, *, today: date, turn_id: str, locale: str) -> DictExecutor:
        self.calls["for_turn"] += 1
        bound = copy.copy(self)  # shares rows, calls and lock
        bound.today, bound.turn_id, bound.locale = today, turn_id, locale
        return bound

    async def load(self, case: CaseRef) -> LoadedCase:
        self.calls["load"] += 1
        if case not in self.rows:
            return LoadedCase(case=case, state=None, revision=0)
        state, revision = self.rows[case]
        return LoadedCase(case=case, state=copy.deepcopy(state), revision=revision)

    async def load_many(self, cases: Sequence[CaseRef]) -> list[LoadedCase]:
        self.calls["load_many"] += 1
        self.calls["load"] -= len(cases)
        return [await self.load(c) for c in cases]

    async def apply(self, loaded: LoadedCase, commands: Sequence[CommandEnvelope]) -> Transition:
        self.calls["apply"] += 1
        return apply_commands(
            self.registry,
            loaded,
            commands,
            today=self.today,
            turn_id=self.turn_id,
            locale=self.locale,
        )

    async def commit(self, request: CommitRequest) -> CommitResult:
        self.calls["commit"] += 1
        async with self.lock:  # one transaction: nothing interleaves
            if self.fail_commits:
                self.fail_commits -= 1
                raise StoreUnavailable("the adopter's database is down")
            if await self.store.lookup_command(request.account, request.idempotency_key):
                return await journal_commit(self.store, request)  # replay: write nothing
            if self.before_write is not None:
                self.before_write(request)
            _, revision = self.rows.get(request.case, (None, 0))
            if revision != request.expected_revision:
                raise RevisionConflict(request.case, request.expected_revision, revision)
            result = await journal_commit(self.store, request)
            new = revision + 1 if revision else 101
            self.rows[request.case] = (copy.deepcopy(request.state), new)
            return replace(result, revision=new)

    def legacy_write(self, case: CaseRef, change: Callable[[JSONObject], None]) -> None:
        """Another program changes the record: its revision moves on."""
        state, revision = self.rows[case]
        state = copy.deepcopy(state)
        change(state)
        self.rows[case] = (state, revision + 1)


class _Acts:
    def __init__(self, holder: list[Runtime], refs: dict[str, CaseRef]) -> None:
        self.holder, self.refs = holder, refs
        self.acts: list[tuple[str, str, dict[str, Any]]] = []

    async def understand(self, brief: Brief) -> UnderstandingResult:
        rt = self.holder[0]
        acts = tuple(
            SemanticAct(
                id=f"a{i}",
                operation=op,
                target=ProposedTarget(handles=(rt.handle_for(brief.turn_id, self.refs[key]),)),
                args=args,
            )
            for i, (op, key, args) in enumerate(self.acts, 1)
        )
        return UnderstandingResult(understanding=Understanding(acts=acts))


async def _setup(
    explicit: bool = True,
) -> tuple[Runtime, DictExecutor, InMemoryStore, dict[str, CaseRef], _Acts]:
    store = InMemoryStore()
    made: list[DictExecutor] = []

    def factory(registry: WorkflowRegistry, store_: TurnStore) -> DictExecutor:
        made.append(DictExecutor(registry, store_))
        return made[-1]

    app = travel_application()
    refs: dict[str, CaseRef] = {}
    holder: list[Runtime] = []
    acts = _Acts(holder, refs)
    if explicit:
        executor = DictExecutor(app.registry, store)
        runtime = Runtime(
            app, store, acts, clock=FixedClock(TODAY), ids=SequentialIds(), executor=executor
        )
    else:
        runtime = Runtime(
            replace(app, executor=factory),
            store,
            acts,
            clock=FixedClock(TODAY),
            ids=SequentialIds(),
        )
        (executor,) = made
    holder.append(runtime)
    for record in seed_order(RECORDS):
        workflow, state = seed_state(record, refs)
        refs[str(record["key"])] = await runtime.seed("acme", workflow, state)
    return runtime, executor, store, refs, acts


@pytest.mark.parametrize("explicit", [True, False], ids=["argument", "app_factory"])
def test_a_text_turn_loads_applies_and_commits_through_the_adopter_executor(
    explicit: bool,
) -> None:
    async def main() -> None:
        runtime, executor, store, refs, acts = await _setup(explicit)
        assert executor.rows[refs["T1"]][1] == 101  # seeded through its commit
        executor.calls.clear()
        acts.acts = [("trip.add_extra", "T1", {"kind": "insurance"})]
        result = await runtime.run_turn(ACTOR, "c1", TurnInput(text="Add insurance to Lisbon."))
        assert result.results["a1"].status is ResultStatus.COMMITTED
        assert executor.calls["load"] + executor.calls["load_many"] >= 1
        assert executor.calls["apply"] == 1 and executor.calls["commit"] == 1
        assert executor.calls["for_turn"] == 1
        state, revision = executor.rows[refs["T1"]]
        assert revision == 102  # its own numbering, not the store's copy
        assert [e["kind"] for e in state["extras"]] == ["insurance"]  # type: ignore[index,union-attr]
        assert result.commits[0].revision == 102
        # Turnframe's side committed with it: the event and the journal.
        events = [e for e in await store.case_events(refs["T1"]) if e.operation == "trip.add_extra"]
        assert len(events) == 1

    anyio.run(main)


def test_a_stale_adopter_revision_rejects_the_act_as_conflict_and_writes_nothing() -> None:
    async def main() -> None:
        runtime, executor, store, refs, acts = await _setup()

        def behind(request: CommitRequest) -> None:
            executor.before_write = None
            executor.legacy_write(request.case, lambda s: s.__setitem__("name", "Lisboa"))

        executor.before_write = behind  # someone writes the row between plan and commit
        acts.acts = [("trip.add_extra", "T1", {"kind": "insurance"})]
        result = await runtime.run_turn(ACTOR, "c1", TurnInput(text="Add insurance to Lisbon."))
        assert result.results["a1"].status is ResultStatus.REJECTED
        assert result.results["a1"].code == "conflict"
        state, revision = executor.rows[refs["T1"]]
        assert revision == 102 and state["name"] == "Lisboa"
        assert state["extras"] == []
        events = [e for e in await store.case_events(refs["T1"]) if e.operation == "trip.add_extra"]
        assert events == []  # nothing of the stale commit was written

    anyio.run(main)


def test_a_click_on_a_card_bound_to_an_older_adopter_revision_is_stale_as_over_the_store() -> None:
    async def run(adopter: bool) -> tuple[str, str | None, bool]:
        runtime, executor, store, refs, acts = await _setup()
        acts.acts = [("trip.cancel", "T2", {})]
        first = await runtime.run_turn(ACTOR, "c1", TurnInput(text="Cancel Porto."))
        (card,) = first.interactions_created
        assert card.spec.bound_revision == 101  # the executor's revision
        if adopter:
            executor.legacy_write(refs["T2"], lambda s: s.__setitem__("name", "Oporto"))
        click = TurnInput(
            interaction_response=InteractionResponse(
                interaction_id=card.id, option_id="confirm", expected_revision=101
            )
        )
        second = await runtime.run_turn(ACTOR, "c1", click)
        statuses = {r.status.value for r in second.results.values()}
        codes = {r.code for r in second.results.values()}
        cancelled = executor.rows[refs["T2"]][0]["status"] == "cancelled"
        return ",".join(sorted(statuses)), ",".join(sorted(c or "" for c in codes)), cancelled

    async def main() -> None:
        fresh = await run(adopter=False)
        assert fresh[2] is True  # a fresh card confirms through the executor
        stale = await run(adopter=True)
        assert stale[2] is False  # a stale one never executes
        assert stale != fresh

    anyio.run(main)


def test_recovery_commits_through_the_adopter_executor_once() -> None:
    async def main() -> None:
        runtime, executor, store, refs, acts = await _setup()
        executor.fail_commits = 1
        acts.acts = [("trip.add_extra", "T1", {"kind": "insurance"})]
        with pytest.raises(TurnInterrupted) as caught:
            await runtime.run_turn(ACTOR, "c1", TurnInput(text="Add insurance to Lisbon."))
        record = await store.get_turn("acme", caught.value.turn_id)
        assert record is not None and record.phase == TurnPhase.COMMITTING.value
        assert executor.rows[refs["T1"]][1] == 101  # nothing written yet
        result = await runtime.recover(ACTOR, caught.value.turn_id)
        assert result.results["a1"].status is ResultStatus.COMMITTED
        assert executor.rows[refs["T1"]][1] == 102
        again = await runtime.recover(ACTOR, caught.value.turn_id)
        assert again.blocks == result.blocks
        assert executor.rows[refs["T1"]][1] == 102  # once
        events = [e for e in await store.case_events(refs["T1"]) if e.operation == "trip.add_extra"]
        assert len(events) == 1

    anyio.run(main)


def test_snapshots_come_from_the_executor_not_the_stores_copy() -> None:
    async def main() -> None:
        runtime, executor, store, refs, acts = await _setup()
        # The store's copy says "Lisbon"; the adopter's record was renamed elsewhere.
        executor.legacy_write(refs["T1"], lambda s: s.__setitem__("name", "Sintra"))
        acts.acts = [("trip.add_extra", "T1", {"kind": "insurance"})]
        result = await runtime.run_turn(ACTOR, "c1", TurnInput(text="Add insurance."))
        # Planned against the executor's revision 102, so the commit's check passes.
        assert result.results["a1"].status is ResultStatus.COMMITTED
        state, revision = executor.rows[refs["T1"]]
        assert revision == 103 and state["name"] == "Sintra"

    anyio.run(main)
