"""JSON codec for the records a store persists (docs/architecture.md "What is persisted", "Stores").

Each record becomes a JSON object (``dict`` of ``str``, numbers, ``bool``, ``None``,
lists and dicts) and back, and ``x_from_json(x_to_json(v)) == v`` holds for every value
whose JSON payload fields (``JSONObject``: state, event data, outbox payloads, turn
input) hold only JSON values; tuples inside such a payload come back as lists.

Cards (:class:`Interaction`, its spec, pending acts, options, resolution) and reply
blocks go through pydantic v2 :class:`~pydantic.TypeAdapter` objects over the core
frozen dataclasses: enums travel as their values, :class:`CaseRef` as
``{"workflow": …, "case_id": …}``, ``Mapping`` fields come back as ``dict`` (equal to
the original), and blocks are a union discriminated on their ``kind`` field.

The records that carry a JSON payload (:class:`DomainEvent`, :class:`OutboxMessage`,
:class:`CommitResult`, :class:`TurnRecord`) are encoded field by field instead: core
annotates payloads with ``JSONObject``, an implicit recursive alias whose resolution by
pydantic depends on the namespace it is evaluated in (it can recurse without end), and
a payload is plain JSON anyway, copied with the stdlib ``json`` semantics.

Every function raises :class:`~turnframe.store.errors.StoreError` for a value it cannot
encode or a JSON object it cannot decode, so stores leak no pydantic exception.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Annotated, Any, TypeVar, cast

from pydantic import Field, TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError
from pydantic_core import from_json as _from_json
from pydantic_core import to_json as _to_json

from turnframe.core.canonical import one_shot
from turnframe.core.events import DomainEvent, OutboxMessage
from turnframe.core.ids import CaseRef, JSONObject, JSONValue
from turnframe.core.interactions import Interaction, InteractionResolution, InteractionSpec
from turnframe.core.reply import (
    AnswerBlock,
    ArtifactBlock,
    InteractionBlock,
    NoticeBlock,
    ReceiptBlock,
    ReplyBlock,
    TransitionBlock,
)
from turnframe.store.base import CommitResult, JSONText, TurnRecord
from turnframe.store.errors import StoreError

__all__ = [
    "block_from_json",
    "block_to_json",
    "blocks_from_json",
    "blocks_to_json",
    "case_ref_from_json",
    "case_ref_to_json",
    "commit_result_from_json",
    "commit_result_text",
    "commit_result_to_json",
    "dumps",
    "dumps_record",
    "event_from_json",
    "event_to_json",
    "interaction_from_json",
    "interaction_to_json",
    "json_copy",
    "loads",
    "outbox_message_from_json",
    "outbox_message_to_json",
    "record_copy",
    "record_value",
    "resolution_from_json",
    "resolution_to_json",
    "spec_from_json",
    "spec_to_json",
    "turn_record_from_json",
    "turn_record_to_json",
]

T = TypeVar("T")


_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)
_ASCII = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True, check_circular=False)
_string = encode_basestring  # str → its JSON text, as _COMPACT writes it (C speed-up)


_compact, _ascii = one_shot(_COMPACT), one_shot(_ASCII)  # C encoders built once


def dumps(value: object) -> str:
    """Return compact JSON text for ``value`` (stdlib semantics, UTF-8 kept as is).

    Args:
        value: a JSON value (tuples are written as arrays).

    Returns:
        The text, with ``,``/``:`` separators; non-ASCII characters are kept as they
        are unless the text holds a lone surrogate (not encodable as UTF-8), in which
        case everything non-ASCII is escaped so any UTF-8 database can hold it. The
        encoders are built once (this runs dozens of times per turn) and an all-ASCII
        text skips the UTF-8 check.

    Raises:
        StoreError: ``value`` holds something JSON has no form for (a set, a date…), or
            refers to itself or nests deeper than the interpreter's recursion limit.
    """
    try:
        text = _compact(value)
    except (TypeError, ValueError, RecursionError) as exc:
        raise StoreError(f"value is not JSON-serialisable: {exc}") from exc
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: keep it, as an ASCII escape
        text = _ascii(value)
    return text


def dumps_record(value: object) -> str:
    """Return compact JSON text for a record the runtime built of JSON values only.

    For the turn's large records (the plan, the replay record, the reply's results and
    blocks), which are already in JSON form: pydantic's JSON-mode dumps, canonical JSON
    values (:func:`turnframe.core.canonical.to_json_value`) and decoded stored text. The
    text is pydantic-core's Rust encoder's (``NaN`` and the infinities written as
    :func:`dumps` writes them), which decodes to the value :func:`dumps`'s text
    decodes to; a value it cannot write (a lone surrogate, say) goes through
    :func:`dumps`. Unlike :func:`dumps`, it does not refuse a date, a set or an enum
    (it writes pydantic's JSON form of them), so payloads of an adopter's own go
    through :func:`dumps`.

    A :class:`~turnframe.store.base.JSONText` is that text already and comes back as it is
    (a store written before the runtime handed plans over as text keeps working).

    Raises:
        StoreError: ``value`` has no JSON form.
    """
    if isinstance(value, JSONText):
        return value
    try:
        return _to_json(value, inf_nan_mode="constants").decode()
    except (PydanticSerializationError, TypeError, ValueError, RecursionError):
        return dumps(value)


def record_value(value: JSONObject | JSONText) -> JSONObject:
    """Return a record's JSON object: a :class:`JSONText` decoded (a fresh value), else ``value``.

    Raises:
        StoreError: the text is not a JSON object.
    """
    if isinstance(value, JSONText):
        decoded = loads(value)
        if not isinstance(decoded, dict):
            raise StoreError(f"a record's text holds {type(decoded).__name__}, not an object")
        return decoded
    return value


def loads(text: str) -> Any:
    """Return the JSON value ``text`` holds (the stdlib ``json.loads`` value).

    pydantic-core's parser reads it (it gives the same values, big integers, ``NaN``
    and duplicate keys included, at a fraction of the time); text it refuses (a lone
    surrogate, escaped or raw, say) is read by ``json.loads``.

    Raises:
        StoreError: ``text`` is not JSON.
    """
    try:
        return _from_json(text)
    except (ValueError, TypeError):  # e.g. a raw lone surrogate: not UTF-8, the stdlib reads it
        pass
    try:
        return json.loads(text)
    except ValueError as exc:
        raise StoreError(f"stored text is not JSON: {exc}") from exc


def record_copy(value: T) -> T:
    """Return a deep copy of a record through :func:`dumps_record`'s text (no aliasing).

    A :class:`~turnframe.store.base.JSONText` gives the value it holds (decoded afresh).

    Raises:
        StoreError: ``value`` has no JSON form.
    """
    return cast(T, loads(dumps_record(value)))


def json_copy(value: T) -> T:
    """Return a deep copy of a JSON value through its text form (no aliasing).

    Raises:
        StoreError: ``value`` is not JSON-serialisable.
    """
    return cast(T, loads(dumps(value)))


_BlockUnion = Annotated[
    AnswerBlock | TransitionBlock | ReceiptBlock | NoticeBlock | InteractionBlock | ArtifactBlock,
    Field(discriminator="kind"),
]

_CASE = TypeAdapter(CaseRef)
_INTERACTION = TypeAdapter(Interaction)
_SPEC = TypeAdapter(InteractionSpec)
_RESOLUTION = TypeAdapter(InteractionResolution)
_BLOCK = TypeAdapter(_BlockUnion)
_BLOCKS = TypeAdapter(tuple[_BlockUnion, ...])


def _encode(adapter: TypeAdapter[Any], value: object, what: str) -> Any:
    try:
        return adapter.dump_python(value, mode="json", warnings="error")
    except (PydanticSerializationError, StoreError, TypeError, ValueError) as exc:
        raise StoreError(f"cannot encode {what}: {exc}") from exc


def _decode(adapter: TypeAdapter[Any], data: object, what: str) -> Any:
    try:
        return adapter.validate_python(data)
    except ValidationError as exc:
        raise StoreError(f"cannot decode {what}: {exc}") from exc


def case_ref_to_json(case: CaseRef) -> JSONObject:
    """Return ``{"workflow": …, "case_id": …}`` for ``case``."""
    return cast(JSONObject, _encode(_CASE, case, "CaseRef"))


def case_ref_from_json(data: JSONValue) -> CaseRef:
    """Return the :class:`CaseRef` ``data`` encodes.

    Raises:
        StoreError: ``data`` is not an encoded case reference.
    """
    return cast(CaseRef, _decode(_CASE, data, "CaseRef"))


def interaction_to_json(interaction: Interaction) -> JSONObject:
    """Return the JSON object of a card: spec, pending acts, status, resolution, seq.

    See docs/architecture.md "Cards".

    Raises:
        StoreError: a field holds a value with no JSON form.
    """
    return cast(JSONObject, _encode(_INTERACTION, interaction, "Interaction"))


def interaction_from_json(data: JSONValue) -> Interaction:
    """Return the :class:`Interaction` ``data`` encodes (mappings come back as dicts).

    Raises:
        StoreError: ``data`` is not an encoded interaction.
    """
    return cast(Interaction, _decode(_INTERACTION, data, "Interaction"))


def spec_to_json(spec: InteractionSpec) -> JSONObject:
    """Return the JSON object of a card's immutable payload (I7).

    Raises:
        StoreError: a field holds a value with no JSON form.
    """
    return cast(JSONObject, _encode(_SPEC, spec, "InteractionSpec"))


def spec_from_json(data: JSONValue) -> InteractionSpec:
    """Return the :class:`InteractionSpec` ``data`` encodes; its payload hash is unchanged.

    Raises:
        StoreError: ``data`` is not an encoded spec.
    """
    return cast(InteractionSpec, _decode(_SPEC, data, "InteractionSpec"))


def resolution_to_json(resolution: InteractionResolution) -> JSONObject:
    """Return the JSON object of a card's resolution (I16)."""
    return cast(JSONObject, _encode(_RESOLUTION, resolution, "InteractionResolution"))


def resolution_from_json(data: JSONValue) -> InteractionResolution:
    """Return the :class:`InteractionResolution` ``data`` encodes.

    Raises:
        StoreError: ``data`` is not an encoded resolution.
    """
    return cast(InteractionResolution, _decode(_RESOLUTION, data, "InteractionResolution"))


def block_to_json(block: ReplyBlock) -> JSONObject:
    """Return the JSON object of one reply block, carrying its ``kind``.

    See docs/architecture.md "Claims".

    Raises:
        StoreError: the block holds a value with no JSON form.
    """
    return cast(JSONObject, _encode(_BLOCK, block, "ReplyBlock"))


def block_from_json(data: JSONValue) -> ReplyBlock:
    """Return the reply block ``data`` encodes, chosen by its ``kind`` field.

    Raises:
        StoreError: ``data`` has an unknown ``kind`` or does not fit it.
    """
    return cast(ReplyBlock, _decode(_BLOCK, data, "ReplyBlock"))


def blocks_to_json(blocks: Sequence[ReplyBlock]) -> list[JSONValue]:
    """Return the JSON array of a reply's blocks, in order (persisted exactly).

    See docs/architecture.md "Claims".

    Raises:
        StoreError: a block holds a value with no JSON form.
    """
    return cast(list[JSONValue], _encode(_BLOCKS, tuple(blocks), "reply blocks"))


def blocks_from_json(data: Sequence[JSONValue]) -> tuple[ReplyBlock, ...]:
    """Return the reply blocks a JSON array encodes, in order.

    Raises:
        StoreError: an element is not an encoded reply block.
    """
    return cast(tuple[ReplyBlock, ...], _decode(_BLOCKS, data, "reply blocks"))


def _field(data: Any, name: str, kind: type[T]) -> T:
    value = data[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"{name} is {type(value).__name__}, not {kind.__name__}")
    return value


def _decode_fields(build: Callable[[Any], T], data: object, what: str) -> T:
    try:
        return build(data)
    except (KeyError, TypeError, ValueError, StoreError) as exc:
        raise StoreError(f"cannot decode {what}: {exc!r}") from exc


def event_to_json(event: DomainEvent) -> JSONObject:
    """Return the JSON object of a committed event (the claim ledger's unit, I15).

    Raises:
        StoreError: ``event.data`` holds a value with no JSON form.
    """
    return {
        "id": event.id,
        "case": case_ref_to_json(event.case),
        "revision": event.revision,
        "type": event.type,
        "data": json_copy(event.data),
        "operation": event.operation,
        "turn_id": event.turn_id,
        "idempotency_key": event.idempotency_key,
    }


def event_from_json(data: JSONValue) -> DomainEvent:
    """Return the :class:`DomainEvent` ``data`` encodes.

    Raises:
        StoreError: ``data`` is not an encoded event.
    """

    def build(d: Any) -> DomainEvent:
        return DomainEvent(
            id=_field(d, "id", str),
            case=case_ref_from_json(d["case"]),
            revision=_field(d, "revision", int),
            type=_field(d, "type", str),
            data=json_copy(_field(d, "data", dict)),
            operation=_field(d, "operation", str),
            turn_id=_field(d, "turn_id", str),
            idempotency_key=_field(d, "idempotency_key", str),
        )

    return _decode_fields(build, data, "DomainEvent")


def outbox_message_to_json(message: OutboxMessage) -> JSONObject:
    """Return the JSON object of an outbox message.

    Raises:
        StoreError: the payload holds a value with no JSON form.
    """
    return {
        "id": message.id,
        "case": case_ref_to_json(message.case),
        "topic": message.topic,
        "payload": json_copy(message.payload),
        "status": message.status,
    }


def outbox_message_from_json(data: JSONValue) -> OutboxMessage:
    """Return the :class:`OutboxMessage` ``data`` encodes.

    Raises:
        StoreError: ``data`` is not an encoded outbox message.
    """

    def build(d: Any) -> OutboxMessage:
        return OutboxMessage(
            id=_field(d, "id", str),
            case=case_ref_from_json(d["case"]),
            topic=_field(d, "topic", str),
            payload=json_copy(_field(d, "payload", dict)),
            status=_field(d, "status", str),
        )

    return _decode_fields(build, data, "OutboxMessage")


def commit_result_to_json(result: CommitResult) -> JSONObject:
    """Return the JSON object of a commit's outcome, as the journal stores it (I13).

    Raises:
        StoreError: an event's data holds a value with no JSON form.
    """
    return {
        "case": case_ref_to_json(result.case),
        "revision": result.revision,
        "events": [event_to_json(e) for e in result.events],
        "outbox_ids": list(result.outbox_ids),
        "replayed": result.replayed,
    }


def commit_result_text(result: CommitResult, event_texts: Sequence[str]) -> str:
    """Return ``dumps(commit_result_to_json(result))`` with each event's data pre-encoded.

    ``event_texts[i]`` is ``dumps(result.events[i].data)``, as the store already wrote it
    for the event row; it is spliced in, not encoded again (the text decodes to the same
    value as the one :func:`commit_result_to_json` gives). The other fields are strings,
    integers and a boolean, written directly (the same text :func:`dumps` gives them,
    ASCII-escaped as a whole when a string holds a lone surrogate).

    Raises:
        StoreError: a field holds a value with no JSON form.
    """
    text = _commit_result_text(result, event_texts, _string)
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate in an id: escape, as dumps does
        text = _commit_result_text(result, event_texts, encode_basestring_ascii)
    return text


def _case_text(case: CaseRef, string: Callable[[str], str]) -> str:
    return f'{{"workflow":{string(case.workflow)},"case_id":{string(case.case_id)}}}'


def _commit_result_text(
    result: CommitResult, event_texts: Sequence[str], string: Callable[[str], str]
) -> str:
    # f-strings, and the result's case written once for the events that share it (all of
    # a commit's do): half the time of concatenating the pieces one by one.
    try:
        case = result.case
        shared = _case_text(case, string)
        events = [
            f'{{"id":{string(e.id)},'
            f'"case":{shared if e.case is case else _case_text(e.case, string)},'
            f'"revision":{_integer(e.revision)},"type":{string(e.type)},"data":{text},'
            f'"operation":{string(e.operation)},"turn_id":{string(e.turn_id)},'
            f'"idempotency_key":{string(e.idempotency_key)}}}'
            for e, text in zip(result.events, event_texts, strict=True)
        ]
        outbox = ",".join([string(i) for i in result.outbox_ids])
        replayed = "true" if result.replayed is True else _boolean(result.replayed)
        return (
            f'{{"case":{shared},"revision":{_integer(result.revision)},'
            f'"events":[{",".join(events)}],"outbox_ids":[{outbox}],"replayed":{replayed}}}'
        )
    except (TypeError, ValueError) as exc:
        raise StoreError(f"cannot encode CommitResult: {exc}") from exc


def _integer(value: object) -> str:
    if type(value) is not int:
        raise TypeError(f"{value!r} is not an integer")
    return int.__repr__(value)


def _boolean(value: object) -> str:
    if value is not False:
        raise TypeError(f"{value!r} is not a boolean")
    return "false"


def commit_result_from_json(data: JSONValue) -> CommitResult:
    """Return the :class:`CommitResult` ``data`` encodes.

    Raises:
        StoreError: ``data`` is not an encoded commit result.
    """

    def build(d: Any) -> CommitResult:
        ids = _field(d, "outbox_ids", list)
        if not all(isinstance(i, str) for i in ids):
            raise TypeError("outbox_ids holds a non-string")
        return CommitResult(
            case=case_ref_from_json(d["case"]),
            revision=_field(d, "revision", int),
            events=tuple(event_from_json(e) for e in _field(d, "events", list)),
            outbox_ids=tuple(ids),
            replayed=_field(d, "replayed", bool),
        )

    return _decode_fields(build, data, "CommitResult")


def turn_record_to_json(record: TurnRecord) -> JSONObject:
    """Return the JSON object of a persisted turn (docs/architecture.md "Failures").

    Raises:
        StoreError: the input or phase data holds a value with no JSON form.
    """
    return {
        "turn_id": record.turn_id,
        "account": record.account,
        "conversation_id": record.conversation_id,
        "seq": record.seq,
        "phase": record.phase,
        "input": json_copy(record.input),
        "data": json_copy(record.data),
        "attempts": record.attempts,
    }


def turn_record_from_json(data: JSONValue) -> TurnRecord:
    """Return the :class:`TurnRecord` ``data`` encodes.

    Raises:
        StoreError: ``data`` is not an encoded turn record.
    """

    def build(d: Any) -> TurnRecord:
        return TurnRecord(
            turn_id=_field(d, "turn_id", str),
            account=_field(d, "account", str),
            conversation_id=_field(d, "conversation_id", str),
            seq=_field(d, "seq", int),
            phase=_field(d, "phase", str),
            input=json_copy(_field(d, "input", dict)),
            data=json_copy(_field(d, "data", dict)),
            attempts=_field(d, "attempts", int),
        )

    return _decode_fields(build, data, "TurnRecord")
