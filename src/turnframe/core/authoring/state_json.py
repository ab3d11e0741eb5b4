"""A dataclass state read back from its JSON (docs/authoring.md#state).

``dump`` is :func:`~turnframe.core.canonical.to_json_value`; :func:`load_dataclass` is its
inverse for the field types a state is written in: ``str``, ``int``, ``bool``,
``Decimal``, ``date``, :class:`~turnframe.core.ids.CaseRef`, ``Literal`` of strings,
nested dataclasses, ``tuple[X, ...]`` and ``X | None``.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

from turnframe.core.ids import CaseRef, JSONValue

__all__ = ["load_dataclass"]

T = TypeVar("T")


def load_dataclass(cls: type[T], data: JSONValue) -> T:
    """Return the ``cls`` instance stored as ``data`` (``load(dump(s)) == s``).

    Missing keys take the field's default. Every value is checked against its field's
    declared type (an ``int`` in a ``str`` field, a ``bool`` in an ``int`` or ``Decimal``
    field, a non-finite ``Decimal``, a word outside a ``Literal``), so a state ``execute``
    built with a value of the wrong type is refused here rather than committed and
    stored unreadable (docs/authoring.md#state). The field types of a dataclass are
    resolved once per class.

    Raises:
        ValueError: naming the field path (``Ticket.level``), for a missing required key
            or a value of the wrong type.
    """
    return typing.cast(T, _load(cls, data, cls.__name__))


def _load(tp: Any, value: Any, path: str) -> Any:
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        members = [m for m in get_args(tp) if m is not type(None)]
        if value is None and len(members) < len(get_args(tp)):
            return None
        errors = []
        for member in members:
            try:
                return _load(member, value, path)
            except ValueError as exc:
                errors.append(str(exc))
        raise ValueError(f"{path}: {value!r} fits none of {tp!r}")
    if origin is Literal:
        if value in get_args(tp):
            return value
        raise ValueError(f"{path}: {value!r} is not one of {get_args(tp)!r}")
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise ValueError(f"{path}: expected a list, got {value!r}")
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_load(args[0], v, f"{path}[{n}]") for n, v in enumerate(value))
        return tuple(
            _load(a, v, f"{path}[{n}]") for n, (a, v) in enumerate(zip(args, value, strict=True))
        )
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if not isinstance(value, dict):
            raise ValueError(f"{path}: expected an object, got {value!r}")
        given = {}
        for name, hint, required in _fields_of(tp):
            if name in value:
                given[name] = _load(hint, value[name], f"{path}.{name}")
            elif required:
                raise ValueError(f"{path}.{name}: missing")
        return tp(**given)
    return _scalar(tp, value, path)


@functools.cache
def _fields_of(tp: type) -> tuple[tuple[str, Any, bool], ...]:
    """Return ``(name, resolved type, required)`` for each field of dataclass ``tp``."""
    hints = typing.get_type_hints(tp)
    return tuple(
        (
            f.name,
            hints[f.name],
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
        )
        for f in dataclasses.fields(tp)
    )


def _scalar(tp: Any, value: Any, path: str) -> Any:
    if tp is Any:
        return value
    if tp is bool and isinstance(value, bool):
        return value
    if tp in (int, str) and isinstance(value, tp) and not isinstance(value, bool):
        return value
    if isinstance(tp, type) and tp is not bool and tp not in (int, str):
        if tp is Decimal and isinstance(value, str | int) and not isinstance(value, bool):
            try:
                number = Decimal(value)
            except InvalidOperation:
                pass
            else:
                if number.is_finite():
                    return number
        elif tp is date and isinstance(value, str):
            try:
                return date.fromisoformat(value)
            except ValueError:
                pass
        elif tp is date and isinstance(value, date) and not isinstance(value, datetime):
            return value
        elif tp is CaseRef and isinstance(value, str) and "/" in value:
            workflow, _, case_id = value.partition("/")
            if workflow and case_id:
                return CaseRef(workflow, case_id)
    if getattr(tp, "__supertype__", None) is str and isinstance(value, str):
        return value  # a NewType of str (Email, Part)
    name = str(getattr(tp, "__name__", tp))
    article = "an" if name[:1].lower() in "aeiou" else "a"
    raise ValueError(f"{path}: {value!r} is not {article} {name}")
