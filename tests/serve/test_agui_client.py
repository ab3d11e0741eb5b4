"""An AG-UI client's reading of a stream, with the SDK's own models, and its self-tests.

``parse_stream`` splits an SSE body into frames and validates each ``data:`` with the
SDK's discriminated ``Event`` union (so every event must be one the protocol defines);
``check_run`` applies the protocol's ordering rules a client enforces (one run, opened
first and closed last; text messages and tool calls opened, filled and closed in order);
``Conversation`` keeps the messages an AG-UI client would send back on its next run.
The other AG-UI test modules import these helpers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    Event,
    EventType,
    FunctionCall,
    Message,
    RunAgentInput,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)
from ag_ui.encoder import EventEncoder
from pydantic import TypeAdapter

EVENT: TypeAdapter[Any] = TypeAdapter(Event)


def parse_stream(body: str) -> list[BaseEvent]:
    """Return the events of an SSE body, each validated by the SDK's ``Event`` union."""
    assert body.endswith("\n\n"), "an SSE body ends with a blank line"
    events: list[BaseEvent] = []
    for frame in body.split("\n\n")[:-1]:
        lines = frame.split("\n")
        assert all(line.startswith("data: ") for line in lines), frame
        data = "\n".join(line.removeprefix("data: ") for line in lines)
        event = EVENT.validate_json(data)
        assert isinstance(event, BaseEvent)
        events.append(event)
    return events


def check_run(events: list[BaseEvent]) -> None:
    """Assert the protocol's ordering of one run (what a client's verifier refuses)."""
    assert events, "a run has events"
    assert events[0].type == EventType.RUN_STARTED, events[0]
    assert events[-1].type in (EventType.RUN_FINISHED, EventType.RUN_ERROR), events[-1]
    open_messages: set[str] = set()
    open_calls: set[str] = set()
    seen_messages: set[str] = set()
    seen_calls: set[str] = set()
    for event in events[1:-1]:
        kind = event.type
        assert kind not in (EventType.RUN_STARTED, EventType.RUN_FINISHED, EventType.RUN_ERROR)
        mid = getattr(event, "message_id", None)
        call = getattr(event, "tool_call_id", None)
        if kind == EventType.TEXT_MESSAGE_START:
            assert mid not in seen_messages, f"message {mid} opened twice"
            open_messages.add(mid)
            seen_messages.add(mid)
        elif kind == EventType.TEXT_MESSAGE_CONTENT:
            assert mid in open_messages, f"content of a message not open: {mid}"
        elif kind == EventType.TEXT_MESSAGE_END:
            assert mid in open_messages
            open_messages.discard(mid)
        elif kind == EventType.TOOL_CALL_START:
            assert call not in seen_calls, f"call {call} opened twice"
            open_calls.add(call)
            seen_calls.add(call)
        elif kind == EventType.TOOL_CALL_ARGS:
            assert call in open_calls
        elif kind == EventType.TOOL_CALL_END:
            assert call in open_calls
            open_calls.discard(call)
    assert not open_messages and not open_calls, "everything opened is closed before the end"


def encode(events: list[BaseEvent]) -> str:
    """Encode events as the SDK's encoder does (for the checker's own tests)."""
    encoder = EventEncoder()
    return "".join(encoder.encode(e) for e in events)


@dataclass
class Card:
    """A card as the client holds it: the call that drew it and its arguments."""

    call_id: str
    arguments: dict[str, Any]

    def option(self, label: str) -> str:
        """Return the id of the option labelled ``label``."""
        return next(o["id"] for o in self.arguments["options"] if o["label"] == label)


@dataclass
class Reply:
    """What one run said: its events, text messages and cards."""

    events: list[BaseEvent]
    texts: dict[str, str] = field(default_factory=dict)
    blocks: dict[str, dict[str, Any]] = field(default_factory=dict)
    cards: list[Card] = field(default_factory=list)

    @property
    def last(self) -> BaseEvent:
        """The run's closing event."""
        return self.events[-1]


def read_reply(events: list[BaseEvent]) -> Reply:
    """Collect a run's text messages (with their blocks) and card calls."""
    check_run(events)
    reply = Reply(events=events)
    args: dict[str, str] = {}
    for event in events:
        if isinstance(event, TextMessageStartEvent):
            reply.texts[event.message_id] = ""
            assert event.metadata is not None
            reply.blocks[event.message_id] = event.metadata["turnframe"]["block"]
        elif isinstance(event, TextMessageContentEvent):
            reply.texts[event.message_id] += event.delta
        elif isinstance(event, ToolCallStartEvent):
            assert event.tool_call_name == "turnframe_card"
            args[event.tool_call_id] = ""
        elif isinstance(event, ToolCallArgsEvent):
            args[event.tool_call_id] += event.delta
    reply.cards = [Card(call_id=c, arguments=json.loads(a)) for c, a in args.items()]
    return reply


@dataclass
class Conversation:
    """The messages an AG-UI client keeps for a thread and sends with every run."""

    thread_id: str
    messages: list[Any] = field(default_factory=list)
    runs: int = 0

    def say(self, text: str) -> RunAgentInput:
        """Add a user message and return the next run's input."""
        self.messages.append(UserMessage(id=f"u{len(self.messages)}", content=text))
        return self.next_run()

    def click(self, card: Card, label: str, **overrides: Any) -> RunAgentInput:
        """Answer ``card`` with the option labelled ``label`` and return the next run's input."""
        answer = {
            "interaction_id": card.arguments["interaction_id"],
            "option_id": card.option(label),
            "expected_revision": card.arguments["expected_revision"],
        } | overrides
        self.messages.append(
            ToolMessage(
                id=f"t{len(self.messages)}", tool_call_id=card.call_id, content=json.dumps(answer)
            )
        )
        return self.next_run()

    def next_run(self) -> RunAgentInput:
        """Return the input of the thread's next run (a fresh ``runId``)."""
        self.runs += 1
        return RunAgentInput(
            thread_id=self.thread_id,
            run_id=f"{self.thread_id}-r{self.runs}",
            messages=list(self.messages),
        )

    def heard(self, reply: Reply) -> None:
        """Keep the run's assistant messages, the cards' calls on their messages."""
        calls = {c.call_id: c for c in reply.cards}
        parents: dict[str, list[ToolCall]] = {}
        for event in reply.events:
            if isinstance(event, ToolCallStartEvent) and event.parent_message_id:
                card = calls[event.tool_call_id]
                parents.setdefault(event.parent_message_id, []).append(
                    ToolCall(
                        id=card.call_id,
                        function=FunctionCall(
                            name="turnframe_card", arguments=json.dumps(card.arguments)
                        ),
                    )
                )
        for mid, text in reply.texts.items():
            self.messages.append(
                AssistantMessage(id=mid, content=text, tool_calls=parents.get(mid))
            )


def body(run: RunAgentInput) -> bytes:
    """Return a run's input as the JSON a client posts (camelCase)."""
    return run.model_dump_json(by_alias=True).encode()


MESSAGE: TypeAdapter[Any] = TypeAdapter(Message)


# --- the helpers' own tests: the checker refuses what a client would ------------------


def test_parse_stream_refuses_an_event_the_protocol_does_not_define() -> None:
    with pytest.raises(ValueError):
        parse_stream('data: {"type":"NOT_AN_EVENT"}\n\n')


def test_check_run_refuses_a_run_that_does_not_start_with_run_started() -> None:
    from ag_ui.core import RunFinishedEvent, TextMessageEndEvent

    with pytest.raises(AssertionError):
        check_run([TextMessageStartEvent(message_id="m"), TextMessageEndEvent(message_id="m")])
    with pytest.raises(AssertionError):
        check_run([RunFinishedEvent(thread_id="t", run_id="r")])


def test_check_run_refuses_an_unclosed_message_and_content_outside_one() -> None:
    from ag_ui.core import RunFinishedEvent, RunStartedEvent

    start = RunStartedEvent(thread_id="t", run_id="r")
    end = RunFinishedEvent(thread_id="t", run_id="r")
    with pytest.raises(AssertionError):
        check_run([start, TextMessageStartEvent(message_id="m"), end])
    with pytest.raises(AssertionError):
        check_run([start, TextMessageContentEvent(message_id="m", delta="x"), end])
    check_run(parse_stream(encode([start, end])))


def test_a_conversation_round_trips_through_the_sdk_message_models() -> None:
    conv = Conversation(thread_id="th")
    run = conv.say("hello")
    again = RunAgentInput.model_validate_json(body(run))
    assert again.messages == run.messages
    assert all(MESSAGE.validate_python(m.model_dump()) == m for m in run.messages)
