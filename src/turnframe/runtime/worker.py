"""Running turns from many conversations concurrently, one conversation at a time.

:class:`TurnWorker` runs submitted turns on up to ``concurrency`` tasks. Turns of one
conversation are serialized by a :class:`ConversationLocks` provider:

* :class:`LocalConversationLocks` (default): an :class:`anyio.Lock` per conversation,
  enough for a single process;
* across processes, a store-level lock: the PostgreSQL store's
  ``conversation_lock(account, conversation)`` holds a session advisory lock keyed by
  (account, conversation) on a dedicated connection for the turn's duration, so
  several worker processes on one database still run a conversation's turns one at a
  time, in the order they took the lock.

Serialization gives a conversation one order of turns; correctness never depends on
it. Two turns that race anyway (a second browser, a retry) are settled by the commit's
revision check and the card compare-and-set: one commits, the other is refused or
replays the original outcome (I12, I13, I16).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

import anyio

from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import TurnFailure, TurnframeError
from turnframe.core.ids import Actor, CaseRef
from turnframe.core.turn import TurnInput
from turnframe.runtime.orchestrator import Runtime
from turnframe.runtime.turn import TurnResult
from turnframe.store.errors import StoreError

__all__ = ["ConversationLocks", "LocalConversationLocks", "TurnJob", "TurnOutcome", "TurnWorker"]


class ConversationLocks(Protocol):
    """Serializes the turns of one conversation."""

    def conversation_lock(
        self, account: str, conversation_id: str
    ) -> AbstractAsyncContextManager[None]:
        """Return a context manager held for the turn's duration."""
        ...


class LocalConversationLocks:
    """One :class:`anyio.Lock` per conversation, in this process."""

    def __init__(self) -> None:
        self._locks: dict[tuple[str, str], tuple[anyio.Lock, int]] = {}

    @asynccontextmanager
    async def conversation_lock(self, account: str, conversation_id: str) -> AsyncIterator[None]:
        """Hold the conversation's lock (dropped when nobody waits on it)."""
        key = (account, conversation_id)
        lock, users = self._locks.get(key, (anyio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnJob:
    """A turn to run.

    Attributes:
        actor: who.
        conversation_id: the conversation.
        turn: the input.
        in_view: the records on screen (default ``None``: the brief's default view, ADR 0020).
    """

    actor: Actor
    conversation_id: str
    turn: TurnInput
    in_view: tuple[CaseRef, ...] | None = None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnOutcome:
    """What became of a job: its result, or the classified failure.

    See docs/architecture.md "Failures".
    """

    job: TurnJob
    result: TurnResult | None = None
    error: TurnframeError | None = None


class TurnWorker:
    """Runs turns concurrently across conversations, serialized within one.

    Args:
        runtime: the runtime.
        locks: the per-conversation lock provider (default: in-process locks).
        concurrency: how many turns run at once.
    """

    def __init__(
        self,
        runtime: Runtime,
        *,
        locks: ConversationLocks | None = None,
        concurrency: int = 16,
    ) -> None:
        self.runtime = runtime
        self.locks: ConversationLocks = locks or LocalConversationLocks()
        self.concurrency = concurrency

    async def run_one(self, job: TurnJob) -> TurnOutcome:
        """Run one job under its conversation's lock; failures are returned, not raised."""
        try:
            async with self.locks.conversation_lock(job.actor.account, job.conversation_id):
                result = await self.runtime.run_turn(
                    job.actor,
                    job.conversation_id,
                    job.turn,
                    in_view=None if job.in_view is None else list(job.in_view),
                )
        except (TurnFailure, StoreError) as exc:
            return TurnOutcome(job=job, error=exc)
        return TurnOutcome(job=job, result=result)

    async def run_all(self, jobs: Sequence[TurnJob]) -> list[TurnOutcome]:
        """Run every job (at most ``concurrency`` at once); outcomes in job order."""
        outcomes: list[TurnOutcome | None] = [None] * len(jobs)
        limiter = anyio.Semaphore(self.concurrency)

        async def one(i: int) -> None:
            async with limiter:
                outcomes[i] = await self.run_one(jobs[i])

        async with anyio.create_task_group() as tg:
            for i in range(len(jobs)):
                tg.start_soon(one, i)
        return [o for o in outcomes if o is not None]
