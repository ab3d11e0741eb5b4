"""Read the user's words for a date in the turn's locale (docs/adr/0015-values-in-the-turns-locale.md).

Pure. The locale's CLDR data (via Babel, :mod:`turnframe.runtime.locale_data`) decides
the month and weekday names, the relative words ("tomorrow", "amanhã") and the order of
a numeric date's fields. A numeric date that two plausible orders read as two different
dates is never resolved by picking one: :func:`read_date` raises :class:`AmbiguousDate`
with both readings, and the runtime asks which one was meant (invariant I8, no guess).
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from turnframe.runtime.locale_data import DateData, date_data, fold

__all__ = ["AmbiguousDate", "NotADate", "read_date"]

_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_TOKEN = re.compile(r"\d+|[^\W\d_]+")
_YEAR_WINDOW_PAST = 80
"""A two-digit year is the one in [today − 80 years, today + 19 years]."""


class NotADate(ValueError):
    """The words do not read as a date in the turn's locale."""


class AmbiguousDate(ValueError):
    """The words read as several dates in the locale's plausible orders.

    Attributes:
        readings: the different dates, in calendar order (two or more).
    """

    def __init__(self, readings: tuple[date, ...]) -> None:
        super().__init__(", ".join(d.isoformat() for d in readings))
        self.readings = readings


def _year(text: str, today: date) -> int:
    value = int(text)
    if len(text) == 4:
        return value
    if len(text) != 2:
        raise NotADate(f"{text!r} is not a year")
    low = today.year - _YEAR_WINDOW_PAST
    century = low - low % 100
    year = century + value
    if year < low:
        year += 100
    return year


def _valid(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def read_date(words: str, today: date, locale: str) -> date:
    """Return the date ``words`` name in ``locale``, read against ``today``.

    Accepted: ISO ``2026-07-10``; the locale's short, medium, long and full formats and
    their parts (``"10/7"``, ``"13 de maio"``, ``"May 13, 2026"``, ``"sexta-feira, 10 de
    julho"``); the locale's words for days near today. A date without a year is in
    today's year. A weekday that does not match the date makes the words no date.

    Args:
        words: the user's words.
        today: the turn's today.
        locale: the turn's BCP 47 locale.

    Raises:
        NotADate: the words are no date in the locale.
        AmbiguousDate: two plausible orders read the numbers as different dates.
    """
    text = words.strip()
    iso = _ISO.match(text)
    if iso:
        found = _valid(int(iso.group(1)), int(iso.group(2)), int(iso.group(3)))
        if found is None:
            raise NotADate(f"{text!r} is no calendar date")
        return found
    data = date_data(locale)
    folded = " ".join(fold(text).split()).strip(" .,;!?")
    if folded in data.relative:
        return today + timedelta(days=data.relative[folded])
    readings = _readings(folded, today, data)
    if not readings:
        raise NotADate(f"{text!r} is not a date")
    if len(readings) > 1:
        raise AmbiguousDate(tuple(sorted(readings)))
    return readings[0]


def _names(folded: str, table: dict[str, int]) -> tuple[str, list[int]]:
    """Take every name of ``table`` out of ``folded`` (longest first); return what is left."""
    found: list[int] = []
    for name in sorted(table, key=len, reverse=True):
        pattern = re.compile(rf"(?<![^\W\d_]){re.escape(name)}\.?(?![^\W\d_])")
        if pattern.search(folded):
            found.append(table[name])
            folded = pattern.sub(" ", folded)
    return folded, found


def _month_prefix(word: str, data: DateData) -> int | None:
    """Return the month a word of three or more letters starts the name of, when only one."""
    if len(word) < 3:
        return None
    months = {n for name, n in data.months.items() if name.startswith(word)}
    return months.pop() if len(months) == 1 else None


def _readings(folded: str, today: date, data: DateData) -> list[date]:
    rest, weekdays = _names(folded, data.weekdays)
    rest, months = _names(rest, data.months)
    numbers: list[str] = []
    for token in _TOKEN.findall(rest):
        if token.isdigit():
            numbers.append(token)
        elif token in data.fillers:
            continue
        elif token in data.ordinals and numbers:
            continue
        elif (month := _month_prefix(token, data)) is not None:
            months.append(month)
        else:
            return []
    if len(set(weekdays)) > 1 or len(months) > 1:
        return []
    if months:
        found = _named_month(months[0], numbers, today, data)
    else:
        found = _numeric(numbers, today, data)
    dates = sorted(set(found))
    if weekdays:
        dates = [d for d in dates if d.weekday() == weekdays[0]]
    return dates


def _named_month(month: int, numbers: list[str], today: date, data: DateData) -> list[date]:
    if len(numbers) == 1:
        if len(numbers[0]) > 2:
            return []
        found = _valid(today.year, month, int(numbers[0]))
        return [found] if found else []
    if len(numbers) != 2:
        return []
    first, second = numbers
    if len(first) == 4 and len(second) <= 2:
        day, year = second, first
    elif len(second) == 4 and len(first) <= 2:
        day, year = first, second
    elif len(first) <= 2 and len(second) <= 2:
        day, year = (first, second) if data.day_before_year else (second, first)
    else:
        return []
    found = _valid(_year(year, today), month, int(day))
    return [found] if found else []


def _numeric(numbers: list[str], today: date, data: DateData) -> list[date]:
    if any(len(n) > 4 for n in numbers):
        return []
    found: list[date] = []
    if len(numbers) == 2:
        if any(len(n) > 2 for n in numbers):
            return []
        for order in data.orders:
            pair = order.replace("y", "")
            values = dict(zip(pair, (int(n) for n in numbers), strict=True))
            if (d := _valid(today.year, values["m"], values["d"])) is not None:
                found.append(d)
        return found
    if len(numbers) != 3:
        return []
    if len(numbers[0]) == 4:
        # A year written first in full is read year, month, day in every locale.
        d = _valid(int(numbers[0]), int(numbers[1]), int(numbers[2]))
        return [d] if d is not None and all(len(n) <= 2 for n in numbers[1:]) else []
    for order in data.orders:
        if order[0] == "y":
            continue
        fields = dict(zip(order, numbers, strict=True))
        if len(fields["d"]) > 2 or len(fields["m"]) > 2 or len(fields["y"]) not in (2, 4):
            continue
        d = _valid(_year(fields["y"], today), int(fields["m"]), int(fields["d"]))
        if d is not None:
            found.append(d)
    return found
