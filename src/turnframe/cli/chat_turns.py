"""Running one chat turn so that Ctrl-C cancels it cleanly (docs/chat.md, "In the chat").

A turn is run inside a cancel scope; Ctrl-C (``SIGINT``, while the turn runs) cancels
it. A cancelled turn is then closed from its stored phase, shielded from a second
cancellation, by :meth:`~turnframe.runtime.Runtime.recover` on a *closing* runtime over
the same store: a turn stored in ``received`` (nothing journaled) is read again by an
understander that proposes nothing, so no model is called and nothing is done; one in
``committing`` resumes its stored plan (commits replay by idempotency key, nothing
executes twice) and its reply is rebuilt from the events; one already ``replied`` is
left as it is. A turn never stays in ``received``.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import anyio

from turnframe.core import Actor, TurnInput, Understanding
from turnframe.core.dataclass_init import fast_init
from turnframe.runtime import Runtime, TurnResult
from turnframe.understand import Brief, UnderstandingResult

__all__ = ["Closed", "ProposeNothing", "closing_runtime", "run_cancellable", "sigint_cancels"]


class ProposeNothing:
    """An understander that proposes nothing and calls no model (closing a cancelled turn)."""

    async def understand(self, brief: Brief) -> UnderstandingResult:
        """Return an empty understanding (zero model calls)."""
        return UnderstandingResult(understanding=Understanding(), model_calls=0)


@fast_init
@dataclass(frozen=True, slots=True)
class Closed:
    """How a cancelled turn was closed.

    Attributes:
        turn_id: the turn.
        phase: its stored phase afterwards (``None``: it was never stored).
        result: the recovered result, when recovery ran.
    """

    turn_id: str
    phase: str | None
    result: TurnResult | None = None


def closing_runtime(runtime: Runtime) -> Runtime:
    """Return a runtime over ``runtime``'s store that closes turns without a model.

    Same application, store, clock, ids and directory; its understander proposes
    nothing (:class:`ProposeNothing`) and it writes the code's own reply words.
    """
    return Runtime(
        runtime.app,
        runtime.store,
        ProposeNothing(),
        clock=runtime.clock,
        ids=runtime.ids,
        directory=runtime.directory,
        metrics=runtime.metrics,
        telemetry=runtime.telemetry,
    )


async def run_cancellable(
    runtime: Runtime,
    closer: Runtime,
    actor: Actor,
    conversation: str,
    turn: TurnInput,
    turn_id: str,
    register: Callable[[anyio.CancelScope | None], None],
) -> TurnResult | Closed:
    """Run one turn; if it is cancelled, close it from its stored phase.

    Args:
        runtime: runs the turn.
        closer: closes a cancelled one (:func:`closing_runtime`).
        actor: who acts.
        conversation: the conversation id.
        turn: the turn's input, as :meth:`Runtime.run_turn` takes it.
        turn_id: the turn's id (chosen by the caller, so a cancelled turn can be found).
        register: called with the turn's cancel scope while it runs, then ``None``
            (the Ctrl-C handler cancels the registered scope).

    Returns:
        The turn's result, or :class:`Closed` when it was cancelled.

    Raises:
        TurnframeError: the turn failed (not cancelled), or closing it failed.
    """
    with anyio.CancelScope() as scope:
        register(scope)
        try:
            return await runtime.run_turn(actor, conversation, turn, turn_id=turn_id)
        finally:
            register(None)
    with anyio.CancelScope(shield=True):
        record = await runtime.store.get_turn(actor.account, turn_id)
        if record is None:
            return Closed(turn_id, None)
        if record.phase == "replied":
            return Closed(turn_id, record.phase)
        result = await closer.recover(actor, turn_id)
        after = await runtime.store.get_turn(actor.account, turn_id)
        return Closed(turn_id, after.phase if after else None, result)
    raise AssertionError(
        "unreachable: a cancelled scope falls through to the closing"
    )  # pragma: no cover


@contextmanager
def sigint_cancels(current: Callable[[], anyio.CancelScope | None]) -> Iterator[None]:
    """While the block runs, Ctrl-C cancels the scope ``current()`` returns.

    Outside the block Ctrl-C raises ``KeyboardInterrupt`` as usual (the chat ends with
    exit status 130). Where the event loop cannot take a signal handler (not the main
    thread, Windows), the block runs without one.
    """

    def cancel() -> None:
        scope = current()
        if scope is not None:
            scope.cancel()

    try:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, cancel)
    except (RuntimeError, NotImplementedError, ValueError):
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)
