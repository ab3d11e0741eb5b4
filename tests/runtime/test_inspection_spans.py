"""Evidence spans lie in the message and hold the act's words; the plan diff is exact.

The defect classes: a highlight outside the message or on other characters than the
words it claims (an off-by-one offset, a pointer trusted when it names other words, edge
punctuation), and a plan diff that misses a difference or reports one between equal plans.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from turnframe.runtime.inspection_calls import Pointers
from turnframe.runtime.inspection_chain import evidence_of
from turnframe.runtime.inspection_replay import plan_diff, pointer
from turnframe.runtime.inspection_spans import locate
from turnframe.understand.words import Words

WORD = st.text(alphabet=st.sampled_from(list("abcABCéÉ12-.,'!? ")), min_size=1, max_size=6).map(
    lambda w: w.replace(" ", "") or "x"
)
SPACE = st.sampled_from([" ", "  ", "\t", "\n", " \u00a0 "])


@st.composite
def messages(draw: Any) -> tuple[str, list[str]]:
    words = draw(st.lists(WORD, min_size=1, max_size=12))
    gaps = draw(st.lists(SPACE, min_size=len(words), max_size=len(words)))
    lead = draw(st.sampled_from(["", " ", "\n"]))
    text = lead + "".join(w + g for w, g in zip(words, gaps, strict=True)).rstrip()
    return text, Words.of(text).tokens  # the words as the message numbers them


def _check(text: str, span: Any) -> None:
    if span.match == "absent":
        assert span.start is None and span.end is None and span.text is None
        return
    assert 0 <= span.start <= span.end <= len(text)
    assert text[span.start : span.end] == span.text
    if span.match in ("exact", "pointer"):
        assert span.text == span.words


def test_words_before_a_full_stop_are_found_without_it() -> None:
    text = "Put Rui on the Porto trip, 2 to 6 July."
    span = locate(text, "a1", "end", "6 july")
    assert span.match == "loose" and span.text == "6 July"
    assert locate(text, "a1", "end", "6 July").text == "6 July"


@given(messages(), st.data())
def test_a_run_of_the_messages_words_is_found_exactly(msg: Any, data: Any) -> None:
    text, _ = msg
    words = Words.of(text)
    first = data.draw(st.integers(0, len(words) - 1))
    last = data.draw(st.integers(first, len(words) - 1))
    said = words.text(first, last)
    with_pointer = data.draw(st.booleans())
    span = locate(text, "a1", "x", said, pointer=(first, last) if with_pointer else None)
    _check(text, span)
    assert span.match == ("pointer" if with_pointer else "exact")
    if with_pointer:  # the pointer's own words, not an earlier copy of them
        assert span.start == words.offsets[first][0]


@given(messages(), st.data())
def test_loose_words_are_placed_on_whole_words_that_repeat_them(msg: Any, data: Any) -> None:
    text, _ = msg
    words = Words.of(text)
    first = data.draw(st.integers(0, len(words) - 1))
    last = data.draw(st.integers(first, len(words) - 1))
    said = " ".join(t.upper().strip(".,'!?-") or t for t in words.tokens[first : last + 1])
    span = locate(text, "a1", "x", said)
    _check(text, span)
    if span.match == "loose":
        # The characters highlighted are the user's words for it, up to case and accents.
        assert Words.of(span.text).tokens  # type: ignore[arg-type]
        assert words.repeats(said, *_words_of(words, span.start, span.end))  # type: ignore[arg-type]
    assert span.match != "absent" or not words.repeats(said, first, last)


def _words_of(words: Words, start: int, end: int) -> tuple[int, int]:
    """Return the word numbers a character span covers."""
    covered = [n for n, (a, b) in enumerate(words.offsets) if a < end and b > start]
    return covered[0], covered[-1]


@given(
    messages(),
    st.text(max_size=12),
    st.none() | st.tuples(st.integers(-3, 15), st.integers(-3, 15)),
)
def test_any_words_and_any_pointer_give_a_span_in_the_message_or_none(
    msg: Any, said: str, at: tuple[int, int] | None
) -> None:
    text, _ = msg
    span = locate(text, "a1", "x", said, pointer=at)
    _check(text, span)


@given(messages(), st.data())
def test_an_acts_evidence_is_located_for_every_argument(msg: Any, data: Any) -> None:
    text, _ = msg
    words = Words.of(text)
    n = data.draw(st.integers(1, 3))
    evidence = {}
    for k in range(n):
        first = data.draw(st.integers(0, len(words) - 1))
        last = data.draw(st.integers(first, min(first + 2, len(words) - 1)))
        evidence[f"arg{k}"] = words.text(first, last)
    act = {"id": "a1", "args": dict(evidence), "evidence": evidence, "target": {"mention": None}}
    found = evidence_of(text, act, Pointers(), [])
    assert [s.argument for s in found] == list(evidence)
    for span in found:
        _check(text, span)
        assert span.match == "exact" and span.text == evidence[span.argument]


def test_a_pointer_naming_other_words_is_not_trusted() -> None:
    text = "rename Porto to Porto Summit"
    span = locate(text, "a1", "name", "Porto Summit", pointer=(0, 1))
    assert span.match == "exact" and text[span.start : span.end] == "Porto Summit"  # type: ignore[misc]


def test_the_unit_is_searched_first() -> None:
    text = "add a seat to Lisbon and a seat to Porto"
    span = locate(text, "a2", "kind", "seat", within=(21, len(text)))
    assert span.start == text.rindex("seat")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(JSON, JSON)
def test_the_plan_diff_is_empty_exactly_for_equal_plans(a: Any, b: Any) -> None:
    same = json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert (plan_diff(a, b) == []) == same
    assert plan_diff(a, a) == []


@given(JSON, JSON)
def test_each_difference_points_at_the_values_it_names(a: Any, b: Any) -> None:
    for d in plan_diff(a, b):
        left, right = _at(a, d.path), _at(b, d.path)
        if d.change == "added":
            assert left is _NONE and right == d.replayed
        elif d.change == "removed":
            assert right is _NONE and left == d.recorded
        else:
            assert left == d.recorded and right == d.replayed


def test_a_pointer_escapes_tilde_and_slash() -> None:
    assert pointer(("a/b", 0, "c~d")) == "/a~1b/0/c~0d"
    assert plan_diff({"a/b": 1}, {"a/b": 2})[0].path == "/a~1b"
    assert plan_diff(1, 1.0)[0].change == "changed"


_NONE = object()


def _at(value: Any, path: str) -> Any:
    """Return the value at a JSON pointer, or ``_NONE`` when there is none."""
    if not path:
        return value
    for raw in path.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict):
            if part not in value:
                return _NONE
            value = value[part]
        elif isinstance(value, list):
            if int(part) >= len(value):
                return _NONE
            value = value[int(part)]
        else:
            return _NONE
    return value
