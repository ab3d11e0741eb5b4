"""Persist the reply: conversation state, the reply exactly as returned, the replay record.

Writes phase ``replied`` with the results last (docs/architecture.md "What is persisted";
I20: the replay record holds each step's inputs and outputs). Idempotent (recovery).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from turnframe.core.canonical import to_json_value
from turnframe.core.interactions import Interaction
from turnframe.core.results import PlannedActResult
from turnframe.core.turn import TurnPhase, TurnPhaseChanged
from turnframe.runtime.compose import AskNext
from turnframe.runtime.errors import TurnInterrupted
from turnframe.runtime.parts import ASKED, STANDING, WAITING, RuntimeParts
from turnframe.runtime.serial import dump, dump_waiting
from turnframe.runtime.turn import Committed, Composed, PreparedTurn
from turnframe.store.errors import StoreError

__all__ = ["RecordInput", "record"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordInput:
    """What is persisted after the reply is composed.

    Attributes:
        committed: the commit step's output (the plan, commands, events).
        results: the final results.
        cards: the cards persisted this turn.
        ask_next: what the reply asks next (remembered only when it drew no card).
        composed: the compose step's output.
    """

    committed: Committed
    results: dict[str, PlannedActResult]
    cards: tuple[Interaction, ...]
    ask_next: AskNext | None
    composed: Composed


async def record(parts: RuntimeParts, data: RecordInput) -> None:
    """Remember what the reply asked, save the reply and the replay record, mark ``replied``.

    Raises:
        TurnInterrupted: a store boundary failed (phase ``committed``; recovery resumes).
    """
    committed, results, created = data.committed, data.results, data.cards
    prepared = committed.prepared
    turn_id, actor = prepared.turn_id, prepared.actor
    reply_record = data.composed.record
    try:
        await _remember(parts, prepared, data.ask_next if not created else None)
        await parts.store.save_reply(turn_id, data.composed.blocks)
        await parts.store.save_replay(
            actor.account,
            turn_id,
            {
                "turn_id": turn_id,
                "understanding": to_json_value(prepared.understanding),
                "results": {k: v.label for k, v in results.items()},
                "commands": [[op, str(case)] for op, case in committed.commands],
                "events": [e.id for e in committed.events],
                "cards": [c.id for c in created],
                "model_calls": prepared.model_calls,
                "calls": list(prepared.calls),
                "reading": prepared.reading,
                **({"reduction": prepared.reduction} if prepared.reduction else {}),
                **({"reply": reply_record} if reply_record else {}),
            },
        )
        await parts.store.set_turn_phase(
            turn_id, TurnPhase.REPLIED.value, {"results": [dump(r) for r in results.values()]}
        )
    except StoreError as exc:
        raise TurnInterrupted(turn_id, TurnPhase.COMMITTED.value, str(exc)) from exc
    parts.emit(TurnPhaseChanged(turn_id=turn_id, phase=TurnPhase.REPLIED))


async def _remember(parts: RuntimeParts, prepared: PreparedTurn, asked: AskNext | None) -> None:
    """Record the standing constraint, what the reply asked and the acts it carries.

    One read of the conversation state and at most one write. A standing "do not submit" holds across replies (D1); the next message is read as
    the answer to what the reply asked (guide §5); the acts waiting for a record travel
    to the next reply (D6). Idempotent (recovery).
    """
    actor = prepared.actor
    store = parts.store
    state = dict(await store.get_conversation_state(actor.account, prepared.conversation_id))
    before = dict(state)
    if prepared.standing is not None:
        state[STANDING] = prepared.standing
    state.pop(ASKED, None)
    if asked is not None:
        state[ASKED] = _asked_json(prepared, asked)
    if prepared.waiting:
        state[WAITING] = dump_waiting(prepared.waiting)
    else:
        state.pop(WAITING, None)
    if state != before:
        await store.put_conversation_state(actor.account, prepared.conversation_id, state)


def _asked_json(prepared: PreparedTurn, asked: AskNext) -> dict[str, Any]:
    """Return what a reply asked for as conversation state (server-side; never shown)."""
    out: dict[str, Any] = {
        "text": asked.text,
        "asks": asked.asks,
        "operation": asked.operation,
        "case": str(asked.case) if asked.case else None,
        "argument": None,
    }
    act = next((a for a in prepared.understanding.acts if a.id == asked.item_id), None)
    if act is not None and act.operation == asked.operation:
        records = prepared.record_args.get(act.id, {})
        out["argument"] = asked.asks
        out["args"] = {k: str(v) for k, v in act.args.items()}
        out["evidence"] = {k: str(v) for k, v in act.evidence.items()}
        out["record_args"] = {k: str(v) for k, v in records.items()}
    return out
