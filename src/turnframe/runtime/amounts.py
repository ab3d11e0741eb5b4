"""Read and write a number or an amount in the turn's locale (docs/adr/0015-values-in-the-turns-locale.md).

Pure. The locale's CLDR decimal symbol (via Babel) decides where a fraction starts, so
``"1.250,50"`` is 1250.50 in pt-PT and no number in en, and ``"1,250"`` is 1250 in en
and 1.25 in pt-PT. Grouping symbols are those the language's locales use (pt-PT accepts
CLDR's no-break space and the ``"."`` people also write); a group must hold three digits.
:func:`format_amount` writes an amount the way :func:`read_amount` reads it back.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from babel.numbers import format_currency, format_decimal

from turnframe.core.errors import UsageError
from turnframe.core.workflow import Amount
from turnframe.runtime.locale_data import NumberData, fold, locale_of, number_data

__all__ = ["NotANumber", "format_amount", "read_amount", "read_number"]

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


def format_amount(value: Decimal, currency: str | None, locale: str) -> str:
    """Return ``value`` in ``currency`` written in ``locale`` (``"€1,250.50"``, ``"1250,50 €"``).

    The CLDR currency pattern of the locale (via Babel), its grouping and decimal symbols;
    never rounded (``Decimal("0.125")`` keeps three places; a currency's minor digits are
    the least shown). The currency is the locale's symbol when the reader takes it back to this
    currency there (a symbol two currencies share is not), else its ISO code, so :func:`read_amount` reads the words back to the
    same value and currency in the same locale. ``currency=None`` writes the number alone.

    Args:
        value: a finite amount.
        currency: an ISO 4217 code (``"EUR"``) or ``None``.
        locale: a BCP 47 tag (``"en"``, ``"pt-PT"``); an unknown one writes English, as
            the readers read it.

    Raises:
        UsageError: ``value`` is not finite, or ``currency`` is not a currency code the
            locale knows (or no form of it reads back there).
    """
    if not isinstance(value, Decimal) or not value.is_finite():
        raise UsageError(f"format_amount needs a finite Decimal, not {value!r}")
    babel_locale = locale_of(locale)
    if currency is None:
        return format_decimal(value, locale=babel_locale, decimal_quantization=False)
    data = number_data(locale)
    if data.currencies.get(fold(currency)) != currency:
        raise UsageError(
            f"{currency!r} is not a currency code in {locale} (write an ISO 4217 code, e.g. 'EUR')"
        )
    pattern = babel_locale.currency_formats["standard"].pattern
    # The symbol when the reader takes it back to this currency (it may be shared, or
    # end in punctuation the reader drops), else the ISO code (CLDR's "¤¤").
    for form in (pattern, pattern.replace("¤", "¤¤")):
        words = format_currency(
            value, currency, format=form, locale=babel_locale, decimal_quantization=False
        )
        try:
            back = read_amount(words, locale)
        except NotANumber:
            continue
        if back.currency == currency and back.value == value:
            return words
    raise UsageError(f"{currency!r} cannot be written so that it reads back in {locale}")
