"""Boundary fault injection for any store.

See docs/architecture.md "Stores", "Failures", docs/architecture.md "Stores".

A :class:`FaultPlan` arms failures at the named boundaries of
:data:`turnframe.store.base.BOUNDARIES`. :class:`FaultInjectingStore` wraps any
:class:`~turnframe.store.base.TurnStore` and consults the plan before each boundary
method: an armed boundary raises :class:`~turnframe.store.errors.InjectedFault` *before*
delegating, so the effect never happened. ``commit.ack_lost`` is the other shape: the
inner commit is performed, then its acknowledgement is lost
(``InjectedFault("commit.ack_lost", performed=True)``), the case crash recovery settles
by looking the idempotency key up (I13, I19).

Example::

    plan = FaultPlan().arm("create_interaction").arm("commit.ack_lost", times=2)
    store = FaultInjectingStore(InMemoryStore(), plan)
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from turnframe.core.errors import UsageError
from turnframe.core.events import DomainEvent, OutboxMessage
from turnframe.core.ids import CaseRef, JSONObject
from turnframe.core.interactions import Interaction
from turnframe.core.reply import ReplyBlock
from turnframe.store.base import (
    BOUNDARIES,
    CaseRow,
    CommitRequest,
    CommitResult,
    InteractionCas,
    JournalEntry,
    PlanCommit,
    PlanOutcome,
    TurnRecord,
    TurnReply,
    TurnStore,
)
from turnframe.store.errors import InjectedFault
from turnframe.store.search import DEFAULT_PAGE, CasePage

__all__ = ["FaultInjectingStore", "FaultPlan"]


@dataclass(slots=True)
class _Arming:
    skip: int
    shots: int | None  # None: every hit until disarmed


class FaultPlan:
    """Which boundaries fail, and on which hits.

    A plan is mutable and shared: arm it before or during a scenario, then check
    :attr:`fired` to see what actually failed. Not thread-safe; stores consult it from
    async code only.
    """

    def __init__(self) -> None:
        self._armed: dict[str, _Arming] = {}
        self._hits: dict[str, int] = {}
        self._fired: list[str] = []

    @staticmethod
    def _known(boundary: str) -> str:
        if boundary not in BOUNDARIES:
            raise UsageError(f"unknown fault boundary {boundary!r}; known: {', '.join(BOUNDARIES)}")
        return boundary

    def arm(self, boundary: str, *, times: int | None = 1, after: int = 0) -> FaultPlan:
        """Arm ``boundary`` to fail, replacing any earlier arming of it.

        Args:
            boundary: one of :data:`~turnframe.store.base.BOUNDARIES`.
            times: how many hits fail (≥ 1); ``None`` fails every hit until disarmed.
            after: how many hits pass first (≥ 0), so ``after=2`` fails the third.

        Returns:
            The plan itself, for chaining.

        Raises:
            UsageError: an unknown boundary, ``times < 1`` or ``after < 0``.
        """
        self._known(boundary)
        if times is not None and times < 1:
            raise UsageError(f"times must be at least 1, got {times}")
        if after < 0:
            raise UsageError(f"after must not be negative, got {after}")
        self._armed[boundary] = _Arming(skip=after, shots=times)
        return self

    def disarm(self, boundary: str | None = None) -> None:
        """Disarm one boundary, or every boundary when ``boundary`` is ``None``.

        Raises:
            UsageError: an unknown boundary.
        """
        if boundary is None:
            self._armed.clear()
        else:
            self._armed.pop(self._known(boundary), None)

    def remaining(self, boundary: str) -> int | None:
        """Return how many more hits of ``boundary`` will fail (``None``: unlimited).

        Raises:
            UsageError: an unknown boundary.
        """
        arming = self._armed.get(self._known(boundary))
        if arming is None:
            return 0
        return arming.shots

    def hits(self, boundary: str) -> int:
        """Return how many times ``boundary`` was reached (failed or not).

        Raises:
            UsageError: an unknown boundary.
        """
        return self._hits.get(self._known(boundary), 0)

    @property
    def fired(self) -> tuple[str, ...]:
        """The boundaries that failed, in the order they failed."""
        return tuple(self._fired)

    def should_fail(self, boundary: str) -> bool:
        """Record a hit of ``boundary`` and return whether it must fail now.

        Consumes one shot when it returns ``True``.

        Raises:
            UsageError: an unknown boundary.
        """
        self._hits[self._known(boundary)] = self._hits.get(boundary, 0) + 1
        arming = self._armed.get(boundary)
        if arming is None:
            return False
        if arming.skip > 0:
            arming.skip -= 1
            return False
        if arming.shots is not None:
            arming.shots -= 1
            if arming.shots == 0:
                del self._armed[boundary]
        self._fired.append(boundary)
        return True

    def trip(self, boundary: str, *, performed: bool = False) -> None:
        """Raise :class:`InjectedFault` if ``boundary`` must fail on this hit.

        Args:
            boundary: the boundary being crossed.
            performed: whether the operation already happened (``commit.ack_lost``).

        Raises:
            InjectedFault: the plan armed this hit.
            UsageError: an unknown boundary.
        """
        if self.should_fail(boundary):
            raise InjectedFault(boundary, performed=performed)


class FaultInjectingStore:
    """A :class:`TurnStore` that fails where its :class:`FaultPlan` says, then delegates.

    Works around any store, since it needs nothing but the protocol. Boundary methods
    (those named in ``BOUNDARIES``) consult the plan first; every other method delegates
    unchanged.

    Args:
        inner: the store to delegate to.
        plan: the plan to consult.
    """

    def __init__(self, inner: TurnStore, plan: FaultPlan) -> None:
        self.inner = inner
        self.plan = plan

    async def get_conversation_state(self, account: str, conversation_id: str) -> JSONObject:
        """Delegate (no boundary)."""
        return await self.inner.get_conversation_state(account, conversation_id)

    async def put_conversation_state(
        self, account: str, conversation_id: str, state: JSONObject
    ) -> None:
        """Fail at ``put_conversation_state`` if armed, else delegate.

        Raises:
            InjectedFault: the boundary is armed; nothing was written.
        """
        self.plan.trip("put_conversation_state")
        await self.inner.put_conversation_state(account, conversation_id, state)

    async def begin_turn(self, record: TurnRecord) -> TurnRecord:
        """Fail at ``begin_turn`` if armed, else delegate.

        Raises:
            InjectedFault: the boundary is armed; no turn was persisted.
        """
        self.plan.trip("begin_turn")
        return await self.inner.begin_turn(record)

    async def set_turn_phase(
        self, turn_id: str, phase: str, data: JSONObject | None = None
    ) -> None:
        """Fail at ``set_turn_phase`` if armed, else delegate.

        Raises:
            InjectedFault: the boundary is armed; the phase is unchanged.
        """
        self.plan.trip("set_turn_phase")
        await self.inner.set_turn_phase(turn_id, phase, data)

    async def get_turn(self, account: str, turn_id: str) -> TurnRecord | None:
        """Delegate (no boundary)."""
        return await self.inner.get_turn(account, turn_id)

    async def unfinished_turns(self, account: str | None = None) -> Sequence[TurnRecord]:
        """Delegate (no boundary)."""
        return await self.inner.unfinished_turns(account)

    async def save_reply(self, turn_id: str, blocks: Sequence[ReplyBlock]) -> None:
        """Fail at ``save_reply`` if armed, else delegate.

        Raises:
            InjectedFault: the boundary is armed; no reply was saved.
        """
        self.plan.trip("save_reply")
        await self.inner.save_reply(turn_id, blocks)

    async def load_reply(self, account: str, turn_id: str) -> tuple[ReplyBlock, ...] | None:
        """Delegate (no boundary)."""
        return await self.inner.load_reply(account, turn_id)

    async def conversation_replies(
        self, account: str, conversation_id: str
    ) -> Sequence[tuple[str, tuple[ReplyBlock, ...]]]:
        """Delegate (no boundary)."""
        return await self.inner.conversation_replies(account, conversation_id)

    async def create_interaction(self, interaction: Interaction) -> Interaction:
        """Fail at ``create_interaction`` if armed, else delegate (I6: no card, no text).

        Raises:
            InjectedFault: the boundary is armed; no card was persisted or superseded.
        """
        self.plan.trip("create_interaction")
        return await self.inner.create_interaction(interaction)

    async def get_interaction(
        self, account: str, conversation_id: str, interaction_id: str
    ) -> Interaction | None:
        """Delegate (no boundary)."""
        return await self.inner.get_interaction(account, conversation_id, interaction_id)

    async def open_interactions(self, account: str, conversation_id: str) -> Sequence[Interaction]:
        """Delegate (no boundary)."""
        return await self.inner.open_interactions(account, conversation_id)

    async def close_interaction(self, cas: InteractionCas) -> bool:
        """Fail at ``close_interaction`` if armed, else delegate.

        Raises:
            InjectedFault: the boundary is armed; the card is unchanged.
        """
        self.plan.trip("close_interaction")
        return await self.inner.close_interaction(cas)

    async def load_case(self, case: CaseRef) -> CaseRow | None:
        """Delegate (no boundary)."""
        return await self.inner.load_case(case)

    async def list_cases(self, account: str) -> Sequence[CaseRow]:
        """Delegate (no boundary)."""
        return await self.inner.list_cases(account)

    async def list_cases_page(
        self,
        account: str,
        *,
        workflow: str | None = None,
        cases: Collection[CaseRef] | None = None,
        limit: int = DEFAULT_PAGE,
        after: str | None = None,
        recent: bool = False,
    ) -> CasePage:
        """Delegate (no boundary)."""
        return await self.inner.list_cases_page(
            account, workflow=workflow, cases=cases, limit=limit, after=after, recent=recent
        )

    async def find_cases(
        self,
        account: str,
        words: str,
        *,
        workflow: str | None = None,
        limit: int = DEFAULT_PAGE,
        after: str | None = None,
    ) -> CasePage:
        """Delegate (no boundary)."""
        return await self.inner.find_cases(
            account, words, workflow=workflow, limit=limit, after=after
        )

    async def find_cases_each(
        self, account: str, mentions: Sequence[str], *, limit: int = DEFAULT_PAGE
    ) -> tuple[CasePage, ...]:
        """Delegate (no boundary)."""
        return await self.inner.find_cases_each(account, mentions, limit=limit)

    async def unindexed_cases(
        self, account: str, *, limit: int = DEFAULT_PAGE
    ) -> Sequence[CaseRow]:
        """Delegate (no boundary)."""
        return await self.inner.unindexed_cases(account, limit=limit)

    async def index_case(self, case: CaseRef, revision: int, search_text: str) -> bool:
        """Delegate (no boundary: a lost index write leaves the case unindexed, not wrong)."""
        return await self.inner.index_case(case, revision, search_text)

    async def commit(self, request: CommitRequest) -> CommitResult:
        """Fail at ``commit`` before delegating, or at ``commit.ack_lost`` after it.

        Raises:
            InjectedFault: ``commit`` armed (nothing written, ``performed=False``) or
                ``commit.ack_lost`` armed (the commit happened, ``performed=True``).
            RevisionConflict, IdempotencyKeyReused, InteractionAlreadyResolved: from the
                inner store; an armed ``commit.ack_lost`` stays armed then.
        """
        self.plan.trip("commit")
        result = await self.inner.commit(request)
        self.plan.trip("commit.ack_lost", performed=True)
        return result

    async def lookup_command(self, account: str, idempotency_key: str) -> JournalEntry | None:
        """Delegate (no boundary)."""
        return await self.inner.lookup_command(account, idempotency_key)

    async def case_events(self, case: CaseRef) -> Sequence[DomainEvent]:
        """Delegate (no boundary)."""
        return await self.inner.case_events(case)

    async def events_by_id(self, event_ids: Sequence[str]) -> Sequence[DomainEvent]:
        """Delegate (no boundary)."""
        return await self.inner.events_by_id(event_ids)

    async def outbox_messages(self, status: str | None = None) -> Sequence[OutboxMessage]:
        """Delegate (no boundary)."""
        return await self.inner.outbox_messages(status)

    async def set_outbox_status(self, message_id: str, status: str) -> None:
        """Delegate (no boundary)."""
        await self.inner.set_outbox_status(message_id, status)

    async def save_replay(self, account: str, turn_id: str, record: JSONObject) -> None:
        """Fail at ``save_replay`` if armed, else delegate.

        Raises:
            InjectedFault: the boundary is armed; no replay record was saved.
        """
        self.plan.trip("save_replay")
        await self.inner.save_replay(account, turn_id, record)

    async def load_replay(self, account: str, turn_id: str) -> JSONObject | None:
        """Delegate (no boundary)."""
        return await self.inner.load_replay(account, turn_id)

    async def commit_plan(self, write: PlanCommit) -> PlanOutcome:
        """Cross the boundaries the write folds (before it), delegate, then ``commit.ack_lost``.

        Before: ``set_turn_phase`` (with a plan), ``save_replay`` (with a replay record),
        ``commit`` per request, ``close_interaction`` per close; after: ``commit.ack_lost``
        per request (:data:`~turnframe.store.base.BOUNDARIES`).

        Raises:
            InjectedFault: a boundary before is armed (nothing written) or
                ``commit.ack_lost`` is (everything written, ``performed=True``).
        """
        if write.plan is not None:
            self.plan.trip("set_turn_phase")
        if write.replay is not None:
            self.plan.trip("save_replay")
        for _ in write.requests:
            self.plan.trip("commit")
        for _ in write.closes:
            self.plan.trip("close_interaction")
        outcome = await self.inner.commit_plan(write)
        for _ in write.requests:
            self.plan.trip("commit.ack_lost", performed=True)
        return outcome

    async def finish_turn(self, reply: TurnReply) -> None:
        """Cross the boundaries the write folds, then delegate.

        ``put_conversation_state`` (with a state), ``save_reply``, ``save_replay`` (with
        a replay rest) and ``set_turn_phase``.

        Raises:
            InjectedFault: one of them is armed; nothing was written.
        """
        if reply.conversation_state is not None:
            self.plan.trip("put_conversation_state")
        self.plan.trip("save_reply")
        if reply.replay is not None:
            self.plan.trip("save_replay")
        self.plan.trip("set_turn_phase")
        await self.inner.finish_turn(reply)

    async def close(self) -> None:
        """Close the inner store. Idempotent."""
        await self.inner.close()
