"""I/O ports an adopter implements beside its workflows (guide §13). Async Protocols.

The core declares them; it never calls them. The runtime awaits them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from turnframe.core.acts import Question
from turnframe.core.commands import CommandEnvelope
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
    """Loads cases and applies commands (guide §4: execution is separate from definition)."""

    async def load(self, case: CaseRef) -> LoadedCase:
        """Return the case's state and revision; absent state means "not yet" (revision 0)."""
        ...

    async def apply(self, loaded: LoadedCase, commands: Sequence[CommandEnvelope]) -> Transition:
        """Apply ``commands`` to ``loaded`` and return the transition to commit.

        Raises:
            turnframe.runtime.CommandRejected: when a command no longer validates.
        """
        ...


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
    """Lists and finds the records an actor may address (guide §2 step 6)."""

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
    """Answers read-only questions on an explicit basis (guide §9)."""

    async def answer(self, question: Question, subjects: Sequence[Subject], locale: str) -> str:
        """Return the answer's words for ``question`` about ``subjects``."""
        ...
