"""The runtime's parts every pipeline step is handed (docs/architecture.md, "One turn").

:class:`RuntimeParts` is a frozen bundle of what a :class:`~turnframe.runtime.Runtime`
holds; each step of :mod:`turnframe.runtime.pipeline` takes it with the step's own input.
The helpers here (snapshots, handles, conversation-state keys) are shared by several steps.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache
from typing import Any

from turnframe.core.canonical import digest
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import Actor, CaseRef
from turnframe.core.ports import CaseDirectory, WorkflowExecutor
from turnframe.core.results import PlannedActResult, ResultStatus
from turnframe.core.turn import TurnEvent, TurnPhase, TurnPhaseChanged
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.app import Application, NarrationConfig
from turnframe.runtime.case_snapshots import SnapshotMemo, row_of, snapshot_through
from turnframe.runtime.metrics import Metrics
from turnframe.runtime.plan import CaseSnapshot
from turnframe.runtime.ports import Clock, IdSource
from turnframe.store.base import CaseRow, TurnStore
from turnframe.telemetry import NO_TELEMETRY, Telemetry
from turnframe.understand.base import Understander
from turnframe.understand.reply import ReplyWriter

__all__ = [
    "ASKED",
    "STANDING",
    "WAITING",
    "RuntimeParts",
    "for_conversation",
    "handle",
    "log",
    "rejected",
    "routed",
    "with_status",
]


log = logging.getLogger("turnframe.runtime")

STANDING = "standing_do_not_submit"
"""Conversation state: a standing "do not submit" holds (ADR 0002)."""
ASKED = "asked"
"""Conversation state: what the last reply asked for (the next message answers it)."""
WAITING = "waiting_for_records"
"""Conversation state: acts waiting for a record the user named (ADR 0007), oldest first."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimeParts:
    """What one turn runs with: the runtime's parts, read when the turn starts.

    Attributes:
        app: the application (workflows and knowledge).
        registry: ``app.registry``.
        store: persistence.
        understander: reads text turns (``None``: click-only turns only).
        reply_writer: writes the reply's words of a text turn (``None``: code's words).
        narration: what is said while a turn is read.
        clock: the turn's today.
        ids: mints turn, case and card ids.
        directory: lists, finds and authorises records.
        executor: an adopter's executor whose records live in its own tables, or
            ``None`` for the store-backed default (``StoredStateExecutor``, the fast
            path): snapshots are then read from the store's case table
            (docs/adr/0025-adopter-executors.md).
        metrics: counters sink.
        listeners: called with every :data:`~turnframe.core.turn.TurnEvent` (the
            runtime's own list, so a subscription made during a turn is honoured).
        turn_listener: called with this turn's events only, after ``listeners``
            (``Runtime.stream_turn``'s queue), or ``None``.
        telemetry: the turn's spans and OpenTelemetry counters (docs/telemetry.md);
            :data:`~turnframe.telemetry.NO_TELEMETRY` by default.
        snapshot_memo: the runtime's cross-turn memo of unchanged snapshots (one per
            :class:`~turnframe.runtime.Runtime`; docs/adr/0020-what-a-brief-shows.md
            rule 8), or ``None``: every snapshot computed afresh.
    """

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
    listeners: list[Callable[[TurnEvent], None]]
    executor: WorkflowExecutor | None = None
    turn_listener: Callable[[TurnEvent], None] | None = None
    telemetry: Telemetry = NO_TELEMETRY
    snapshot_memo: SnapshotMemo | None = None

    async def load_row(self, case: CaseRef) -> CaseRow | None:
        """Return ``case``'s current row: the store's, or the adopter executor's ``load``.

        An adopter's row carries account ``""`` (never taken as the actor's without
        ``CaseDirectory.authorize``, I1).

        Raises:
            StoreError: the store's read failed (or whatever the executor's raises).
        """
        if self.executor is None:
            return await self.store.load_case(case)
        return row_of(await self.executor.load(case))

    @property
    def listening(self) -> bool:
        """Whether :meth:`emit` would call anyone now (build an optional event only then)."""
        return bool(self.listeners) or self.turn_listener is not None

    def emit(self, event: TurnEvent) -> None:
        """Call every listener with ``event``, then this turn's own listener.

        The list is copied first: a listener may unsubscribe.
        """
        for listener in list(self.listeners):
            listener(event)
        if self.turn_listener is not None:
            self.turn_listener(event)

    def phase_changed(self, turn_id: str, phase: TurnPhase) -> None:
        """Tell the listeners that turn ``turn_id`` reached ``phase`` (a :class:`TurnPhaseChanged`).

        The event is built only when someone listens (:attr:`listening`): a subscriber
        (``Runtime.subscribe``) or the turn's own ``on_event``.
        """
        if self.listening:
            self.emit(TurnPhaseChanged(turn_id=turn_id, phase=phase))

    async def snapshot(self, case: CaseRef, today: date, locale: str) -> CaseSnapshot:
        """Read ``case`` from the store and return its projected snapshot.

        A case with no row (a case this turn mints) projects the workflow's empty state.

        Raises:
            StoreError: the read failed.
            RegistryError: ``case`` names an unknown workflow.
        """
        row = await self.load_row(case)
        return self.snapshot_of(case, row, None, today, locale)

    def snapshot_of(
        self, case: CaseRef, row: CaseRow | None, typed: Any, today: date, locale: str
    ) -> CaseSnapshot:
        """Return the snapshot of ``case`` from its row (``typed``: its state already typed, or ``None``).

        Through :attr:`snapshot_memo` when there is one (the same answer, reused when the
        row is unchanged since an earlier turn).
        """
        return snapshot_through(self.snapshot_memo, self.registry, case, row, today, locale, typed)


def for_conversation(parts: RuntimeParts, actor: Actor, conversation_id: str) -> RuntimeParts:
    """Return ``parts`` with the registry this turn runs: its routed workflow versions.

    ``parts`` itself when the registry routes no rollout (docs/guides/canary-and-rollback.md).
    """
    registry = parts.registry.for_turn(actor.account, conversation_id)
    return parts if registry is parts.registry else replace(parts, registry=registry)


async def routed(parts: RuntimeParts, actor: Actor, turn_id: str) -> RuntimeParts:
    """Return ``parts`` routed like the stored turn ``turn_id``'s conversation (recovery).

    ``parts`` when no rollout is set (nothing read) or no such turn is stored (recovery
    then reports it). Otherwise one more read of the turn record, to find its
    conversation (docs/guides/canary-and-rollback.md "Routing a share or accounts").

    Raises:
        StoreError: the read failed.
    """
    routing = parts.registry.routing
    if routing is None or not routing.rollouts:
        return parts
    record = await parts.store.get_turn(actor.account, turn_id)
    if record is None:
        record = await parts.store.get_turn(actor.account, turn_alias(actor.account, turn_id))
    return parts if record is None else for_conversation(parts, actor, record.conversation_id)


@lru_cache(maxsize=4096)
def handle(turn_id: str, case: CaseRef) -> str:
    """Mint the opaque per-turn handle of ``case`` (I1): no record id can be read from it.

    The handle is ``"h"`` + the first 10 hex digits of ``digest(("handle", turn_id,
    str(case)))``; a list of strings is its own canonical JSON (``json.dumps`` with
    ``ensure_ascii`` and no spaces), written here string by string and hashed directly
    (one handle per listed record per turn). A pure function of two immutable values,
    so the answers are memoised: the load step and ``Runtime.handle_for`` ask for the
    same ones.
    """
    text = f'["handle",{_json_string(turn_id)},{_json_string(str(case))}]'
    return "h" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


_json_string: Callable[[str], str] = json.encoder.encode_basestring_ascii
"""``json.dumps`` of one string (ASCII-escaped, quoted): the canonical JSON of a string."""


def with_status(result: PlannedActResult, status: ResultStatus, **changes: Any) -> PlannedActResult:
    """Return ``result`` with ``status`` and the other fields in ``changes`` replaced."""
    return replace(result, status=status, **changes)


def rejected(result: PlannedActResult, code: str, sentence: str) -> PlannedActResult:
    """Return ``result`` rejected with ``code`` and the user's ``sentence`` (I11)."""
    return with_status(result, ResultStatus.REJECTED, code=code, sentence=sentence)


def turn_alias(account: str, turn_id: str) -> str:
    """Return the account-scoped id a turn is stored under when another account holds ``turn_id``.

    ``"turn-"`` + the first 24 hex digits of ``digest(("turn_id", account, turn_id))``: a
    fixed function of the account and the id, so the account finds its turn again, and
    no other account's id can be read from it (docs/adr/0016-races-and-turn-ids.md). The
    pipeline stores such a turn under it; the inspector and the server look it up by it.
    """
    return "turn-" + digest(("turn_id", account, turn_id))[:24]
