"""Taking over crashed turns: a compare-and-set handoff with an attempt cap.

See docs/architecture.md "Failures".

A turn whose phase is not ``replied`` and that has not moved for a while is *stalled*
(its process died, or hangs). A recoverer claims it with a compare-and-set on its
``attempts`` counter and a lease, so when several processes look at the same stalled
turn exactly one proceeds (DBOS's handoff, docs/postgres.md "Crash recovery", "Several workers").
After ``max_attempts`` takeovers the turn goes to the ``dead_letter`` phase with a reason a person
can read, and stays there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from turnframe.core.dataclass_init import fast_init
from turnframe.store.base import TurnRecord, TurnStore

__all__ = ["DEAD_LETTER", "DeadTurn", "TurnTakeoverStore"]

DEAD_LETTER = "dead_letter"
"""The phase of a turn recovery gave up on."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class DeadTurn:
    """A dead-lettered turn, for the person who inspects it.

    Attributes:
        record: the turn as persisted (phase ``dead_letter``, its data kept).
        reason: why recovery gave up.
    """

    record: TurnRecord
    reason: str


class TurnTakeoverStore(TurnStore, Protocol):
    """A :class:`TurnStore` whose stalled turns can be taken over (the PostgreSQL store)."""

    async def stalled_turns(
        self, *, idle_seconds: float, account: str | None = None, limit: int = 100
    ) -> Sequence[TurnRecord]:
        """Return unfinished, non-dead turns unchanged for ``idle_seconds`` and unleased."""
        ...

    async def claim_turn(
        self, turn_id: str, owner: str, *, attempts: int, lease_seconds: float
    ) -> TurnRecord | None:
        """Take the turn over if its ``attempts`` is still ``attempts`` (then +1); else ``None``."""
        ...

    async def release_turn(self, turn_id: str, owner: str, *, error: str | None = None) -> None:
        """Drop ``owner``'s lease (after a failed recovery; the attempt stays counted)."""
        ...

    async def dead_letter_turn(self, turn_id: str, *, attempts: int, reason: str) -> bool:
        """Move the turn to ``dead_letter`` if ``attempts`` still matches; whether it did."""
        ...

    async def dead_turns(self, account: str | None = None) -> Sequence[DeadTurn]:
        """Return dead-lettered turns with their reasons, oldest first."""
        ...
