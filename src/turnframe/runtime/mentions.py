"""The words of a user's text a brief looks up (docs/adr/0020-what-a-brief-shows.md rule 2).

The directory's rule is a substring of a record's folded search text
(:mod:`turnframe.store.search`), so ``"ana,"`` finds no "Ana Silva"; but whoever reads
the text takes ``"Ana,"``, ``"(Ana)"`` or ``"Ana's"`` for the name. A brief that looked
up only ``"ana,"`` would add no other Ana, and a record the runtime brought in (the
default view, the conversation's) would be listed alone among those the name fits: a
guess by the runtime (I8). :func:`mention_words` gives each word, its bare form and
their other Unicode compositions.
"""

from __future__ import annotations

import string
import unicodedata

from turnframe.store.search import query_words

__all__ = ["bare", "mention_words"]

_POSSESSIVES = ("'s", "\u2019s")
"""English possessive endings a name may carry in the text (``Ana's``, ``Ana’s``)."""


def bare(word: str) -> str:
    """Return ``word`` without the punctuation around it and a trailing possessive.

    What wraps a word is a character of a Unicode ``P*`` or ``S*`` category (``,``,
    ``.``, ``(``, ``«``, ``’``, an emoji…) or an invisible format mark (``Cf``: a
    zero-width space, a direction mark pasted with a name); only the edges are
    stripped, so ``"ana.s@example.com"`` stays whole.
    """
    if word.isalnum():
        return word  # letters and digits only (L*, N*): nothing wraps it, no "'s"
    strip = _strip_ascii if word.isascii() else _strip_punctuation
    core = strip(word)
    for ending in _POSSESSIVES:
        if len(core) > len(ending) and core.endswith(ending):
            return strip(core[: -len(ending)])
    return core


def _wrapping(char: str) -> bool:
    """Whether ``char`` may wrap a word: punctuation, a symbol or an invisible format mark."""
    kind = unicodedata.category(char)
    return kind[0] in "PS" or kind == "Cf"


_ASCII_WRAPPING = string.punctuation
"""The ASCII characters :func:`_wrapping` holds true of: all 32 are Unicode ``P*`` or ``S*``,
and no other ASCII character is (nor ``Cf``)."""


def _strip_ascii(word: str) -> str:
    """:func:`_strip_punctuation` of an ASCII word, in one ``str.strip`` (the same answer)."""
    return word.strip(_ASCII_WRAPPING)


def _strip_punctuation(word: str) -> str:
    start, end = 0, len(word)
    while start < end and _wrapping(word[start]):
        start += 1
    while end > start and _wrapping(word[end - 1]):
        end -= 1
    return word[start:end]


def mention_words(text: str) -> tuple[str, ...]:
    """Return the distinct folded words of ``text`` a brief looks up, in order.

    Each whitespace-separated word (:func:`~turnframe.store.search.query_words`) and,
    right after it when different and not empty, the same word without the punctuation
    around it and an English possessive (``"ana,"`` then ``"ana"``; ``"ana's"`` then
    ``"ana"``), each also in Unicode's composed and decomposed forms (NFC, NFD) when
    they differ (``"josé"`` typed with a combining accent finds a "José" stored
    composed). The directory's rule is a substring of a record's search text, so
    ``"ana,"`` finds no "Ana Silva"; but a reader of the text takes it for the name, so
    the bare word is looked up too, or a record the runtime brought in would be listed
    alone among those the name fits (docs/adr/0020-what-a-brief-shows.md rule 2, I8).
    Each form counts as a word of its own against ``BriefLimits.words``, so a long
    message still costs at most that many look-ups.
    """
    out: dict[str, None] = {}
    if text.isascii():  # every form is its own NFC and NFD form; most words are bare
        for word in query_words(text):
            out[word] = None
            if not word.isalnum():
                stripped = bare(word)
                if stripped:
                    out[stripped] = None
        return tuple(out)
    for word in query_words(text):
        stripped = bare(word)
        for form in (word, stripped) if stripped else (word,):
            out[form] = None
            if form.isascii():
                continue  # ASCII text is its own NFC and NFD form
            # The same letters composed otherwise ("é" as one code point or as "e" and
            # an accent): a reader sees one name, the substring rule two.
            out[unicodedata.normalize("NFC", form)] = None
            out[unicodedata.normalize("NFD", form)] = None
    return tuple(out)
