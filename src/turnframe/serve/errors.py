"""Errors the API answers with: a :class:`ProblemError` carries its problem-details body.

Every code is stable (docs/serving.md "Errors"). A record, card, turn or conversation of
another account is answered exactly as one that does not exist: :func:`not_found` takes
no argument, so the two bodies cannot differ by a byte.
"""

from __future__ import annotations

from turnframe.core.errors import TurnframeError
from turnframe.serve.models import Problem

__all__ = ["ProblemError", "not_found", "problem"]


class ProblemError(TurnframeError):
    """A request the API refuses or a turn that failed, with its problem-details body.

    Attributes:
        problem: the body (its ``status`` is the HTTP status).
        headers: extra response headers (``Retry-After`` on 429 and 503).
    """

    def __init__(self, problem: Problem, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"{problem.code}: {problem.detail}")
        self.problem = problem
        self.headers = headers or {}


def problem(
    status: int, code: str, title: str, detail: str, headers: dict[str, str] | None = None
) -> ProblemError:
    """Return the error for ``code`` (raise it)."""
    return ProblemError(
        Problem(title=title, status=status, code=code, detail=detail), headers=headers
    )


def not_found() -> ProblemError:
    """Return the one ``not_found`` error: the same bytes whether it is absent or another's."""
    return problem(404, "not_found", "Not found", "There is nothing here for you.")
