"""Recovering crashed turns from their persisted phase, one process per turn.

See docs/architecture.md "Failures".

:class:`Recoverer` finds stalled turns (unfinished, unchanged for ``idle_seconds``,
unleased), takes each over with the store's compare-and-set on its attempt counter
(:class:`~turnframe.store.takeover.TurnTakeoverStore`) so only one process proceeds,
and resumes it with :meth:`Runtime.recover`:

* nothing journaled (``received``…) → understanding restarts from the stored input;
* ``committing`` → the stored plan resumes: commits replay by idempotency key, nothing
  re-executes, and the reply is regenerated from events;
* ``replied`` → nothing to do.

A turn taken over ``max_attempts`` times without finishing goes to ``dead_letter`` with
the last error, where :meth:`TurnTakeoverStore.dead_turns` lists it for a person.
External effects whose outcome is unknown are the outbox relay's to reconcile
(:mod:`turnframe.runtime.relay`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from turnframe.core.errors import TurnframeError
from turnframe.core.ids import Actor
from turnframe.runtime.orchestrator import Runtime
from turnframe.store.base import TurnRecord
from turnframe.store.errors import StoreError
from turnframe.store.takeover import TurnTakeoverStore

__all__ = ["RecoveryReport", "Recoverer", "default_actor"]

log = logging.getLogger("turnframe.recovery")


def default_actor(record: TurnRecord) -> Actor:
    """Return the turn's actor from its stored input (account and user; no roles)."""
    user = record.input.get("user")
    return Actor(account=record.account, user=user if isinstance(user, str) else "")


@dataclass(slots=True)
class RecoveryReport:
    """What one recovery pass did."""

    recovered: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)  # another process took it first
    failed: list[str] = field(default_factory=list)
    dead: list[str] = field(default_factory=list)


class Recoverer:
    """Takes over and resumes stalled turns (see the module notes).

    Args:
        runtime: a runtime on the same store (its understander re-reads restarted turns).
        store: the store, able to take turns over.
        owner: this process's name, recorded on its leases.
        max_attempts: takeovers before a turn is dead-lettered.
        idle_seconds: how long a turn must be unchanged to count as stalled.
        lease_seconds: how long a takeover holds the turn.
        actor_for: the actor to resume a turn as (default: :func:`default_actor`).
    """

    def __init__(
        self,
        runtime: Runtime,
        store: TurnTakeoverStore,
        *,
        owner: str,
        max_attempts: int = 3,
        idle_seconds: float = 30.0,
        lease_seconds: float = 60.0,
        actor_for: Callable[[TurnRecord], Actor] = default_actor,
    ) -> None:
        self.runtime = runtime
        self.store = store
        self.owner = owner
        self.max_attempts = max_attempts
        self.idle_seconds = idle_seconds
        self.lease_seconds = lease_seconds
        self.actor_for = actor_for

    async def recover_stalled(self, account: str | None = None, limit: int = 100) -> RecoveryReport:
        """Run one pass over the stalled turns and return what happened."""
        report = RecoveryReport()
        for record in await self.store.stalled_turns(
            idle_seconds=self.idle_seconds, account=account, limit=limit
        ):
            await self.recover_one(record, report)
        return report

    async def recover_one(self, record: TurnRecord, report: RecoveryReport) -> None:
        """Take ``record`` over (compare-and-set) and resume it, or dead-letter it."""
        turn_id = record.turn_id
        if record.attempts >= self.max_attempts:
            reason = f"recovery gave up after {record.attempts} attempts in phase {record.phase}"
            if await self.store.dead_letter_turn(turn_id, attempts=record.attempts, reason=reason):
                log.error("turn %s dead-lettered: %s", turn_id, reason)
                report.dead.append(turn_id)
            else:
                report.lost.append(turn_id)
            return
        claimed = await self.store.claim_turn(
            turn_id, self.owner, attempts=record.attempts, lease_seconds=self.lease_seconds
        )
        if claimed is None:
            report.lost.append(turn_id)
            return
        try:
            await self.runtime.recover(self.actor_for(claimed), turn_id)
        except (TurnframeError, StoreError) as exc:
            log.warning("recovery of turn %s failed: %s", turn_id, exc)
            report.failed.append(turn_id)
            try:
                await self.store.release_turn(turn_id, self.owner, error=str(exc)[:500])
            except StoreError:
                pass  # the lease expires by itself
            return
        report.recovered.append(turn_id)
