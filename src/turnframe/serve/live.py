"""A turn's event buffer: what :meth:`LiveTurn.events` replays and then follows live.

Every event a turn emits is kept in order with its ``seq`` (from 1), so a client that
reconnects with ``Last-Event-ID: N`` gets exactly the events after ``N``
(docs/serving.md "Streaming"). The buffer ends with ``finished`` (the turn's
:class:`~turnframe.serve.models.TurnView`) or with a :class:`~turnframe.serve.models.Problem`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio

from turnframe.core.turn import TurnBlocks, TurnEvent, TurnFinished
from turnframe.serve.errors import ProblemError
from turnframe.serve.models import Problem, TurnView
from turnframe.serve.state import StreamEvent

__all__ = ["BufferedTurn", "ReplayedTurn"]


class BufferedTurn:
    """A :class:`~turnframe.serve.state.LiveTurn` whose events are buffered in memory.

    Args:
        turn_id: the turn.
        conversation_id: its conversation.
        fingerprint: what the request asked (same key + same fingerprint: the same turn).
        actor_key: ``(account, user)`` of who started it.
        created: ``False`` when the turn was found (a retried key), not started here.

    The turn's task calls :meth:`push` for each runtime event, then :meth:`finish` or
    :meth:`fail` exactly once; readers never block the task (the buffer is unbounded
    but a turn emits a few dozen events).
    """

    def __init__(
        self,
        turn_id: str,
        conversation_id: str,
        *,
        fingerprint: str = "",
        actor_key: tuple[str, str] = ("", ""),
        created: bool = True,
    ) -> None:
        self.turn_id = turn_id
        self.conversation_id = conversation_id
        self.fingerprint = fingerprint
        self.actor_key = actor_key
        self.created = created
        self._events: list[StreamEvent] = []
        self._changed = anyio.Event()
        self._view: TurnView | None = None
        self._problem: ProblemError | None = None

    @property
    def done(self) -> bool:
        """Whether the turn has finished or failed (its stream is complete)."""
        return self._view is not None or self._problem is not None

    @property
    def last_seq(self) -> int:
        """The seq of the last event so far (0: none yet)."""
        return len(self._events)

    @property
    def problem(self) -> ProblemError | None:
        """The error the turn ended with, or ``None``."""
        return self._problem

    def push(self, event: TurnEvent) -> None:
        """Append a runtime event (a phase or a step) and wake the readers."""
        if self.done:
            return
        self._append(event)

    def finish(self, view: TurnView) -> None:
        """End the stream with ``blocks`` (committed) then ``finished`` (``view``)."""
        if self.done:
            return
        self._append(TurnBlocks(turn_id=view.turn_id, blocks=tuple(view.blocks)))
        self._view = view
        self._append(TurnFinished(turn_id=view.turn_id))

    def fail(self, error: ProblemError) -> None:
        """End the stream with ``error``'s problem (the last event)."""
        if self.done:
            return
        self._problem = error
        self._append(error.problem)

    def _append(self, event: TurnEvent | Problem) -> None:
        self._events.append(StreamEvent(seq=len(self._events) + 1, event=event))
        changed, self._changed = self._changed, anyio.Event()
        changed.set()

    def since(self, after: int) -> list[StreamEvent]:
        """Return the events so far with ``seq > after`` (no waiting)."""
        return self._events[max(after, 0) :]

    async def changed(self) -> None:
        """Return when the next event arrives (or at once if the stream is complete)."""
        if not self.done:
            await self._changed.wait()

    async def events(self, after: int = 0) -> AsyncIterator[StreamEvent]:
        """Yield the events with ``seq > after``: the buffered ones, then live ones.

        Ends after ``finished`` or the problem. ``after`` beyond the last event of a
        finished turn yields nothing.
        """
        index = max(after, 0)
        while True:
            while index < len(self._events):
                yield self._events[index]
                index += 1
            if self.done:
                return
            await self._changed.wait()

    async def result(self) -> TurnView:
        """Wait for the turn; return its reply.

        Raises:
            ProblemError: the turn failed (its problem).
        """
        while not self.done:
            await self._changed.wait()
        if self._problem is not None:
            raise self._problem
        assert self._view is not None
        return self._view

    @property
    def view(self) -> TurnView | None:
        """The reply once finished, else ``None``."""
        return self._view


class ReplayedTurn:
    """A known turn found again under its ``Idempotency-Key``: ``created`` is ``False`` (200)."""

    def __init__(self, live: BufferedTurn) -> None:
        self._live = live
        self.turn_id = live.turn_id
        self.conversation_id = live.conversation_id
        self.created = False

    def events(self, after: int = 0) -> AsyncIterator[StreamEvent]:
        """Yield the turn's events after ``after`` (:meth:`BufferedTurn.events`)."""
        return self._live.events(after)

    @property
    def buffered(self) -> BufferedTurn:
        """The turn's buffer."""
        return self._live

    async def result(self) -> TurnView:
        """Wait for the turn and return its reply (:meth:`BufferedTurn.result`)."""
        return await self._live.result()
