"""The CLDR data the value readers use, per locale, from Babel (docs/adr/0015-values-in-the-turns-locale.md).

Pure and cached: each function reads Babel's locale data once per locale tag. A turn's
locale is a BCP 47 tag (``"en"``, ``"pt-PT"``); a bare language (``"en"``) stands for
every region that speaks it, so what "plausible" means for it is the union over the
language's regional locales in CLDR (``en_US`` writes ``M/d``, ``en_GB`` writes ``d/M``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from babel import Locale, UnknownLocaleError
from babel.localedata import locale_identifiers

from turnframe.core.dataclass_init import fast_init

__all__ = ["DateData", "NumberData", "date_data", "fold", "locale_of", "number_data"]

_ORDINAL_SUFFIXES: dict[str, frozenset[str]] = {
    "en": frozenset({"st", "nd", "rd", "th"}),
    "pt": frozenset({"o", "a"}),
    "es": frozenset({"o", "a"}),
    "fr": frozenset({"er", "re", "e"}),
}
"""Letters people write after a day number (``13th``, ``1º``); CLDR's date patterns do not
carry them. A language missing here reads day numbers without suffixes."""

_CONNECTORS: dict[str, frozenset[str]] = {
    "en": frozenset({"of", "the"}),
    "pt": frozenset({"de", "do", "dia"}),
    "es": frozenset({"de", "del", "el", "dia"}),
    "fr": frozenset({"le"}),
}
"""Words people put between a date's parts beyond the literals of the CLDR patterns
(``"the 13th of May"``, ``"dia 13 de maio"``)."""


def fold(text: str) -> str:
    """Return ``text`` case-folded, compatibility-normalised and without accents.

    ``"Março"`` and ``"MARCO"`` fold alike; a letter's accent never changes which month
    or word it is.
    """
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=64)
def locale_of(tag: str) -> Locale:
    """Return the Babel locale of a BCP 47 ``tag`` (``"pt-PT"``); English when unknown."""
    try:
        return Locale.parse(tag.replace("-", "_"))
    except (UnknownLocaleError, ValueError):
        return Locale.parse("en")


def _relatives(tag: str, *, whole_language: bool = False) -> tuple[Locale, ...]:
    """Return the locales whose conventions are plausible for ``tag``, its own first.

    A tag with a region is that region's locale only (unless ``whole_language``); a bare
    language is every regional locale of the language (without a script) and the
    language itself.
    """
    locale = locale_of(tag)
    if locale.territory and not whole_language:
        return (locale,)
    out = [locale]
    for ident in locale_identifiers():
        parts = ident.split("_")
        if parts[0] == locale.language and len(parts) == 2 and parts[1].isupper():
            out.append(Locale.parse(ident))
    return tuple(out)


_FIELD = re.compile(r"'[^']*'|([dMLyE])\1*")


def _order(pattern: str) -> str:
    """Return the order of day, month and year in a CLDR pattern (``"M/d/yy"`` → ``"mdy"``)."""
    order = ""
    for match in _FIELD.finditer(pattern):
        letter = match.group(1)
        if letter is None:
            continue
        key = {"d": "d", "M": "m", "L": "m", "y": "y"}.get(letter)
        if key and key not in order:
            order += key
    return order


def _literal_words(pattern: str) -> set[str]:
    words: set[str] = set()
    for quoted in re.findall(r"'([^']+)'", pattern):
        words.update(w for w in re.findall(r"[^\W\d_]+", fold(quoted)))
    return words


@fast_init
@dataclass(frozen=True, slots=True)
class DateData:
    """What reading a date in one locale needs (all words folded, see :func:`fold`).

    Attributes:
        orders: the plausible orders of a numeric date's fields (``"dmy"``, ``"mdy"``,
            ``"ymd"``), the locale's own first.
        months: a month's name or abbreviation → its number (1–12).
        weekdays: a weekday's name or abbreviation → its number (Monday 0).
        relative: a word for a day near today (``"amanha"``) → its offset in days.
        fillers: words allowed between a date's parts (pattern literals, connectors).
        ordinals: letters allowed right after a day number.
        long_order: whether the day comes before the year in the locale's long format.
    """

    orders: tuple[str, ...]
    months: dict[str, int]
    weekdays: dict[str, int]
    relative: dict[str, int]
    fillers: frozenset[str]
    ordinals: frozenset[str]
    day_before_year: bool


def _add_names(target: dict[str, int], names: dict[int, str], offset: int = 0) -> None:
    for number, name in names.items():
        key = fold(name).rstrip(".")
        if key:
            target.setdefault(key, int(number) + offset)


@lru_cache(maxsize=64)
def date_data(tag: str) -> DateData:
    """Return the CLDR date data of locale ``tag`` (cached)."""
    relatives = _relatives(tag)
    own = relatives[0]
    orders: list[str] = []
    months: dict[str, int] = {}
    weekdays: dict[str, int] = {}
    relative: dict[str, int] = {}
    fillers: set[str] = set()
    for locale in relatives:
        for width in ("short", "medium", "long", "full"):
            pattern = locale.date_formats[width].pattern
            fillers |= _literal_words(pattern)
            if width == "short":
                order = _order(pattern)
                if len(order) == 3 and order not in orders:
                    orders.append(order)
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                _add_names(months, dict(locale.months[context][width]))
                _add_names(weekdays, dict(locale.days[context][width]))
        fields = locale._data["date_fields"].get("day", {}).get("relative", {})
        for offset, word in dict(fields).items():
            relative.setdefault(fold(str(word)), int(offset))
    language = own.language
    long_order = _order(own.date_formats["long"].pattern)
    return DateData(
        orders=tuple(orders) or ("ymd",),
        months=months,
        weekdays=weekdays,
        relative=relative,
        fillers=frozenset(fillers | _CONNECTORS.get(language, frozenset())),
        ordinals=_ORDINAL_SUFFIXES.get(language, frozenset()),
        day_before_year=long_order.index("d") < long_order.index("y")
        if "d" in long_order and "y" in long_order
        else True,
    )


@fast_init
@dataclass(frozen=True, slots=True)
class NumberData:
    """What reading a number or an amount in one locale needs.

    Attributes:
        decimal: the locale's decimal symbol (CLDR); it alone decides where the fraction
            starts, so a number never reads two ways.
        groups: the grouping symbols any locale of the language uses that are not this
            locale's decimal symbol (pt-PT: CLDR's no-break space, and the ``"."`` of
            pt-BR that people in Portugal write too); grouping never changes a value.
        currencies: a folded currency symbol, ISO code or name → the ISO code. A symbol
            two currencies share in this locale is left out (never guessed).
    """

    decimal: str
    groups: frozenset[str]
    currencies: dict[str, str]


_SPACES = frozenset({" ", "\u00a0", "\u202f", "\u2009"})


@lru_cache(maxsize=64)
def number_data(tag: str) -> NumberData:
    """Return the CLDR number and currency data of locale ``tag`` (cached)."""
    relatives = _relatives(tag, whole_language=True)
    own = relatives[0]
    decimal = own.number_symbols["latn"]["decimal"]
    groups: set[str] = set()
    for locale in relatives:
        group = locale.number_symbols["latn"]["group"]
        if group != decimal:
            groups.add(group)
    if groups & _SPACES:
        groups |= _SPACES
    groups.discard(decimal)
    currencies: dict[str, str] = {}
    clashing: set[str] = set()
    for code, symbol in own.currency_symbols.items():
        key = fold(symbol)
        if key in currencies and currencies[key] != code:
            clashing.add(key)
        currencies.setdefault(key, code)
    for clash in clashing:
        del currencies[clash]
    for iso in own.currencies:
        if len(str(iso)) == 3 and str(iso).isalpha():
            currencies[fold(str(iso))] = str(iso)
    plural = own._data["currency_names_plural"]
    for code, names in dict(plural).items():
        for name in dict(names).values():
            currencies.setdefault(fold(str(name)), code)
    for key, name in own.currencies.items():
        currencies.setdefault(fold(str(name)), str(key))
    return NumberData(decimal=decimal, groups=frozenset(groups), currencies=currencies)
