"""Canonical JSON for hashing and journaling (I7 payload hashes, I13 request hashes).

Pure: turns dataclasses, enums, dates, tuples and frozensets into JSON values with a
stable key order, so two equal values always hash alike.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from json.encoder import (  # type: ignore[attr-defined]
    c_make_encoder,
    encode_basestring,
    encode_basestring_ascii,
)
from types import MappingProxyType
from typing import Any, cast

from turnframe.core.ids import CaseRef, JSONValue

__all__ = ["NOT_CANONICAL", "canonical_json", "digest", "to_json_value"]


NOT_CANONICAL: Mapping[str, bool] = MappingProxyType({"canonical": False})
"""Field metadata that leaves a dataclass field out of :func:`to_json_value`'s object.

For what a value carries but is not part of what it says (e.g. a cache for a later
step): ``field(default=…, compare=False, metadata=NOT_CANONICAL)``. Such a field must
have a default, so a value read back from its JSON is whole."""

_SCALARS = frozenset({str, int, float, bool, type(None)})
"""The exact types that are their own JSON value (checked inline: no call per scalar)."""


def _same(value: object) -> JSONValue:
    return value  # type: ignore[return-value]


# The containers below (and each dataclass's compiled converter) look a non-scalar item's
# converter up in the table themselves, with no call of ``to_json_value`` in between:
# the same dispatch, one Python call fewer per nested value.


def _mapping(value: object) -> JSONValue:
    items: Mapping[object, object] = value  # type: ignore[assignment]
    if not items:
        return {}
    plain, get, make = _SCALARS, _CONVERTERS.get, _converter
    return {
        str(k): v if type(v) in plain else (get(type(v)) or make(type(v)))(v)  # type: ignore[misc]
        for k, v in items.items()
    }


def _sequence(value: object) -> JSONValue:
    if not value:  # an empty tuple or list: no comprehension to run
        return []
    plain, get, make = _SCALARS, _CONVERTERS.get, _converter
    return [
        v if type(v) in plain else (get(type(v)) or make(type(v)))(v)
        for v in value  # type: ignore[attr-defined]
    ]


def _case(value: object) -> JSONValue:
    return str(value)


def _enum(value: object) -> JSONValue:
    # ``_value_`` is what ``Enum.value`` returns, read without the property's call.
    inner = value._value_  # type: ignore[attr-defined]
    return inner if type(inner) in _SCALARS else to_json_value(inner)


def _iso(value: object) -> JSONValue:
    return value.isoformat()  # type: ignore[attr-defined,no-any-return]


def _decimal(value: object) -> JSONValue:
    return str(value)


def _set(value: object) -> JSONValue:
    if not value:
        return []
    return sorted((to_json_value(v) for v in value), key=lambda v: json.dumps(v))  # type: ignore[attr-defined]


def _fields(names: tuple[str, ...]) -> Callable[[object], JSONValue]:
    """Return the converter of a dataclass with fields ``names``.

    The converter is compiled once per dataclass type (as :mod:`dataclasses` compiles
    ``__init__``): it reads each field as an attribute and builds the object in one dict
    display, a scalar field taken as it is, anything else through its type's converter
    (looked up as :func:`to_json_value` does). Field names are identifiers
    (:mod:`dataclasses` refuses any other).
    """
    if not names:
        return lambda value: {}
    reads = "".join(f"    v{i} = value.{name}\n" for i, name in enumerate(names))
    items = ", ".join(
        f"{name!r}: v{i} if type(v{i}) in plain else (get(type(v{i})) or make(type(v{i})))(v{i})"
        for i, name in enumerate(names)
    )
    source = f"def from_fields(value):\n{reads}    return {{{items}}}\n"
    space: dict[str, Any] = {"plain": _SCALARS, "get": _CONVERTERS.get, "make": _converter}
    exec(compile(source, "<turnframe.core.canonical>", "exec"), space)
    return cast(Callable[[object], JSONValue], space["from_fields"])


_CONVERTERS: dict[type, Callable[[object], JSONValue]] = {
    str: _same,
    int: _same,
    float: _same,
    bool: _same,
    type(None): _same,
    dict: _mapping,
    list: _sequence,
    tuple: _sequence,
    CaseRef: _case,
}
"""Type → converter, filled on first sight of each type (:func:`_converter`)."""


def _converter(kind: type) -> Callable[[object], JSONValue]:
    """Return (and remember) how ``to_json_value`` turns a value of type ``kind`` into JSON.

    The order of the checks is the rule: enums, then scalar subclasses, dates, decimals,
    dataclasses, mappings, sets, sequences.

    Raises:
        TypeError: ``kind`` has no JSON form.
    """
    found: Callable[[object], JSONValue]
    if issubclass(kind, Enum):
        found = _enum
    elif issubclass(kind, bool | int | float | str):
        found = _same
    elif issubclass(kind, datetime | date):
        found = _iso
    elif issubclass(kind, Decimal):
        found = _decimal
    elif dataclasses.is_dataclass(kind):
        found = _fields(
            tuple(
                f.name
                for f in dataclasses.fields(kind)
                if f.metadata.get("canonical", True) is not False
            )
        )
    elif issubclass(kind, Mapping):
        found = _mapping
    elif issubclass(kind, set | frozenset):
        found = _set
    elif issubclass(kind, list | tuple):
        found = _sequence
    else:
        raise TypeError(f"no JSON form for {kind.__name__}")
    _CONVERTERS[kind] = found
    return found


def to_json_value(value: object) -> JSONValue:
    """Return ``value`` as a JSON value.

    Dataclasses become objects of their fields (but those marked
    :data:`NOT_CANONICAL`), enums their values, dates ISO strings,
    decimals their exact digits as a string (``"1250.50"``),
    :class:`CaseRef` ``"workflow/case_id"``, tuples and lists arrays, sets sorted arrays.
    Dispatches on the exact type through a table filled once per type (field names are
    read once per dataclass type), since request hashes and replay records run it on
    every turn.

    Raises:
        TypeError: for a value with no JSON form.
    """
    kind = type(value)
    if kind in _SCALARS:
        return value  # type: ignore[return-value]
    convert = _CONVERTERS.get(kind)
    if convert is None:
        convert = _converter(kind)
    return convert(value)


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))
"""``json.dumps(…, sort_keys=True, separators=(",", ":"))``'s encoder, built once (not per call)."""


def one_shot(encoder: json.JSONEncoder) -> Callable[[object], str]:
    """Return ``encoder.encode`` with its C encoder built once (``str`` → ``str``).

    ``JSONEncoder.encode`` builds a C encoder object on every call (about half the time
    of encoding a small value); this builds it once with the arguments ``encode`` passes,
    so the text is the same, except that no cycle markers are kept: a value holding
    itself raises ``RecursionError`` instead of ``ValueError``. Fit for values whose
    containers are built fresh (``to_json_value``'s output) or checked by the caller.
    Without the C speed-ups (another interpreter), ``encoder.encode`` itself.

    Raises (from the returned function):
        TypeError: a value with no JSON form; ValueError: NaN with ``allow_nan=False``.
    """
    if c_make_encoder is None:  # pragma: no cover - CPython has the speed-ups
        return encoder.encode
    run = c_make_encoder(
        None,  # no cycle markers
        encoder.default,
        encode_basestring_ascii if encoder.ensure_ascii else encode_basestring,
        None,  # no indent
        encoder.key_separator,
        encoder.item_separator,
        encoder.sort_keys,
        encoder.skipkeys,
        encoder.allow_nan,
    )

    def encode(value: object) -> str:
        return "".join(run(value, 0))

    return encode


_canonical = one_shot(_CANONICAL)


def canonical_json(value: object) -> str:
    """Return the canonical JSON text of ``value`` (sorted keys, no spaces).

    The text ``json.dumps(to_json_value(value), sort_keys=True, separators=(",", ":"))``
    gives (ASCII, ``NaN`` and the infinities as their JavaScript names), from the
    stdlib's C encoder built once (``JSONEncoder.encode`` builds it on every call).

    Raises:
        TypeError: for a value with no JSON form.
    """
    return _canonical(to_json_value(value))


def digest(value: object) -> str:
    """Return the SHA-256 hex digest of ``canonical_json(value)`` (64 characters)."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()
