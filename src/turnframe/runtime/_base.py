"""Shared state of the turn pipeline's parts (attributes, snapshots, events)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date
from typing import Any

from turnframe.core.ids import CaseRef
from turnframe.core.ports import CaseDirectory
from turnframe.core.turn import (
    TurnEvent,
)
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.app import Application, NarrationConfig
from turnframe.runtime.metrics import Metrics
from turnframe.runtime.plan import CaseSnapshot
from turnframe.runtime.ports import Clock, IdSource
from turnframe.store.base import CaseRow, TurnStore
from turnframe.understand.base import Understander
from turnframe.understand.reply import ReplyWriter

__all__: list[str] = []


log = logging.getLogger("turnframe.runtime")

_STANDING = "standing_do_not_submit"
_ASKED = "asked"
"""Conversation state: what the last reply asked for (the next message answers it)."""
_WAITING = "waiting_for_records"
"""Conversation state: acts waiting for a record the user named (D6), oldest first."""


class _RuntimeBase:
    """Attributes every part of :class:`~turnframe.runtime.Runtime` reads."""

    app: Application
    registry: WorkflowRegistry
    store: TurnStore
    understander: Understander | None
    reply_writer: ReplyWriter | None
    narration: NarrationConfig
    clock: Clock
    ids: IdSource
    directory: CaseDirectory
    metrics: Metrics
    _listeners: list[Callable[[TurnEvent], None]]

    async def _snapshot(self, case: CaseRef, today: date, locale: str) -> CaseSnapshot:
        row = await self.store.load_case(case)
        typed = self.registry.workflow(case.workflow).typed(row.state if row else None)
        return self._snapshot_of(case, row, typed, today, locale)

    def _snapshot_of(
        self, case: CaseRef, row: CaseRow | None, typed: Any, today: date, locale: str
    ) -> CaseSnapshot:
        """Return the snapshot of ``case`` from its row and the typed state read from it."""
        definition = self.registry.workflow(case.workflow).definition
        return CaseSnapshot(
            case=case,
            state=typed,
            state_json=row.state if row else None,
            revision=row.revision if row else 0,
            view=definition.project(typed, today),
            label=definition.candidate_label(case, typed, locale),
        )

    def _emit(self, event: TurnEvent) -> None:
        for listener in list(self._listeners):
            listener(event)


# ------------------------------------------------------------------------ helpers
