"""Argument specs derived from a command's typed fields (docs/authoring.md#commands).

A command's dataclass fields are its arguments: the field's name is the argument's name,
its type the :class:`~turnframe.core.operations.ArgumentKind`, its default whether it is
required, and :func:`arg` metadata the labels, description and record workflow. One
declaration feeds the operation's :class:`~turnframe.core.operations.ArgumentSpec` s and
the building of the command from evaluated values, so the two cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Literal, NewType, Union, get_args, get_origin

from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import UsageError
from turnframe.core.ids import CaseRef
from turnframe.core.operations import ArgumentKind, ArgumentSpec
from turnframe.core.workflow import Amount

__all__ = [
    "ArgumentMeta",
    "Email",
    "FieldArgument",
    "Part",
    "arg",
    "computed_fields",
    "field_arguments",
]

Email = NewType("Email", str)
"""A field of this type is an ``EMAIL`` argument (code checks the address's shape)."""

Part = NewType("Part", str)
"""A field of this type is a ``PART`` argument: a part of the target record, resolved by
the workflow's ``find_parts`` (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md)."""

_META = "turnframe.argument"

_SIMPLE: dict[object, ArgumentKind] = {
    str: ArgumentKind.TEXT,
    Email: ArgumentKind.EMAIL,
    Part: ArgumentKind.PART,
    int: ArgumentKind.INTEGER,
    Decimal: ArgumentKind.NUMBER,
    Amount: ArgumentKind.AMOUNT,
    date: ArgumentKind.DATE,
    CaseRef: ArgumentKind.RECORD,
}


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ArgumentMeta:
    """What a field's type cannot say about its argument (set through :func:`arg`).

    Attributes:
        label: the English label (default: the field name with spaces).
        labels: per-locale labels (``{"pt-PT": "prioridade"}``).
        description: what the argument means, for understanding tasks.
        workflow: for a :class:`~turnframe.core.ids.CaseRef` field, the workflow whose
            record it names.
        literals: words accepted instead of a record (a ``CaseRef | str`` field).
        names_record: on a creating operation, the argument holding the new record's name.
        argument: ``False`` for a field the workflow's ``build`` computes (from the state,
            or from an argument it reads differently) rather than an argument of the act:
            no ``ArgumentSpec`` is derived from it and ``from_values`` never fills it.
    """

    label: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    description: str = ""
    workflow: str | None = None
    literals: tuple[str, ...] = ()
    names_record: bool = False
    argument: bool = True


def arg(
    default: Any = MISSING,
    *,
    label: str = "",
    labels: Mapping[str, str] | None = None,
    description: str = "",
    workflow: str | None = None,
    literals: tuple[str, ...] = (),
    names_record: bool = False,
    argument: bool = True,
) -> Any:
    """Return a dataclass field carrying an argument's labels and description.

    Use it as a field's default: ``title: str = arg(label="title", names_record=True)``.
    Without ``default`` the argument is required. ``argument=False`` marks a field the
    workflow computes (``total: Decimal = arg(argument=False)``): the command carries it
    (its JSON, its card) but it is no argument of the operation.
    """
    meta = ArgumentMeta(
        label=label,
        labels=dict(labels or {}),
        description=description,
        workflow=workflow,
        literals=tuple(literals),
        names_record=names_record,
        argument=argument,
    )
    return dataclasses.field(default=default, metadata={_META: meta})


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class FieldArgument:
    """One command field read as an argument.

    Attributes:
        spec: the derived argument spec.
        optional: whether the field's type admits ``None``.
    """

    spec: ArgumentSpec
    optional: bool


def _unwrap(tp: object) -> tuple[tuple[object, ...], bool]:
    """Return the non-``None`` members of ``tp`` and whether ``None`` was one."""
    if get_origin(tp) in (Union, types.UnionType):
        members = get_args(tp)
        rest = tuple(m for m in members if m is not type(None))
        return rest, len(rest) != len(members)
    return (tp,), False


def _kind(
    owner: type, name: str, tp: object, meta: ArgumentMeta
) -> tuple[ArgumentKind, tuple[str, ...]]:
    members, _ = _unwrap(tp)
    fix = (
        "use str, Email, Part, int, Decimal, Amount, date, CaseRef, a Literal of strings, "
        "or Optional of one of them"
    )
    if len(members) == 2 and CaseRef in members:
        (other,) = (m for m in members if m is not CaseRef)
        if other is str and meta.literals:
            return ArgumentKind.RECORD, ()
        if get_origin(other) is Literal and all(isinstance(c, str) for c in get_args(other)):
            return ArgumentKind.RECORD, ()
    if len(members) != 1:
        raise UsageError(f"{owner.__name__}.{name}: type {tp!r} is not one argument kind; {fix}")
    (only,) = members
    if get_origin(only) is Literal:
        choices = get_args(only)
        if not choices or not all(isinstance(c, str) for c in choices):
            raise UsageError(f"{owner.__name__}.{name}: a Literal argument lists strings only")
        return ArgumentKind.CHOICE, tuple(choices)
    if only is bool or only is datetime or only not in _SIMPLE:
        raise UsageError(f"{owner.__name__}.{name}: type {only!r} has no argument kind; {fix}")
    return _SIMPLE[only], ()


def computed_fields(command: type) -> frozenset[str]:
    """Return the names of ``command``'s fields marked ``arg(argument=False)``."""
    if not dataclasses.is_dataclass(command):
        return frozenset()
    return frozenset(
        f.name
        for f in dataclasses.fields(command)
        if not (f.metadata.get(_META) or ArgumentMeta()).argument
    )


def _literal_words(tp: object) -> tuple[str, ...]:
    """Return the strings of a ``CaseRef | Literal[...]`` type (a record's accepted words)."""
    members, _ = _unwrap(tp)
    for member in members:
        if get_origin(member) is Literal:
            return tuple(str(c) for c in get_args(member))
    return ()


def field_arguments(command: type) -> tuple[FieldArgument, ...]:
    """Return the arguments of a dataclass ``command``, one per field, in field order.

    The kind comes from the type (:data:`Email`, :data:`Part`, ``Literal[...]`` for a
    choice, ``CaseRef`` for a record, ``CaseRef | Literal["company"]`` for a record or
    one of those words …), ``required`` is true for a field without a
    default, the label and the rest from :func:`arg` metadata (docs/authoring.md#commands).

    Raises:
        UsageError: when ``command`` is not a dataclass, a type has no argument kind, or a
            ``CaseRef`` field names no workflow (each message names the class, field and fix).
    """
    if not dataclasses.is_dataclass(command):
        raise UsageError(f"{command.__name__} is not a dataclass; derive it from TypedCommand")
    try:
        hints = typing.get_type_hints(command)
    except (NameError, TypeError) as exc:
        raise UsageError(
            f"{command.__name__}: field types must be importable at module level ({exc})"
        ) from exc
    found = []
    for f in dataclasses.fields(command):
        meta = f.metadata.get(_META) or ArgumentMeta()
        if not meta.argument:
            continue
        tp = hints[f.name]
        kind, choices = _kind(command, f.name, tp, meta)
        if kind is ArgumentKind.RECORD and not meta.workflow:
            raise UsageError(
                f"{command.__name__}.{f.name}: a CaseRef argument needs "
                "arg(workflow='<workflow name>')"
            )
        required = f.default is MISSING and f.default_factory is MISSING
        literals = meta.literals or _literal_words(tp)
        spec = ArgumentSpec(
            name=f.name,
            kind=kind,
            required=required,
            choices=choices,
            record_workflow=meta.workflow if kind is ArgumentKind.RECORD else None,
            label=meta.label or f.name.replace("_", " "),
            labels=dict(meta.labels),
            description=meta.description,
            literals=literals if kind is ArgumentKind.RECORD else (),
            names_record=meta.names_record,
        )
        found.append(FieldArgument(spec=spec, optional=_unwrap(tp)[1]))
    return tuple(found)
