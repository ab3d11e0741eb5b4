"""A conversation reloaded with what the user sent (docs/serving.md "Reload").

``GET /v1/conversations/{conversation_id}`` returns every replied turn's blocks and the
turn's input: the text typed and/or the card clicked (with the clicked option's label),
read from the stored turn record, so a client that keeps nothing locally (another
browser) shows the same user messages as the one that sent them.

Cost: one turn record per turn (``TurnStore.get_turn``, under the id the turn is stored
under, which is already the account's alias when another account held the id). A click's
label comes from the card as an earlier reply of the same conversation drew it (no read);
only a click whose card no shown reply drew reads that card once
(``TurnStore.get_interaction``).
"""

from __future__ import annotations

from collections.abc import Sequence

from turnframe.core.ids import JSONObject
from turnframe.core.reply import InteractionBlock, ReplyBlock
from turnframe.serve.models import ClickInputView, ConversationTurn, TurnInputView
from turnframe.store.base import TurnStore

__all__ = ["conversation_turns", "input_view"]


def input_view(data: JSONObject, labels: dict[tuple[str, str], str]) -> TurnInputView | None:
    """Return what the user sent, from a turn record's ``input`` JSON.

    ``data`` is the JSON ``runtime/steps/accept.py`` ``input_json`` stored (``text``,
    ``interaction_response{interaction_id, option_id}``); ``labels`` maps (card id,
    option id) to the option's label. Returns ``None`` when the record holds neither a
    text nor a click (nothing to show); a malformed field is left out, never raised.
    """
    text = data.get("text")
    response = data.get("interaction_response")
    click = None
    if isinstance(response, dict):
        card, option = response.get("interaction_id"), response.get("option_id")
        if isinstance(card, str) and isinstance(option, str):
            click = ClickInputView(
                interaction_id=card, option_id=option, label=labels.get((card, option))
            )
    if not isinstance(text, str):
        text = None
    if text is None and click is None:
        return None
    return TurnInputView(text=text, click=click)


def _drawn(replies: Sequence[tuple[str, Sequence[ReplyBlock]]]) -> dict[tuple[str, str], str]:
    """Return (card id, option id) → label for every card the replies drew."""
    return {
        (block.interaction_id, option.id): option.label
        for _turn, blocks in replies
        for block in blocks
        if isinstance(block, InteractionBlock)
        for option in block.options
    }


async def conversation_turns(
    store: TurnStore,
    account: str,
    conversation_id: str,
    replies: Sequence[tuple[str, Sequence[ReplyBlock]]],
) -> list[ConversationTurn]:
    """Return the replied turns ``replies`` (stored id, blocks) with each turn's input.

    Reads one turn record per turn (``account``-scoped: a record not this account's
    reads as none and the turn shows ``input: None``) and, for a click on a card no
    reply in ``replies`` drew, that card once (its label, when the store still has it).

    Raises:
        Exception: whatever the store raises (the caller maps it to ``store_unavailable``).
    """
    labels = _drawn(replies)
    turns: list[ConversationTurn] = []
    for turn_id, blocks in replies:
        record = await store.get_turn(account, turn_id)
        data = {} if record is None else record.input
        shown = input_view(data, labels)
        click = None if shown is None else shown.click
        if click is not None and click.label is None:
            card = await store.get_interaction(account, conversation_id, click.interaction_id)
            if card is not None:
                labels.update({(card.id, o.id): o.label for o in card.spec.options})
                shown = input_view(data, labels)
        turns.append(ConversationTurn(turn_id=turn_id, input=shown, blocks=list(blocks)))
    return turns
