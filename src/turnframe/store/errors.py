"""Store errors. Every adapter translates its driver's errors into these.

See docs/architecture.md "Stores", "Failures".

::

    TurnframeError
    └── TurnFailure
        └── StoreError
            ├── RevisionConflict          expected revision ≠ current (I12)
            ├── IdempotencyKeyReused      same key, different request hash (I13)
            ├── InteractionAlreadyResolved  compare-and-set on a card lost (I16)
            ├── TurnIdTaken               begin_turn with an id a turn already has
            ├── StoreUnavailable          the database cannot be reached
            ├── CommitOutcomeUnknown      the connection dropped during COMMIT
            └── InjectedFault             a test fault at a named boundary
"""

from __future__ import annotations

from turnframe.core.errors import FailureClass, Severity, TurnFailure
from turnframe.core.ids import CaseRef

__all__ = [
    "CommitOutcomeUnknown",
    "IdempotencyKeyReused",
    "InjectedFault",
    "InteractionAlreadyResolved",
    "RevisionConflict",
    "StoreError",
    "StoreUnavailable",
    "TurnIdTaken",
]


class StoreError(TurnFailure):
    """Root of persistence failures."""

    default_class = FailureClass(
        retryable=False, effect_may_have_happened=False, message_key="error.store"
    )


class RevisionConflict(StoreError):
    """The case changed since the command was planned; nothing was written (I12).

    Args:
        case: the case.
        expected: the revision the command was planned against.
        actual: the revision found.
    """

    default_class = FailureClass(
        retryable=True,
        effect_may_have_happened=False,
        message_key="error.revision_conflict",
        severity=Severity.INFO,
    )

    def __init__(self, case: CaseRef, expected: int, actual: int) -> None:
        super().__init__(f"{case}: expected revision {expected}, found {actual}")
        self.case = case
        self.expected = expected
        self.actual = actual


class IdempotencyKeyReused(StoreError):
    """A journaled idempotency key came back with a different request (I13).

    Args:
        key: the key.
    """

    default_class = FailureClass(
        retryable=False,
        effect_may_have_happened=False,
        message_key="error.idempotency_key_reused",
        severity=Severity.ERROR,
    )

    def __init__(self, key: str) -> None:
        super().__init__(f"idempotency key {key[:16]}… was used for a different request")
        self.key = key


class InteractionAlreadyResolved(StoreError):
    """The card was no longer open when the commit tried to resolve it (I16).

    Args:
        interaction_id: the card.
        status: the status found.
    """

    default_class = FailureClass(
        retryable=False,
        effect_may_have_happened=False,
        message_key="error.already_resolved",
        severity=Severity.INFO,
    )

    def __init__(self, interaction_id: str, status: str) -> None:
        super().__init__(f"interaction {interaction_id} is {status}, not open")
        self.interaction_id = interaction_id
        self.status = status


class TurnIdTaken(StoreError):
    """``begin_turn`` named an id some turn already has (any account's); nothing was written.

    The message names the id only: it does not say whose turn holds it, so an account
    learns nothing about another's turns (docs/adr/0016-races-and-turn-ids.md).

    Args:
        turn_id: the id.
    """

    def __init__(self, turn_id: str) -> None:
        super().__init__(f"turn {turn_id} already exists")
        self.turn_id = turn_id


class StoreUnavailable(StoreError):
    """The database cannot be reached or opened; nothing was written."""

    default_class = FailureClass(
        retryable=True,
        effect_may_have_happened=False,
        message_key="error.store_unavailable",
        severity=Severity.CRITICAL,
    )


class CommitOutcomeUnknown(StoreError):
    """The commit may or may not have happened; settle it by looking the key up."""

    default_class = FailureClass(
        retryable=False,
        effect_may_have_happened=True,
        message_key="error.commit_unknown",
        severity=Severity.ERROR,
        needs_reconciliation=True,
    )


class InjectedFault(StoreError):
    """A failure injected by a :class:`~turnframe.store.FaultPlan` at a named boundary.

    Args:
        boundary: the boundary name.
        performed: whether the operation was performed before the failure
            ("the acknowledgement was lost").
    """

    def __init__(self, boundary: str, *, performed: bool = False) -> None:
        suffix = " after performing it" if performed else ""
        super().__init__(f"injected fault at {boundary}{suffix}")
        self.boundary = boundary
        self.performed = performed
        self.failure = FailureClass(
            retryable=not performed,
            effect_may_have_happened=performed,
            message_key="error.store",
            needs_reconciliation=performed,
        )
