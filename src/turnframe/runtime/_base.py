"""Shared state of the turn pipeline's parts (attributes, snapshots, events)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date

from turnframe.core.ids import CaseRef
from turnframe.core.ports import CaseDirectory
from turnframe.core.turn import (
    TurnEvent,
)
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.app import Application
from turnframe.runtime.metrics import Metrics
from turnframe.runtime.plan import CaseSnapshot
from turnframe.runtime.ports import Clock, IdSource
from turnframe.store.base import TurnStore
from turnframe.understand.base import Understander

__all__: list[str] = []


log = logging.getLogger("turnframe.runtime")

_STANDING = "standing_do_not_submit"


class _RuntimeBase:
    """Attributes every part of :class:`~turnframe.runtime.Runtime` reads."""

    app: Application
    registry: WorkflowRegistry
    store: TurnStore
    understander: Understander | None
    clock: Clock
    ids: IdSource
    directory: CaseDirectory
    metrics: Metrics
    _listeners: list[Callable[[TurnEvent], None]]

    async def _snapshot(self, case: CaseRef, today: date, locale: str) -> CaseSnapshot:
        row = await self.store.load_case(case)
        erased = self.registry.workflow(case.workflow)
        state_json = row.state if row else None
        typed = erased.typed(state_json)
        return CaseSnapshot(
            case=case,
            state=typed,
            state_json=state_json,
            revision=row.revision if row else 0,
            view=erased.definition.project(typed, today),
            label=erased.definition.candidate_label(case, typed, locale),
        )

    def _emit(self, event: TurnEvent) -> None:
        for listener in list(self._listeners):
            listener(event)


# ------------------------------------------------------------------------ helpers
