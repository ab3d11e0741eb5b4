"""Step 12, compose the reply: typed blocks from committed events, words, the claim guard.

docs/architecture.md "One turn"; I11 (nothing disappears silently), I15 (claims only from
committed events), docs/adr/0017-no-claim-in-model-words.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from turnframe.core.dataclass_init import fast_init
from turnframe.core.events import DomainEvent
from turnframe.core.interactions import Interaction
from turnframe.core.reply import NoticeBlock
from turnframe.runtime.claims import guard_claims
from turnframe.runtime.compose import compose_reply
from turnframe.runtime.copy import say
from turnframe.runtime.metrics import CLAIM_GUARD_REFUSALS
from turnframe.runtime.parts import RuntimeParts, log
from turnframe.runtime.reply_words import words
from turnframe.runtime.turn import Composed, PreparedTurn, Reprojected

__all__ = ["ComposeInput", "compose"]

_NOTHING = "nothing_found"
"""The notice of a reply that would otherwise have no block."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ComposeInput:
    """What the reply is composed from.

    Attributes:
        prepared: the turn's plan (locale, text or click, effort).
        reprojected: the re-project step's output.
        cards: the cards persisted this turn (only those may be shown, I6).
        events: the events this turn's commits returned (the claim guard's evidence).
    """

    prepared: PreparedTurn
    reprojected: Reprojected
    cards: tuple[Interaction, ...]
    events: tuple[DomainEvent, ...]


async def compose(parts: RuntimeParts, data: ComposeInput) -> Composed:
    """Compose the code-written blocks, add the writer's words, keep what the guard allows.

    A model-written block the guard refuses takes every model word with it: the
    code-written reply stands, whole (I15). Never raises for the writer's failure.
    """
    prepared, projected = data.prepared, data.reprojected
    blocks = compose_reply(
        results=list(projected.results.values()),
        receipts=list(projected.receipts),
        notices=projected.notices,
        answers=list(projected.answers),
        cards=list(data.cards),
        ask_next=projected.ask_next,
    )
    if not blocks:
        # A turn with nothing to report still says so (I11: nothing disappears
        # silently): no change was made and nothing is pending.
        blocks = (NoticeBlock(code=_NOTHING, text=say(_NOTHING, prepared.locale)),)
    with parts.telemetry.span("reply.words"):
        worded, written, reply_record = await words(parts, prepared, blocks)
    committed_events = list(data.events)
    with parts.telemetry.span("claim_guard") as span:
        kept, refused = guard_claims(worded, committed_events)
        refusals = len(refused)
        if any(id(b) in written for b in refused):
            # A model-written block the guard refuses takes its words with it: the
            # code-written reply stands, whole (docs/architecture.md "Claims").
            reply_record["refused"] = True
            kept, refused = guard_claims(blocks, committed_events)
        dropped = len(reply_record.get("guard", ()))  # sentences the word guard dropped
        span.set("turnframe.claims.refused", refusals)
        span.set("turnframe.claims.words_dropped", dropped)
    for guard, n in (("blocks", refusals), ("words", dropped)):
        if n:
            parts.metrics.count(CLAIM_GUARD_REFUSALS, n, {"guard": guard})
    if refused:
        log.error("claim guard refused %d block(s) in turn %s", len(refused), prepared.turn_id)
    return Composed(blocks=kept, refused=refused, record=reply_record)
