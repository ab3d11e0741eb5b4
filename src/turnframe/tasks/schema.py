"""Strict JSON schemas built per turn from closed vocabularies, and full validation (I2).

Every object forbids unknown fields and requires every field (nullable where optional),
so a schema means the same to every provider; every answer is validated against the
*full* schema with ``jsonschema`` whatever the provider enforced at decode time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from turnframe.core.ids import JSONObject, JSONValue
from turnframe.providers.bounds import schema_problems

__all__ = [
    "ENUM_LIMIT",
    "any_of",
    "array",
    "boolean",
    "const",
    "enum",
    "integer",
    "obj",
    "pointer",
    "string",
    "strict_problems",
    "validate",
    "word_set",
]

ENUM_LIMIT = 64
"""A bounded integer with at most this many values is sent as an ``enum`` of them.

A constrained decoder enforces ``enum`` everywhere (it is a structural keyword), while
``minimum``/``maximum`` are dropped by several servers (docs/adr/0018-decoder-enforceable-schemas.md).
"""


def obj(properties: Mapping[str, JSONObject]) -> JSONObject:
    """Return a strict object schema: every property required, no other property allowed."""
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(properties),
        "additionalProperties": False,
    }


def enum(values: Iterable[JSONValue], *, nullable: bool = False) -> JSONObject:
    """Return a schema allowing exactly ``values`` (and ``null`` when ``nullable``)."""
    items: list[JSONValue] = list(dict.fromkeys(values))
    if nullable:
        items.append(None)
    return {"enum": items}


def const(value: JSONValue) -> JSONObject:
    """Return a schema allowing exactly ``value``."""
    return {"const": value}


def string(*, nullable: bool = False, max_length: int = 400) -> JSONObject:
    """Return a string schema."""
    schema: JSONObject = {"type": ["string", "null"] if nullable else "string"}
    schema["maxLength"] = max_length
    return schema


def integer(*, minimum: int = 0, nullable: bool = False) -> JSONObject:
    """Return an integer schema."""
    return {"type": ["integer", "null"] if nullable else "integer", "minimum": minimum}


def pointer(words: int, *, nullable: bool = False) -> JSONObject:
    """Return the schema of a word number in a message of ``words`` words (I2).

    ``0..words-1`` as an ``enum`` when there are at most :data:`ENUM_LIMIT` of them (a
    decoder enforces it), else an integer with ``minimum``/``maximum``. A message with no
    word has no valid pointer: the schema then allows nothing (or only ``null``).
    """
    return word_set(range(words), nullable=nullable)


def word_set(numbers: Iterable[int], *, nullable: bool = False) -> JSONObject:
    """Return the schema of a word number that must be one of ``numbers`` (I2).

    Small sets are an ``enum``; a large set is one bounded integer range per run of
    consecutive numbers (``anyOf`` when there are several), so the schema allows exactly
    ``numbers`` either way.
    """
    values = sorted(set(numbers))
    if len(values) <= ENUM_LIMIT:
        return enum(values, nullable=nullable)
    runs: list[tuple[int, int]] = []
    for n in values:
        if runs and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    ranges: list[JSONObject] = [
        {"type": "integer", "minimum": low, "maximum": high} for low, high in runs
    ]
    if len(ranges) == 1 and not nullable:
        return ranges[0]
    return any_of(ranges, nullable=nullable)


def boolean() -> JSONObject:
    """Return a boolean schema."""
    return {"type": "boolean"}


def array(
    items: JSONObject, *, max_items: int = 32, unique: bool = False, min_items: int = 0
) -> JSONObject:
    """Return an array schema of at most ``max_items`` (at least ``min_items``) items."""
    schema: JSONObject = {"type": "array", "items": items, "maxItems": max_items}
    if min_items:
        schema["minItems"] = min_items
    if unique:
        schema["uniqueItems"] = True
    return schema


def any_of(options: Sequence[JSONObject], *, nullable: bool = False) -> JSONObject:
    """Return a schema matching one of ``options`` (or ``null``)."""
    choices: list[JSONValue] = [dict(o) for o in options]
    if nullable:
        choices.append({"type": "null"})
    if not choices:
        return {"type": "null"}
    return {"anyOf": choices}


def validate(schema: JSONObject, value: Any) -> list[str]:
    """Return every way ``value`` breaks ``schema``, each with its JSON path (empty: valid).

    The messages are short and stable (sorted by path) so a repair round can quote them:
    each quotes at most a few dozen characters of the answer (docs/adr/0019).
    """
    return schema_problems(schema, value)


def strict_problems(schema: Any, where: str = "$") -> list[str]:
    """Return every object of ``schema`` that is not strict (empty: every level is strict).

    Strict (I2): an object schema names its properties, requires every one of them and
    forbids any other (``additionalProperties: false``); and no ``enum`` or ``anyOf`` is
    empty, since a schema no value satisfies is one a constrained decoder cannot compile. Used by the schema property test
    and by task authors to check a builder.
    """
    problems: list[str] = []
    if isinstance(schema, dict):
        types = schema.get("type")
        is_object = types == "object" or (isinstance(types, list) and "object" in types)
        if is_object:
            props = schema.get("properties", {})
            if schema.get("additionalProperties") is not False:
                problems.append(f"{where}: additionalProperties is not false")
            if sorted(schema.get("required", [])) != sorted(props):
                problems.append(f"{where}: not every property is required")
        if "enum" in schema and not schema["enum"]:
            problems.append(f"{where}: an empty enum (no value can satisfy it)")
        if "anyOf" in schema and not schema["anyOf"]:
            problems.append(f"{where}: an empty anyOf (no value can satisfy it)")
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    problems += strict_problems(sub, f"{where}.{name}")
            elif key in ("items", "additionalProperties") and isinstance(value, dict):
                problems += strict_problems(value, f"{where}[]")
            elif key in ("anyOf", "oneOf", "allOf") and isinstance(value, list):
                for n, sub in enumerate(value):
                    problems += strict_problems(sub, f"{where}|{n}")
    return problems
