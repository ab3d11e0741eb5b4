"""I/O ports an adopter implements beside its workflows (docs/architecture.md). Async Protocols.

The core declares them; it never calls them. The runtime awaits them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from turnframe.core.acts import Question
from turnframe.core.commands import CommandEnvelope
from turnframe.core.dataclass_init import fast_init
from turnframe.core.events import EventDraft
from turnframe.core.ids import Actor, CaseRef, JSONObject
from turnframe.core.view import WorkflowView
from turnframe.core.workflow import OutboxDraft

__all__ = [
    "CaseDirectory",
    "DirectoryEntry",
    "KnowledgeSource",
    "LoadedCase",
    "Subject",
    "Transition",
    "WorkflowExecutor",
]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class LoadedCase:
    """A case's stored state and revision.

    Attributes:
        case: the case.
        state: the JSON state, ``None`` when nobody created it yet (revision 0).
        revision: the current revision (0 when absent).
    """

    case: CaseRef
    state: JSONObject | None
    revision: int


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Transition:
    """What applying a batch of commands produced, for the store to commit atomically.

    Attributes:
        state: the new JSON state.
        events: the events, in order.
        outbox: external effects.
    """

    state: JSONObject
    events: tuple[EventDraft, ...]
    outbox: tuple[OutboxDraft, ...] = ()


class WorkflowExecutor(Protocol):
    """Loads cases and applies commands: execution is separate from definition.

    The runtime takes one as ``Runtime(app, store, executor=...)`` or from the
    application's ``executor`` factory (docs/adr/0025-adopter-executors.md); without
    either it uses the store-backed ``turnframe.runtime.StoredStateExecutor``. With an
    adopter's executor every snapshot of a turn (the state a turn reads, plans against
    and binds cards to) is its ``load``, and every batch's transition its ``apply``.

    Optional members, read with ``getattr`` (an executor without them stays valid):

    - ``async load_many(cases: Sequence[CaseRef]) -> Sequence[LoadedCase]``: several
      cases in one read (one per case asked, any order); without it the runtime calls
      ``load`` per case.
    - ``for_turn(*, today: date, turn_id: str, locale: str) -> WorkflowExecutor``: the
      executor to use for one turn (validation reads the turn's today, a refusal is
      worded in its locale). Without it the executor is used as it is.
    - ``async commit(request: CommitRequest) -> CommitResult``: write the batch. An
      executor whose records live in its own tables must have it: it checks its row at
      ``request.expected_revision`` *where it writes it* and raises ``RevisionConflict``
      with nothing written when it is stale (I12), replays a journaled
      ``request.idempotency_key`` (I13), and commits Turnframe's side (events, journal,
      card resolution, outbox) in the same transaction with
      ``turnframe.runtime.journal_commit``. Without it, the store commits the request
      to its own case table (the default, one write per turn).
    """

    async def load(self, case: CaseRef) -> LoadedCase:
        """Return the case's state and revision; absent state means "not yet" (revision 0).

        The revision is the one ``commit`` checks: a record changed since moves it.
        """
        ...

    async def apply(self, loaded: LoadedCase, commands: Sequence[CommandEnvelope]) -> Transition:
        """Apply ``commands`` to ``loaded`` and return the transition to commit. Writes nothing.

        ``turnframe.runtime.apply_commands`` does it with the workflows' own
        ``validate`` and ``execute`` (the origin and policy checks included).

        Raises:
            turnframe.runtime.CommandRejected: when a command no longer validates.
        """
        ...


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class DirectoryEntry:
    """A record an actor may address.

    Attributes:
        case: the case.
        label: its candidate label.
    """

    case: CaseRef
    label: str


class CaseDirectory(Protocol):
    """Lists and finds the records an actor may address (docs/architecture.md "One turn" step 6)."""

    async def list_for_actor(self, actor: Actor) -> Sequence[DirectoryEntry]:
        """Return every record ``actor`` may address, in a stable order."""
        ...

    async def find(
        self,
        actor: Actor,
        workflow: str | None,
        words: str,
        *,
        operation: str | None = None,
        argument: str | None = None,
    ) -> Sequence[CaseRef]:
        """Return the records of ``actor`` that ``words`` could name (zero, one or several).

        ``operation`` and ``argument`` say what the runtime is finding for
        (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md). With ``operation``
        alone, the records are the act's possible *targets*: return only those on which
        that operation is on offer to ``actor`` now (``WorkflowDefinition.offered``) and
        whose phase is not terminal (``ErasedWorkflow.terminal``). With ``argument`` too,
        the records are possible values of that record argument: return only records
        that are not terminal. Without ``operation`` (a question), return every record
        the words name, terminal ones included. Both default to ``None``, so a directory
        written before these hints existed stays valid: the runtime filters what it
        returns by the same rules (I8, I16).
        """
        ...

    async def authorize(self, actor: Actor, case: CaseRef) -> bool:
        """Return whether ``actor`` may address ``case``."""
        ...


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Subject:
    """A record a question is about, as the knowledge source sees it.

    Attributes:
        case: the case.
        state: its JSON state.
        view: its view.
        label: its candidate label.
    """

    case: CaseRef
    state: JSONObject | None
    view: WorkflowView
    label: str


class KnowledgeSource(Protocol):
    """Answers read-only questions on an explicit basis (docs/architecture.md "Claims")."""

    async def answer(self, question: Question, subjects: Sequence[Subject], locale: str) -> str:
        """Return the answer's words for ``question`` about ``subjects``."""
        ...
