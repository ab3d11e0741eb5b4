"""Effort: how hard a turn is read, and in how many model-call latencies.

See docs/architecture.md "Effort".

The contract per effort is documented in docs/architecture.md "Effort": which tasks
run, which are merged into one call or run concurrently, the critical path in call
latencies, and what code checks each answer. Effort never changes what policy allows.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import UsageError
from turnframe.core.turn import Effort

__all__ = ["EffortProfile", "Merge", "effort_profile"]


class Merge(StrEnum):
    """Which steps of the chain one model call answers together (docs/architecture.md "Effort").

    Every part of a merged answer is checked by code with the task its step would have
    asked (full schema and code check) before anything uses it.
    """

    NONE = "none"
    """Each step is its own call: segment, then route, then locate ∥ extract."""
    UNITS = "units"
    """Segmentation and routing in one call (``segment_route``), then locate ∥ extract."""
    ALL = "all"
    """Segmentation, routing, each act's target and values in one call (``read``)."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class EffortProfile:
    """How hard a turn is read (docs/architecture.md "Effort"); never changes what policy allows.

    Attributes:
        split_votes: reads of segmentation, or of the merged read (a split vote is read
            once more).
        route_votes: reads of routing when it is its own call.
        verify_votes: reads of every verification.
        fault_revotes: extra reads of a verification that found fault.
        reasoning: reasoning effort for the reading tasks but extraction.
        reply_review: the reply's acknowledgement is reviewed.
        step_prose: steps are narrated in the user's language.
        cross_check: the whole reading is cross-checked; each finding sends one step of
            one act back once and the verifier decides.
        merge: which steps one call answers together (:class:`Merge`).

    Raises:
        UsageError: ``cross_check`` with a merged read (the cross-check reads the whole
            reading once every act is read; a merged read's units found late by
            coverage would escape it).
    """

    split_votes: int
    route_votes: int
    verify_votes: int
    fault_revotes: int
    reasoning: str | None
    reply_review: bool
    step_prose: bool
    cross_check: bool = False
    merge: Merge = Merge.NONE

    def __post_init__(self) -> None:
        if self.cross_check and self.merge is not Merge.NONE:
            raise UsageError("an effort profile cross-checks only a step-by-step reading")

    @property
    def saved_stages(self) -> int:
        """Return how many dependent stages the merged read saves (0, 1 or 2)."""
        return {Merge.NONE: 0, Merge.UNITS: 1, Merge.ALL: 2}[self.merge]


def effort_profile(effort: Effort | str) -> EffortProfile:
    """Return the reading profile of ``effort`` (low, medium or high).

    Critical path in model-call latencies when every answer passes its checks the
    first time: low 2 (``read`` → verify), medium 3 (``segment_route`` → locate ∥
    extract → verify), high 4 (segment → route → locate ∥ extract → verify ∥
    cross-check); docs/architecture.md "Effort".
    """
    match Effort(effort):
        case Effort.LOW:
            return EffortProfile(
                split_votes=1,
                route_votes=1,
                verify_votes=1,
                fault_revotes=0,
                reasoning=None,
                reply_review=False,
                step_prose=False,
                merge=Merge.ALL,
            )
        case Effort.MEDIUM:
            return EffortProfile(
                split_votes=3,
                route_votes=3,
                verify_votes=1,
                fault_revotes=2,
                reasoning=None,
                reply_review=True,
                step_prose=True,
                merge=Merge.UNITS,
            )
        case Effort.HIGH:
            return EffortProfile(
                split_votes=3,
                route_votes=3,
                verify_votes=3,
                fault_revotes=0,
                reasoning="low",
                reply_review=True,
                step_prose=True,
                cross_check=True,
            )
