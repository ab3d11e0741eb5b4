from __future__ import annotations

import json
from dataclasses import fields
from datetime import date
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core.acts import EvidenceSource, ProposedTarget, SemanticAct
from turnframe.core.events import DomainEvent, OutboxMessage, Receipt
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import (
    Interaction,
    InteractionKind,
    InteractionOption,
    InteractionResolution,
    InteractionSpec,
    InteractionStatus,
    OptionMeaning,
    PendingAct,
)
from turnframe.core.reply import (
    AnswerBlock,
    ArtifactBlock,
    InteractionBlock,
    NoticeBlock,
    OptionView,
    ReceiptBlock,
    TransitionBlock,
)
from turnframe.store import CommitResult, StoreError, TurnRecord, codec

CASE = CaseRef("trip", "t-1")
QUICK = settings(max_examples=60, database=None, deadline=None)

# strategies -----------------------------------------------------------------------------
text = st.text(max_size=12)
ids = st.text(alphabet="abcdefghij-0123456789", min_size=1, max_size=8)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(text, json_values, max_size=4)
case_refs = st.builds(CaseRef, ids, ids)
maybe_case = st.none() | case_refs
str_maps = st.dictionaries(ids, text, max_size=3)

acts = st.builds(
    SemanticAct,
    id=ids,
    operation=st.none() | ids,
    target=st.builds(
        ProposedTarget,
        handles=st.tuples(ids) | st.just(()),
        mention=st.none() | text,
        find=st.none() | text,
        new=st.booleans(),
    ),
    args=str_maps,
    evidence=str_maps,
    evidence_source=st.sampled_from(EvidenceSource),
    hypothetical=st.booleans(),
)
options = st.builds(
    InteractionOption, id=ids, label=text, meaning=st.sampled_from(OptionMeaning), case=maybe_case
)
specs = st.builds(
    InteractionSpec,
    kind=st.sampled_from(InteractionKind),
    case=maybe_case,
    prompt=text,
    options=st.lists(options, max_size=3).map(tuple),
    bound_revision=st.none() | st.integers(0, 99),
    independent=st.booleans(),
    pending=st.lists(
        st.builds(
            PendingAct,
            act=acts,
            case=maybe_case,
            record_args=st.dictionaries(ids, case_refs, max_size=2),
            new_case=st.booleans(),
        ),
        max_size=2,
    ).map(tuple),
    operations=st.lists(ids, max_size=3).map(tuple),
    required_role=st.none() | ids,
    excluded_reviewers=st.lists(ids, max_size=2).map(tuple),
    confirmed_by=st.lists(ids, max_size=2).map(tuple),
)
resolutions = st.builds(
    InteractionResolution, option_id=ids, turn_id=ids, user=ids, results=str_maps
)
interactions = specs.flatmap(
    lambda spec: st.builds(
        Interaction,
        id=ids,
        account=ids,
        conversation_id=ids,
        turn_id=ids,
        spec=st.just(spec),
        payload_hash=st.just(spec.payload_hash()),
        status=st.sampled_from(InteractionStatus),
        resolution=st.none() | resolutions,
        seq=st.integers(0, 1000),
    )
)
receipts = st.builds(
    Receipt,
    case=case_refs,
    operation=ids,
    text=text,
    event_ids=st.lists(ids, min_size=1, max_size=3).map(tuple),
    locale=ids,
)
blocks = st.one_of(
    st.builds(AnswerBlock, question_id=ids, topic=ids, text=text, basis=ids),
    st.builds(TransitionBlock, text=text, asks=st.none() | ids, case=maybe_case),
    st.builds(ReceiptBlock, receipt=receipts),
    st.builds(NoticeBlock, code=ids, text=text, item_id=st.none() | ids),
    st.builds(
        InteractionBlock,
        interaction_id=ids,
        interaction_kind=ids,
        prompt=text,
        options=st.lists(st.builds(OptionView, id=ids, label=text), max_size=3).map(tuple),
        expected_revision=st.none() | st.integers(0, 50),
    ),
    st.builds(ArtifactBlock, name=ids, media_type=ids, text=text),
)
events = st.builds(
    DomainEvent,
    id=ids,
    case=case_refs,
    revision=st.integers(1, 50),
    type=ids,
    data=json_objects,
    operation=ids,
    turn_id=ids,
    idempotency_key=ids,
)
commit_results = st.builds(
    CommitResult,
    case=case_refs,
    revision=st.integers(1, 50),
    events=st.lists(events, max_size=3).map(tuple),
    outbox_ids=st.lists(ids, max_size=3).map(tuple),
    replayed=st.booleans(),
)
turn_records = st.builds(
    TurnRecord,
    turn_id=ids,
    account=ids,
    conversation_id=ids,
    seq=st.integers(0, 99),
    phase=ids,
    input=json_objects,
    data=json_objects,
    attempts=st.integers(0, 5),
)


def through_text(value: Any) -> Any:
    """What a database hands back: the JSON text, parsed again."""
    return json.loads(codec.dumps(value))


# hypothesis round trips -----------------------------------------------------------------
@QUICK
@given(interactions)
def test_interaction_round_trip(interaction: Interaction) -> None:
    back = codec.interaction_from_json(through_text(codec.interaction_to_json(interaction)))
    assert back == interaction
    assert back.spec.payload_hash() == interaction.payload_hash


@QUICK
@given(st.lists(blocks, max_size=6).map(tuple))
def test_blocks_round_trip(value: tuple[Any, ...]) -> None:
    encoded: list[Any] = codec.blocks_to_json(value)
    assert [b["kind"] for b in encoded] == [b.kind for b in value]
    assert codec.blocks_from_json(through_text(encoded)) == value


@QUICK
@given(commit_results)
def test_commit_result_text_splices_the_event_texts_exactly(result: CommitResult) -> None:
    """The journal's text, built from the events' pre-encoded data, is the encoded result."""
    texts = [codec.dumps(e.data) for e in result.events]
    spliced = codec.commit_result_text(result, texts)
    assert json.loads(spliced) == json.loads(codec.dumps(codec.commit_result_to_json(result)))
    assert codec.commit_result_from_json(codec.loads(spliced)) == result


@given(commit_results)
def test_commit_result_round_trip(result: CommitResult) -> None:
    assert (
        codec.commit_result_from_json(through_text(codec.commit_result_to_json(result))) == result
    )


@QUICK
@given(turn_records)
def test_turn_record_round_trip(record: TurnRecord) -> None:
    assert codec.turn_record_from_json(through_text(codec.turn_record_to_json(record))) == record


@QUICK
@given(events)
def test_event_round_trip_does_not_alias(event: DomainEvent) -> None:
    encoded = codec.event_to_json(event)
    assert codec.event_from_json(through_text(encoded)) == event
    if event.data:
        assert encoded["data"] is not event.data


# concrete cases -------------------------------------------------------------------------
def test_concrete_interaction_shape() -> None:
    act = SemanticAct(id="a1", operation="submit", args={"date": "friday"})
    spec = InteractionSpec(
        kind=InteractionKind.SELECT_TARGET,
        case=None,
        prompt="Which trip?",
        options=(
            InteractionOption(id="o1", label="Lisbon", meaning=OptionMeaning.SELECT, case=CASE),
        ),
        pending=(PendingAct(act=act, record_args={"trip": CASE}),),
    )
    card = Interaction(
        id="i1",
        account="a",
        conversation_id="c",
        turn_id="t",
        spec=spec,
        payload_hash=spec.payload_hash(),
    )
    data = codec.interaction_to_json(card)
    assert data["status"] == "open"
    assert data["spec"]["kind"] == "select_target"  # type: ignore[index,call-overload]
    assert data["spec"]["options"][0]["case"] == {  # type: ignore[index,call-overload]
        "workflow": "trip",
        "case_id": "t-1",
    }
    back = codec.interaction_from_json(data)
    assert back == card and isinstance(back.spec.pending[0].record_args, dict)
    assert codec.spec_from_json(codec.spec_to_json(spec)) == spec
    res = InteractionResolution(option_id="o1", turn_id="t2", user="u", results={"a1": "ok"})
    assert codec.resolution_from_json(codec.resolution_to_json(res)) == res
    assert codec.case_ref_from_json(codec.case_ref_to_json(CASE)) == CASE


def test_a_card_stored_before_excluded_reviewers_loads_with_none() -> None:
    """A Review card's JSON written before the four-eyes field still loads (ADR 0014 rule 9)."""
    spec = InteractionSpec(
        kind=InteractionKind.REVIEW,
        case=CASE,
        prompt="Approve?",
        options=(InteractionOption(id="approve", label="Approve", meaning=OptionMeaning.APPROVE),),
        required_role="manager",
        excluded_reviewers=("u1",),
    )
    data = dict(codec.spec_to_json(spec))
    assert data["excluded_reviewers"] == ["u1"]
    del data["excluded_reviewers"]
    old = codec.spec_from_json(data)
    assert old.excluded_reviewers == () and old.required_role == "manager"


def test_each_block_kind_round_trips() -> None:
    receipt = Receipt(case=CASE, operation="rename", text="Done.", event_ids=("ev-1",))
    every = (
        AnswerBlock(question_id="q", topic="t", text="x"),
        TransitionBlock(text="Next?", asks="date", case=CASE),
        ReceiptBlock(receipt=receipt),
        NoticeBlock(code="c", text="t"),
        InteractionBlock(
            interaction_id="i",
            interaction_kind="confirm",
            prompt="p",
            options=(OptionView(id="o", label="l"),),
            expected_revision=2,
        ),
        ArtifactBlock(name="n", media_type="text/plain", text="ünïcödé ✓"),
    )
    for block in every:
        assert codec.block_from_json(through_text(codec.block_to_json(block))) == block
    assert codec.blocks_from_json(codec.blocks_to_json(every)) == every


def test_outbox_message_round_trip() -> None:
    message = OutboxMessage(id="ob-1", case=CASE, topic="x.y", payload={"a": [1, {"b": None}]})
    assert codec.outbox_message_from_json(codec.outbox_message_to_json(message)) == message


def test_payload_tuples_become_lists_and_non_json_is_refused() -> None:
    payload: Any = {"t": (1, 2)}
    event = DomainEvent(id="e", case=CASE, revision=1, type="t", data=payload, operation="o")
    assert codec.event_to_json(event)["data"] == {"t": [1, 2]}
    dated: Any = {"d": date(2024, 1, 1)}
    bad = DomainEvent(id="e", case=CASE, revision=1, type="t", data=dated, operation="o")
    with pytest.raises(StoreError, match="JSON"):
        codec.event_to_json(bad)
    with pytest.raises(StoreError):
        codec.dumps({"s": {1, 2}})


def test_bad_input_is_a_store_error() -> None:
    with pytest.raises(StoreError):
        codec.block_from_json({"kind": "nonsense", "text": "x"})
    with pytest.raises(StoreError):
        codec.interaction_from_json({"id": "only"})
    with pytest.raises(StoreError):
        codec.loads("{not json")


def test_dumps_is_compact_and_survives_lone_surrogates() -> None:
    assert codec.dumps({"a": [1, "é"]}) == '{"a":[1,"é"]}'
    text = codec.dumps({"s": "\ud800é"})
    text.encode("utf-8")  # storable
    assert codec.loads(text) == {"s": "\ud800é"}
    original = {"a": [1, {"b": 2}]}
    copy = codec.json_copy(original)
    assert copy == original and copy["a"] is not original["a"]


@pytest.mark.parametrize(
    ("cls", "encode", "sample"),
    [
        (
            DomainEvent,
            codec.event_to_json,
            DomainEvent(id="e", case=CASE, revision=1, type="t", data={}, operation="o"),
        ),
        (OutboxMessage, codec.outbox_message_to_json, OutboxMessage(id="o", case=CASE, topic="t")),
        (CommitResult, codec.commit_result_to_json, CommitResult(case=CASE, revision=1, events=())),
        (
            TurnRecord,
            codec.turn_record_to_json,
            TurnRecord(turn_id="t", account="a", conversation_id="c"),
        ),
    ],
)
def test_field_by_field_encoders_cover_every_field(cls: type, encode: Any, sample: Any) -> None:
    """A field added to a core record must be added to its encoder too."""
    assert set(encode(sample)) == {f.name for f in fields(cls)}


def test_payload_records_refuse_wrong_shapes() -> None:
    good = codec.event_to_json(
        DomainEvent(id="e", case=CASE, revision=1, type="t", data={}, operation="o")
    )
    for broken in (
        {**good, "revision": "1"},
        {**good, "revision": True},
        {**good, "data": []},
        {k: v for k, v in good.items() if k != "type"},
        "text",
    ):
        with pytest.raises(StoreError):
            codec.event_from_json(broken)
    with pytest.raises(StoreError):
        codec.commit_result_from_json(
            {
                "case": {"workflow": "w", "case_id": "c"},
                "revision": 1,
                "events": [],
                "outbox_ids": [1],
                "replayed": False,
            }
        )
