"""The short words a brief looks up because a briefed record holds them whole (ADR 0020 rule 2).

``turnframe.runtime.scope._whole_words`` finds them without splitting every briefed
text: it must give exactly what the token sets of every text give.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.runtime.mentions import bare
from turnframe.runtime.scope import _whole_words

_CHARS = st.sampled_from(list("ab ,.'s\u2019()"))


def _by_token_sets(words: list[str], texts: list[str]) -> list[str]:
    tokens: set[str] = set()
    for text in texts:
        for token in text.split():
            tokens.add(token)
            tokens.add(bare(token))
    return [w for w in words if w in tokens]


@settings(max_examples=500)
@given(
    st.lists(st.text(_CHARS.filter(str.strip), min_size=1, max_size=3), unique=True, max_size=5),
    st.lists(st.text(_CHARS, max_size=20), max_size=4),
)
def test_whole_words_are_the_token_sets_words(words: list[str], texts: list[str]) -> None:
    assert _whole_words(words, texts) == _by_token_sets(words, texts)


def test_a_word_inside_a_longer_word_is_not_whole() -> None:
    assert _whole_words(["li", "a"], ["silva, li", "ana"]) == ["li"]
    assert _whole_words(["li", "li,"], ["silva li,"]) == ["li", "li,"]
    assert _whole_words(["sil"], ["silva"]) == []
