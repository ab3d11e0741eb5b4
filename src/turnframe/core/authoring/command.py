"""The command base of the authoring kit (docs/authoring.md#commands).

A :class:`TypedCommand` subclass is a frozen, keyword-only dataclass that satisfies the
:class:`~turnframe.core.commands.Command` protocol: ``operation`` comes from the class
keyword ``operation=``, ``to_json`` is the canonical JSON of its fields, and its fields
are the operation's arguments (:func:`~turnframe.core.authoring.fields.field_arguments`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any, ClassVar, Self, dataclass_transform

from turnframe.core.authoring.fields import FieldArgument, arg, field_arguments
from turnframe.core.authoring.words import Refused
from turnframe.core.canonical import to_json_value
from turnframe.core.errors import UsageError
from turnframe.core.ids import CaseRef, JSONObject
from turnframe.core.operations import ArgumentKind, ArgumentSpec
from turnframe.core.workflow import Amount, ArgValue

__all__ = ["TypedCommand", "argument_value"]


@dataclass_transform(
    frozen_default=True, kw_only_default=True, field_specifiers=(dataclasses.field, arg)
)
class TypedCommand:
    """Base of a domain command whose typed fields are its arguments.

    ``class SetPriority(TypedCommand, operation="ticket.set_priority",
    event="ticket.priority_set"): priority: Literal["low", "normal", "high"]`` is a
    frozen keyword-only dataclass (applied by the base) with ``operation``, ``to_json``,
    the :class:`~turnframe.core.operations.ArgumentSpec` s of :meth:`arguments` and a
    constructor from evaluated values (:meth:`from_values`).

    Class keywords:
        operation: the operation key (``"<workflow>.<name>"``); stored as ``OPERATION``.
        event: the event type it emits, or ``events=`` for several; stored as ``EVENTS``
            (registration checks each has a receipt template, docs/authoring.md#receipts).

    A class that sets ``AUTO_DATACLASS = False`` (and its subclasses) applies
    ``@dataclass`` itself, e.g. with ``slots=True``.

    Raises:
        UsageError: at class creation, for an ``operation`` that is not
            ``"<workflow>.<name>"``.
    """

    __slots__ = ()
    OPERATION: ClassVar[str]
    EVENTS: ClassVar[tuple[str, ...]] = ()
    AUTO_DATACLASS: ClassVar[bool] = True

    def __init_subclass__(
        cls,
        *,
        operation: str | None = None,
        event: str | None = None,
        events: tuple[str, ...] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        if operation is not None:
            workflow, _, name = operation.partition(".")
            if not workflow or not name:
                raise UsageError(
                    f"{cls.__name__}: operation {operation!r} must read '<workflow>.<name>'"
                )
            cls.OPERATION = operation
        if event is not None or events is not None:
            cls.EVENTS = ((event,) if event else ()) + tuple(events or ())
        if cls.__dict__.get("AUTO_DATACLASS", getattr(cls, "AUTO_DATACLASS", True)):
            dataclass(frozen=True, kw_only=True)(cls)

    @property
    def operation(self) -> str:
        """The operation key, e.g. ``"ticket.close"``."""
        return self.OPERATION

    def to_json(self) -> JSONObject:
        """Return the fields as JSON (dates ISO, records ``"workflow/id"``; I13 hashing)."""
        value = to_json_value(self)
        assert isinstance(value, dict)
        return value

    @classmethod
    def arguments(cls) -> tuple[ArgumentSpec, ...]:
        """Return the operation's argument specs, derived from the fields.

        Raises:
            UsageError: for a field whose type has no argument kind.
        """
        return tuple(a.spec for a in _arguments(cls))

    @classmethod
    def from_values(cls, values: Mapping[str, ArgValue]) -> Self:
        """Return the command built from evaluated argument values (docs/authoring.md#commands).

        Text is stripped; a blank or absent value leaves an optional field at its default.

        Raises:
            Refused: ``missing_argument`` (param ``argument``) for an absent required
                value; ``invalid_value`` for a value of the wrong kind.
        """
        given: dict[str, Any] = {}
        for argument in _arguments(cls):
            spec = argument.spec
            value = values.get(spec.name)
            if value is None or (isinstance(value, str) and not value.strip()):
                if spec.required:
                    raise Refused("missing_argument", argument=spec.name)
                continue
            given[spec.name] = argument_value(spec, value)
        return cls(**given)


_CACHE: dict[type, tuple[FieldArgument, ...]] = {}


def _arguments(cls: type) -> tuple[FieldArgument, ...]:
    found = _CACHE.get(cls)
    if found is None:
        found = _CACHE[cls] = field_arguments(cls)
    return found


def argument_value(spec: ArgumentSpec, value: ArgValue) -> ArgValue:
    """Return ``value`` checked against ``spec``'s kind (text stripped, an int as a Decimal).

    Raises:
        Refused: ``invalid_value`` (param ``argument``) when the value is not of the kind.
    """
    kind = spec.kind
    ok: ArgValue | None = None
    if kind in (ArgumentKind.TEXT, ArgumentKind.EMAIL, ArgumentKind.PART):
        ok = value.strip() if isinstance(value, str) else None
    elif kind is ArgumentKind.CHOICE:
        ok = value.strip().lower() if isinstance(value, str) else None
        ok = ok if ok in spec.choices else None
    elif kind is ArgumentKind.INTEGER:
        ok = value if isinstance(value, int) and not isinstance(value, bool) else None
    elif kind is ArgumentKind.NUMBER:
        if isinstance(value, int) and not isinstance(value, bool):
            ok = Decimal(value)
        elif isinstance(value, Decimal):
            ok = value
    elif kind is ArgumentKind.AMOUNT:
        ok = value if isinstance(value, Amount) else None
    elif kind is ArgumentKind.DATE:
        ok = value if isinstance(value, date) and not isinstance(value, datetime) else None
    elif kind is ArgumentKind.RECORD:
        if isinstance(value, CaseRef):
            ok = value if value.workflow == spec.record_workflow else None
        elif isinstance(value, str) and value.strip().lower() in spec.literals:
            ok = value.strip().lower()
    if ok is None:
        raise Refused("invalid_value", argument=spec.name)
    return ok
