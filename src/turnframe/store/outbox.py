"""The outbox relay's store protocol.

See docs/architecture.md "Claims", "Stores", docs/postgres.md "Outbox relay and sagas".

A relay claims committed outbox rows under a lease, delivers them at least once (the
outbox id travels with each delivery so the receiver can deduplicate), and settles each
with a compare-and-set on its lease. Statuses:

``pending``          committed, waiting for a relay
``in_flight``        claimed for delivery under a lease
``delivered``        the receiver took the transmission (its own status comes by callback)
``rejected``         the receiver refused it definitely
``outcome_unknown``  it may have been received (a timeout after transmission, or an
                     expired lease of a non-retry-safe effect): reconcile, never resend
``reconciling``      claimed for reconciliation (asking the receiver by reference)
``dead_letter``      attempts exhausted; a person inspects it

An expired ``in_flight`` lease moves a retry-safe topic back to ``pending`` and every
other topic to ``outcome_unknown``; an expired ``reconciling`` lease goes back to
``outcome_unknown`` (asking again is always safe).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from turnframe.core.dataclass_init import fast_init
from turnframe.core.events import OutboxMessage
from turnframe.store.base import TurnStore

__all__ = ["OUTBOX_STATUSES", "ClaimedMessage", "OutboxRelayStore", "OutboxRow"]

OUTBOX_STATUSES = (
    "pending",
    "in_flight",
    "delivered",
    "rejected",
    "outcome_unknown",
    "reconciling",
    "dead_letter",
)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimedMessage:
    """An outbox message a relay holds under a lease.

    Attributes:
        message: the message (its ``id`` goes to the receiver for deduplication).
        owner: the relay holding the lease.
        attempts: claims so far, this one included.
        reconciling: ``True`` when the row was ``outcome_unknown`` (ask, never resend).
    """

    message: OutboxMessage
    owner: str
    attempts: int
    reconciling: bool = False


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class OutboxRow:
    """An outbox row with its delivery bookkeeping, for operators and tests.

    Attributes:
        message: the message.
        attempts: claims so far.
        lease_owner: the relay holding it, if any.
        last_error: the last failure recorded.
    """

    message: OutboxMessage
    attempts: int
    lease_owner: str | None
    last_error: str | None


class OutboxRelayStore(TurnStore, Protocol):
    """A :class:`TurnStore` whose outbox relays can lease (the PostgreSQL store)."""

    async def claim_outbox(
        self,
        owner: str,
        *,
        limit: int = 10,
        lease_seconds: float = 30.0,
        topics: Sequence[str] | None = None,
        reconcile: bool = False,
    ) -> Sequence[ClaimedMessage]:
        """Lease up to ``limit`` rows (``pending``, or ``outcome_unknown`` to reconcile).

        Rows another relay holds are skipped, never waited for.
        """
        ...

    async def settle_outbox(
        self,
        message_id: str,
        owner: str,
        status: str,
        *,
        error: str | None = None,
        retry_in: float = 0.0,
    ) -> bool:
        """Move a leased row to ``status`` if ``owner`` still holds an unexpired lease.

        Returns ``False`` (and changes nothing) for a relay that lost its lease.
        """
        ...

    async def expire_outbox_leases(
        self, retry_safe_topics: Collection[str] = ()
    ) -> Sequence[tuple[str, str]]:
        """Settle rows whose lease expired; return (id, new status) pairs."""
        ...

    async def outbox_row(self, message_id: str) -> OutboxRow | None:
        """Return the row with its bookkeeping, or ``None``."""
        ...
