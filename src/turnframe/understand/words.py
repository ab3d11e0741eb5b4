"""The user's words, numbered, and evidence pointers into them (docs/architecture.md "Evidence").

A value is the user's words: a model copies them and points at them by word number, and
code keeps the pointer only when the words pointed at repeat the copy. The copy may
differ from them loosely (letter case, spacing, accents, edge punctuation); the value
kept is then the user's own text at the span (:meth:`Words.span`), never the model's
copy (docs/adr/0015-values-in-the-turns-locale.md, docs/invariants.md I9).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from turnframe.core.dataclass_init import fast_init

__all__ = ["Words", "normalize", "strip_edges"]

_PUNCT = ".,;:!?\"'()[]{}<>«»“”‘’…-–—/\\*"


def normalize(word: str) -> str:
    """Return ``word`` lower-cased without surrounding punctuation."""
    return word.strip(_PUNCT).casefold()


def _loose(word: str) -> str:
    """Return ``word`` normalised, compatibility-decomposed and without accents."""
    decomposed = unicodedata.normalize("NFKD", normalize(word))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


_EDGE = ".,;:!?\"'()[]{}«»“”‘’…"
"""Sentence punctuation a numbered word carries at its edges; never part of a value."""


def strip_edges(copy: str) -> str:
    """Return ``copy`` without sentence punctuation at its two ends (``"Costa,"`` → ``"Costa"``).

    Numbered words keep the punctuation written against them, so a faithful copy of
    ``5:Costa,`` is ``"Costa,"``; the value the user gave is ``Costa`` (docs/adr/0018).
    Inner punctuation (``"St. John"``, ``"2026-07-01"``) is kept. A copy that is only
    punctuation is returned unchanged.
    """
    stripped = copy.strip().strip(_EDGE).strip()
    return stripped or copy


@fast_init
@dataclass(frozen=True, slots=True)
class Words:
    """A message split on whitespace; word ``n`` is ``tokens[n]``.

    Attributes:
        tokens: the words.
        source: the message as written (empty when built from tokens alone).
        offsets: ``(start, end)`` character offsets of each token in ``source``.
    """

    tokens: tuple[str, ...]
    source: str = ""
    offsets: tuple[tuple[int, int], ...] = field(default=())

    @classmethod
    def of(cls, text: str) -> Words:
        """Return the numbered words of ``text``, remembering where each one stands."""
        found = [(m.group(), m.span()) for m in re.finditer(r"\S+", text)]
        return cls(tuple(t for t, _ in found), text, tuple(span for _, span in found))

    def __len__(self) -> int:
        return len(self.tokens)

    def numbered(self, start: int = 0, end: int | None = None) -> str:
        """Return ``"0:word 1:word ..."`` for words ``start``..``end`` inclusive."""
        stop = len(self.tokens) - 1 if end is None else end
        return " ".join(f"{n}:{self.tokens[n]}" for n in range(start, stop + 1))

    def text(self, start: int, end: int) -> str:
        """Return words ``start``..``end`` inclusive as written."""
        if self.offsets and 0 <= start <= end < len(self.offsets):
            return self.source[self.offsets[start][0] : self.offsets[end][1]]
        return " ".join(self.tokens[start : end + 1])

    def span(self, copy: str, start: int, end: int) -> str:
        """Return the user's own text at words ``start``..``end`` for a kept ``copy``.

        The text is exactly as the user wrote it (letter case, accents and inner spacing
        kept: booking references, names and codes keep their form); punctuation at its
        edges is dropped unless the copy carries punctuation there too (``"AbC12x."`` at
        the end of a sentence is ``"AbC12x"``).

        Raises:
            ValueError: when the span is not one of this message (check
                :meth:`pointer_error` first).
        """
        problem = self.span_error(start, end)
        if problem:
            raise ValueError(problem)
        text = self.text(start, end)
        kept = copy.strip()
        if not (kept[:1] and kept[0] in _PUNCT):
            text = text.lstrip(_PUNCT)
        if not (kept[-1:] and kept[-1] in _PUNCT):
            text = text.rstrip(_PUNCT)
        return text or self.text(start, end)

    def span_error(self, start: int, end: int) -> str | None:
        """Return why ``start``..``end`` is not a span of this message, or ``None``."""
        if start > end:
            return f"the span {start}-{end} ends before it starts"
        if end >= len(self.tokens):
            return f"the span {start}-{end} runs past the last word ({len(self.tokens) - 1})"
        return None

    def repeats(self, copy: str, start: int, end: int) -> bool:
        """Return whether words ``start``..``end`` repeat ``copy``.

        Loosely: letter case, accents, spacing between the words and punctuation at each
        word's edges aside. The value kept is then :meth:`span`, the user's own text.
        """
        if self.span_error(start, end):
            return False
        pointed = "".join(_loose(t) for t in self.tokens[start : end + 1])
        copied = "".join(_loose(t) for t in copy.split())
        return bool(copied) and pointed == copied

    def pointer_error(self, copy: str, start: int, end: int) -> str | None:
        """Return the exact error of an evidence pointer, or ``None`` when code keeps it."""
        problem = self.span_error(start, end)
        if problem:
            return problem
        if not self.repeats(copy, start, end):
            return (
                f"the copy {copy!r} does not repeat words {start}-{end}, "
                f"which are {self.text(start, end)!r}"
            )
        return None
