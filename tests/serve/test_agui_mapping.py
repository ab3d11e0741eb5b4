"""The AG-UI mapping, over a fake live turn and a fake turn service (docs/agui.md).

The endpoint runs in a small Starlette app whose ``state.turnframe`` holds a fake
service that keeps the behaviour the real one promises (the same key and body: the same
turn; a card that is not the actor's: ``not_found`` and nothing runs; a click commits
one event). Every response is parsed back with the SDK's own models.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import pytest
from ag_ui.core import (
    AssistantMessage,
    CustomEvent,
    EventType,
    ImagePart,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextPart,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from hypothesis import given
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route
from starlette.testclient import TestClient
from test_agui_client import Conversation, body, check_run, parse_stream, read_reply

from turnframe.core.events import Receipt
from turnframe.core.ids import Actor, CaseRef
from turnframe.core.reply import (
    AnswerBlock,
    InteractionBlock,
    NoticeBlock,
    OptionView,
    ReceiptBlock,
    ReplyBlock,
)
from turnframe.core.turn import TurnBlocks, TurnFinished, TurnPhase, TurnPhaseChanged, TurnStep
from turnframe.serve.agui import MIN_BODY_BYTES, acceptable, agui_endpoint
from turnframe.serve.agui_events import CARD_TOOL
from turnframe.serve.agui_input import CardAnswer, turn_request
from turnframe.serve.errors import ProblemError, not_found, problem
from turnframe.serve.http import CsrfTokens
from turnframe.serve.models import ClickBody, Problem, TurnRequestBody, TurnView
from turnframe.serve.state import ServeConfig, ServeState, StreamEvent

ACTOR = Actor(account="acme", user="maria")
LISBON = [CaseRef("trip", "T1"), CaseRef("trip", "T2")]


@dataclass
class FakeLive:
    """A live turn replaying fixed events, then a fixed result (or a problem)."""

    turn_id: str
    conversation_id: str
    stream: list[StreamEvent]
    view: TurnView | None
    failure: Problem | None = None

    async def events(self, after: int = 0) -> AsyncIterator[StreamEvent]:
        for item in self.stream:
            if item.seq > after:
                yield item

    async def result(self) -> TurnView:
        if self.view is None:
            assert self.failure is not None
            raise ProblemError(self.failure)
        return self.view


def live_of(turn_id: str, conversation: str, blocks: list[ReplyBlock]) -> FakeLive:
    """A replied turn: two phases, a step, the blocks, finished."""
    events = [
        TurnPhaseChanged(turn_id=turn_id, phase=TurnPhase.RECEIVED),
        TurnStep(turn_id=turn_id, name="segment", detail="u1", text="Reading 1 part"),
        TurnPhaseChanged(turn_id=turn_id, phase=TurnPhase.COMMITTED),
        TurnBlocks(turn_id=turn_id, blocks=tuple(blocks)),
        TurnFinished(turn_id=turn_id),
    ]
    view = TurnView(
        turn_id=turn_id,
        conversation_id=conversation,
        blocks=blocks,
        inspect=f"/v1/turns/{turn_id}/inspection",
    )
    return FakeLive(
        turn_id=turn_id,
        conversation_id=conversation,
        stream=[StreamEvent(seq=n, event=e) for n, e in enumerate(events, 1)],
        view=view,
    )


@dataclass
class FakeService:
    """Cancels a Lisbon trip: text draws a selection card, a click on it commits an event."""

    started: list[tuple[Actor, str, TurnRequestBody, str | None]] = field(default_factory=list)
    committed: list[str] = field(default_factory=list)
    cards: dict[str, tuple[str, InteractionBlock]] = field(default_factory=dict)  # id → account
    keys: dict[tuple[str, str], tuple[TurnRequestBody, FakeLive]] = field(default_factory=dict)

    async def start_turn(
        self,
        actor: Actor,
        conversation_id: str,
        body: TurnRequestBody,
        *,
        idempotency_key: str | None,
    ) -> FakeLive:
        self.started.append((actor, conversation_id, body, idempotency_key))
        if idempotency_key is not None and (actor.account, idempotency_key) in self.keys:
            seen, live = self.keys[(actor.account, idempotency_key)]
            if seen != body:
                raise problem(
                    409, "idempotency_key_reused", "Key reused", "Another body used this key."
                )
            return live
        turn_id = f"turn{len(self.started)}"
        blocks: list[ReplyBlock]
        if body.click is not None:
            owner_card = self.cards.get(body.click.interaction_id)
            if owner_card is None or owner_card[0] != actor.account:
                raise not_found()
            case = LISBON[[o.id for o in owner_card[1].options].index(body.click.option_id)]
            event_id = f"ev{len(self.committed) + 1}"
            self.committed.append(event_id)
            receipt = Receipt(
                case=case,
                operation="trip.cancel",
                text="Cancelled the Lisbon trip.",
                event_ids=(event_id,),
            )
            blocks = [ReceiptBlock(receipt=receipt)]
        elif body.text and "lisbon" in body.text.lower():
            card = InteractionBlock(
                interaction_id=f"card-{turn_id}",
                interaction_kind="select_target",
                prompt="Which Lisbon trip?",
                options=(
                    OptionView(id="o1", label="Lisbon, May"),
                    OptionView(id="o2", label="Lisbon, June"),
                ),
                expected_revision=None,
            )
            self.cards[card.interaction_id] = (actor.account, card)
            blocks = [
                AnswerBlock(question_id="q", topic="trips", text="You have two Lisbon trips."),
                card,
            ]
        else:
            blocks = [NoticeBlock(code="unreadable_message", text="I could not read that.")]
        live = live_of(turn_id, conversation_id, blocks)
        if idempotency_key is not None:
            self.keys[(actor.account, idempotency_key)] = (body, live)
        return live


async def _dev_actor(request: Request) -> Actor:
    if request.headers.get("x-who") == "nobody":
        raise problem(401, "not_authenticated", "Not authenticated", "Sign in first.")
    return Actor(account=request.headers.get("x-account", ACTOR.account), user="maria")


def make_client(service: FakeService, config: ServeConfig | None = None) -> TestClient:
    app = Starlette(routes=[Route("/v1/agui", agui_endpoint, methods=["POST"])])
    app.state.turnframe = ServeState(
        service=service, authenticate=_dev_actor, config=config or ServeConfig()
    )  # type: ignore[arg-type]
    app.state.turnframe_csrf = CsrfTokens(b"a test secret of 32 bytes......")
    return TestClient(app)


def post(client: TestClient, run: RunAgentInput, **headers: str) -> tuple[int, str, list[Any]]:
    response = client.post(
        "/v1/agui",
        content=body(run),
        headers={"content-type": "application/json", "accept": "text/event-stream"} | headers,
    )
    if response.headers["content-type"].startswith("text/event-stream"):
        return response.status_code, response.text, parse_stream(response.text)
    return response.status_code, response.text, []


# --- a conversation as an AG-UI client runs it -------------------------------------------


def test_a_text_run_draws_a_card_and_a_structured_click_commits_it() -> None:
    service = FakeService()
    client = make_client(service)
    conv = Conversation(thread_id="th1")
    status, _, events = post(client, conv.say("Cancel the Lisbon trip"))
    assert status == 200
    first = read_reply(events)
    assert [type(e).__name__ for e in events[:5]] == [
        "RunStartedEvent", "CustomEvent", "StepStartedEvent", "StepFinishedEvent", "CustomEvent",
    ]  # fmt: skip
    assert isinstance(events[0], RunStartedEvent) and events[0].protocol_version == "1.0"
    assert events[0].thread_id == "th1" and events[0].run_id == "th1-r1"
    assert list(first.texts.values()) == ["You have two Lisbon trips.", "Which Lisbon trip?"]
    (card,) = first.cards
    assert card.arguments == {
        "interaction_id": "card-turn1",
        "kind": "select_target",
        "prompt": "Which Lisbon trip?",
        "options": [{"id": "o1", "label": "Lisbon, May"}, {"id": "o2", "label": "Lisbon, June"}],
        "expected_revision": None,
    }
    finished = first.last
    assert isinstance(finished, RunFinishedEvent)
    assert finished.outcome is not None and finished.outcome.type == "success"
    assert finished.outcome.pending_tool_call_ids == [card.call_id]
    assert finished.result["turn_id"] == "turn1" and len(finished.result["blocks"]) == 2
    assert service.committed == []

    conv.heard(first)
    status, _, events = post(client, conv.click(card, "Lisbon, June"))
    second = read_reply(events)
    actor, conversation, turn, key = service.started[-1]
    assert (actor, conversation, key) == (ACTOR, "th1", "th1-r2")
    assert turn == TurnRequestBody(click=ClickBody(interaction_id="card-turn1", option_id="o2"))
    assert list(second.texts.values()) == ["Cancelled the Lisbon trip."]
    (block,) = second.blocks.values()
    assert block["kind"] == "receipt" and block["receipt"]["event_ids"] == ["ev1"]
    assert service.committed == ["ev1"]
    assert isinstance(second.last, RunFinishedEvent) and second.last.outcome is not None
    assert second.last.outcome.pending_tool_call_ids is None


def test_a_retried_run_is_the_same_turn_and_streams_the_same_bytes() -> None:
    service = FakeService()
    client = make_client(service)
    conv = Conversation(thread_id="th2")
    _, _, events = post(client, conv.say("Cancel the Lisbon trip"))
    conv.heard(first := read_reply(events))
    run = conv.click(first.cards[0], "Lisbon, May")
    _, once, _ = post(client, run)
    _, twice, _ = post(client, run)
    assert once == twice
    assert service.committed == ["ev1"]  # no second effect
    other = run.model_copy(
        update={"messages": [*run.messages[:-1], UserMessage(id="x", content="hi")]}
    )
    status, _, events = post(client, other)
    assert status == 200 and isinstance(events[-1], RunErrorEvent)
    assert events[-1].code == "idempotency_key_reused"
    check_run(events)


def test_a_foreign_or_unknown_card_is_one_run_error_and_nothing_is_committed() -> None:
    service = FakeService()
    client = make_client(service)
    conv = Conversation(thread_id="th3")
    _, _, events = post(client, conv.say("Cancel the Lisbon trip"), **{"x-account": "other"})
    card = read_reply(events).cards[0]  # another account's card
    status, foreign, events = post(client, conv.click(card, "Lisbon, May"))
    assert status == 200
    assert [e.type for e in events] == [EventType.RUN_STARTED, EventType.RUN_ERROR]
    error = events[-1]
    assert isinstance(error, RunErrorEvent) and error.code == "not_found"
    assert error.metadata == {"turnframe": {"problem": not_found().problem.model_dump()}}
    _, unknown, _ = post(client, conv.click(card, "Lisbon, May", interaction_id="no-such-card"))
    assert foreign.split("\n\n")[1] == unknown.split("\n\n")[1]  # the RUN_ERROR, byte for byte
    assert service.committed == []


def test_typing_an_options_label_is_text_never_a_click() -> None:
    service = FakeService()
    client = make_client(service)
    conv = Conversation(thread_id="th4")
    _, _, events = post(client, conv.say("Cancel the Lisbon trip"))
    conv.heard(read_reply(events))
    _, _, events = post(client, conv.say("Lisbon, June"))
    assert service.started[-1][2] == TurnRequestBody(text="Lisbon, June")
    assert service.committed == []
    assert isinstance(events[-1], RunFinishedEvent)


# --- what the endpoint refuses before any turn ---------------------------------------------


JSON = "application/json"
HI = '"messages": [{"id": "u", "role": "user", "content": "hi"}]'


@pytest.mark.parametrize(
    ("payload", "content_type", "status", "code"),
    [
        (b"{not json", JSON, 422, "invalid_request"),
        (b'{"threadId": "t", "runId": "r"}', JSON, 422, "invalid_request"),
        (b'{"threadId": "", "runId": "r", ' + HI.encode() + b"}", JSON, 422, "invalid_request"),
        (b'{"threadId": "t", "runId": "r\\n", ' + HI.encode() + b"}", JSON, 422, "invalid_request"),
        (b'{"threadId": "t", "runId": "r", "messages": []}', JSON, 422, "invalid_request"),
        (b'{"threadId": "t", "runId": "r", "messages": [{"id": "u", "role": "robot", "content": "x"}]}', JSON, 422, "invalid_request"),
        (b"\xff\xfe", JSON, 400, "message_not_utf8"),
        (b'{"threadId": "t", "runId": "r", ' + HI.encode() + b"}", "text/plain", 415, "unsupported_media_type"),
    ],
)  # fmt: skip
def test_a_malformed_run_is_a_problem_and_starts_nothing(
    payload: bytes, content_type: str, status: int, code: str
) -> None:
    service = FakeService()
    response = make_client(service).post(
        "/v1/agui", content=payload, headers={"content-type": content_type}
    )
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == code
    assert service.started == []


def test_who_acts_comes_from_the_authenticator_only() -> None:
    service = FakeService()
    client = make_client(service)
    run = Conversation(thread_id="t").say("hello")
    raw = json.loads(body(run)) | {"forwardedProps": {"account": "other", "user": "eve"}}
    client.post("/v1/agui", content=json.dumps(raw), headers={"content-type": "application/json"})
    assert service.started[-1][0] == ACTOR
    status, text, _ = post(client, run, **{"x-who": "nobody"})
    assert status == 401 and json.loads(text)["code"] == "not_authenticated"
    assert len(service.started) == 1


def test_the_body_and_the_message_are_size_limited() -> None:
    service = FakeService()
    client = make_client(service, ServeConfig(max_message_bytes=10, max_body_bytes=2000))
    status, text, _ = post(client, Conversation(thread_id="t").say("é" * 6))
    assert status == 413 and json.loads(text)["code"] == "message_too_large"
    status, text, _ = post(client, Conversation(thread_id="t").say("x" * (MIN_BODY_BYTES + 1)))
    assert status == 413 and json.loads(text)["code"] == "body_too_large"
    assert service.started == []
    # a long conversation (the whole history, every run) stays under the AG-UI floor
    conv = Conversation(thread_id="long")
    for n in range(300):
        conv.say(f"message {n} " + "x" * 200)
    assert 2000 < len(body(conv.next_run())) < MIN_BODY_BYTES
    status, _, events = post(client, conv.say("hi"))
    assert status == 200 and isinstance(events[-1], RunFinishedEvent)


def test_an_accept_header_without_event_stream_is_refused() -> None:
    service = FakeService()
    status, text, _ = post(
        make_client(service), Conversation(thread_id="t").say("hi"), accept="application/json"
    )
    assert status == 406 and json.loads(text)["code"] == "not_acceptable"
    assert acceptable("text/*;q=0.5, application/json", "text/event-stream")
    assert acceptable(None, "text/event-stream") and acceptable("*/*", "text/event-stream")
    assert not acceptable("text/event-stream;q=0", "text/event-stream")
    assert not acceptable("application/vnd.ag-ui.event+proto", "text/event-stream")


# --- the input mapping ------------------------------------------------------------------------


def _run(*messages: Any, props: Any = None) -> RunAgentInput:
    return RunAgentInput(thread_id="t", run_id="r", messages=list(messages), forwarded_props=props)


def _answer(call: str = "c1", **fields: Any) -> ToolMessage:
    data = {"interaction_id": "i1", "option_id": "o1", "expected_revision": 4} | fields
    return ToolMessage(id=f"tm-{call}", tool_call_id=call, content=json.dumps(data))


def test_only_the_last_message_is_read() -> None:
    run = _run(
        UserMessage(id="1", content="old"),
        AssistantMessage(id="2", content="reply"),
        UserMessage(id="3", content="lost in a failed run"),
        UserMessage(id="4", content=[TextPart(text="new"), TextPart(text="words")]),
        props={"locale": "pt-PT", "copilotkit": {"x": 1}},
    )
    assert turn_request(run, max_message_bytes=100) == TurnRequestBody(
        text="new\nwords", locale="pt-PT"
    )
    # a text before the click (its run ended without a reply) is not read again
    run = _run(UserMessage(id="1", content="add a seat"), _answer())
    assert turn_request(run, max_message_bytes=100) == TurnRequestBody(
        click=ClickBody(interaction_id="i1", option_id="o1", expected_revision=4)
    )
    # nor a refused click before the text: it would refuse every later run
    run = _run(_answer(interaction_id="not-mine"), UserMessage(id="2", content="hello"))
    assert turn_request(run, max_message_bytes=100) == TurnRequestBody(text="hello")
    turn = turn_request(_run(_answer("c1"), _answer("c2", option_id="o2")), max_message_bytes=100)
    assert turn.click is not None and turn.click.option_id == "o2"


@pytest.mark.parametrize(
    "messages",
    [
        [],
        [AssistantMessage(id="a", content="hi")],
        [UserMessage(id="u", content="  \n ")],
        [_answer(), ToolMessage(id="d", tool_call_id="c2", content="", error="dismissed")],
        [
            UserMessage(
                id="u", content=[ImagePart(source=UrlSource(value="http://127.0.0.1/x.png"))]
            )
        ],
    ],
)
def test_a_run_with_nothing_to_read_is_refused(messages: list[Any]) -> None:
    with pytest.raises(ProblemError) as caught:
        turn_request(_run(*messages), max_message_bytes=100)
    assert caught.value.problem.code == "invalid_request"


@pytest.mark.parametrize(
    "message",
    [
        ToolMessage(id="x", tool_call_id="c", content="Lisbon, June"),
        ToolMessage(id="x", tool_call_id="c", content='{"interaction_id": "i1", "option_id": "o1"}'),
        ToolMessage(id="x", tool_call_id="c", content='{"interaction_id": "i1", "option_id": "o1", "expected_revision": "4"}'),
        ToolMessage(id="x", tool_call_id="c", content='{"interaction_id": "i1", "option_id": "o1", "expected_revision": 1, "action": "delete"}'),
        ToolMessage(id="x", tool_call_id="c", content="[1]"),
    ],
)  # fmt: skip
def test_a_tool_message_that_is_not_a_card_answer_is_refused(message: ToolMessage) -> None:
    with pytest.raises(ProblemError) as caught:
        turn_request(_run(message), max_message_bytes=100)
    assert caught.value.problem.code == "invalid_request"


@given(st.text(max_size=40), st.one_of(st.none(), st.text(max_size=10)))
def test_no_text_is_ever_read_as_a_click(text: str, locale: Any) -> None:
    """Whatever a user types, including an answer's JSON, the turn has no click."""
    for words in (
        text,
        json.dumps({"interaction_id": "i1", "option_id": text, "expected_revision": 1}),
    ):
        try:
            turn = turn_request(
                _run(UserMessage(id="u", content=words), props={"locale": locale}),
                max_message_bytes=1000,
            )
        except ProblemError as exc:
            assert exc.problem.code == "invalid_request"
            continue
        assert turn.click is None
        assert turn.text == (words if words.strip() else None)


def test_the_card_answer_model_is_the_click() -> None:
    answer = CardAnswer.model_validate(
        {"interaction_id": "i", "option_id": "o", "expected_revision": None, "value": "3"}
    )
    assert answer.click() == ClickBody(interaction_id="i", option_id="o", value="3")


# --- the output mapping -----------------------------------------------------------------------


def _events(live: FakeLive) -> list[Any]:
    import anyio

    from turnframe.serve.agui_events import run_events

    async def collect() -> list[Any]:
        return [e async for e in run_events(live, thread_id="t", run_id="r")]

    return anyio.run(collect)


def test_steps_are_started_and_finished_pairs_and_phases_are_custom_events() -> None:
    events = _events(live_of("tu", "t", [NoticeBlock(code="n", text="Nothing to do.")]))
    check_run(events)
    steps = [e for e in events if isinstance(e, StepStartedEvent | StepFinishedEvent)]
    assert [(e.type, e.step_name) for e in steps] == [
        (EventType.STEP_STARTED, "segment"), (EventType.STEP_FINISHED, "segment"),
    ]  # fmt: skip
    assert steps[0].metadata == {
        "turnframe": {"turn_id": "tu", "detail": "u1", "text": "Reading 1 part"}
    }
    phases = [e.value for e in events if isinstance(e, CustomEvent)]
    assert phases == [
        {"turn_id": "tu", "phase": "received"},
        {"turn_id": "tu", "phase": "committed"},
    ]
    assert all(e.name == "turnframe.phase" for e in events if isinstance(e, CustomEvent))


def test_blocks_come_only_after_commit_in_order_one_message_each() -> None:
    blocks: list[ReplyBlock] = [
        ReceiptBlock(
            receipt=Receipt(
                case=LISBON[0], operation="trip.rename", text="Renamed.", event_ids=("e1",)
            )
        ),
        NoticeBlock(code="c", text="Note."),
        AnswerBlock(question_id="q", topic="t", text="Answer."),
    ]
    events = _events(live_of("tu", "t", blocks))
    reply = read_reply(events)
    assert list(reply.texts) == ["tu.0", "tu.1", "tu.2"]
    assert list(reply.texts.values()) == ["Renamed.", "Note.", "Answer."]
    assert [b["kind"] for b in reply.blocks.values()] == ["receipt", "notice", "answer"]
    committed = next(
        i
        for i, e in enumerate(events)
        if isinstance(e, CustomEvent) and e.value["phase"] == "committed"
    )
    first_text = next(i for i, e in enumerate(events) if e.type == EventType.TEXT_MESSAGE_START)
    assert committed < first_text


def test_a_failed_turn_ends_with_run_error_carrying_its_code() -> None:
    live = live_of("tu", "t", [])
    live.stream = [
        *live.stream[:2],
        StreamEvent(
            seq=3, event=Problem(title="x", status=503, code="turn_interrupted", detail="d")
        ),
    ]
    events = _events(live)
    check_run(events)
    assert isinstance(events[-1], RunErrorEvent) and events[-1].code == "turn_interrupted"
    assert not any(e.type == EventType.TEXT_MESSAGE_START for e in events)
    live = live_of("tu", "t", [])
    live.view, live.failure = (
        None,
        Problem(title="x", status=503, code="store_unavailable", detail="d"),
    )
    events = _events(live)
    assert isinstance(events[-1], RunErrorEvent) and events[-1].code == "store_unavailable"


_words = st.text(max_size=30)
_ids = st.text(min_size=1, max_size=12)
_block = st.one_of(
    st.builds(AnswerBlock, question_id=_ids, topic=_ids, text=_words),
    st.builds(NoticeBlock, code=_ids, text=_words),
    st.builds(
        ReceiptBlock,
        receipt=st.builds(
            Receipt,
            case=st.builds(CaseRef, _ids, _ids),
            operation=_ids,
            text=_words,
            event_ids=st.tuples(_ids),
        ),
    ),
    st.builds(
        InteractionBlock,
        interaction_id=_ids,
        interaction_kind=st.sampled_from(["select_target", "confirm", "review", "choice"]),
        prompt=_words,
        options=st.lists(st.builds(OptionView, id=_ids, label=_words), min_size=1, max_size=3).map(
            tuple
        ),
        expected_revision=st.one_of(st.none(), st.integers(0, 2**31)),
    ),
)


@given(st.lists(_block, max_size=5))
def test_any_reply_is_a_valid_run_whose_messages_and_cards_are_its_blocks(
    blocks: list[ReplyBlock],
) -> None:
    """Whatever the blocks' words (newlines, quotes, any Unicode), the SSE frames parse back
    to the same events, every message carries its block's text, every card its arguments."""
    from test_agui_client import encode

    events = _events(live_of("tu", "t", blocks))
    wire = encode(events)
    assert "\r" not in wire
    assert parse_stream(wire) == events
    reply = read_reply(events)
    assert list(reply.texts.values()) == [b.text for b in blocks]
    cards = [b for b in blocks if isinstance(b, InteractionBlock)]
    assert [c.arguments["interaction_id"] for c in reply.cards] == [c.interaction_id for c in cards]
    assert [[o["label"] for o in c.arguments["options"]] for c in reply.cards] == [
        [o.label for o in c.options] for c in cards
    ]
    for card in reply.cards:
        jsonschema.validate(card.arguments, CARD_TOOL.parameters)
    finished = reply.last
    assert isinstance(finished, RunFinishedEvent) and finished.outcome is not None
    assert finished.outcome.pending_tool_call_ids == ([c.call_id for c in reply.cards] or None)
