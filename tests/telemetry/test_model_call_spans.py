"""GenAI model-call spans of a scripted provider call (docs/telemetry.md "Model calls")."""

from __future__ import annotations

import json
import warnings

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv.attributes.error_attributes import ERROR_TYPE
from opentelemetry.trace import SpanKind
from telemetry_kit import Recorded

from turnframe.providers.base import ModelResponse, StopReason, Usage
from turnframe.providers.errors import AuthenticationFailed
from turnframe.providers.redact import REDACTED
from turnframe.providers.scripted import ScriptedProvider
from turnframe.tasks.run import TaskModels, TaskRunner
from turnframe.tasks.task import Task
from turnframe.telemetry.otel import CHAT, OpenTelemetry

SCHEMA = {
    "type": "object",
    "properties": {"x": {"type": "string"}},
    "required": ["x"],
    "additionalProperties": False,
}
SECRET = "sk-abcdefghijklmnopqrstuvwx"


def _task(data: dict[str, object] | None = None) -> Task:
    return Task(
        name="segment",
        instructions="Split the message.",
        prompt_id="segment@1",
        data=data or {"message": "hello"},
        schema=SCHEMA,
    )


def _run(recorded: Recorded, provider: ScriptedProvider, task: Task) -> object:
    async def go() -> object:
        runner = TaskRunner(TaskModels(provider))
        with recorded.telemetry.turn("t-9", entry="run"):
            return await runner.run(task)

    return anyio.run(go)


def test_operation_name_is_the_conventions_chat_value() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert gen_ai.GenAiOperationNameValues.CHAT.value == CHAT


def test_a_scripted_call_has_the_genai_attributes(recorded: Recorded) -> None:
    provider = ScriptedProvider(
        {
            "segment": ModelResponse(
                text='{"x": "ok"}',
                usage=Usage(prompt_tokens=12, completion_tokens=3),
                model="scripted:tiny-1",
            )
        },
        model="tiny",
    )
    assert _run(recorded, provider, _task()) == {"x": "ok"}
    spans = {s.name: s for s in recorded.spans()}
    call = spans["chat tiny"]
    task = spans["turnframe.task.segment"]
    turn = spans["turnframe.turn"]
    assert call.parent is not None and call.parent.span_id == task.context.span_id
    assert task.parent is not None and task.parent.span_id == turn.context.span_id
    assert call.kind is SpanKind.CLIENT
    assert dict(call.attributes) == {
        gen_ai.GEN_AI_OPERATION_NAME: "chat",
        gen_ai.GEN_AI_SYSTEM: "scripted",
        gen_ai.GEN_AI_PROVIDER_NAME: "scripted",
        gen_ai.GEN_AI_REQUEST_MODEL: "tiny",
        gen_ai.GEN_AI_RESPONSE_MODEL: "scripted:tiny-1",
        gen_ai.GEN_AI_USAGE_INPUT_TOKENS: 12,
        gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS: 3,
        gen_ai.GEN_AI_RESPONSE_FINISH_REASONS: ("stop",),
        "turnframe.task": "segment",
        "turnframe.task.attempt": "first",
        "turnframe.turn.id": "t-9",
    }
    durations = recorded.metrics()["gen_ai.client.operation.duration"]
    ((labels, point),) = durations
    assert labels[gen_ai.GEN_AI_REQUEST_MODEL] == "tiny"
    assert point.count == 1
    tokens = recorded.metrics()["gen_ai.client.token.usage"]
    assert sorted((a[gen_ai.GEN_AI_TOKEN_TYPE], p.sum) for a, p in tokens) == [
        ("input", 12),
        ("output", 3),
    ]


def test_a_repair_and_a_resend_are_calls_of_their_own(recorded: Recorded) -> None:
    provider = ScriptedProvider({"segment": ["", '{"y": 1}', '{"x": "ok"}']})
    assert _run(recorded, provider, _task()) == {"x": "ok"}
    calls = [s for s in recorded.spans() if s.name.startswith("chat ")]
    assert [
        (
            s.attributes["turnframe.task.attempt"],
            s.attributes[gen_ai.GEN_AI_RESPONSE_FINISH_REASONS],
        )
        for s in calls
    ] == [("first", ("empty",)), ("resend", ("stop",)), ("repair", ("stop",))]


def test_a_failed_call_records_the_error_class_only(recorded: Recorded) -> None:
    failure = AuthenticationFailed(f"bad key {SECRET} for the message 'hello'")
    provider = ScriptedProvider({"segment": failure})
    with pytest.raises(AuthenticationFailed):
        _run(recorded, provider, _task())
    (call,) = [s for s in recorded.spans() if s.name.startswith("chat ")]
    assert call.attributes[ERROR_TYPE] == "turnframe.providers.errors.AuthenticationFailed"
    assert not call.status.is_ok
    assert SECRET not in json.dumps(dict(call.attributes), default=str)


def test_content_is_off_by_default(recorded: Recorded) -> None:
    provider = ScriptedProvider({"segment": '{"x": "ok"}'})
    _run(recorded, provider, _task({"message": "book Lisbon"}))
    for span in recorded.spans():
        assert gen_ai.GEN_AI_INPUT_MESSAGES not in span.attributes
        assert gen_ai.GEN_AI_OUTPUT_MESSAGES not in span.attributes
        assert "Lisbon" not in json.dumps(dict(span.attributes), default=str)


@pytest.mark.parametrize("how", ["option", "env"])
def test_content_when_turned_on_is_redacted(
    recorded: Recorded, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if how == "option":
        recorded.telemetry.capture_content = True
    else:
        from turnframe.telemetry.otel import OpenTelemetry

        monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
        recorded.telemetry = OpenTelemetry(
            tracer_provider=recorded.tracer_provider, meter_provider=recorded.meter_provider
        )
    provider = ScriptedProvider({"segment": json.dumps({"x": f"token {SECRET}"})})
    _run(recorded, provider, _task({"message": f"book Lisbon, my key is {SECRET}"}))
    (call,) = [s for s in recorded.spans() if s.name.startswith("chat ")]
    sent = json.loads(str(call.attributes[gen_ai.GEN_AI_INPUT_MESSAGES]))
    said = json.loads(str(call.attributes[gen_ai.GEN_AI_OUTPUT_MESSAGES]))
    assert [m["role"] for m in sent] == ["system", "user"]
    assert "book Lisbon" in sent[1]["parts"][0]["content"]
    assert SECRET not in call.attributes[gen_ai.GEN_AI_INPUT_MESSAGES]
    assert SECRET not in call.attributes[gen_ai.GEN_AI_OUTPUT_MESSAGES]
    assert REDACTED in sent[1]["parts"][0]["content"]
    assert said[0]["role"] == "assistant" and said[0]["finish_reason"] == "stop"
    assert REDACTED in said[0]["parts"][0]["content"]


def test_a_vendor_adapters_own_secrets_are_redacted(recorded: Recorded) -> None:
    from turnframe.providers.redact import Redactor

    recorded.telemetry.capture_content = True
    provider = ScriptedProvider({"segment": '{"x": "the key is plainsecretvalue"}'})
    provider.redact = Redactor(["plainsecretvalue"])  # type: ignore[attr-defined]
    _run(recorded, provider, _task())
    (call,) = [s for s in recorded.spans() if s.name.startswith("chat ")]
    assert "plainsecretvalue" not in str(call.attributes[gen_ai.GEN_AI_OUTPUT_MESSAGES])
    assert StopReason.COMPLETE  # the answer still passed


@settings(max_examples=40, deadline=None)
@given(
    key=st.text(
        alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        min_size=8,
        max_size=40,
    ),
    words=st.text(min_size=0, max_size=40),
)
def test_captured_content_never_holds_a_credential(key: str, words: str) -> None:
    exporter = InMemorySpanExporter()
    provider_ = TracerProvider()
    provider_.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry = OpenTelemetry(
        tracer_provider=provider_, meter_provider=MeterProvider(), capture_content=True
    )
    secret = f"sk-{key}"
    provider = ScriptedProvider({"segment": json.dumps({"x": f"{words} {secret}"})})

    async def go() -> None:
        with telemetry.turn("t-p", entry="run"):
            await TaskRunner(TaskModels(provider)).run(_task({"message": f"{words} {secret}"}))

    anyio.run(go)
    (call,) = [s for s in exporter.get_finished_spans() if s.name.startswith("chat ")]
    for name in (gen_ai.GEN_AI_INPUT_MESSAGES, gen_ai.GEN_AI_OUTPUT_MESSAGES):
        assert secret not in str(call.attributes[name])
