"""Bounds on a model's answer: size before parsing, nesting depth, short problems (docs/adr/0019-local-model-and-answer-bounds.md).

A model's answer is untrusted input of any size and shape. Before anything parses it:

* its length is checked against :attr:`AnswerBounds.max_chars` (a 200,000-item array
  never reaches the JSON parser or the schema validator);
* its nesting depth is measured by a linear scan that skips string contents, and an
  answer nested deeper than :attr:`AnswerBounds.max_depth` is refused (the recursive
  JSON parser and schema validator never see it, so no ``RecursionError``);
* ``NaN`` and ``Infinity`` (which Python's parser accepts but JSON does not) are refused.

Every problem found is one short line that never quotes more than a few dozen
characters of the answer (:func:`schema_problems`, :func:`clip`), so a repair prompt, a
call record's verdict or a notice never carries the model's text in bulk.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from turnframe.core.dataclass_init import fast_init

__all__ = [
    "DEFAULT_BOUNDS",
    "AnswerBounds",
    "AnswerUnreadable",
    "clip",
    "nesting_depth",
    "parse_bounded",
    "schema_problems",
]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerBounds:
    """The limits every answer is held to before and while it is read.

    Attributes:
        max_chars: the longest answer read at all, in characters (default 65,536: a task's
            answer under its schema is a few kilobytes; 1,024 output tokens of JSON stay
            well below this).
        max_depth: the deepest nesting of arrays and objects read (default 32; the
            deepest task schema nests 6 levels).
        max_quote: the most characters of the answer any problem quotes (default 40).
        max_problem: the longest single problem line, in characters (default 200).
    """

    max_chars: int = 65_536
    max_depth: int = 32
    max_quote: int = 40
    max_problem: int = 200


DEFAULT_BOUNDS = AnswerBounds()
"""The bounds every adapter and the task runner apply unless told otherwise."""


class AnswerUnreadable(ValueError):
    """An answer was refused before or while parsing; ``str()`` is one short line."""


def clip(text: str, limit: int) -> str:
    """Return ``text`` cut to at most ``limit`` characters, marking a cut with ``…``."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + "…"


# A JSON string, unrolled so the regex engine never backtracks over long strings.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def nesting_depth(text: str, *, stop_above: int | None = None) -> int:
    """Return the deepest nesting of ``[``/``{`` in ``text``, ignoring string contents.

    Linear in ``len(text)`` and not recursive. With ``stop_above``, returns as soon as
    the depth exceeds it (the exact depth of a hostile answer is of no interest).
    """
    depth = deepest = 0
    for found in _BRACKET.finditer(_STRING.sub('""', text)):
        if found.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop_above is not None and deepest > stop_above:
                    return deepest
        else:
            depth -= 1
    return deepest


def _no_constant(name: str) -> Any:
    raise AnswerUnreadable(f"the answer is not valid JSON: {name} is not a JSON value")


def parse_bounded(text: str, bounds: AnswerBounds = DEFAULT_BOUNDS) -> Any:
    """Parse ``text`` as one JSON value within ``bounds``.

    Returns:
        The parsed value.

    Raises:
        AnswerUnreadable: too long (checked before any parsing), nested too deep
            (checked by a linear scan before parsing), or not valid JSON; the message is
            one short line that quotes none of the answer's content.
    """
    if len(text) > bounds.max_chars:
        raise AnswerUnreadable(
            f"the answer is {len(text):,} characters long; at most {bounds.max_chars:,} are read"
        )
    if nesting_depth(text, stop_above=bounds.max_depth) > bounds.max_depth:
        raise AnswerUnreadable(
            f"the answer nests arrays or objects more than {bounds.max_depth} levels deep"
        )
    try:
        return json.loads(text, parse_constant=_no_constant)
    except AnswerUnreadable:
        raise
    except (ValueError, RecursionError) as exc:
        # json's messages name a position, never the content ("Expecting ',' delimiter:
        # line 1 column 5 (char 4)"); an integer too long to convert is refused here too.
        detail = clip(str(exc).split("\n", 1)[0], 120)
        raise AnswerUnreadable(f"the answer is not valid JSON: {detail}") from None


def _where(path: Iterable[Any], limit: int) -> str:
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{clip(str(part), limit)}"
    return out


def _quote(value: Any, limit: int) -> str:
    if isinstance(value, str):
        return repr(clip(value, limit))
    if isinstance(value, list):
        return f"an array of {len(value)} items"
    if isinstance(value, dict):
        return f"an object of {len(value)} fields"
    return clip(repr(value), limit)


def _describe(error: ValidationError, bounds: AnswerBounds) -> str:
    """One short sentence for one schema violation, quoting at most ``max_quote`` chars."""
    kind, rule, value = error.validator, error.validator_value, error.instance
    q = bounds.max_quote
    if kind == "maxItems" and isinstance(value, list):
        return f"has {len(value)} items; at most {rule} are allowed"
    if kind == "minItems" and isinstance(value, list):
        return f"has {len(value)} items; at least {rule} are required"
    if kind == "maxLength" and isinstance(value, str):
        return f"is {len(value)} characters long; at most {rule} are allowed"
    if kind == "minLength" and isinstance(value, str):
        return f"is {len(value)} characters long; at least {rule} are required"
    if kind == "enum":
        allowed = ", ".join(clip(json.dumps(v, ensure_ascii=False), q) for v in list(rule)[:8])
        more = f", … ({len(rule)} in all)" if len(rule) > 8 else ""
        return f"{_quote(value, q)} is not one of [{allowed}{more}]"
    if kind == "const":
        return f"{_quote(value, q)} is not {clip(json.dumps(rule, ensure_ascii=False), q)}"
    if kind == "type":
        return f"{_quote(value, q)} is not of type {clip(json.dumps(rule), q)}"
    if kind == "pattern":
        return f"{_quote(value, q)} does not match {clip(str(rule), q)}"
    if kind == "required":
        return clip(error.message, bounds.max_problem)
    if kind == "additionalProperties" and isinstance(value, dict):
        allowed_names = set((error.schema or {}).get("properties", {}))
        extra = [k for k in value if k not in allowed_names]
        shown = ", ".join(repr(clip(k, q)) for k in extra[:3])
        more = f" and {len(extra) - 3} more" if len(extra) > 3 else ""
        return f"additional properties are not allowed: {shown}{more}"
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return f"{_quote(value, q)} breaks {kind} {rule}"
    if kind == "uniqueItems":
        return "has repeated items; every item must be unique"
    if kind in ("anyOf", "oneOf"):
        return f"{_quote(value, q)} matches none of the allowed shapes"
    # Any other keyword: jsonschema's own message, which starts with the instance.
    return clip(error.message, bounds.max_problem)


# Keywords that judge a node as a whole; checked before the keywords that descend into it.
_WHOLE_NODE = (
    "type",
    "const",
    "enum",
    "maxItems",
    "minItems",
    "maxLength",
    "minLength",
    "required",
    "additionalProperties",
    "uniqueItems",
)
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_ONE = ("items", "not", "contains")


def _whole_node_first(node: Any) -> Any:
    """Return ``schema`` with each node's whole-node keywords first (same meaning).

    The validator yields problems keyword by keyword in the schema's order, so an
    array's ``maxItems`` is then found before the faults of its 200 items.
    """
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {k: node[k] for k in _WHOLE_NODE if k in node}
    for key, value in node.items():
        if key in out:
            continue
        if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            out[key] = {k: _whole_node_first(v) for k, v in value.items()}
        elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
            out[key] = [_whole_node_first(v) for v in value]
        elif key in _SUBSCHEMA_ONE and isinstance(value, dict):
            out[key] = _whole_node_first(value)
        else:
            out[key] = value
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = _whole_node_first(out["additionalProperties"])
    return out


def schema_problems(
    schema: Any, value: Any, *, bounds: AnswerBounds = DEFAULT_BOUNDS, limit: int | None = None
) -> list[str]:
    """Return every way ``value`` breaks ``schema``: short, stable lines sorted by path.

    Each line is ``at <JSON path>: <what is wrong>``; a line quotes at most
    ``bounds.max_quote`` characters of the answer and is at most ``bounds.max_problem``
    characters long. Shallower problems come first. ``limit`` keeps that many (the
    validator is lazy and stops after ten times as many, so a huge answer is not walked
    to the end just to count its faults).
    """
    validator = Draft202012Validator(_whole_node_first(schema))
    found: list[ValidationError] = []
    for error in validator.iter_errors(value):
        found.append(error)
        if limit is not None and len(found) >= 10 * limit:
            break
    # Shallow problems first (an array too long says more than its items' faults).
    found.sort(
        key=lambda e: (
            len(e.absolute_path),
            [(0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in e.absolute_path],
            str(e.validator),
        )
    )
    if limit is not None:
        found = found[:limit]
    return [
        clip(
            f"at {_where(e.absolute_path, bounds.max_quote)}: {_describe(e, bounds)}",
            bounds.max_problem,
        )
        for e in found
    ]
