"""What a failed turn or store call is answered with: a stable problem code (docs/serving.md "Errors").

:func:`problem_for` maps the runtime's and the store's typed errors to
:class:`~turnframe.serve.errors.ProblemError`; the codes are listed in docs/serving.md.
"""

from __future__ import annotations

import logging

from turnframe.core.errors import TurnframeError, UsageError
from turnframe.runtime.errors import TurnIdReused, TurnInterrupted, UnknownTurn
from turnframe.serve.errors import ProblemError, not_found, problem
from turnframe.store.errors import StoreError, StoreUnavailable

__all__ = ["RETRY_AFTER", "problem_for", "store_unavailable", "turn_in_progress"]

RETRY_AFTER = "1"
"""Seconds a client waits before retrying a 429 or 503 (the ``Retry-After`` header)."""

_log = logging.getLogger("turnframe.serve")


def store_unavailable() -> ProblemError:
    """Return the ``store_unavailable`` 503 (with ``Retry-After``)."""
    return problem(
        503,
        "store_unavailable",
        "Store unavailable",
        "The database cannot be reached; nothing was lost. Retry shortly.",
        headers={"Retry-After": RETRY_AFTER},
    )


def _caused_by_unreachable_store(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, StoreUnavailable):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def problem_for(exc: BaseException) -> ProblemError:
    """Return the problem ``exc`` is answered with.

    Args:
        exc: an error a turn or a read raised.

    Returns:
        ``exc`` itself for a :class:`ProblemError`; ``idempotency_key_reused`` (409) for a
        turn id started with another input; ``turn_in_progress`` (409) for one still
        running; ``store_unavailable`` (503) when the database cannot be reached before the
        turn was stored; ``turn_interrupted`` (503, the turn can be recovered by retrying
        with the same ``Idempotency-Key``); ``not_found`` for an unknown turn;
        ``invalid_request`` (422) for another usage error; ``turn_failed`` /
        ``internal_error`` (500) for the rest (logged).
    """
    if isinstance(exc, ProblemError):
        return exc
    if isinstance(exc, TurnIdReused):
        if exc.reason == "different_input":
            return problem(
                409,
                "idempotency_key_reused",
                "Idempotency key reused",
                "This Idempotency-Key was used for another request; use a new key.",
            )
        return turn_in_progress()
    if isinstance(exc, TurnInterrupted):
        if exc.phase == "received" and _caused_by_unreachable_store(exc):
            return store_unavailable()
        return problem(
            503,
            "turn_interrupted",
            "Turn interrupted",
            f"The turn stopped after phase {exc.phase}; what it committed stands. A retry "
            "with the same Idempotency-Key resumes it from that phase.",
            headers={"Retry-After": RETRY_AFTER},
        )
    if isinstance(exc, StoreUnavailable) or (
        isinstance(exc, StoreError) and _caused_by_unreachable_store(exc)
    ):
        return store_unavailable()
    if isinstance(exc, UnknownTurn):
        return not_found()
    if isinstance(exc, UsageError):
        return problem(422, "invalid_request", "Invalid request", str(exc))
    if isinstance(exc, TurnframeError):
        _log.warning("turn failed: %s", exc)
        return problem(500, "turn_failed", "Turn failed", str(exc))
    _log.exception("unexpected error", exc_info=exc)
    return problem(500, "internal_error", "Internal error", "The server failed; see its log.")


def turn_in_progress() -> ProblemError:
    """Return the ``turn_in_progress`` 409: the turn has not replied yet (retry later)."""
    return problem(
        409,
        "turn_in_progress",
        "Turn in progress",
        "That turn has not replied yet; stream GET /v1/turns/{turn_id}/events or retry.",
        headers={"Retry-After": RETRY_AFTER},
    )
