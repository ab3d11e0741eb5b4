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
from enum import Enum

from turnframe.core.ids import CaseRef, JSONValue

__all__ = ["canonical_json", "digest", "to_json_value"]


def to_json_value(value: object) -> JSONValue:
    """Return ``value`` as a JSON value.

    Dataclasses become objects of their fields, enums their values, dates ISO strings,
    :class:`CaseRef` ``"workflow/case_id"``, tuples and lists arrays, sets sorted arrays.

    Raises:
        TypeError: for a value with no JSON form.
    """
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Enum):
        return to_json_value(value.value)
    if isinstance(value, CaseRef):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json_value(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): to_json_value(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted((to_json_value(v) for v in value), key=lambda v: json.dumps(v))
    if isinstance(value, list | tuple):
        return [to_json_value(v) for v in value]
    raise TypeError(f"no JSON form for {type(value).__name__}")


def canonical_json(value: object) -> str:
    """Return the canonical JSON text of ``value`` (sorted keys, no spaces)."""
    return json.dumps(to_json_value(value), sort_keys=True, separators=(",", ":"))


def digest(value: object) -> str:
    """Return the SHA-256 hex digest of ``canonical_json(value)`` (64 characters)."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()
