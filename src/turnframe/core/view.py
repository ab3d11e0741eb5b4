"""The Flow Map projection: what a case looks like to a turn (docs/architecture.md "Workflows", I3).

A :class:`WorkflowView` is a pure function of (workflow version, state snapshot).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import JSONValue

__all__ = ["BlockingRequirement", "Notice", "Obligation", "Outcome", "WorkflowView"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Obligation:
    """Something still open on a case, possibly parameterised.

    Attributes:
        id: stable id, e.g. ``"dates"`` or ``"payer:E7"``; unique within one view.
        kind: the obligation's kind without parameters, e.g. ``"payer"``.
        params: the parameters, e.g. ``{"extra": "E7"}``.
        waits_for: the operation that would discharge it, if one does.
    """

    id: str
    kind: str
    params: Mapping[str, JSONValue] = field(default_factory=dict)
    waits_for: str | None = None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class BlockingRequirement:
    """The one decision the user owns right now on a case (at most one, I5).

    Attributes:
        kind: the interaction kind the requirement is satisfied by (``"confirm"``, ``"review"``…).
        reason: a stable code saying why the case waits.
    """

    kind: str
    reason: str


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Notice:
    """Informational text a view carries (never an instruction to a model).

    Attributes:
        code: a stable code, e.g. ``"manifest.minor_listed"``.
        params: values for rendering.
    """

    code: str
    params: Mapping[str, JSONValue] = field(default_factory=dict)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """How a finished case ended; present only when the workflow is genuinely complete.

    Attributes:
        code: e.g. ``"completed"``, ``"cancelled"``, ``"deleted"``.
    """

    code: str


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class WorkflowView:
    """A case as projected for one turn (docs/architecture.md "Workflows").

    Attributes:
        workflow: the workflow name.
        version: the workflow version that projected it (replays read it the same way).
        phase: exactly one lifecycle phase.
        obligations: the open obligations, ids unique and stable.
        blocking: at most one blocking interaction requirement.
        notices: informational notices.
        outcome: present only in a terminal phase.
        exists: ``False`` for a named-but-not-created case (absent state means "not yet").
    """

    workflow: str
    version: str
    phase: str
    obligations: tuple[Obligation, ...] = ()
    blocking: BlockingRequirement | None = None
    notices: tuple[Notice, ...] = ()
    outcome: Outcome | None = None
    exists: bool = True

    def obligation(self, obligation_id: str) -> Obligation | None:
        """Return the open obligation with ``obligation_id``, or ``None``."""
        for item in self.obligations:
            if item.id == obligation_id:
                return item
        return None
