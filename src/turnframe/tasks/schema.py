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
    "any_of",
    "array",
    "boolean",
    "const",
    "enum",
    "integer",
    "obj",
    "string",
    "validate",
]


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


def boolean() -> JSONObject:
    """Return a boolean schema."""
    return {"type": "boolean"}


def array(items: JSONObject, *, max_items: int = 32, unique: bool = False) -> JSONObject:
    """Return an array schema."""
    schema: JSONObject = {"type": "array", "items": items, "maxItems": max_items}
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
