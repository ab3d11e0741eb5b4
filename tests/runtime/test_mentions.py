"""The words a brief looks up (turnframe.runtime.mentions; ADR 0020 rule 2)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnframe.runtime.mentions import _strip_punctuation, bare, mention_words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("change Ana, to x", ("change", "ana,", "ana", "to", "x")),
        ("Ana's email", ("ana's", "ana", "email")),
        ("Ana\u2019s", ("ana\u2019s", "ana")),
        ("(Ana) \u00abLi\u00bb", ("(ana)", "ana", "\u00abli\u00bb", "li")),
        ("Ana\U0001f642 \u200fKim\u200b", ("ana\U0001f642", "ana", "\u200fkim\u200b", "kim")),
        ("ana ANA ana,", ("ana", "ana,")),
        ("...", ("...",)),
    ],
)
def test_each_word_is_followed_by_its_bare_form(text: str, words: tuple[str, ...]) -> None:
    assert mention_words(text) == words


@pytest.mark.parametrize("word", ["ana.s@example.com", "o'brien", "new@example.pt", "rock'n'roll"])
def test_punctuation_inside_a_word_stays(word: str) -> None:
    assert bare(word) == word


def test_a_possessive_alone_is_not_a_name() -> None:
    assert bare("'s") == "s"
    assert bare("ana's,") == "ana"


def _bare_by_the_edge_rule(word: str) -> str:
    """``bare`` spelled out with the Unicode edge rule alone (no shortcut)."""
    slow = _strip_punctuation(word)
    for ending in ("'s", "\u2019s"):
        if len(slow) > len(ending) and slow.endswith(ending):
            return _strip_punctuation(slow[: -len(ending)])
    return slow


@given(st.text(min_size=1, max_size=12))
def test_the_letters_and_digits_shortcut_is_the_stripping_rule(word: str) -> None:
    """``bare`` returns a word of letters and digits as is: the edge rule agrees."""
    assert bare(word) == _bare_by_the_edge_rule(word)


def _mention_words_normalising_every_word(text: str) -> tuple[str, ...]:
    """``mention_words`` as it was before the ASCII shortcut: every form normalised."""
    import unicodedata

    from turnframe.store.search import query_words

    out: dict[str, None] = {}
    for word in query_words(text):
        stripped = bare(word)
        for form in (word, stripped) if stripped else (word,):
            out[form] = None
            out[unicodedata.normalize("NFC", form)] = None
            out[unicodedata.normalize("NFD", form)] = None
    return tuple(out)


@given(
    st.text(
        st.one_of(st.sampled_from(list("ana silva,.'s() \u00e9e\u0301\u2019")), st.characters()),
        max_size=24,
    )
)
def test_the_ascii_shortcut_gives_every_composition(text: str) -> None:
    """Skipping normalisation of ASCII words changes no word list (ASCII is NFC and NFD)."""
    assert mention_words(text) == _mention_words_normalising_every_word(text)


def test_the_ascii_wrapping_set_is_the_wrapping_rule_over_ascii() -> None:
    """``bare``'s ASCII shortcut strips exactly the ASCII characters ``_wrapping`` holds of."""
    from turnframe.runtime.mentions import _ASCII_WRAPPING, _wrapping

    assert {chr(c) for c in range(128) if _wrapping(chr(c))} == set(_ASCII_WRAPPING)


@given(st.text(st.characters(max_codepoint=127), min_size=1, max_size=12))
def test_the_ascii_shortcut_is_the_stripping_rule(word: str) -> None:
    """An ASCII word is stripped by ``str.strip``: the same answer as the edge rule."""
    assert bare(word) == _bare_by_the_edge_rule(word)


@given(
    st.text(
        st.one_of(st.sampled_from(list("ana silva,.'s() ")), st.characters(max_codepoint=127)),
        max_size=24,
    )
)
def test_an_ascii_text_gives_the_word_list_of_the_general_rule(text: str) -> None:
    """The ASCII text's own loop (no normalising, a bare word only when one differs)."""
    assert mention_words(text) == _mention_words_normalising_every_word(text)
