"""A dataclass state read back from its JSON (docs/authoring.md#state).

``dump`` is :func:`~turnframe.core.canonical.to_json_value`; :func:`load_dataclass` is its
inverse for the field types a state is written in: ``str``, ``int``, ``bool``,
``Decimal``, ``date``, :class:`~turnframe.core.ids.CaseRef`, ``Literal`` of strings,
nested dataclasses, ``tuple[X, ...]``, ``X | None`` and ``FrozenMap[K, V]`` (or
``Mapping[K, V]``, read into a :class:`~turnframe.core.frozen.FrozenMap`: a JSON object
whose keys are ``K``'s JSON form: ``str``, ``CaseRef``, ``date``, ``int`` or a ``Literal``).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Mapping
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

from turnframe.core.frozen import FrozenMap
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
    resolved, and the loader of each declared type built, once per type (:func:`_loader`,
    keyed by the type's exact spelling: ``date | str`` and ``str | date`` are two types
    here, since a union's members are tried in order, though ``==`` says they are equal);
    every value is still checked at every call.

    Raises:
        ValueError: naming the field path (``Ticket.level``), for a missing required key
            or a value of the wrong type.
    """
    declared: Any = cls
    return typing.cast(T, _loader(declared)(data, cls.__name__))


Loader = Callable[[Any, str], Any]
"""A built loader: ``(JSON value, field path) -> typed value``, ``ValueError`` on misfit."""


_LOADERS: dict[Any, Loader] = {}
"""The built loaders, by :func:`_spelling` of their declared type."""


def _loader(tp: Any) -> Loader:
    """Return the loader of declared type ``tp``, built once per type (a pure function of it).

    Keyed by :func:`_spelling`, not by ``tp``: typing's ``==`` calls two unions with the
    same members in another order equal (and hashes them alike), at any depth
    (``tuple[date | str, ...]``), while the loader tries a union's members in order, so
    one of them must never be served the other's loader. A dataclass's field loaders are
    looked up at its first load, not when it is built, so a dataclass naming itself (a
    tree) does not recurse here.
    """
    key = tp if type(tp) is type else _spelling(tp)
    found = _LOADERS.get(key)
    if found is None:
        found = _LOADERS[key] = _build_loader(tp)
    return found


def _spelling(tp: Any) -> Any:
    """Return a hashable key equal for two declared types exactly when written alike.

    A class is itself (identity); a subscripted type is its origin with the spelling of
    each argument in order, a ``Literal``'s values each with its exact type (``1``,
    ``True`` and ``1.0`` differ).
    """
    args = get_args(tp)
    if not args:
        return tp
    origin = get_origin(tp)
    if origin is Literal:
        return (Literal, tuple((type(a), a) for a in args))
    return (origin, tuple(_spelling(a) for a in args))


def _build_loader(tp: Any) -> Loader:
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        return _union_loader(tp)
    if origin is Literal:
        allowed = get_args(tp)

        def literal(value: Any, path: str) -> Any:
            if value in allowed:
                return value
            raise ValueError(f"{path}: {value!r} is not one of {allowed!r}")

        return literal
    if origin is tuple:
        return _tuple_loader(tp)
    if origin is FrozenMap or origin is Mapping or tp is FrozenMap or tp is Mapping:
        return _map_loader(tp)
    if tp is not CaseRef and dataclasses.is_dataclass(tp) and isinstance(tp, type):
        # ``CaseRef`` is a dataclass too, but its JSON form is ``"workflow/case_id"``.
        return _dataclass_loader(tp)
    return functools.partial(_scalar, tp)


def _union_loader(tp: Any) -> Loader:
    args = get_args(tp)
    members = tuple(_loader(m) for m in args if m is not type(None))
    optional = len(members) < len(args)

    def union(value: Any, path: str) -> Any:
        if value is None and optional:
            return None
        for member in members:
            try:
                return member(value, path)
            except ValueError:
                continue
        raise ValueError(f"{path}: {value!r} fits none of {tp!r}")

    return union


def _tuple_loader(tp: Any) -> Loader:
    args = get_args(tp)
    if len(args) == 2 and args[1] is Ellipsis:
        item = _loader(args[0])

        def homogeneous(value: Any, path: str) -> Any:
            if not isinstance(value, list | tuple):
                raise ValueError(f"{path}: expected a list, got {value!r}")
            return tuple(item(v, f"{path}[{n}]") for n, v in enumerate(value))

        return homogeneous
    items = tuple(_loader(a) for a in args)

    def fixed(value: Any, path: str) -> Any:
        if not isinstance(value, list | tuple):
            raise ValueError(f"{path}: expected a list, got {value!r}")
        return tuple(
            load(v, f"{path}[{n}]") for n, (load, v) in enumerate(zip(items, value, strict=True))
        )

    return fixed


def _map_loader(tp: Any) -> Loader:
    """Return the loader of ``FrozenMap[K, V]`` / ``Mapping[K, V]``: an object into a ``FrozenMap``.

    ``to_json_value`` writes each key as ``str(key)``, so a key is read back by ``K``'s
    loader from that string (an ``int`` key from its digits).
    """
    args = get_args(tp)
    key_type, value_type = args if len(args) == 2 else (Any, Any)
    load_key = _int_key if key_type is int else _loader(key_type)
    load_value = _loader(value_type)

    def mapping(value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            raise ValueError(f"{path}: expected an object, got {value!r}")
        return FrozenMap(
            {
                load_key(k, f"{path}[{k!r}]"): load_value(v, f"{path}[{k!r}]")
                for k, v in value.items()
            }
        )

    return mapping


def _int_key(value: Any, path: str) -> int:
    """Read an ``int`` key from the string ``str(key)`` wrote (``"-3"``, ``"12"``)."""
    if isinstance(value, str):
        digits = value[1:] if value[:1] == "-" else value
        if digits.isascii() and digits.isdigit() and str(int(value)) == value:
            return int(value)
    raise ValueError(f"{path}: {value!r} is not an int key")


def _dataclass_loader(tp: type) -> Loader:
    built: list[tuple[tuple[str, Loader, bool], ...]] = []

    def dataclass_(value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            raise ValueError(f"{path}: expected an object, got {value!r}")
        if not built:
            built.append(tuple((n, _loader(h), req) for n, h, req in _fields_of(tp)))
        given = {}
        for name, load, required in built[0]:
            if name in value:
                given[name] = load(value[name], f"{path}.{name}")
            elif required:
                raise ValueError(f"{path}.{name}: missing")
        return tp(**given)

    return dataclass_


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
