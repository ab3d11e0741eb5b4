"""Evaluate the user's words for an argument into a value, in the turn's locale.

Pure (docs/adr/0015-values-in-the-turns-locale.md: code evaluates). Dates, whole and decimal numbers and amounts are read
with the locale's CLDR data through Babel (:mod:`turnframe.runtime.dates`,
:mod:`turnframe.runtime.amounts`); a numeric date two plausible orders read differently
raises :class:`AmbiguousValue` so the runtime asks (docs/adr/0015-values-in-the-turns-locale.md,
docs/invariants.md I8).
"""

from __future__ import annotations

import re
from datetime import date

from babel.dates import format_skeleton
from babel.lists import format_list

from turnframe.core.ids import CaseRef
from turnframe.core.operations import ArgumentKind, ArgumentSpec
from turnframe.core.workflow import ArgValue
from turnframe.runtime.amounts import NotANumber, read_amount, read_number
from turnframe.runtime.dates import AmbiguousDate, NotADate, read_date
from turnframe.runtime.locale_data import locale_of

__all__ = ["AmbiguousValue", "InvalidValue", "evaluate_argument", "readings_text"]

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class InvalidValue(ValueError):
    """The words cannot be read as the argument's kind."""


class AmbiguousValue(InvalidValue):
    """The words read as several values of the kind; the user is asked which one.

    Attributes:
        readings: the different values, in order (two or more dates).
    """

    def __init__(self, message: str, readings: tuple[date, ...]) -> None:
        super().__init__(message)
        self.readings = readings


def evaluate_argument(
    spec: ArgumentSpec,
    words: str,
    today: date,
    record: CaseRef | None = None,
    locale: str = "en",
) -> ArgValue:
    """Return the value of ``words`` for ``spec`` in ``locale``.

    Args:
        spec: the argument's spec.
        words: the user's words (or a handle, already resolved into ``record``).
        today: the turn's today; relative and partial dates are read against it.
        record: the case a record argument's handle resolved to.
        locale: the turn's BCP 47 locale (``"pt-PT"``); its CLDR data reads dates,
            numbers and amounts.

    Returns:
        ``str``, ``int``, :class:`decimal.Decimal`, :class:`~turnframe.core.Amount`,
        :class:`datetime.date` or :class:`CaseRef`.

    Raises:
        AmbiguousValue: a date whose numbers read as different dates in two plausible
            orders of the locale (never guessed, I8).
        InvalidValue: when the words do not read as the kind.
    """
    text = words.strip()
    match spec.kind:
        case ArgumentKind.RECORD:
            if record is not None:
                return record
            literal = _declared(text, spec.literals)
            if literal is not None:
                return literal
            raise InvalidValue(f"{spec.name}: not a record in view")
        case ArgumentKind.DATE:
            try:
                return read_date(text, today, locale)
            except AmbiguousDate as exc:
                raise AmbiguousValue(f"{spec.name}: which date?", exc.readings) from exc
            except NotADate as exc:
                raise InvalidValue(f"{spec.name}: not a date") from exc
        case ArgumentKind.INTEGER:
            try:
                number = read_number(text, locale)
            except NotANumber as exc:
                raise InvalidValue(f"{spec.name}: not a whole number") from exc
            if number != number.to_integral_value():
                raise InvalidValue(f"{spec.name}: not a whole number")
            return int(number)
        case ArgumentKind.NUMBER:
            try:
                return read_number(text, locale)
            except NotANumber as exc:
                raise InvalidValue(f"{spec.name}: not a number") from exc
        case ArgumentKind.AMOUNT:
            try:
                return read_amount(text, locale)
            except NotANumber as exc:
                raise InvalidValue(f"{spec.name}: not an amount") from exc
        case ArgumentKind.CHOICE:
            choice = _declared(text, spec.choices)
            if choice is not None:
                return choice
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


def _declared(text: str, declared: tuple[str, ...]) -> str | None:
    """Return the declared spelling ``text`` names, compared without case, or ``None``.

    ``"eur"``, ``"EUR"`` and ``"Eur"`` all name a declared ``"EUR"``, and the value is
    ``"EUR"`` as the domain wrote it. Registration refuses two declared values that differ
    only in case, so at most one matches.
    """
    folded = text.casefold()
    for value in declared:
        if value.casefold() == folded:
            return value
    return None


def readings_text(readings: tuple[date, ...], today: date, locale: str) -> str:
    """Return the readings of an ambiguous date as the locale lists alternatives.

    ``"10 July or 7 October"`` in en, ``"10 de julho ou 7 de outubro"`` in pt-PT: day
    and month by the locale's CLDR skeleton, the year too when one reading is not in
    today's year.
    """
    where = locale_of(locale)
    skeleton = "yMMMMd" if any(d.year != today.year for d in readings) else "MMMMd"
    names = [format_skeleton(skeleton, d, locale=where) for d in readings]
    return format_list(names, style="or", locale=where)
