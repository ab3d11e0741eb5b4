"""Committed events, receipts and outbox messages (I15, I19).

See docs/architecture.md "Claims", "Stores".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import CaseRef, JSONObject

__all__ = ["DomainEvent", "EventDraft", "OutboxMessage", "Receipt"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class EventDraft:
    """An event an executor decided, before the store gave it an id.

    Attributes:
        type: e.g. ``"trip.extra_added"``.
        data: the event's JSON payload.
        operation: the operation whose command produced it.
    """

    type: str
    data: JSONObject
    operation: str


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class DomainEvent:
    """A committed event: the claim ledger's unit (I15).

    Attributes:
        id: the store-assigned id (unique, stable).
        case: the case it belongs to.
        revision: the case revision this event's commit produced.
        type: the event type.
        data: the JSON payload.
        operation: the operation that produced it.
        turn_id: the turn that committed it (empty for callbacks).
        idempotency_key: the command journal key of its commit.
    """

    id: str
    case: CaseRef
    revision: int
    type: str
    data: JSONObject
    operation: str
    turn_id: str = ""
    idempotency_key: str = ""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Receipt:
    """An authoritative statement rendered from committed events (I15).

    Attributes:
        case: the case the events belong to.
        operation: the operation the receipt reports.
        text: the domain's localised words.
        event_ids: the ids of the committed events it cites (never empty).
        locale: the locale it was rendered in.
    """

    case: CaseRef
    operation: str
    text: str
    event_ids: tuple[str, ...]
    locale: str = "en"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class OutboxMessage:
    """An external effect to deliver at least once, committed with its events.

    Attributes:
        id: store-assigned id, carried to the receiver for deduplication.
        case: the case whose command produced it.
        topic: e.g. ``"airline.submit_manifest"``.
        payload: the message body.
        status: ``pending``, ``delivered``, ``outcome_unknown`` …
    """

    id: str
    case: CaseRef
    topic: str
    payload: JSONObject = field(default_factory=dict)
    status: str = "pending"
