"""The claim guard: no block asserts an outcome without committed events (guide §9, I15)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from turnframe.core.events import DomainEvent
from turnframe.core.reply import ReplyBlock

__all__ = ["guard_claims"]


def guard_claims(
    blocks: Sequence[ReplyBlock], committed: Iterable[DomainEvent]
) -> tuple[tuple[ReplyBlock, ...], tuple[ReplyBlock, ...]]:
    """Split ``blocks`` into those whose claims committed events prove and those refused.

    A claim is proved when it cites at least one event id and every cited id is a committed
    event of the claimed case produced by the claimed operation.

    Args:
        blocks: the reply's blocks, in order.
        committed: the committed events the reply may cite.

    Returns:
        ``(kept, refused)``, each in the original order.
    """
    by_id = {e.id: e for e in committed}
    kept: list[ReplyBlock] = []
    refused: list[ReplyBlock] = []
    for block in blocks:
        ok = True
        for claim in block.claims:
            if not claim.event_ids:
                ok = False
            for event_id in claim.event_ids:
                event = by_id.get(event_id)
                if event is None or event.case != claim.case or event.operation != claim.operation:
                    ok = False
        (kept if ok else refused).append(block)
    return tuple(kept), tuple(refused)
