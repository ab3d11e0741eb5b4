"""Step 1, accept the input: start the turn under its id, once (I13).

docs/adr/0016-races-and-turn-ids.md: a turn id is used once; another account's id is
stored under an account-scoped alias, like a free one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from turnframe.core.canonical import to_json_value
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import Actor, CaseRef, JSONObject
from turnframe.core.turn import Effort, InteractionResponse, TurnInput, TurnPhase
from turnframe.runtime.errors import TurnIdReused
from turnframe.runtime.parts import RuntimeParts
from turnframe.runtime.parts import turn_alias as alias
from turnframe.runtime.serial import load_result
from turnframe.runtime.turn import TurnResult
from turnframe.store.base import TurnRecord
from turnframe.store.errors import StoreError, TurnIdTaken

__all__ = [
    "Accepted",
    "TurnRequest",
    "accept",
    "alias",
    "input_from_json",
    "input_json",
    "stored",
]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnRequest:
    """A turn as the caller asked for it.

    Attributes:
        actor: who acts.
        conversation_id: the conversation.
        turn: text, a click, or both.
        in_view: the records on screen (``None``: the brief's default view, ADR 0020).
        turn_id: the turn's id (given by the caller, or minted).
        given_by_caller: ``turn_id`` came from the caller (a retry key), not minted.
    """

    actor: Actor
    conversation_id: str
    turn: TurnInput
    in_view: Sequence[CaseRef] | None
    turn_id: str
    given_by_caller: bool


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Accepted:
    """The begun turn.

    Attributes:
        key: the id the turn is stored under (``turn_id`` or its account alias).
        replied: the stored result of the account's replied turn with this id, same
            conversation and input, under the id given; ``None`` for a turn that now runs.
    """

    key: str
    replied: TurnResult | None


async def accept(parts: RuntimeParts, data: TurnRequest) -> Accepted:
    """Persist the turn as ``received`` with its input JSON, or find it already replied.

    A turn id is used once (I13; docs/adr/0016-races-and-turn-ids.md): given the id of
    one of this account's turns that has replied, with the same conversation and input,
    its stored result is returned (``Accepted.replied``) and nothing runs again.

    Raises:
        TurnIdReused: the id names one of this account's turns that has not replied, or
            one started with another conversation or input.
        StoreError: the store failed (the caller reports it as phase ``received``).
    """
    record = TurnRecord(
        turn_id=data.turn_id,
        account=data.actor.account,
        conversation_id=data.conversation_id,
        input=input_json(data.turn, data.actor, data.in_view),
    )
    key, existing = await _begin(parts, record, given_by_caller=data.given_by_caller)
    if existing is not None:
        if existing.phase != TurnPhase.REPLIED.value:
            raise TurnIdReused(data.turn_id, "unfinished")
        if existing.conversation_id != data.conversation_id or existing.input != record.input:
            raise TurnIdReused(data.turn_id, "different_input")
        replied = replace(await stored(parts, data.actor, existing), turn_id=data.turn_id)
        return Accepted(key=key, replied=replied)
    return Accepted(key=key, replied=None)


async def stored(parts: RuntimeParts, actor: Actor, record: TurnRecord) -> TurnResult:
    """Return a replied turn's stored reply and results (nothing runs again).

    Raises:
        StoreError: the reply could not be read.
    """
    saved = record.data.get("results")
    results = (
        [load_result(r) for r in saved if isinstance(r, dict)] if isinstance(saved, list) else []
    )
    blocks = await parts.store.load_reply(actor.account, record.turn_id) or ()
    return TurnResult(
        turn_id=record.turn_id,
        conversation_id=record.conversation_id,
        blocks=blocks,
        results={r.item_id: r for r in results},
    )


async def _begin(
    parts: RuntimeParts, record: TurnRecord, *, given_by_caller: bool = True
) -> tuple[str, TurnRecord | None]:
    """Persist ``record`` as a new turn, or find the account's turn with its id.

    Returns ``(storage id, None)`` for a new turn, ``(storage id, record)`` when the
    account already has a turn under the id or its alias. The id is tried first;
    when another account's turn holds it (``TurnIdTaken`` and not this account's),
    the account-scoped alias is used, so a foreign id behaves like a free one. A
    freshly minted id (``given_by_caller=False``) skips the look-up: nobody has it.

    Raises:
        StoreError: the store failed (nothing about another account's turn leaks).
    """
    account = record.account
    for key in _keys(record) if given_by_caller else ():
        existing = await parts.store.get_turn(account, key)
        if existing is not None:
            return key, existing
    for key in _keys(record):
        try:
            await parts.store.begin_turn(
                record if key == record.turn_id else replace(record, turn_id=key)
            )
        except TurnIdTaken:
            existing = await parts.store.get_turn(account, key)
            if existing is not None:  # a concurrent run of the same id won
                return key, existing
            continue
        return key, None
    raise StoreError(f"turn {record.turn_id} could not be started")


def _keys(record: TurnRecord) -> Iterator[str]:
    """Yield the ids ``record`` may be stored under: its own, then its account alias.

    Lazily: the alias (a digest) is computed only when the own id was not enough.
    """
    yield record.turn_id
    yield alias(record.account, record.turn_id)


def input_json(turn: TurnInput, actor: Actor, in_view: Sequence[CaseRef] | None) -> JSONObject:
    """Return the turn's input as stored with phase ``received`` (recovery reruns it)."""
    data = to_json_value(
        {
            "text": turn.text,
            "interaction_response": turn.interaction_response,
            "origin_ref": turn.origin_ref,
            "effort": turn.effort,
            "locale": turn.locale,
            "attachments": [{"name": a.name, "media_type": a.media_type} for a in turn.attachments],
            "in_view": None if in_view is None else [str(c) for c in in_view],
            "user": actor.user,
        }
    )
    assert isinstance(data, dict)
    return data


def input_from_json(data: JSONObject) -> tuple[TurnInput, list[CaseRef] | None]:
    """Return the turn input and ``in_view`` that :func:`input_json` stored."""

    def ref(value: object) -> CaseRef | None:
        if not isinstance(value, str):
            return None
        workflow, _, case_id = value.partition("/")
        return CaseRef(workflow, case_id)

    response = data.get("interaction_response")
    click = None
    if isinstance(response, dict):
        expected = response.get("expected_revision")
        free = response.get("free_value")
        click = InteractionResponse(
            interaction_id=str(response["interaction_id"]),
            option_id=str(response["option_id"]),
            expected_revision=expected if isinstance(expected, int) else None,
            free_value=free if isinstance(free, str) else None,
        )
    effort = data.get("effort")
    text = data.get("text")
    locale = data.get("locale")
    in_view_raw = data.get("in_view")
    in_view = None
    if isinstance(in_view_raw, list):
        in_view = [c for c in (ref(v) for v in in_view_raw) if c is not None]
    return (
        TurnInput(
            text=text if isinstance(text, str) else None,
            interaction_response=click,
            origin_ref=ref(data.get("origin_ref")),
            effort=Effort(effort) if isinstance(effort, str) else None,
            locale=locale if isinstance(locale, str) else "en",
        ),
        in_view,
    )
