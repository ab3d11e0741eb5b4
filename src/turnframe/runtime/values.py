"""Evaluate the user's words for an argument into a value (guide §5: code evaluates).

Pure. Dates are parsed against the turn's today with ``python-dateutil``.
"""

from __future__ import annotations

import re
from datetime import date, datetime

from dateutil import parser as date_parser

from turnframe.core.ids import CaseRef
from turnframe.core.operations import ArgumentKind, ArgumentSpec
from turnframe.core.workflow import ArgValue

__all__ = ["InvalidValue", "evaluate_argument"]

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class InvalidValue(ValueError):
    """The words cannot be read as the argument's kind."""


def evaluate_argument(
    spec: ArgumentSpec, words: str, today: date, record: CaseRef | None = None
) -> ArgValue:
    """Return the value of ``words`` for ``spec``.

    Args:
        spec: the argument's spec.
        words: the user's words (or a handle, already resolved into ``record``).
        today: the turn's today; relative and partial dates are read against it.
        record: the case a record argument's handle resolved to.

    Returns:
        ``str``, ``int``, :class:`datetime.date` or :class:`CaseRef`.

    Raises:
        InvalidValue: when the words do not read as the kind.
    """
    text = words.strip()
    match spec.kind:
        case ArgumentKind.RECORD:
            if record is not None:
                return record
            if text.lower() in spec.literals:
                return text.lower()
            raise InvalidValue(f"{spec.name}: not a record in view")
        case ArgumentKind.DATE:
            try:
                default = datetime(today.year, today.month, today.day)
                return date_parser.parse(text, default=default, dayfirst=False).date()
            except (ValueError, OverflowError) as exc:
                raise InvalidValue(f"{spec.name}: not a date") from exc
        case ArgumentKind.INTEGER:
            try:
                return int(text)
            except ValueError as exc:
                raise InvalidValue(f"{spec.name}: not a whole number") from exc
        case ArgumentKind.CHOICE:
            lowered = text.lower()
            if lowered in spec.choices:
                return lowered
            raise InvalidValue(f"{spec.name}: not one of {', '.join(spec.choices)}")
        case ArgumentKind.EMAIL:
            if _EMAIL.match(text):
                return text
            raise InvalidValue(f"{spec.name}: not an email address")
        case ArgumentKind.TEXT | ArgumentKind.PART:
            # A part's words are resolved by the target's workflow (``find_parts``);
            # evaluated on their own they are text.
            if not text:
                raise InvalidValue(f"{spec.name}: empty")
            return text
    raise InvalidValue(f"{spec.name}: unknown kind")  # pragma: no cover
