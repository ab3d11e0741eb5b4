"""Telemetry on the official OpenTelemetry SDK (extra ``otel``; docs/telemetry.md).

The only module of Turnframe that imports ``opentelemetry`` (an import-linter contract
keeps it so). :class:`OpenTelemetry` records spans through a tracer and metrics through a
meter of the providers it is given (default: the API's global providers, which stay
no-op until an application installs an SDK provider). :func:`from_otel_environment`
builds SDK providers from the standard ``OTEL_*`` variables, with the SDK's own
variable names, resource detection and exporter entry points.

Span and attribute names of model calls are the GenAI semantic conventions' constants
from ``opentelemetry-semantic-conventions`` (imported, not retyped).
"""

from __future__ import annotations

import io
import json
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from contextvars import ContextVar, Token
from importlib.metadata import entry_points
from types import TracebackType
from typing import Any, Literal, TypeVar

from opentelemetry import context, metrics, trace
from opentelemetry.environment_variables import OTEL_METRICS_EXPORTER, OTEL_TRACES_EXPORTER
from opentelemetry.sdk.environment_variables import (
    OTEL_EXPORTER_OTLP_METRICS_PROTOCOL,
    OTEL_EXPORTER_OTLP_PROTOCOL,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
    OTEL_SDK_DISABLED,
)
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    ConsoleMetricExporter,
    MetricReader,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv._incubating.metrics import gen_ai_metrics
from opentelemetry.semconv.attributes.error_attributes import ERROR_TYPE
from opentelemetry.trace import SpanKind, Status, StatusCode

from turnframe.core.errors import UsageError
from turnframe.telemetry.base import (
    _NOTHING,
    NO_TELEMETRY,
    AttributeValue,
    ModelCall,
    Span,
    Telemetry,
    reset_current,
    set_current,
)

__all__ = [
    "CAPTURE_CONTENT_ENV",
    "CHAT",
    "PROVIDER_NAMES",
    "SHUTDOWN_SECONDS",
    "OpenTelemetry",
    "check_otel_environment",
    "error_type",
    "from_otel_environment",
]

CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The standard switch of GenAI instrumentations for message content (``true`` turns it on)."""

CHAT = "chat"
"""``gen_ai.operation.name`` of every model call (``GenAiOperationNameValues.CHAT``)."""

SHUTDOWN_SECONDS = 3.0
"""How long :meth:`OpenTelemetry.shutdown` waits for the exporters to flush, at most."""

_ABORT_SECONDS = 1.0
"""How long shutdown waits for the export threads once their exporters are shut down."""

SCOPE = "turnframe"
"""The instrumentation scope of every tracer and meter."""

PROVIDER_NAMES: dict[str, str] = {
    "gemini": gen_ai.GenAiProviderNameValues.GCP_GEMINI.value,
    "bedrock": gen_ai.GenAiProviderNameValues.AWS_BEDROCK.value,
    "azure-openai": gen_ai.GenAiProviderNameValues.AZURE_AI_OPENAI.value,
}
"""``gen_ai.provider.name`` of the adapters whose Turnframe name differs from the GenAI
conventions' well-known value (``openai`` and ``anthropic`` are the same; a provider
with no well-known value, ``scripted`` or ``ollama``, keeps its own name)."""

_TURN_ID = "turnframe.turn.id"
_STEP_NAMES: dict[str, str] = {}
_TRUE = ("true", "1", "yes", "on")
_T = TypeVar("_T")
_TURN: ContextVar[_Scope | None] = ContextVar("turnframe_turn_span", default=None)


def _no_global_provider() -> bool:
    """Whether the API's global tracer provider is still its proxy (none installed yet)."""
    return isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in _TRUE


def error_type(exc_type: type[BaseException]) -> str:
    """Return ``error.type`` for an exception class: its qualified name (builtins bare)."""
    if exc_type.__module__ == "builtins":
        return exc_type.__qualname__
    return f"{exc_type.__module__}.{exc_type.__qualname__}"


class _Handle(ModelCall):
    """A live SDK span behind the :class:`~turnframe.telemetry.base.Span` interface."""

    __slots__ = ("_span", "capture_content", "error", "model", "tokens")

    def __init__(self, span: trace.Span, capture_content: bool = False) -> None:
        self._span = span
        self.capture_content = capture_content
        self.error: str | None = None
        self.model = ""
        self.tokens: tuple[int, int] | None = None

    def set(self, key: str, value: AttributeValue) -> None:
        self._span.set_attribute(key, value)

    def set_many(self, attributes: Mapping[str, AttributeValue]) -> None:
        self._span.set_attributes(attributes)

    def response(
        self, *, model: str, input_tokens: int, output_tokens: int, finish_reason: str
    ) -> None:
        self.model = model
        self._span.set_attributes(
            {
                gen_ai.GEN_AI_RESPONSE_MODEL: model,
                gen_ai.GEN_AI_USAGE_INPUT_TOKENS: input_tokens,
                gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS: output_tokens,
                gen_ai.GEN_AI_RESPONSE_FINISH_REASONS: (finish_reason,),
            }
        )
        self.tokens = (input_tokens, output_tokens)

    def failed(self, error_type: str) -> None:
        self.error = error_type
        self._span.set_attribute(ERROR_TYPE, error_type)
        self._span.set_status(Status(StatusCode.ERROR))

    def content(
        self, messages: Sequence[tuple[str, str]], output: str | None, finish_reason: str
    ) -> None:
        if not self.capture_content:
            return
        shown = [{"role": r, "parts": [{"type": "text", "content": t}]} for r, t in messages]
        self._span.set_attribute(gen_ai.GEN_AI_INPUT_MESSAGES, json.dumps(shown))
        if output is not None:
            said = {
                "role": "assistant",
                "parts": [{"type": "text", "content": output}],
                "finish_reason": finish_reason,
            }
            self._span.set_attribute(gen_ai.GEN_AI_OUTPUT_MESSAGES, json.dumps([said]))


class _Scope(AbstractContextManager[Any]):
    """Starts a span as the current one on enter; ends it (and records errors) on exit.

    Only the exception's class name is kept (``error.type``): an exception's message
    may quote user text, so it is never recorded (docs/telemetry.md "What is never recorded").
    """

    __slots__ = ("_attrs", "_done", "_handle", "_kind", "_name", "_started", "_tel", "_token")

    def __init__(
        self,
        tel: OpenTelemetry,
        name: str,
        attrs: dict[str, AttributeValue],
        kind: SpanKind = SpanKind.INTERNAL,
        done: Callable[[_Scope, float, str | None], None] | None = None,
    ) -> None:
        self._tel, self._name, self._attrs, self._kind, self._done = tel, name, attrs, kind, done
        self._token: object = None
        self._started = 0.0

    def __enter__(self) -> _Handle:
        turn = _TURN.get()
        if turn is not None and _TURN_ID not in self._attrs:
            self._attrs[_TURN_ID] = turn._attrs[_TURN_ID]
        span = self._tel.tracer.start_span(self._name, kind=self._kind, attributes=self._attrs)
        self._handle = _Handle(span, self._tel.capture_content)
        # A no-op tracer's invalid span is not made current: nothing could descend from it.
        if span.get_span_context().is_valid:
            self._token = context.attach(trace.set_span_in_context(span))
        if self._done is not None:
            self._started = time.perf_counter()
        return self._handle

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        handle = self._handle
        if exc_type is not None and handle.error is None:
            handle.failed(error_type(exc_type))
        try:
            if self._done is not None:
                self._done(self, time.perf_counter() - self._started, handle.error)
        finally:
            handle._span.end()
            if self._token is not None:
                context.detach(self._token)  # type: ignore[arg-type]
        return False


class _TurnScope(_Scope):
    """The turn's span: also makes its telemetry current and records the turn duration."""

    __slots__ = ("_current", "_turn")

    def __enter__(self) -> _Handle:
        handle = super().__enter__()
        self._current = set_current(self._tel)
        self._turn: Token[_Scope | None] = _TURN.set(self)
        return handle

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        _TURN.reset(self._turn)
        reset_current(self._current)
        phase = getattr(exc, "phase", None)  # TurnInterrupted: the phase the turn is in
        if isinstance(phase, str):
            self._handle.set("turnframe.turn.phase", phase)
        return super().__exit__(exc_type, exc, tb)


class OpenTelemetry(Telemetry):
    """Spans and metrics on OpenTelemetry (docs/telemetry.md "Turning it on").

    Args:
        tracer_provider: where spans go (default: the global one, no-op until an SDK
            provider is installed).
        meter_provider: where metrics go (default: the global one).
        capture_content: record model-call messages (redacted); default: the standard
            ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` variable.
        owned: providers this object built and shuts down in :meth:`shutdown`.
        exporters: the exporters behind ``owned``; :meth:`shutdown` shuts them down itself
            (aborting their retries) when the providers overrun its timeout.
    """

    enabled = True

    def __init__(
        self,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
        capture_content: bool | None = None,
        owned: Sequence[TracerProvider | MeterProvider] = (),
        exporters: Sequence[Any] = (),
    ) -> None:
        self.tracer = (tracer_provider or trace.get_tracer_provider()).get_tracer(SCOPE)
        self.meter = (meter_provider or metrics.get_meter_provider()).get_meter(SCOPE)
        self.capture_content = (
            _truthy(os.environ.get(CAPTURE_CONTENT_ENV))
            if capture_content is None
            else capture_content
        )
        self._owned = tuple(owned)
        self._exporters = tuple(exporters)
        # No tracer behind the API (OTEL_TRACES_EXPORTER=none, or the global provider while
        # no SDK provider is installed): step and part spans cost one call each. A global
        # provider installed later is noticed at the next turn (:meth:`turn`).
        self._proxy = isinstance(self.tracer, trace.ProxyTracer)
        self._tracing = not isinstance(self.tracer, trace.NoOpTracer) and not (
            self._proxy and _no_global_provider()
        )
        self._counters: dict[str, metrics.Counter] = {}
        self._turns = self.meter.create_histogram(
            "turnframe.turn.duration", unit="s", description="Wall time of one turn."
        )
        self._calls = gen_ai_metrics.create_gen_ai_client_operation_duration(self.meter)
        self._tokens = gen_ai_metrics.create_gen_ai_client_token_usage(self.meter)

    def turn(self, turn_id: str, *, entry: str) -> AbstractContextManager[Span]:
        """Open the turn's span ``turnframe.turn`` and make this telemetry current.

        Whether a global SDK provider was installed since is checked here, once a turn.
        """
        if not self._tracing:
            self._traces_now()
        attrs: dict[str, AttributeValue] = {_TURN_ID: turn_id, "turnframe.turn.entry": entry}
        return _TurnScope(self, "turnframe.turn", attrs, done=self._turn_done)

    def step(self, name: str) -> AbstractContextManager[Span]:
        """Open the span ``turnframe.step.<name>``."""
        if not self._tracing:
            return _NOTHING
        span_name = _STEP_NAMES.get(name) or _STEP_NAMES.setdefault(name, f"turnframe.step.{name}")
        return _Scope(self, span_name, {"turnframe.step": name})

    def span(
        self, name: str, attributes: Mapping[str, AttributeValue] | None = None
    ) -> AbstractContextManager[Span]:
        """Open the span ``turnframe.<name>``."""
        if not self._tracing:
            return _NOTHING
        return _Scope(self, f"turnframe.{name}", dict(attributes or {}))

    def _traces_now(self) -> bool:
        """Whether an SDK provider was installed globally since (a proxy delegates from then on)."""
        if self._proxy and not _no_global_provider():
            self._tracing = True
        return self._tracing

    def describe_turn(self, attributes: Mapping[str, AttributeValue]) -> None:
        """Set ``attributes`` on the current turn's span (nothing outside a turn)."""
        turn = _TURN.get()
        if turn is not None:
            turn._handle.set_many(attributes)

    def model_call(
        self, *, provider: str, model: str, task: str, attempt: str
    ) -> AbstractContextManager[ModelCall]:
        """Open the GenAI client span ``chat <model>`` (docs/telemetry.md "Model calls")."""
        name = PROVIDER_NAMES.get(provider, provider)
        attrs: dict[str, AttributeValue] = {
            gen_ai.GEN_AI_OPERATION_NAME: CHAT,
            gen_ai.GEN_AI_SYSTEM: name,
            gen_ai.GEN_AI_PROVIDER_NAME: name,
            gen_ai.GEN_AI_REQUEST_MODEL: model,
            "turnframe.task": task,
            "turnframe.task.attempt": attempt,
        }
        return _Scope(self, f"{CHAT} {model}", attrs, SpanKind.CLIENT, self._call_done)

    def count(self, name: str, value: int = 1, labels: Mapping[str, str] | None = None) -> None:
        """Add ``value`` to the OpenTelemetry counter ``name`` (made on first use)."""
        counter = self._counters.get(name)
        if counter is None:
            counter = self._counters[name] = self.meter.create_counter(name)
        counter.add(value, labels)

    def shutdown(self, timeout_seconds: float = SHUTDOWN_SECONDS) -> None:
        """Flush and shut down the providers this object built, within ``timeout_seconds``.

        Providers still exporting then have their exporters shut down, which aborts the
        SDK's retries; no export thread outlives the call by more than a second.

        The providers shut down side by side, each in a daemon thread: with the collector
        down the SDK's own shutdown waits for retries (30 s for spans, then the metrics'
        export), so a process that quits does not wait for an unreachable collector
        longer than ``timeout_seconds`` (docs/telemetry.md "From the environment").
        """
        threads = [
            threading.Thread(target=p.shutdown, name="turnframe-otel-shutdown", daemon=True)
            for p in self._owned
        ]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + timeout_seconds
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        if any(thread.is_alive() for thread in threads):
            # Still retrying: shutting the exporters down is the SDK's own way to abort
            # their retries, so no export thread outlives this call by more than a moment.
            for exporter in self._exporters:
                try:
                    exporter.shutdown()
                except Exception:  # telemetry never fails the caller
                    continue
            for thread in threads:
                thread.join(_ABORT_SECONDS)

    def _turn_done(self, scope: _Scope, seconds: float, error: str | None) -> None:
        labels = {"turnframe.turn.entry": str(scope._attrs["turnframe.turn.entry"])}
        if error is not None:
            labels[ERROR_TYPE] = error
        self._turns.record(seconds, labels)

    def _call_done(self, scope: _Scope, seconds: float, error: str | None) -> None:
        attrs = scope._attrs
        labels: dict[str, AttributeValue] = {
            gen_ai.GEN_AI_OPERATION_NAME: CHAT,
            gen_ai.GEN_AI_PROVIDER_NAME: attrs[gen_ai.GEN_AI_PROVIDER_NAME],
            gen_ai.GEN_AI_REQUEST_MODEL: attrs[gen_ai.GEN_AI_REQUEST_MODEL],
        }
        handle = scope._handle
        if handle.model:
            labels[gen_ai.GEN_AI_RESPONSE_MODEL] = handle.model
        if error is not None:
            labels[ERROR_TYPE] = error
        self._calls.record(seconds, labels)
        if handle.tokens is not None:
            for kind, n in zip(("input", "output"), handle.tokens, strict=True):
                self._tokens.record(n, {**labels, gen_ai.GEN_AI_TOKEN_TYPE: kind})


def _exporters(group: str, variable: str, protocol_variable: str) -> list[Any]:
    """Return an instance of every exporter ``variable`` names (``none``: none)."""
    return [exporter() for exporter in _exporter_classes(group, variable, protocol_variable)]


def _exporter_classes(group: str, variable: str, protocol_variable: str) -> list[Any]:
    """Return the class of every exporter ``variable`` names (``none``: none).

    Names resolve through the SDK's exporter entry points (``console`` ships with the
    SDK, ``otlp`` is ``opentelemetry-exporter-otlp-proto-http``, or the gRPC exporter when
    the OTLP protocol variable says ``grpc``).

    Raises:
        UsageError: a name no installed package provides.
    """
    names = [n.strip() for n in os.environ.get(variable, "otlp").split(",") if n.strip()]
    protocol = os.environ.get(protocol_variable) or os.environ.get(
        OTEL_EXPORTER_OTLP_PROTOCOL, "http/protobuf"
    )
    found = []
    for name in names:
        if name == "none":
            continue
        wanted = name
        if name == "otlp":
            wanted = "otlp_proto_grpc" if protocol.strip() == "grpc" else "otlp_proto_http"
        points = entry_points(group=group, name=wanted)
        if not points:
            raise UsageError(
                f"{variable}={name}: no installed exporter provides it"
                f" (install turnframe[otel] for console and otlp over HTTP)"
            )
        found.append(next(iter(points)).load())
    return found


def check_otel_environment() -> None:
    """Check every ``OTEL_*`` setting the SDK reads; export nothing, keep nothing.

    The exporters named must be installed, and the SDK must accept every value it parses
    (span limits, sampler, batch sizes and delays, the metric interval, the exemplar
    filter): providers are built with in-memory stand-ins for the exporters, then shut
    down, so no connection is made.

    Raises:
        UsageError: an exporter name no installed package provides, or a value the SDK
            refuses.
    """
    if _truthy(os.environ.get(OTEL_SDK_DISABLED)):
        return
    traces = _exporter_classes(
        "opentelemetry_traces_exporter", OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    )
    readers = _exporter_classes(
        "opentelemetry_metrics_exporter", OTEL_METRICS_EXPORTER, OTEL_EXPORTER_OTLP_METRICS_PROTOCOL
    )
    sink = io.StringIO()
    spans = [ConsoleSpanExporter(out=sink) for _ in traces]
    points = [ConsoleMetricExporter(out=sink) for _ in readers]
    for provider in _invalid_as_usage(_providers, spans, points):
        provider.shutdown()


def _invalid_as_usage(build: Callable[..., _T], *args: Any) -> _T:
    """Return ``build(*args)``; a value the SDK refuses (``ValueError``) is a ``UsageError``."""
    try:
        return build(*args)
    except ValueError as exc:
        raise UsageError(f"an OTEL_* variable is invalid: {' '.join(str(exc).split())}") from exc


def _providers(
    span_exporters: Sequence[Any], metric_exporters: Sequence[Any]
) -> list[TracerProvider | MeterProvider]:
    """Build an SDK provider per signal that has exporters, on the environment's resource.

    Raises:
        ValueError: the SDK refuses a value it reads from ``OTEL_*``.
    """
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: "turnframe"}))
    owned: list[TracerProvider | MeterProvider] = []
    if span_exporters:
        tracer_provider = TracerProvider(resource=resource)
        owned.append(tracer_provider)
        for exporter in span_exporters:
            tracer_provider.add_span_processor(BatchSpanProcessor(exporter))
    if metric_exporters:
        readers: list[MetricReader] = [
            PeriodicExportingMetricReader(exporter) for exporter in metric_exporters
        ]
        owned.append(MeterProvider(resource=resource, metric_readers=readers))
    return owned


def from_otel_environment() -> Telemetry:
    """Return telemetry configured by the standard ``OTEL_*`` variables (docs/telemetry.md).

    ``OTEL_SDK_DISABLED=true`` gives the no-op telemetry. Otherwise the SDK builds the
    resource (``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``; service name
    ``turnframe`` when neither names one), and ``OTEL_TRACES_EXPORTER`` /
    ``OTEL_METRICS_EXPORTER`` (``console``, ``otlp``, ``none``; default ``otlp`` as the
    specification says) pick the exporters, each of which reads its own variables
    (``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_BSP_*``, ``OTEL_METRIC_EXPORT_INTERVAL``...).
    A signal with no exporter gets no SDK provider (the API's no-op one), so it costs nothing.

    Raises:
        UsageError: an exporter name no installed package provides, or a value the SDK
            refuses (``OTEL_BSP_MAX_QUEUE_SIZE=0``, ``OTEL_METRIC_EXPORT_INTERVAL=-5``...).
    """
    if _truthy(os.environ.get(OTEL_SDK_DISABLED)):
        return NO_TELEMETRY
    span_exporters = _invalid_as_usage(
        _exporters,
        "opentelemetry_traces_exporter",
        OTEL_TRACES_EXPORTER,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
    )
    metric_exporters = _invalid_as_usage(
        _exporters,
        "opentelemetry_metrics_exporter",
        OTEL_METRICS_EXPORTER,
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL,
    )
    owned = _invalid_as_usage(_providers, span_exporters, metric_exporters)
    tracer_provider = next((p for p in owned if isinstance(p, TracerProvider)), None)
    meter_provider = next((p for p in owned if isinstance(p, MeterProvider)), None)
    return OpenTelemetry(
        tracer_provider=tracer_provider or trace.NoOpTracerProvider(),
        meter_provider=meter_provider or metrics.NoOpMeterProvider(),
        owned=owned,
        exporters=(*span_exporters, *metric_exporters),
    )
