"""The user's words, numbered, and evidence pointers into them (guide §5 "Evidence is a pointer").

A value is the user's words: a model copies them and points at them by word number, and
code keeps the copy only when the words pointed at repeat it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Words", "normalize", "strip_edges"]

_PUNCT = ".,;:!?\"'()[]{}<>«»“”‘’…-–—/\\*"


def normalize(word: str) -> str:
    """Return ``word`` lower-cased without surrounding punctuation."""
    return word.strip(_PUNCT).casefold()


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


@dataclass(frozen=True, slots=True)
class Words:
    """A message split on whitespace; word ``n`` is ``tokens[n]``."""

    tokens: tuple[str, ...]

    @classmethod
    def of(cls, text: str) -> Words:
        """Return the numbered words of ``text``."""
        return cls(tuple(text.split()))

    def __len__(self) -> int:
        return len(self.tokens)

    def numbered(self, start: int = 0, end: int | None = None) -> str:
        """Return ``"0:word 1:word ..."`` for words ``start``..``end`` inclusive."""
        stop = len(self.tokens) - 1 if end is None else end
        return " ".join(f"{n}:{self.tokens[n]}" for n in range(start, stop + 1))

    def text(self, start: int, end: int) -> str:
        """Return words ``start``..``end`` inclusive as written."""
        return " ".join(self.tokens[start : end + 1])

    def span_error(self, start: int, end: int) -> str | None:
        """Return why ``start``..``end`` is not a span of this message, or ``None``."""
        if start > end:
            return f"the span {start}-{end} ends before it starts"
        if end >= len(self.tokens):
            return f"the span {start}-{end} runs past the last word ({len(self.tokens) - 1})"
        return None

    def repeats(self, copy: str, start: int, end: int) -> bool:
        """Return whether words ``start``..``end`` repeat ``copy`` (case and edge punctuation aside)."""
        if self.span_error(start, end):
            return False
        pointed = [w for w in (normalize(t) for t in self.tokens[start : end + 1]) if w]
        copied = [w for w in (normalize(t) for t in copy.split()) if w]
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
