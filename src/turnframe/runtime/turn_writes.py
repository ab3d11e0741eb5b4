"""What a turn writes at its two later recovery points (docs/adr/0024-four-writes-per-turn.md).

A turn persists three phases (``docs/architecture.md`` "Recovery and
concurrency"): ``received`` (``begin_turn``), ``committing`` and ``replied``. This module
builds the store's two folded writes from the turn's records, each value encoded once:

* :func:`plan_commit`: the plan (the :class:`PreparedTurn` without what only the replay
  record needs), the replay record's first part, every commit request and every card
  close, for :meth:`TurnStore.commit_plan` (one transaction).
* :func:`turn_reply`: the reply, the results, the replay record's second part and the
  conversation state, for :meth:`TurnStore.finish_turn` (one transaction).

The reduction record, the model calls and the reading trace go into the replay record
only: recovery from ``committing`` never needs them, so the plan does not repeat them.
The understanding goes there only too (the reduction's input holds it): recovery reads
it back from the replay record, which the plan's own write stores (:func:`stored_plan`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from pydantic import ConfigDict, TypeAdapter
from pydantic_core import PydanticSerializationError

from turnframe.core.acts import Understanding
from turnframe.core.canonical import to_json_value
from turnframe.core.events import DomainEvent
from turnframe.core.ids import CaseRef, JSONObject
from turnframe.core.interactions import Interaction
from turnframe.core.reply import ReplyBlock
from turnframe.core.results import PlannedActResult
from turnframe.runtime.replay import recorded_understanding
from turnframe.runtime.turn import PreparedTurn
from turnframe.store import codec
from turnframe.store.base import InteractionCas, JSONText, PlanCommit, TurnReply, TurnStore

__all__ = [
    "REPLAY_ONLY",
    "plan_commit",
    "plan_json",
    "plan_text",
    "replay_first",
    "stored_plan",
    "turn_reply",
]

log = logging.getLogger("turnframe.recovery")

REPLAY_ONLY: frozenset[str] = frozenset({"reduction", "calls", "reading", "seen", "understanding"})
"""The :class:`PreparedTurn` fields stored in the replay record only, never in the plan."""

_PLAN_EXCLUDES: dict[str, Any] = {
    **dict.fromkeys(REPLAY_ONLY, True),
    # A batch's ``typed`` is the policy step's typed state, for re-projection in this
    # process only: the domain's own object (any class, not JSON), never stored.
    "batches": {"__all__": {"typed"}},
}
"""What :func:`plan_json` leaves out, as pydantic's ``exclude`` takes it; built once."""
_PREPARED: TypeAdapter[PreparedTurn] = TypeAdapter(PreparedTurn)
_RESULTS: TypeAdapter[list[PlannedActResult]] = TypeAdapter(list[PlannedActResult])
_UNDERSTANDING: TypeAdapter[Understanding] = TypeAdapter(Understanding)
_PLAN_TEXT: TypeAdapter[tuple[PreparedTurn]] = TypeAdapter(
    tuple[PreparedTurn], config=ConfigDict(ser_json_inf_nan="constants")
)
_PLAN_TEXT_EXCLUDES = {0: _PLAN_EXCLUDES}
"""The plan's one-pass encoder (:func:`plan_text`) and what it leaves out of its element."""


def plan_json(prepared: PreparedTurn) -> JSONObject:
    """Return the plan stored with phase ``committing``: ``prepared`` without :data:`REPLAY_ONLY`.

    Each batch's ``typed`` (``BatchRequest.typed``, the domain's typed state) is left
    out too: the plan holds JSON only, whatever class a workflow's state is.

    Loading it back with :func:`stored_plan` gives ``prepared`` with the understanding
    read from the replay record and the other :data:`REPLAY_ONLY` fields at their
    defaults, which is all recovery needs.
    """
    out = _PREPARED.dump_python(prepared, mode="json", exclude=_PLAN_EXCLUDES)
    assert isinstance(out, dict)
    return out


def plan_text(prepared: PreparedTurn) -> JSONText:
    """Return :func:`plan_json`'s value as its JSON text, encoded in one pass.

    pydantic writes the text of ``prepared`` directly (no intermediate JSON value), the
    text :func:`~turnframe.store.codec.dumps_record` writes for :func:`plan_json`'s value
    when every object in it has string keys, as ``JSONObject`` says:
    the same encoder, fields and order, and non-finite floats written as
    ``dumps_record`` writes them (``NaN``, ``Infinity``; the one-element tuple adapter
    carries that setting, which a dataclass's own adapter cannot take). A plan it cannot
    write so (a lone surrogate, say) is encoded the two-step way.

    Raises:
        StoreError: the plan has no JSON form.
    """
    try:
        text = _PLAN_TEXT.dump_json((prepared,), exclude=_PLAN_TEXT_EXCLUDES)
    except (PydanticSerializationError, ValueError):
        return JSONText(codec.dumps_record(plan_json(prepared)))
    return JSONText(text[1:-1].decode())  # the one element of ``[…]``


async def stored_plan(store: TurnStore, data: JSONObject) -> PreparedTurn:
    """Return the :class:`PreparedTurn` a turn stored as its plan (``data``), to resume it.

    The plan leaves the understanding to the replay record's first part, which
    :meth:`TurnStore.commit_plan` stores in the same transaction as the plan
    (docs/adr/0024-four-writes-per-turn.md rule 4), so it is read from there
    (:func:`~turnframe.runtime.replay.recorded_understanding`). A plan stored by an
    earlier release holds its understanding and is read as it is. A store that lost
    the replay record resumes the plan with an empty understanding (logged): the
    commits still replay by key, only the reply's links and "ask next" go unsaid.

    Raises:
        pydantic.ValidationError: ``data`` (or the recorded understanding) is not a plan.
        StoreError: the replay record cannot be read.
    """
    prepared = _PREPARED.validate_python(data)
    if "understanding" in data:
        return prepared
    record = await store.load_replay(prepared.actor.account, prepared.turn_id)
    found = None if record is None else recorded_understanding(record)
    if found is None:
        log.warning("turn %s resumes without its recorded understanding", prepared.turn_id)
        return prepared
    return replace(prepared, understanding=_UNDERSTANDING.validate_python(found))


def replay_first(prepared: PreparedTurn) -> JSONObject:
    """Return the replay record's first part: what the turn read and decided (I20).

    Keys: ``turn_id``, ``model_calls``, ``calls``, ``reading`` and, for a turn that
    reduced, ``reduction``, whose input holds the understanding (canonical JSON; the
    journal step reduces the turn's own understanding, so it is stored once there);
    a turn that did not reduce holds it as ``understanding``. Read it with
    :func:`turnframe.runtime.replay.recorded_understanding`. A turn that loaded cases
    also holds ``seen``, ``[["workflow/case_id", revision], ...]`` (read it with
    :func:`turnframe.runtime.replay.recorded_seen`; a record without it reads as before).
    """
    record: JSONObject = {
        "turn_id": prepared.turn_id,
        "model_calls": prepared.model_calls,
        "calls": list(prepared.calls),
        "reading": prepared.reading,
    }
    reduction = prepared.reduction
    inp = reduction.get("input") if reduction else None
    if not isinstance(inp, dict) or "understanding" not in inp:
        record["understanding"] = to_json_value(prepared.understanding)
    if reduction:
        record["reduction"] = reduction
    if prepared.seen:
        record["seen"] = [[case, revision] for case, revision in prepared.seen]
    return record


def plan_commit(
    prepared: PreparedTurn, closes: Sequence[InteractionCas], *, resumed: bool
) -> PlanCommit:
    """Return the ``committing`` write of ``prepared``.

    Args:
        prepared: the turn's plan.
        closes: the compare-and-sets of its card closes, in ``prepared.closes`` order.
        resumed: recovery is finishing a stored plan: the plan and the replay record's
            first part are stored already, so the write carries only the commits and
            closes (which replay by idempotency key and compare-and-set).
    """
    return PlanCommit(
        turn_id=prepared.turn_id,
        account=prepared.actor.account,
        plan=None if resumed else plan_text(prepared),
        replay=None if resumed else replay_first(prepared),
        requests=tuple(b.request for b in prepared.batches),
        closes=tuple(closes),
    )


def turn_reply(
    prepared: PreparedTurn,
    *,
    blocks: tuple[ReplyBlock, ...],
    results: Mapping[str, PlannedActResult],
    commands: Iterable[tuple[str, CaseRef]],
    events: Iterable[DomainEvent],
    cards: Iterable[Interaction],
    reply_record: Mapping[str, Any],
    conversation_state: JSONObject | None,
    resumed: bool,
) -> TurnReply:
    """Return the ``replied`` write: blocks, results, the replay record's rest, the state.

    The rest holds ``results`` (item id → label), ``commands`` (``[operation, case]``),
    ``events`` and ``cards`` (ids) and, with a reply writer, ``reply``. A resumed plan
    stored before the replay record was split (its :data:`REPLAY_ONLY` fields are
    set) also carries the first part, so the record stays whole.
    """
    rest: JSONObject = {
        "results": {k: v.label for k, v in results.items()},
        "commands": [[op, str(case)] for op, case in commands],
        "events": [e.id for e in events],
        "cards": [c.id for c in cards],
    }
    if reply_record:
        rest["reply"] = dict(reply_record)
    if resumed and (prepared.reduction or prepared.calls or prepared.reading or prepared.seen):
        rest = {**replay_first(prepared), **rest}
    data = _RESULTS.dump_python(list(results.values()), mode="json")
    return TurnReply(
        turn_id=prepared.turn_id,
        account=prepared.actor.account,
        conversation_id=prepared.conversation_id,
        blocks=blocks,
        data={"results": data},
        replay=rest,
        conversation_state=conversation_state,
    )
