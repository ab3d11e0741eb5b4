"""The travel sample's memoised word lookups answer as computed fresh.

``trip._extra_tokens`` (the words that describe an extra, memoised on its kind, details
and id) and ``trip._month_words`` (a day's month and year in English and Portuguese,
memoised on the day) are pure; for generated extras and days, looked up interleaved,
each answer equals the function computed without its memo, and ``find_parts`` names the
same extras as a word match computed from scratch. A memo keyed on less than all its
inputs (the kind alone, the month alone) serves another extra's or day's words and fails
here.
"""

from __future__ import annotations

from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.samples.travel import trip
from turnframe.samples.travel.trip_model import EXTRA_KINDS, Extra

details = st.sampled_from([None, "", "Avenida", "Hotel Sol", "window", "veg meal"])
extras = st.builds(
    Extra,
    id=st.integers(1, 4).map(lambda n: f"E{n}"),
    kind=st.sampled_from(EXTRA_KINDS),
    details=details,
)


@settings(max_examples=150, deadline=None)
@given(
    items=st.lists(extras, min_size=1, max_size=6),
    days=st.lists(st.dates(date(2020, 1, 1), date(2030, 12, 31)), max_size=6),
    words=st.sampled_from(["the hotel", "E2", "sol", "window seat", "extra", "veg"]),
)
def test_memoised_travel_words_equal_fresh_ones(
    items: list[Extra], days: list[date], words: str
) -> None:
    for extra in items:
        fresh = frozenset(
            (
                *trip._kind_tokens.__wrapped__(extra.kind),
                *trip._tokens(extra.details or ""),
                extra.id.casefold(),
            )
        )
        assert trip._extra_tokens(extra.kind, extra.details, extra.id) == fresh
        assert trip._extra_tokens.__wrapped__(extra.kind, extra.details, extra.id) == fresh
    for day in days:
        assert trip._month_words(day) == trip._month_words.__wrapped__(day)
    named = trip.extra_id(words)
    wanted = [t for t in trip._tokens(words) if t not in trip._IGNORED]
    for extra in items:
        fresh = frozenset(
            (
                *trip._kind_tokens.__wrapped__(extra.kind),
                *trip._tokens(extra.details or ""),
                extra.id.casefold(),
            )
        )
        expected = named == extra.id or all(t in fresh for t in wanted)
        assert trip._names_extra(extra, named, wanted) == expected
