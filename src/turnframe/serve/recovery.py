"""Finishing turns a crashed worker left behind (docs/serving.md "Workers").

On a store whose stalled turns can be taken over (the PostgreSQL store,
:class:`~turnframe.store.takeover.TurnTakeoverStore`), every worker runs a
:class:`~turnframe.runtime.recovery.Recoverer` pass every few seconds: a turn unchanged
for ``recover_idle_seconds`` and unleased is taken over by exactly one process (compare-and-
set on its attempt counter) and resumed from its persisted phase (docs/architecture.md
"Failures"). A turn that restarts from ``received`` is read again with the server's
reader, as it would have been (:class:`ReaderUnderstanding`); its words are the code's.

A store that cannot take turns over (SQLite) is served by one process only, so a turn
unfinished when the server starts was left by an earlier run: :func:`recover_unfinished`
resumes each once, at start-up.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

import anyio

from turnframe.core.errors import TurnframeError, UsageError
from turnframe.core.ids import Actor
from turnframe.runtime import Runtime
from turnframe.runtime.recovery import Recoverer, default_actor
from turnframe.store.base import TurnRecord
from turnframe.understand import Brief

__all__ = [
    "ReaderUnderstanding",
    "actor_for",
    "can_take_over",
    "recover_forever",
    "recover_unfinished",
]

_log = logging.getLogger("turnframe.serve")


def can_take_over(store: Any) -> bool:
    """Return whether ``store`` can list and take over stalled turns."""
    return all(callable(getattr(store, n, None)) for n in ("stalled_turns", "claim_turn"))


class ReaderUnderstanding:
    """An understander that reads each message with the server's reader (for recovery).

    Args:
        reader: ``message → (understander, reply_writer)`` or a refusal
            (:data:`turnframe.serve.service.Reader`); ``None``: no model.

    Raises:
        UsageError: from :meth:`understand`, for a message the reader refuses.
    """

    def __init__(self, reader: Any) -> None:
        self.reader = reader

    async def understand(self, brief: Brief) -> Any:
        """Return the reading of ``brief.text`` by the understander the reader picks."""
        chosen = self.reader(brief.text) if self.reader is not None else "no model"
        if isinstance(chosen, str):
            raise UsageError(f"a recovered turn's message cannot be read here: {chosen}")
        understander, _writer = chosen
        return await understander.understand(brief)


def _recovering_runtime(runtime: Runtime, reader: Any) -> Runtime:
    return Runtime(
        runtime.app,
        runtime.store,
        ReaderUnderstanding(reader),
        clock=runtime.clock,
        narration=runtime.narration,
        telemetry=runtime.telemetry,
    )


def actor_for(authenticate: Any) -> Callable[[TurnRecord], Actor]:
    """Return who a recovered turn runs as: the authenticator's ``actor_for(record)``, if any.

    A stored turn keeps its account and user but not their roles, so a turn restarted from
    ``received`` runs with no roles (:func:`turnframe.runtime.recovery.default_actor`)
    unless the authenticator says who the record's user is (the development one does).
    """
    hook = getattr(authenticate, "actor_for", None)
    return hook if callable(hook) else default_actor


async def recover_unfinished(
    runtime: Runtime, reader: Any, who: Callable[[TurnRecord], Actor] = default_actor
) -> list[str]:
    """Resume every turn left unfinished by an earlier run of a one-process server.

    Returns:
        The turns finished; a turn that fails again is logged and left (a retry of its
        key answers ``turn_in_progress``).
    """
    again = _recovering_runtime(runtime, reader)
    done: list[str] = []
    try:
        records = await runtime.store.unfinished_turns()
    except TurnframeError as exc:
        _log.warning("unfinished turns could not be listed: %s", exc)
        return done
    for record in records:
        try:
            await again.recover(who(record), record.turn_id)
        except TurnframeError as exc:
            _log.warning("turn %s could not be recovered: %s", record.turn_id, exc)
            continue
        done.append(record.turn_id)
    if done:
        _log.info("recovered %d unfinished turn(s) at start-up", len(done))
    return done


async def recover_forever(
    runtime: Runtime,
    reader: Any,
    *,
    every: float,
    idle_seconds: float,
    who: Callable[[TurnRecord], Actor] = default_actor,
) -> None:
    """Run recovery passes over ``runtime``'s store every ``every`` seconds, until cancelled.

    A failed pass (the store unreachable) is logged and retried on the next one.
    """
    owner = f"turnframe-serve-{os.getpid()}"
    again = _recovering_runtime(runtime, reader)
    store: Any = runtime.store
    recoverer = Recoverer(again, store, owner=owner, idle_seconds=idle_seconds, actor_for=who)
    while True:
        try:
            report = await recoverer.recover_stalled()
            if report.recovered or report.dead:
                _log.info("recovered %s, dead-lettered %s", report.recovered, report.dead)
        except TurnframeError as exc:
            _log.warning("a recovery pass failed: %s", exc)
        await anyio.sleep(every)
