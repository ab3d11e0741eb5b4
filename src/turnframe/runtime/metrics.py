"""Counters the runtime emits (ADR 0001 rule 8: ``turnframe.target.ambiguous``).

Labels never carry user or case text: only workflow, operation and task names and
stable codes (docs/telemetry.md "Metrics"). Every counter goes to the runtime's
:class:`Metrics` sink (default :class:`InMemoryMetrics`) and, when the runtime has
telemetry, to its OpenTelemetry counters too (:class:`TeeMetrics`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Protocol

__all__ = [
    "AMBIGUOUS_TARGET",
    "CLAIM_GUARD_REFUSALS",
    "COMMITS",
    "IDEMPOTENT_REPLAYS",
    "NOTICES",
    "REPAIRS",
    "RESENDS",
    "REVISION_CONFLICTS",
    "VOTES",
    "InMemoryMetrics",
    "Metrics",
    "TeeMetrics",
    "tee",
]

AMBIGUOUS_TARGET = "turnframe.target.ambiguous"
"""Counted whenever an ambiguous target blocks an act (labels ``workflow``, ``operation``
when the act names an operation)."""
REPAIRS = "turnframe.model.repairs"
"""Repair rounds: an answer broke its contract and was asked again (label ``task``)."""
RESENDS = "turnframe.model.resends"
"""Calls sent again in place: refused, filtered, empty or dropped (label ``task``)."""
VOTES = "turnframe.model.votes"
"""Voted reads sent (label ``task``)."""
NOTICES = "turnframe.reply.notices"
"""Notice blocks in replies (label ``code``: the stable code before any ``:``)."""
COMMITS = "turnframe.commits"
"""Commits a turn wrote (label ``workflow``)."""
REVISION_CONFLICTS = "turnframe.commit.revision_conflicts"
"""Batches refused because the case's revision moved (label ``workflow``)."""
IDEMPOTENT_REPLAYS = "turnframe.idempotent.replays"
"""Work answered from the journal instead of done again (label ``kind``: ``turn`` for a
replied turn id sent again, ``commit`` for a batch replayed by its idempotency key)."""
CLAIM_GUARD_REFUSALS = "turnframe.claims.refused"
"""What the claim guard refused (docs/adr/0017-no-claim-in-model-words.md); label
``guard``: ``blocks`` (reply blocks the block guard refused) or ``words`` (model sentences
and answers the word guard dropped)."""


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


class TeeMetrics:
    """Counts into two sinks: the runtime's :class:`Metrics` and the telemetry's counters."""

    __slots__ = ("first", "second")

    def __init__(self, first: Metrics, second: Metrics) -> None:
        self.first, self.second = first, second

    def count(self, name: str, value: int = 1, labels: Mapping[str, str] | None = None) -> None:
        """Add ``value`` to ``name`` in both sinks."""
        self.first.count(name, value, labels)
        self.second.count(name, value, labels)


class _Telemetry(Metrics, Protocol):
    enabled: bool


def tee(metrics: Metrics, telemetry: _Telemetry) -> Metrics:
    """Return ``metrics``, or a :class:`TeeMetrics` into it and ``telemetry`` when that is on."""
    return TeeMetrics(metrics, telemetry) if telemetry.enabled else metrics
