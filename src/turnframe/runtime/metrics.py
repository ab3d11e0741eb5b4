"""Counters the runtime emits (ADR 0001 rule 8: ``turnframe.target.ambiguous``).

Labels never carry user or case text: only workflow and operation names.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Protocol

__all__ = ["AMBIGUOUS_TARGET", "InMemoryMetrics", "Metrics"]

AMBIGUOUS_TARGET = "turnframe.target.ambiguous"
"""Counted whenever an ambiguous target blocks an act."""


class Metrics(Protocol):
    """A metrics sink."""

    def count(self, name: str, value: int = 1, labels: Mapping[str, str] | None = None) -> None:
        """Add ``value`` to the counter ``name`` with ``labels``."""
        ...


class InMemoryMetrics:
    """Keeps counters in memory; ``counts[(name, labels)]`` reads them back."""

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, tuple[tuple[str, str], ...]]] = Counter()

    def count(self, name: str, value: int = 1, labels: Mapping[str, str] | None = None) -> None:
        """Add ``value`` to the counter."""
        self.counts[(name, tuple(sorted((labels or {}).items())))] += value

    def total(self, name: str) -> int:
        """Return the counter's total over all labels."""
        return sum(v for (n, _), v in self.counts.items() if n == name)
