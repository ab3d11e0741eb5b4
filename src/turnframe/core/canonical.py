"""Canonical JSON for hashing and journaling (I7 payload hashes, I13 request hashes).

Pure: turns dataclasses, enums, dates, tuples and frozensets into JSON values with a
stable key order, so two equal values always hash alike.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from enum import Enum

from turnframe.core.ids import CaseRef, JSONValue

__all__ = ["canonical_json", "digest", "to_json_value"]


_SCALARS = (str, int, float, bool, type(None))
_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(kind: type) -> tuple[str, ...] | None:
    names = _FIELDS.get(kind)
    if names is None and dataclasses.is_dataclass(kind):
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return names


def to_json_value(value: object) -> JSONValue:
    """Return ``value`` as a JSON value.

    Dataclasses become objects of their fields, enums their values, dates ISO strings,
    decimals their exact digits as a string (``"1250.50"``),
    :class:`CaseRef` ``"workflow/case_id"``, tuples and lists arrays, sets sorted arrays.
    Dispatches on the exact type first (field names are cached per dataclass type), since
    request hashes and replay records run it on every turn.

    Raises:
        TypeError: for a value with no JSON form.
    """
    kind = type(value)
    if kind in _SCALARS:
        return value  # type: ignore[return-value]
    if kind is dict:
        return {str(k): to_json_value(v) for k, v in value.items()}  # type: ignore[attr-defined]
    if kind is list or kind is tuple:
        return [to_json_value(v) for v in value]  # type: ignore[attr-defined]
    if kind is CaseRef:
        return str(value)
    if isinstance(value, Enum):
        return to_json_value(value.value)
    if isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    names = _field_names(kind)
    if names is not None:
        return {name: to_json_value(getattr(value, name)) for name in names}
    if isinstance(value, Mapping):
        return {str(k): to_json_value(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted((to_json_value(v) for v in value), key=lambda v: json.dumps(v))
    if isinstance(value, list | tuple):
        return [to_json_value(v) for v in value]
    raise TypeError(f"no JSON form for {kind.__name__}")


def canonical_json(value: object) -> str:
    """Return the canonical JSON text of ``value`` (sorted keys, no spaces)."""
    return json.dumps(to_json_value(value), sort_keys=True, separators=(",", ":"))


def digest(value: object) -> str:
    """Return the SHA-256 hex digest of ``canonical_json(value)`` (64 characters)."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()
