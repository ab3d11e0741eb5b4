"""Persist the reply: conversation state, the reply exactly as returned, the replay record.

One write with phase ``replied`` and the results (docs/architecture.md "What is
persisted", docs/adr/0024-four-writes-per-turn.md; I20: the replay record holds each
step's inputs and outputs). Idempotent (recovery).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import JSONObject
from turnframe.core.interactions import Interaction
from turnframe.core.results import PlannedActResult
from turnframe.core.turn import TurnPhase
from turnframe.runtime.compose import AskNext
from turnframe.runtime.errors import TurnInterrupted
from turnframe.runtime.parts import ASKED, STANDING, WAITING, RuntimeParts
from turnframe.runtime.scope import CASES, remember_cases
from turnframe.runtime.serial import dump_waiting
from turnframe.runtime.turn import Committed, Composed, PreparedTurn
from turnframe.runtime.turn_writes import turn_reply
from turnframe.store.errors import StoreError

__all__ = ["RecordInput", "record"]


@fast_init
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
    """Store the reply with phase ``replied``, in one write (``TurnStore.finish_turn``).

    The write carries the reply's blocks exactly as returned, the results, the replay
    record's second part (what the turn did) and the conversation state when it
    changes (docs/adr/0024-four-writes-per-turn.md).

    Raises:
        TurnInterrupted: a store boundary failed (phase ``committed``; recovery resumes).
    """
    committed, results, created = data.committed, data.results, data.cards
    prepared = committed.prepared
    turn_id = prepared.turn_id
    try:
        state = await _remember(parts, prepared, data.ask_next if not created else None)
        await parts.store.finish_turn(
            turn_reply(
                prepared,
                blocks=data.composed.blocks,
                results=results,
                commands=committed.commands,
                events=committed.events,
                cards=created,
                reply_record=data.composed.record,
                conversation_state=state,
                resumed=committed.resumed,
            )
        )
    except StoreError as exc:
        raise TurnInterrupted(turn_id, TurnPhase.COMMITTED.value, str(exc)) from exc
    parts.phase_changed(turn_id, TurnPhase.REPLIED)


async def _remember(
    parts: RuntimeParts, prepared: PreparedTurn, asked: AskNext | None
) -> JSONObject | None:
    """Return the conversation state as this reply leaves it; ``None`` when unchanged.

    The state records the standing constraint, what the reply asked, the acts it
    carries and the cases the turn was on. One read of the conversation state;
    :func:`record` writes it with the reply. A standing "do not submit" holds across
    replies (ADR 0002); the next message is read as the answer to what the reply asked; the
    acts waiting for a record travel to the next reply (ADR 0007); the cases the turn was on
    join the conversation's newest cases (docs/adr/0020-what-a-brief-shows.md).
    Idempotent (recovery).
    """
    actor = prepared.actor
    state = dict(await parts.store.get_conversation_state(actor.account, prepared.conversation_id))
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
    on = [r.case for r in prepared.results if r.case is not None]
    if on:
        # The cases this conversation is on, bounded: the next turn's brief shows them
        # (docs/adr/0020-what-a-brief-shows.md rule 1.2).
        state[CASES] = remember_cases(state, on, parts.app.brief_limits.conversation)
    return state if state != before else None


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
