"""The phases a kit workflow's records can be in (docs/authoring.md#phases).

Registration checks every phase a declaration names (an ``offers`` key, a ``terminal``
phase, a ``briefings`` key) against :func:`known_phases`, so a typo (``"opn"`` for
``"open"``) is refused instead of silently offering nothing.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin

if TYPE_CHECKING:
    from turnframe.core.authoring.base import Workflow

__all__ = ["field_phases", "known_phases", "phase_values"]


def phase_values(tp: Any) -> tuple[str, ...] | None:
    """Return the phases a field of type ``tp`` can hold, or ``None`` when it is open.

    ``Literal["open", "closed"]`` gives ``("open", "closed")``; an ``Enum`` its members as
    ``str()`` spells them (what ``Workflow.phase_of`` returns); ``X | None`` those of
    ``X``; any other type (a plain ``str``) ``None``.
    """
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        found: list[str] = []
        for member in get_args(tp):
            if member is type(None):
                continue
            values = phase_values(member)
            if values is None:
                return None
            found.extend(values)
        return tuple(dict.fromkeys(found))
    if origin is Literal:
        return tuple(str(v) for v in get_args(tp))
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tuple(str(member) for member in tp)
    return None


def field_phases(workflow: Workflow[Any]) -> tuple[str, ...] | None:
    """Return the values the state's ``phase_field`` type allows (:func:`phase_values`).

    ``None`` when they cannot be known: no state dataclass, no such field, a field of
    an open type (``str``), or a ``phase_of`` the subclass computes itself.
    """
    from turnframe.core.authoring.base import Workflow

    if type(workflow).phase_of is not Workflow.phase_of:
        return None
    state_type = workflow.state_type
    if state_type is None or not dataclasses.is_dataclass(state_type):
        return None
    try:
        hints = typing.get_type_hints(state_type)
    except (NameError, TypeError):
        return None
    if workflow.phase_field not in hints:
        return None
    return phase_values(hints[workflow.phase_field])


def known_phases(workflow: Workflow[Any]) -> tuple[str, ...] | None:
    """Return every phase ``workflow`` can be in: ``new_phase`` first, then the others.

    The others are the declared ``phases`` when given, else :func:`field_phases`.
    ``None`` when neither is known.
    """
    others = tuple(workflow.phases) or field_phases(workflow)
    if others is None:
        return None
    return tuple(dict.fromkeys((workflow.new_phase, *others)))
