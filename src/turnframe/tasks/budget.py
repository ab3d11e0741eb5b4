"""Per-turn understanding budgets: calls, tokens, depth and wall time.

See docs/architecture.md "Understanding".
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from turnframe.core.dataclass_init import fast_init
from turnframe.tasks.errors import BudgetExceeded

__all__ = ["BudgetMeter", "TurnBudget"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnBudget:
    """How much understanding one turn may spend.

    Attributes:
        max_calls: model calls.
        max_tokens: prompt plus completion tokens.
        max_depth: the longest chain of dependent calls (stages, repairs, re-reads).
        max_seconds: wall time.
    """

    max_calls: int = 60
    max_tokens: int = 400_000
    max_depth: int = 16
    max_seconds: float = 120.0


class BudgetMeter:
    """Counts one turn's spending and raises :class:`BudgetExceeded` past any limit.

    Args:
        budget: the limits.
        clock: a monotonic clock in seconds (injected for tests).
    """

    def __init__(self, budget: TurnBudget, clock: Callable[[], float] = time.monotonic) -> None:
        self.budget = budget
        self._clock = clock
        self._started = clock()
        self.calls = 0
        self.tokens = 0
        self.depth = 0

    def before_call(self, depth: int) -> None:
        """Account for one more call at ``depth``.

        Raises:
            BudgetExceeded: when calls, depth or time would run over.
        """
        if self.calls + 1 > self.budget.max_calls:
            raise BudgetExceeded("calls", self.budget.max_calls)
        if depth > self.budget.max_depth:
            raise BudgetExceeded("depth", self.budget.max_depth)
        if self._clock() - self._started > self.budget.max_seconds:
            raise BudgetExceeded("time", self.budget.max_seconds)
        self.calls += 1
        self.depth = max(self.depth, depth)

    def after_call(self, tokens: int) -> None:
        """Account for the tokens a call used.

        Raises:
            BudgetExceeded: when the tokens ran over.
        """
        self.tokens += tokens
        if self.tokens > self.budget.max_tokens:
            raise BudgetExceeded("tokens", self.budget.max_tokens)

    def elapsed(self) -> float:
        """Seconds since the turn's understanding began."""
        return self._clock() - self._started
