"""A resumed plan gets back the understanding it was planned from (a class of defect: a
value stored once, in the replay record, read back differently from the plan that used
to hold it).

The plan stored with phase ``committing`` leaves the understanding to the replay
record's first part (docs/adr/0024-four-writes-per-turn.md rule 4);
:func:`turnframe.runtime.turn_writes.stored_plan` reads it back from there. For any
understanding (lone surrogates, odd keys, every enum value) and for a turn that reduced
(the understanding in ``reduction.input``) or did not (at the record's top level), the
resumed plan equals the plan as the turn held it, through the stored text of both. A
plan stored by an earlier release, which holds its understanding, reads as before.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from turnframe.core.acts import (
    CardAnswer,
    Constraint,
    ConstraintKind,
    ConstraintScope,
    EvidenceSource,
    Link,
    ProposedTarget,
    Question,
    SemanticAct,
    Understanding,
)
from turnframe.core.canonical import to_json_value
from turnframe.core.events import EventDraft
from turnframe.core.ids import Actor, CaseRef, JSONObject
from turnframe.runtime.turn import BatchRequest, PreparedTurn
from turnframe.runtime.turn_writes import (
    REPLAY_ONLY,
    plan_json,
    plan_text,
    replay_first,
    stored_plan,
)
from turnframe.store import codec
from turnframe.store.base import CommitRequest, JSONText

texts = st.text(st.characters(codec="utf-8") | st.characters(categories=["Cs"]), max_size=6)
maybe = st.none() | texts
targets = st.builds(
    ProposedTarget,
    handles=st.lists(texts, max_size=2).map(tuple),
    mention=maybe,
    find=maybe,
    new=st.booleans(),
)
acts = st.builds(
    SemanticAct,
    id=texts,
    operation=maybe,
    target=targets,
    args=st.dictionaries(texts, texts, max_size=2),
    evidence=st.dictionaries(texts, texts, max_size=2),
    evidence_source=st.sampled_from(EvidenceSource),
    hypothetical=st.booleans(),
)
understandings = st.builds(
    Understanding,
    acts=st.lists(acts, max_size=3).map(tuple),
    questions=st.lists(
        st.builds(Question, id=texts, topic=texts, target=st.none() | targets, basis=texts),
        max_size=2,
    ).map(tuple),
    constraints=st.lists(
        st.builds(
            Constraint,
            id=texts,
            kind=st.sampled_from(ConstraintKind),
            scope=st.sampled_from(ConstraintScope),
        ),
        max_size=2,
    ).map(tuple),
    card_answers=st.lists(
        st.builds(CardAnswer, id=texts, interaction=texts, option=texts), max_size=2
    ).map(tuple),
    links=st.lists(st.builds(Link, act=texts, corrects=maybe, cancels=maybe), max_size=2).map(
        tuple
    ),
    notices=st.lists(texts, max_size=2).map(tuple),
)

_PREPARED: TypeAdapter[PreparedTurn] = TypeAdapter(PreparedTurn)
ACTOR = Actor(account="acct", user="u")


class _Replays:
    """The one store method :func:`stored_plan` calls, over a stored replay text."""

    def __init__(self, text: str | None) -> None:
        self.text = text
        self.asked: list[tuple[str, str]] = []

    async def load_replay(self, account: str, turn_id: str) -> JSONObject | None:
        self.asked.append((account, turn_id))
        return None if self.text is None else codec.loads(self.text)


def _resume(data: JSONObject, store: _Replays) -> PreparedTurn:
    async def main() -> PreparedTurn:
        return await stored_plan(store, data)  # type: ignore[arg-type]

    return anyio.run(main)


def _prepared(understanding: Understanding, reduced: bool) -> PreparedTurn:
    reduction: dict[str, Any] = (
        {"input": {"understanding": to_json_value(understanding)}, "plan": {}} if reduced else {}
    )
    return PreparedTurn(
        turn_id="t-1",
        conversation_id="c",
        actor=ACTOR,
        today=date(2026, 5, 1),
        locale="en",
        results=(),
        understanding=understanding,
        reduction=reduction,
    )


@settings(max_examples=150, deadline=None)
@given(understanding=understandings, reduced=st.booleans())
def test_a_resumed_plan_reads_back_the_understanding_it_was_planned_from(
    understanding: Understanding, reduced: bool
) -> None:
    prepared = _prepared(understanding, reduced)
    plan_text = codec.dumps_record(plan_json(prepared))
    store = _Replays(codec.dumps_record(replay_first(prepared)))
    data = codec.loads(plan_text)
    assert "understanding" in REPLAY_ONLY and "understanding" not in data  # stored once
    resumed = _resume(data, store)
    assert store.asked == [("acct", "t-1")]
    assert resumed.understanding == understanding
    assert resumed == replace(prepared, reduction={})  # what recovery resumed from before


@settings(max_examples=100, deadline=None)
@given(understanding=understandings)
def test_a_plan_stored_with_its_understanding_reads_as_it_is(
    understanding: Understanding,
) -> None:
    prepared = _prepared(understanding, reduced=False)
    old = _PREPARED.dump_python(prepared, mode="json", exclude={"reduction", "calls", "reading"})
    store = _Replays(None)
    resumed = _resume(codec.loads(codec.dumps_record(old)), store)
    assert resumed.understanding == understanding and store.asked == []


def test_a_plan_whose_replay_record_is_missing_resumes_with_no_understanding() -> None:
    prepared = _prepared(Understanding(notices=("n",)), reduced=True)
    resumed = _resume(plan_json(prepared), _Replays(None))
    assert resumed.understanding == Understanding()


# The plan's text in one pass (``plan_text``) is the two-step text ------------------------
_ANY_TEXT = st.text(alphabet=st.characters(codec=None, categories=None), max_size=6)
_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | _ANY_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_ANY_TEXT, inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(
    state=st.dictionaries(_ANY_TEXT, _VALUES, max_size=4),
    data=st.dictionaries(_ANY_TEXT, _VALUES, max_size=3),
    name=_ANY_TEXT,
)
def test_the_plan_text_is_the_text_of_the_plans_json_value(
    state: dict[str, Any], data: dict[str, Any], name: str
) -> None:
    """Any JSON in a batch (any string, lone surrogates too; big integers; NaN): the same text."""
    request = CommitRequest(
        account="acct",
        case=CaseRef("trip", "t1"),
        expected_revision=1,
        state=state,
        events=(EventDraft(type="trip.renamed", data=data, operation="trip.rename"),),
        idempotency_key="k",
        request_hash="h",
        turn_id="t-1",
        search_text=name,
    )
    prepared = replace(
        _prepared(Understanding(), reduced=False),
        batches=(BatchRequest(request=request, act_ids=("a1",), typed=(state, object())),),
    )
    text = plan_text(prepared)
    assert isinstance(text, JSONText)
    assert text == codec.dumps_record(plan_json(prepared))
