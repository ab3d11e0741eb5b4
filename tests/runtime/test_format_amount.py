"""``format_amount`` writes what ``read_amount`` reads back (docs/adr/0015-values-in-the-turns-locale.md)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from babel.numbers import list_currencies
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core.errors import UsageError
from turnframe.runtime import format_amount, read_amount

LOCALES = ("en", "pt-PT")
CURRENCIES = sorted(list_currencies())

amounts = st.decimals(
    min_value=Decimal("-1e12"), max_value=Decimal("1e12"), allow_nan=False, places=4
)


@settings(max_examples=300, deadline=None)
@given(
    value=amounts,
    currency=st.one_of(st.none(), st.sampled_from(CURRENCIES)),
    locale=st.sampled_from(LOCALES),
)
def test_format_then_read_gives_the_same_value_and_currency(
    value: Decimal, currency: str | None, locale: str
) -> None:
    """Every CLDR currency (or none), any sign and size: the words read back exactly."""
    try:
        words = format_amount(value, currency, locale)
    except UsageError:
        # Only a code the locale cannot read back (a historic one without a name) is refused.
        assert currency is not None
        return
    amount = read_amount(words, locale)
    assert amount.value == value, words
    assert amount.currency == currency, words


@pytest.mark.parametrize(
    ("value", "currency", "locale", "words"),
    [
        (Decimal("1250.5"), "EUR", "en", "€1,250.50"),
        (Decimal("1250.5"), "EUR", "pt-PT", "1\xa0250,50\xa0€"),
        (Decimal("0.125"), "USD", "en", "$0.125"),
        (Decimal("-3"), "USD", "pt-PT", "-3,00\xa0US$"),
        (Decimal("12345.6"), None, "pt-PT", "12\xa0345,6"),
        (Decimal("7"), "JPY", "en", "¥7"),
    ],
)
def test_the_locale_s_own_pattern_and_symbols(
    value: Decimal, currency: str | None, locale: str, words: str
) -> None:
    """CLDR's pattern, never rounded, the currency's minor digits the least shown."""
    assert format_amount(value, currency, locale) == words


def test_a_shared_symbol_is_written_as_the_iso_code() -> None:
    """Where a symbol names two currencies the code is written, so the reader is never guessing."""
    for currency in CURRENCIES:
        for locale in LOCALES:
            try:
                words = format_amount(Decimal("1"), currency, locale)
            except UsageError:
                continue
            assert read_amount(words, locale).currency == currency


@pytest.mark.parametrize("value", [Decimal("NaN"), Decimal("Infinity"), 1.5])
def test_a_value_that_is_no_finite_decimal_is_refused(value: object) -> None:
    """A float or a non-finite Decimal is a usage error, not words that read differently."""
    with pytest.raises(UsageError, match="finite Decimal"):
        format_amount(value, "EUR", "en")  # type: ignore[arg-type]


def test_an_unknown_currency_code_is_refused() -> None:
    """A code CLDR does not know is refused with the fix, not written as an unreadable word."""
    with pytest.raises(UsageError, match="not a currency code"):
        format_amount(Decimal("1"), "XQQ", "en")
    with pytest.raises(UsageError, match="not a currency code"):
        format_amount(Decimal("1"), "eur", "en")
