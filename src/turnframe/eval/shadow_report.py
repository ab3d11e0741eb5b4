"""The shadow report: each turn read again and the totals (docs/shadow.md "What is compared").

:class:`ShadowReport` is what :func:`turnframe.eval.shadow.shadow_turns` returns and what
``turnframe shadow --json`` prints (one object).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from turnframe.eval.shadow_diff import DIMENSIONS, ShadowDifference

__all__ = ["ShadowReport", "ShadowTotals", "TurnShadow", "totals_of"]


class TurnShadow(BaseModel):
    """One turn read again.

    Attributes:
        turn_id: the turn.
        status: ``same`` (no difference), ``different``, ``outside`` (the new reading
            names what the record does not hold; not reduced) or ``skipped``.
        reason: why a turn is ``skipped`` (:data:`NO_RECORD`, :data:`NO_REDUCTION`,
            :data:`NO_BRIEF`, :data:`NO_ANSWER` with the error, or an unreadable record).
        differences: each differing item (:class:`ShadowDifference`); for ``outside``,
            the ``acts`` dimension only.
        outside: one line per act outside the recorded snapshots.
        replay_same: the recorded reduction, run again by today's reducer, gives the
            recorded plan (``None`` for a turn not compared).
        recorded_model: the model of the recorded reading's first call.
        model_calls: calls the shadow reading made.
        prompt_tokens: their prompt tokens.
        completion_tokens: their completion tokens.
    """

    turn_id: str
    status: str
    reason: str | None = None
    differences: list[ShadowDifference] = []
    outside: list[str] = []
    replay_same: bool | None = None
    recorded_model: str | None = None
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ShadowTotals(BaseModel):
    """The run in numbers.

    Attributes:
        turns: turns asked for.
        read: turns read again (not skipped).
        same: turns with no difference.
        different: turns with a difference.
        outside: turns whose new reading is outside the recorded snapshots.
        skipped: turns with nothing to read.
        by_dimension: dimension → turns differing in it.
        model_calls: the shadow model's calls.
        prompt_tokens: their prompt tokens.
        completion_tokens: their completion tokens.
    """

    turns: int = 0
    read: int = 0
    same: int = 0
    different: int = 0
    outside: int = 0
    skipped: int = 0
    by_dimension: dict[str, int] = {}
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ShadowReport(BaseModel):
    """What :func:`shadow_turns` found: each turn and the totals (``--json`` prints it).

    Attributes:
        model: the shadow model's spec (as given).
        turns: one entry per turn, in the order asked.
        totals: the counts.
    """

    model: str
    turns: list[TurnShadow]
    totals: ShadowTotals


def totals_of(turns: Sequence[TurnShadow]) -> ShadowTotals:
    """Return the counts of ``turns`` (each dimension: the turns differing in it)."""
    by_dimension = {
        d: sum(1 for t in turns if any(x.dimension == d for x in t.differences)) for d in DIMENSIONS
    }
    return ShadowTotals(
        turns=len(turns),
        read=sum(1 for t in turns if t.status != "skipped"),
        same=sum(1 for t in turns if t.status == "same"),
        different=sum(1 for t in turns if t.status == "different"),
        outside=sum(1 for t in turns if t.status == "outside"),
        skipped=sum(1 for t in turns if t.status == "skipped"),
        by_dimension=by_dimension,
        model_calls=sum(t.model_calls for t in turns),
        prompt_tokens=sum(t.prompt_tokens for t in turns),
        completion_tokens=sum(t.completion_tokens for t in turns),
    )
