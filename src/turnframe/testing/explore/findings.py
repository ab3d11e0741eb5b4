"""What the state explorer reports: the steps of a path and the typed findings.

See docs/explorer.md "Findings" and docs/invariants.md (I3: one phase, stable unique
obligation ids, an outcome only when complete, an absent state means "not yet",
removal is a status).

A :class:`Finding` names the workflow, the shortest :class:`Path` from the absent state
(or a seeded record) to where the property breaks, and a one-line explanation. Each
kind of broken property is its own subclass, so a test can ask for exactly the one it
plants.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from turnframe.core.canonical import canonical_json
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import JSONObject

__all__ = [
    "BlockingWithoutUserStep",
    "CaseEndsByDisappearing",
    "DeadEnd",
    "DomainRaised",
    "Finding",
    "NotOnePhase",
    "ObligationIdUnstable",
    "ObligationIdsNotUnique",
    "OutcomeOutsideTerminal",
    "Path",
    "ProjectionNotPure",
    "Step",
    "TerminalMovesOn",
    "TerminalWithoutOutcome",
    "TransitionRemovesCase",
]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """One move of a path (docs/explorer.md "Paths").

    Attributes:
        kind: ``"operation"`` (a user's command, compiled and applied by the workflow),
            ``"external"`` (an external system's report through ``external_update``),
            ``"system"`` (a system trigger, e.g. time passing) or ``"seed"`` (a record
            created outside conversation, the first step only).
        name: the operation key, the external status, the trigger's method name, or
            the seeded record's key.
        arguments: the evaluated argument values as JSON (operations; a system
            trigger's ``today``).
    """

    kind: str
    name: str
    arguments: JSONObject | None = None

    def __str__(self) -> str:
        if self.kind == "operation":
            args = ", ".join(f"{k}={canonical_json(v)}" for k, v in (self.arguments or {}).items())
            return f"{self.name}({args})"
        if self.kind == "external":
            return f"external {self.name!r}"
        if self.kind == "system":
            return f"system {self.name}(today={(self.arguments or {}).get('today')})"
        return f"seed {self.name}"

    def to_json(self) -> JSONObject:
        """Return the step as JSON (``{"kind", "name", "arguments"?}``)."""
        data: JSONObject = {"kind": self.kind, "name": self.name}
        if self.arguments is not None:
            data["arguments"] = dict(self.arguments)
        return data


Path = tuple[Step, ...]
"""The steps from the absent state (or a seed) to a state, in order; ``()`` is absent."""


def format_path(path: Path) -> str:
    """Return ``path`` as one line: ``absent -> trip.start(name="A") -> trip.cancel()``."""
    if path and path[0].kind == "seed":
        return " -> ".join(str(step) for step in path)
    return " -> ".join(["absent", *(str(step) for step in path)])


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """A property of docs/invariants.md I3 (or the explorer's dead-end rule) that breaks.

    Attributes:
        workflow: the workflow's name.
        path: the shortest path to the state (or transition) where it breaks.
        detail: one sentence saying what broke, naming phases, operations or ids.
        key: what makes two findings of one kind the same (a phase, an operation, an
            obligation id); the explorer keeps the first, shortest, of each.
    """

    workflow: str
    path: Path
    detail: str
    key: str = ""

    rule: ClassVar[str] = ""
    """The property, in one line (docs/explorer.md "Findings")."""

    @property
    def kind(self) -> str:
        """The finding's class name, e.g. ``"CaseEndsByDisappearing"``."""
        return type(self).__name__

    def __str__(self) -> str:
        return f"{self.kind} in {self.workflow}: {self.detail}\n    path: {format_path(self.path)}"

    def to_json(self) -> JSONObject:
        """Return the finding as JSON: kind, workflow, detail, path (steps), path_text."""
        return {
            "kind": self.kind,
            "workflow": self.workflow,
            "detail": self.detail,
            "path": [step.to_json() for step in self.path],
            "path_text": format_path(self.path),
        }


class NotOnePhase(Finding):
    """A view whose phase is not exactly one known phase (blank, or not declared)."""

    rule = "every view has exactly one phase, one the workflow declares"


class ObligationIdsNotUnique(Finding):
    """Two open obligations of one view share an id."""

    rule = "obligation ids are unique within a view"


class ObligationIdUnstable(Finding):
    """An obligation an operation did not discharge changed its id (or an id changed meaning)."""

    rule = "obligation ids are stable across unrelated changes"


class ProjectionNotPure(Finding):
    """Projecting the same state twice (or after a JSON round trip) gives two views."""

    rule = "a view is a pure function of the workflow version and the state"


class BlockingWithoutUserStep(Finding):
    """A blocking requirement on a view where the user owns no step (nothing on offer)."""

    rule = "a blocking interaction exactly where the user owns the step"


class TerminalWithoutOutcome(Finding):
    """A record in a terminal phase whose view carries no outcome."""

    rule = "a terminal phase carries its outcome"


class OutcomeOutsideTerminal(Finding):
    """A view with an outcome in a phase the workflow does not declare terminal."""

    rule = "an outcome only when the record is complete (a terminal phase)"


class TerminalMovesOn(Finding):
    """A record in a terminal phase that a command or an external update still changes."""

    rule = "a record in a terminal phase never moves on"


class CaseEndsByDisappearing(Finding):
    """An absent view given a terminal phase or an outcome, or a record projected as absent."""

    rule = 'an absent state means "not yet", never "no longer"'


class TransitionRemovesCase(Finding):
    """A command (or external update) answered by dropping the record (no state)."""

    rule = "removal is a status: a transition always leaves a record"


class DeadEnd(Finding):
    """A non-terminal record from which no user command and no external update moves on."""

    rule = "no dead end without an explicit user, system or external trigger"


class DomainRaised(Finding):
    """The workflow's own code raised (or returned a state that does not load back)."""

    rule = "the domain's pure code answers every offered operation without raising"
