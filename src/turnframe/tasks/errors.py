"""Task errors (docs/architecture.md "Understanding", "Failures").

::

    TurnFailure
    ├── TaskFailed        a task found no answer that passed its schema and its check
    └── BudgetExceeded    the turn ran out of calls, tokens, depth or time
"""

from __future__ import annotations

from turnframe.core.errors import FailureClass, Severity, TurnFailure

__all__ = ["BudgetExceeded", "TaskFailed"]


class TaskFailed(TurnFailure):
    """No answer passed; the unit it was reading reaches the user as a notice.

    Args:
        task: the task's name.
        error: the last exact error.
    """

    default_class = FailureClass(
        retryable=False,
        effect_may_have_happened=False,
        message_key="notice.unreadable",
        severity=Severity.WARNING,
    )

    def __init__(self, task: str, error: str) -> None:
        super().__init__(f"{task}: {error}")
        self.task = task
        self.error = error


class BudgetExceeded(TurnFailure):
    """The turn's understanding budget ran out; understanding ends, never half-read.

    Args:
        which: ``calls``, ``tokens``, ``depth`` or ``time``.
        limit: the limit that was reached.
    """

    default_class = FailureClass(
        retryable=False,
        effect_may_have_happened=False,
        message_key="notice.budget_exceeded",
        severity=Severity.WARNING,
    )

    def __init__(self, which: str, limit: float) -> None:
        super().__init__(f"understanding budget exceeded: {which} (limit {limit})")
        self.which = which
        self.limit = limit
