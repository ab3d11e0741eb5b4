"""Finishing turns a crashed worker left behind (docs/serving.md "Workers").

On a store whose stalled turns can be taken over (the PostgreSQL store,
:class:`~turnframe.store.takeover.TurnTakeoverStore`), every worker runs a
:class:`~turnframe.runtime.recovery.Recoverer` pass every few seconds: a turn unchanged
for ``recover_idle_seconds`` and unleased is taken over by exactly one process (compare-and-
set on its attempt counter) and resumed from its persisted phase (docs/architecture.md
"Failures"). A turn that restarts from ``received`` is read again with the server's
reader, as it would have been (:class:`ReaderUnderstanding`); its words are the code's.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import anyio

from turnframe.core.errors import TurnframeError, UsageError
from turnframe.runtime import Runtime
from turnframe.runtime.recovery import Recoverer
from turnframe.understand import Brief

__all__ = ["ReaderUnderstanding", "can_take_over", "recover_forever"]

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


async def recover_forever(
    runtime: Runtime, reader: Any, *, every: float, idle_seconds: float
) -> None:
    """Run recovery passes over ``runtime``'s store every ``every`` seconds, until cancelled.

    A failed pass (the store unreachable) is logged and retried on the next one.
    """
    owner = f"turnframe-serve-{os.getpid()}"
    again = Runtime(
        runtime.app,
        runtime.store,
        ReaderUnderstanding(reader),
        clock=runtime.clock,
        narration=runtime.narration,
    )
    store: Any = runtime.store
    recoverer = Recoverer(again, store, owner=owner, idle_seconds=idle_seconds)
    while True:
        try:
            report = await recoverer.recover_stalled()
            if report.recovered or report.dead:
                _log.info("recovered %s, dead-lettered %s", report.recovered, report.dead)
        except TurnframeError as exc:
            _log.warning("a recovery pass failed: %s", exc)
        await anyio.sleep(every)
