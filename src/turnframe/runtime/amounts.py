"""Read the user's words for a number or an amount in the turn's locale (docs/adr/0015-values-in-the-turns-locale.md).

Pure. The locale's CLDR decimal symbol (via Babel) decides where a fraction starts, so
``"1.250,50"`` is 1250.50 in pt-PT and no number in en, and ``"1,250"`` is 1250 in en
and 1.25 in pt-PT. Grouping symbols are those the language's locales use (pt-PT accepts
CLDR's no-break space and the ``"."`` people also write); a group must hold three digits.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from turnframe.core.workflow import Amount
from turnframe.runtime.locale_data import NumberData, fold, number_data

__all__ = ["NotANumber", "read_amount", "read_number"]

_MINUS = ("-", "\u2212")


class NotANumber(ValueError):
    """The words do not read as a number (or an amount) in the turn's locale."""


def _number(text: str, data: NumberData) -> Decimal:
    body = text.strip()
    sign = ""
    if body[:1] in (*_MINUS, "+"):
        sign, body = ("-" if body[0] in _MINUS else ""), body[1:].strip()
    whole, point, fraction = body.partition(data.decimal)
    if point and not fraction.isdigit():
        raise NotANumber(f"{text!r} is not a number")
    if not whole and not fraction:
        raise NotANumber(f"{text!r} is not a number")
    if whole and not whole.isdigit():
        # Grouped digits: one kind of grouping symbol, one of the language's, every
        # group three digits.
        used = {c for c in whole if not c.isdigit()}
        if len(used) != 1 or not used <= data.groups:
            raise NotANumber(f"{text!r} is not a number")
        group = re.escape(used.pop())
        if not re.fullmatch(rf"\d{{1,3}}({group}\d{{3}})+", whole):
            raise NotANumber(f"{text!r} groups its digits wrongly")
        whole = re.sub(group, "", whole)
    try:
        return Decimal(sign + (whole or "0") + ("." + fraction if fraction else ""))
    except InvalidOperation as exc:  # pragma: no cover - digits only by now
        raise NotANumber(f"{text!r} is not a number") from exc


def read_number(words: str, locale: str) -> Decimal:
    """Return the number ``words`` write in ``locale``.

    Raises:
        NotANumber: the words are no number there (wrong grouping, a letter, the other
            locale's decimal symbol where it would read as grouping).
    """
    text = words.strip()
    if not text:
        raise NotANumber("no words")
    return _number(text, number_data(locale))


def read_amount(words: str, locale: str) -> Amount:
    """Return the amount ``words`` write in ``locale`` (``"1.250,50 €"``, ``"$1,250.50"``).

    The currency is a symbol, an ISO code or a currency name of the locale (CLDR), before
    or after the number; an amount without one has ``currency=None`` and the domain
    decides. A symbol that two currencies share in the locale is no currency.

    Raises:
        NotANumber: the number is not one in the locale, or the other words are no
            currency there.
    """
    text = " ".join(words.split())
    data = number_data(locale)
    digits = [n for n, c in enumerate(text) if c.isdigit()]
    if not digits:
        raise NotANumber(f"{words!r} is not an amount")
    pre, number, post = text[: digits[0]], text[digits[0] : digits[-1] + 1], text[digits[-1] + 1 :]
    if pre.endswith(data.decimal):
        pre, number = pre[: -len(data.decimal)], data.decimal + number
    pre = pre.strip()
    sign = ""
    if pre[-1:] in _MINUS:
        sign, pre = "-", pre[:-1].strip()
    if pre[:1] in _MINUS:
        sign, pre = "-", pre[1:].strip()
    post = post.strip().rstrip(".!?;").strip()
    if pre and post:
        raise NotANumber(f"{words!r} names a currency twice")
    currency: str | None = None
    named = pre or post
    if named:
        currency = data.currencies.get(fold(named))
        if currency is None:
            raise NotANumber(f"{named!r} is not a currency in {locale}")
    return Amount(value=_number(sign + number, data), currency=currency)
