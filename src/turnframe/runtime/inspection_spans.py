"""Locate an act's evidence words in the message, deterministically (docs/inspector.md).

An act records its values' words (``SemanticAct.evidence``: the user's own text at the
span the model pointed at, docs/architecture.md "Understanding"), not their place. The
inspector puts them back in the message so the page can highlight them:

1. ``pointer``: the model's word pointer (``from``/``to`` of the accepted extract or
   locate answer) when the words there give exactly the recorded words;
2. ``exact``: the first verbatim occurrence, inside the act's unit when it is known,
   else in the whole message;
3. ``loose``: the first run of whole words that repeats them up to case, accents and
   edge punctuation (``Words.repeats``), trimmed of edge punctuation;
4. ``absent``: no span (the words are a record's, an attachment's, or a script's own).

Every span found satisfies ``0 <= start <= end <= len(text)`` and
``text[start:end] == span.text``; ``exact`` and ``pointer`` spans have ``span.text ==
words``.
"""

from __future__ import annotations

from typing import Any

from turnframe.runtime.inspection_models import EvidenceSpan
from turnframe.understand.words import Words

__all__ = ["char_range", "locate"]

_EDGE = ".,;:!?\"'()[]{}<>«»“”‘’…-–—/\\*"


def char_range(words: Words, start: int, end: int) -> tuple[int, int] | None:
    """Return the character range of words ``start``..``end`` (inclusive), or ``None``."""
    if words.span_error(start, end) or start < 0 or not words.offsets:
        return None
    return words.offsets[start][0], words.offsets[end][1]


def locate(
    text: str,
    act: str,
    argument: str,
    said: str,
    *,
    pointer: tuple[int, int] | None = None,
    within: tuple[int, int] | None = None,
) -> EvidenceSpan:
    """Return where ``said`` (an act's words for ``argument``) stands in ``text``.

    Args:
        text: the message.
        act: the act id.
        argument: the argument name (``"target"`` for the target's words).
        said: the recorded words.
        pointer: the model's word pointer (word numbers, inclusive), if recorded.
        within: the act's unit as a character range, searched first.

    Never raises: a pointer outside the message or words not in it fall through to the
    next rule, down to ``absent``.
    """
    words = Words.of(text)
    base: dict[str, Any] = {"act": act, "argument": argument, "words": said}
    if not said.strip():
        return EvidenceSpan(**base, match="absent")
    if pointer is not None:
        region = char_range(words, *pointer)
        if region is not None:
            at = text.find(said, region[0], region[1])
            if at >= 0:
                return EvidenceSpan(
                    **base, start=at, end=at + len(said), text=said, match="pointer"
                )
    ranges = [within, None] if within is not None else [None]
    for where in ranges:
        lo, hi = where if where is not None else (0, len(text))
        at = text.find(said, max(lo, 0), min(hi, len(text)))
        if at >= 0:
            return EvidenceSpan(**base, start=at, end=at + len(said), text=said, match="exact")
    for where in ranges:
        found = _loose(words, said, where)
        if found is not None:
            start, end = found
            return EvidenceSpan(**base, start=start, end=end, text=text[start:end], match="loose")
    return EvidenceSpan(**base, match="absent")


def _loose(words: Words, said: str, where: tuple[int, int] | None) -> tuple[int, int] | None:
    """Return the first run of whole words repeating ``said`` loosely, as characters."""
    count = len(said.split())
    if count == 0 or not words.offsets:
        return None
    for first in range(len(words) - count + 1):
        last = first + count - 1
        start, end = words.offsets[first][0], words.offsets[last][1]
        if where is not None and not (where[0] <= start and end <= where[1]):
            continue
        if words.repeats(said, first, last):
            return _trimmed(words.source, start, end, said)
    return None


def _trimmed(text: str, start: int, end: int, said: str) -> tuple[int, int]:
    """Return ``start``..``end`` without edge punctuation the words do not carry."""
    whole = (start, end)
    kept = said.strip()
    if not (kept[:1] and kept[0] in _EDGE):
        while start < end and text[start] in _EDGE:
            start += 1
    if not (kept[-1:] and kept[-1] in _EDGE):
        while end > start and text[end - 1] in _EDGE:
            end -= 1
    return (start, end) if start < end else whole
