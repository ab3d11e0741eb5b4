"""The outbox relay: at-least-once delivery of external effects, as sagas.

See docs/architecture.md "Claims", "Stores".

:class:`OutboxRelay` leases committed outbox rows (``FOR UPDATE SKIP LOCKED`` in the
PostgreSQL store, :class:`~turnframe.store.outbox.OutboxRelayStore`), hands each to the
:class:`EffectHandler` of its topic, and settles the row with a compare-and-set on its
lease. Every delivery carries the outbox id so the receiver can deduplicate.

What a delivery reports decides the next step, never collapsed (I19):

* ``delivered`` / ``rejected``: the receiver answered; the row is settled and the
  handler's :meth:`EffectHandler.settled` commits the external status (the saga step).
* ``not_received``: it definitely did not arrive (connection refused): the row goes
  back to ``pending`` with a back-off, or ``dead_letter`` after ``max_attempts``.
* ``unknown``: it may have arrived (a timeout after transmission): a non-retry-safe
  effect goes to ``outcome_unknown`` and reconciliation asks the receiver by reference,
  never resending blindly; a retry-safe one (the receiver deduplicates) goes back to
  ``pending``. An expired lease is treated the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

import anyio

from turnframe.core.dataclass_init import fast_init
from turnframe.core.events import OutboxMessage
from turnframe.store.errors import StoreError
from turnframe.store.outbox import ClaimedMessage, OutboxRelayStore

__all__ = ["Delivery", "DeliveryKind", "EffectHandler", "OutboxRelay", "RelayReport"]

log = logging.getLogger("turnframe.relay")


class DeliveryKind(StrEnum):
    """What one delivery or reconciliation attempt established."""

    DELIVERED = "delivered"
    REJECTED = "rejected"
    NOT_RECEIVED = "not_received"
    UNKNOWN = "unknown"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Delivery:
    """The outcome of a delivery or reconciliation attempt.

    Attributes:
        kind: what was established.
        status: the external status the receiver reported (``"submitted"``…), if any.
        reference: the receiver's reference for the effect, if it gave one.
        detail: a developer-facing note (recorded as the row's last error).
    """

    kind: DeliveryKind
    status: str | None = None
    reference: str = ""
    detail: str = ""


class EffectHandler(Protocol):
    """Delivers one topic's messages and records their outcomes on the case (a saga)."""

    @property
    def topic(self) -> str:
        """The outbox topic handled."""
        ...

    @property
    def retry_safe(self) -> bool:
        """Whether the receiver deduplicates by outbox id, so a resend is harmless."""
        ...

    async def deliver(self, message: OutboxMessage) -> Delivery:
        """Transmit the message (with its id); classify what happened."""
        ...

    async def reconcile(self, message: OutboxMessage) -> Delivery:
        """Ask the receiver what became of the message (by outbox id or reference)."""
        ...

    async def settled(self, message: OutboxMessage, delivery: Delivery) -> None:
        """Record the outcome on the case (e.g. commit the external status)."""
        ...


@dataclass(slots=True)
class RelayReport:
    """Counts of one relay round."""

    delivered: int = 0
    rejected: int = 0
    unknown: int = 0
    retried: int = 0
    reconciled: int = 0
    dead: int = 0
    expired: int = 0
    lost_leases: int = 0
    ids: list[str] = field(default_factory=list)

    @property
    def busy(self) -> bool:
        """Whether the round did anything."""
        return bool(self.ids) or self.expired > 0


class OutboxRelay:
    """Runs delivery and reconciliation rounds over an :class:`OutboxRelayStore`.

    Args:
        store: the store (several relays may share it: leases keep them apart).
        handlers: one handler per topic.
        owner: this relay's name (recorded on its leases).
        lease_seconds: how long a claim lasts.
        max_attempts: claims before a row that keeps failing goes to ``dead_letter``.
        batch: rows per claim.
        retry_in: seconds before a ``not_received`` row is offered again (doubled per
            attempt).
        reconcile_after: seconds before an ``outcome_unknown`` row is first reconciled.
    """

    def __init__(
        self,
        store: OutboxRelayStore,
        handlers: Sequence[EffectHandler],
        *,
        owner: str,
        lease_seconds: float = 30.0,
        max_attempts: int = 5,
        batch: int = 10,
        retry_in: float = 1.0,
        reconcile_after: float = 1.0,
    ) -> None:
        self.store = store
        self.handlers = {h.topic: h for h in handlers}
        self.owner = owner
        self.lease_seconds = lease_seconds
        self.max_attempts = max_attempts
        self.batch = batch
        self.retry_in = retry_in
        self.reconcile_after = reconcile_after

    async def run_once(self) -> RelayReport:
        """Expire stale leases, deliver pending rows, reconcile unknown ones; report."""
        report = RelayReport()
        safe = [t for t, h in self.handlers.items() if h.retry_safe]
        expired = await self.store.expire_outbox_leases(safe)
        report.expired = len(expired)
        for message_id, status in expired:
            if status == "outcome_unknown":
                row = await self.store.outbox_row(message_id)
                handler = None if row is None else self.handlers.get(row.message.topic)
                if row is not None and handler is not None:
                    await self._settled(
                        handler,
                        row.message,
                        Delivery(kind=DeliveryKind.UNKNOWN, detail="lease expired"),
                    )
        topics = list(self.handlers)
        for claim in await self.store.claim_outbox(
            self.owner, limit=self.batch, lease_seconds=self.lease_seconds, topics=topics
        ):
            await self._deliver(claim, report)
        for claim in await self.store.claim_outbox(
            self.owner,
            limit=self.batch,
            lease_seconds=self.lease_seconds,
            topics=topics,
            reconcile=True,
        ):
            await self._reconcile(claim, report)
        return report

    async def run(
        self, *, stop: anyio.Event | None = None, poll: float = 0.5, rounds: int | None = None
    ) -> None:
        """Run rounds until ``stop`` is set (or ``rounds`` ran); sleep ``poll`` when idle."""
        done = 0
        while (stop is None or not stop.is_set()) and (rounds is None or done < rounds):
            try:
                report = await self.run_once()
            except StoreError as exc:
                log.warning("relay %s: store error, retrying: %s", self.owner, exc)
                report = RelayReport()
            done += 1
            if not report.busy:
                await anyio.sleep(poll)

    async def _attempt(self, handler: EffectHandler, claim: ClaimedMessage) -> Delivery:
        try:
            if claim.reconciling:
                return await handler.reconcile(claim.message)
            return await handler.deliver(claim.message)
        except Exception as exc:  # a handler bug: the effect may have happened
            log.exception("relay %s: handler for %s failed", self.owner, claim.message.topic)
            return Delivery(kind=DeliveryKind.UNKNOWN, detail=f"handler error: {exc!r}")

    async def _settle(
        self,
        claim: ClaimedMessage,
        status: str,
        report: RelayReport,
        *,
        detail: str,
        delay: float = 0.0,
    ) -> bool:
        ok = await self.store.settle_outbox(
            claim.message.id, self.owner, status, error=detail or None, retry_in=delay
        )
        if not ok:
            report.lost_leases += 1
            log.warning("relay %s lost its lease on %s", self.owner, claim.message.id)
        else:
            report.ids.append(claim.message.id)
        return ok

    async def _deliver(self, claim: ClaimedMessage, report: RelayReport) -> None:
        handler = self.handlers[claim.message.topic]
        delivery = await self._attempt(handler, claim)
        kind = delivery.kind
        if kind is DeliveryKind.DELIVERED or kind is DeliveryKind.REJECTED:
            if await self._settle(claim, kind.value, report, detail=delivery.detail):
                setattr(report, kind.value, getattr(report, kind.value) + 1)
                await self._settled(handler, claim.message, delivery)
        elif kind is DeliveryKind.NOT_RECEIVED or handler.retry_safe:
            await self._retry_or_dead(claim, report, delivery, "pending")
        elif await self._settle(
            claim, "outcome_unknown", report, detail=delivery.detail, delay=self.reconcile_after
        ):
            report.unknown += 1
            await self._settled(handler, claim.message, delivery)

    async def _reconcile(self, claim: ClaimedMessage, report: RelayReport) -> None:
        handler = self.handlers[claim.message.topic]
        delivery = await self._attempt(handler, claim)
        kind = delivery.kind
        if kind is DeliveryKind.DELIVERED or kind is DeliveryKind.REJECTED:
            if await self._settle(claim, kind.value, report, detail=delivery.detail):
                report.reconciled += 1
                await self._settled(handler, claim.message, delivery)
        elif kind is DeliveryKind.NOT_RECEIVED:
            # The receiver has no trace of it: a resend is now an informed one.
            await self._retry_or_dead(claim, report, delivery, "pending")
        else:
            await self._retry_or_dead(claim, report, delivery, "outcome_unknown")

    async def _retry_or_dead(
        self, claim: ClaimedMessage, report: RelayReport, delivery: Delivery, status: str
    ) -> None:
        if claim.attempts >= self.max_attempts:
            if await self._settle(claim, "dead_letter", report, detail=delivery.detail):
                report.dead += 1
            return
        delay = self.retry_in * (2 ** (claim.attempts - 1))
        if await self._settle(claim, status, report, detail=delivery.detail, delay=delay):
            report.retried += 1

    async def _settled(
        self, handler: EffectHandler, message: OutboxMessage, delivery: Delivery
    ) -> None:
        try:
            await handler.settled(message, delivery)
        except Exception:
            log.exception(
                "relay %s: recording %s of %s failed", self.owner, delivery.kind, message.id
            )
