"""How the API shows turns and cards, and the ids it derives (docs/serving.md "Routes").

Pure functions shared by the turn service and the routes: a turn's
:class:`~turnframe.serve.models.TurnView`, a card's
:class:`~turnframe.serve.models.CardView`, the turn id an ``Idempotency-Key`` names
(docs/serving.md "Idempotency"), the locales served, a request's fingerprint.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from turnframe.core.canonical import to_json_value
from turnframe.core.ids import Actor
from turnframe.core.interactions import Interaction
from turnframe.core.reply import ReplyBlock
from turnframe.core.turn import TurnInput
from turnframe.runtime import TurnResult
from turnframe.serve.models import CardOptionView, CardView, TurnView

__all__ = [
    "card_view",
    "fingerprint",
    "result_view",
    "served_locales",
    "turn_id_for_key",
    "turn_view",
]


def turn_id_for_key(actor: Actor, key: str) -> str:
    """Return the turn id an ``Idempotency-Key`` names for ``actor`` (docs/serving.md).

    ``"turn-k"`` + 32 hex digits of SHA-256 over (account, user, key): the same key of the
    same actor is the same turn in every worker; another actor's same key is another turn.
    """
    raw = "\0".join(("turnframe.serve.idempotency", actor.account, actor.user, key))
    return "turn-k" + hashlib.sha256(raw.encode()).hexdigest()[:32]


def served_locales(app: Any) -> tuple[str, ...]:
    """Return the locales turns may name: ``Application.locales``, the default first."""
    locales = tuple(app.locales)
    return (app.default_locale, *(x for x in locales if x != app.default_locale))


def card_view(card: Interaction, *, stale: bool = False) -> CardView:
    """Return ``card`` as a client shows it (no server-side meaning, I7).

    ``stale``: the card is open but its record has moved past the revision it is bound
    to, so a click can only be refused as out of date; it is shown ``stale`` now.
    """
    resolution = card.resolution
    return CardView(
        interaction_id=card.id,
        conversation_id=card.conversation_id,
        turn_id=card.turn_id,
        kind=card.spec.kind.value,
        prompt=card.spec.prompt,
        options=[CardOptionView(id=o.id, label=o.label) for o in card.spec.options],
        expected_revision=card.spec.bound_revision,
        status="stale" if stale and card.status.value == "open" else card.status.value,
        resolution=None
        if resolution is None
        else {"option_id": resolution.option_id, "turn_id": resolution.turn_id},
    )


def turn_view(
    turn_id: str, conversation_id: str, blocks: Sequence[ReplyBlock], **calls: int
) -> TurnView:
    """Return the ``TurnView`` of a reply (``calls``: ``model_calls``, ``reply_calls``)."""
    return TurnView(
        turn_id=turn_id,
        conversation_id=conversation_id,
        blocks=list(blocks),
        inspect=f"/v1/turns/{turn_id}/inspection",
        **calls,
    )


def result_view(result: TurnResult) -> TurnView:
    """Return the ``TurnView`` of a turn's result."""
    return turn_view(
        result.turn_id,
        result.conversation_id,
        result.blocks,
        model_calls=result.model_calls,
        reply_calls=result.reply_calls,
    )


def fingerprint(conversation_id: str, turn: TurnInput) -> str:
    """Return what a turn asks, as a digest (same key + same digest: the same turn).

    Taken from the turn input with its defaults applied (a body that names the default
    locale asks the same as one that names none).
    """
    payload = json.dumps([conversation_id, to_json_value(turn)], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()
