"""Rules every bundled store shares, so the memory, SQLite and PostgreSQL stores cannot drift."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio

from turnframe.core.errors import FailureClass, Severity
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import Interaction, InteractionStatus
from turnframe.store import codec
from turnframe.store.base import TurnRecord
from turnframe.store.errors import RevisionConflict

__all__ = [
    "CARD_COLS",
    "COMMITTING",
    "MISSING",
    "REPLIED",
    "TURN_COLS",
    "card_from_row",
    "foreign_case_conflict",
    "new_lock",
    "turn_from_row",
]

TURN_COLS = "turn_id, account, conversation_id, seq, phase, input, data, attempts"
"""The column order :func:`turn_from_row` reads (the SQL stores select in this order)."""

CARD_COLS = "id, account, conversation_id, turn_id, spec, payload_hash, status, resolution, seq"
"""The column order :func:`card_from_row` reads."""


def turn_from_row(row: Sequence[Any]) -> TurnRecord:
    """Return the :class:`TurnRecord` of a row selected as ``TURN_COLS`` (JSON as text).

    Raises:
        StoreError: when a JSON column does not decode.
    """
    return TurnRecord(
        turn_id=row[0],
        account=row[1],
        conversation_id=row[2],
        seq=row[3],
        phase=row[4],
        input=codec.loads(row[5]),
        data=codec.loads(row[6]),
        attempts=row[7],
    )


def card_from_row(row: Sequence[Any]) -> Interaction:
    """Return the :class:`Interaction` of a row selected as ``CARD_COLS`` (JSON as text).

    Raises:
        StoreError: when a JSON column does not decode into a card.
    """
    return Interaction(
        id=row[0],
        account=row[1],
        conversation_id=row[2],
        turn_id=row[3],
        spec=codec.spec_from_json(codec.loads(row[4])),
        payload_hash=row[5],
        status=InteractionStatus(row[6]),
        resolution=None if row[7] is None else codec.resolution_from_json(codec.loads(row[7])),
        seq=row[8],
    )


MISSING = "missing"
"""The status :class:`InteractionAlreadyResolved` reports for a missing or foreign card."""

REPLIED = "replied"
"""The turn phase after which a turn is finished (docs/architecture.md "Failures")."""

COMMITTING = "committing"
"""The phase a stored plan is recorded with (``TurnPhase.COMMITTING``, docs/architecture.md "What is persisted")."""


def foreign_case_conflict(case: CaseRef, expected: int, actual: int) -> RevisionConflict:
    """Return the refusal for a commit to a case another account owns (I12).

    The error is a :class:`RevisionConflict`, since the write is refused before anything
    is written, but it is not retryable: re-planning cannot make the case the caller's.
    """
    error = RevisionConflict(case, expected, actual)
    error.failure = FailureClass(
        retryable=False,
        effect_may_have_happened=False,
        message_key="error.revision_conflict",
        severity=Severity.WARNING,
    )
    return error


def new_lock() -> anyio.Lock:
    """Return an :class:`anyio.Lock` that skips the scheduling checkpoint when free.

    An uncontended store call then costs no event-loop round trip (measured: about a
    third of an in-memory turn). ``fast_acquire`` needs anyio 4.5; older anyio gets a
    plain lock.
    """
    try:
        return anyio.Lock(fast_acquire=True)
    except TypeError:  # pragma: no cover - anyio < 4.5
        return anyio.Lock()
