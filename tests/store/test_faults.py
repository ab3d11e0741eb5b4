from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from turnframe.core.errors import UsageError
from turnframe.core.events import EventDraft
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import (
    Interaction,
    InteractionKind,
    InteractionOption,
    InteractionResolution,
    InteractionSpec,
    InteractionStatus,
    OptionMeaning,
)
from turnframe.core.reply import NoticeBlock
from turnframe.store import (
    BOUNDARIES,
    CommitRequest,
    FaultInjectingStore,
    FaultPlan,
    InjectedFault,
    InMemoryStore,
    InteractionCas,
    RevisionConflict,
    TurnRecord,
    TurnStore,
)
from turnframe.store.conformance import StoreConformance
from turnframe.store.sqlite import SqliteStore

A, C = "acct", "conv"
CASE = CaseRef("trip", "t1")


def card(n: int) -> Interaction:
    spec = InteractionSpec(
        kind=InteractionKind.CONFIRM,
        case=CASE,
        prompt="Submit?",
        options=(InteractionOption(id="yes", label="Yes", meaning=OptionMeaning.CONFIRM),),
    )
    return Interaction(
        id=f"card-{n}",
        account=A,
        conversation_id=C,
        turn_id="t1",
        spec=spec,
        payload_hash=spec.payload_hash(),
    )


def request(key: str, expected: int = 0) -> CommitRequest:
    return CommitRequest(
        account=A,
        case=CASE,
        expected_revision=expected,
        state={"rev": expected + 1},
        events=(EventDraft(type="trip.created", data={}, operation="create"),),
        idempotency_key=key,
        request_hash="h",
        turn_id="t1",
    )


CAS = InteractionCas(
    interaction_id="card-1",
    status=InteractionStatus.RESOLVED,
    resolution=InteractionResolution(option_id="yes", turn_id="t2", user="u"),
)

Op = Callable[[TurnStore], Awaitable[object]]

# boundary → (the call that crosses it, an observation of its effect)
CALLS: dict[str, tuple[Op, Op]] = {
    "begin_turn": (
        lambda s: s.begin_turn(TurnRecord(turn_id="t2", account=A, conversation_id=C)),
        lambda s: s.get_turn(A, "t2"),
    ),
    "set_turn_phase": (
        lambda s: s.set_turn_phase("t1", "committing", {"plan": 1}),
        lambda s: s.get_turn(A, "t1"),
    ),
    "create_interaction": (
        lambda s: s.create_interaction(card(2)),
        lambda s: s.open_interactions(A, C),
    ),
    "close_interaction": (
        lambda s: s.close_interaction(CAS),
        lambda s: s.get_interaction(A, C, "card-1"),
    ),
    "commit": (
        lambda s: s.commit(request("k")),
        lambda s: s.lookup_command(A, "k"),
    ),
    "save_reply": (
        lambda s: s.save_reply("t1", (NoticeBlock(code="c", text="t"),)),
        lambda s: s.load_reply(A, "t1"),
    ),
    "save_replay": (
        lambda s: s.save_replay(A, "t1", {"steps": []}),
        lambda s: s.load_replay(A, "t1"),
    ),
    "put_conversation_state": (
        lambda s: s.put_conversation_state(A, C, {"x": 1}),
        lambda s: s.get_conversation_state(A, C),
    ),
}


async def make(kind: str, plan: FaultPlan, tmp_path: Path) -> TurnStore:
    store: TurnStore
    if kind == "memory-wrapped":
        store = FaultInjectingStore(InMemoryStore(), plan)
    elif kind == "memory-builtin":
        store = InMemoryStore(faults=plan)
    else:
        store = FaultInjectingStore(await SqliteStore.open(tmp_path / "f.db"), plan)
    await store.begin_turn(TurnRecord(turn_id="t1", account=A, conversation_id=C))
    await store.create_interaction(card(1))
    return store


KINDS = ["memory-wrapped", "memory-builtin", "sqlite-wrapped"]


def test_every_boundary_has_a_call() -> None:
    assert set(CALLS) | {"commit.ack_lost"} == set(BOUNDARIES)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("boundary", sorted(CALLS))
def test_each_boundary_fires_once_and_writes_nothing(
    kind: str, boundary: str, tmp_path: Path
) -> None:
    call, observe = CALLS[boundary]

    async def main() -> None:
        plan = FaultPlan()
        store = await make(kind, plan, tmp_path)
        try:
            before = await observe(store)
            hits = plan.hits(boundary)
            plan.arm(boundary)
            with pytest.raises(InjectedFault) as caught:
                await call(store)
            assert (caught.value.boundary, caught.value.performed) == (boundary, False)
            assert caught.value.failure.retryable is True
            assert caught.value.failure.effect_may_have_happened is False
            assert await observe(store) == before
            assert plan.fired == (boundary,)
            assert plan.remaining(boundary) == 0
            await call(store)  # fired once: the next call goes through
            assert await observe(store) != before
            assert plan.hits(boundary) == hits + 2
        finally:
            await store.close()

    anyio.run(main)


@pytest.mark.parametrize("kind", KINDS)
def test_ack_lost_performs_the_commit_then_raises(kind: str, tmp_path: Path) -> None:
    async def main() -> None:
        plan = FaultPlan().arm("commit.ack_lost")
        store = await make(kind, plan, tmp_path)
        try:
            with pytest.raises(InjectedFault) as caught:
                await store.commit(request("k"))
            assert (caught.value.boundary, caught.value.performed) == ("commit.ack_lost", True)
            assert caught.value.failure.effect_may_have_happened is True
            assert caught.value.failure.needs_reconciliation is True
            entry = await store.lookup_command(A, "k")  # settled by the key (I13)
            assert entry is not None and entry.result.revision == 1
            again = await store.commit(request("k"))
            assert again == replace(entry.result, replayed=True)
            assert len(await store.case_events(CASE)) == 1
        finally:
            await store.close()

    anyio.run(main)


def test_ack_lost_stays_armed_when_the_commit_itself_fails() -> None:
    async def main() -> None:
        plan = FaultPlan().arm("commit.ack_lost")
        store = FaultInjectingStore(InMemoryStore(), plan)
        with pytest.raises(RevisionConflict):
            await store.commit(request("k", expected=3))
        assert plan.remaining("commit.ack_lost") == 1
        with pytest.raises(InjectedFault):
            await store.commit(request("k"))
        assert plan.fired == ("commit.ack_lost",)

    anyio.run(main)


def test_plan_counts_after_and_times() -> None:
    plan = FaultPlan().arm("save_reply", times=2, after=1)
    assert [plan.should_fail("save_reply") for _ in range(4)] == [False, True, True, False]
    assert plan.hits("save_reply") == 4
    plan.arm("save_replay", times=None)
    assert all(plan.should_fail("save_replay") for _ in range(5))
    assert plan.remaining("save_replay") is None
    plan.disarm("save_replay")
    assert not plan.should_fail("save_replay")
    plan.arm("commit").arm("begin_turn")
    plan.disarm()
    assert not plan.should_fail("commit") and not plan.should_fail("begin_turn")
    assert plan.fired == ("save_reply", "save_reply", *["save_replay"] * 5)


@pytest.mark.parametrize(
    "arming",
    [
        lambda p: p.arm("nonsense"),
        lambda p: p.arm("commit", times=0),
        lambda p: p.arm("commit", after=-1),
        lambda p: p.disarm("nonsense"),
        lambda p: p.should_fail("commit.nope"),
        lambda p: p.hits("x"),
    ],
)
def test_unknown_boundaries_and_bad_counts_are_usage_errors(
    arming: Callable[[FaultPlan], object],
) -> None:
    with pytest.raises(UsageError):
        arming(FaultPlan())


class TestFaultInjectingStoreUnarmed(StoreConformance):
    """The wrapper with an empty plan is itself a conforming store."""

    async def make_store(self) -> TurnStore:
        return FaultInjectingStore(InMemoryStore(), FaultPlan())


class TestInMemoryStoreWithPlan(StoreConformance):
    async def make_store(self) -> TurnStore:
        return InMemoryStore(faults=FaultPlan())
