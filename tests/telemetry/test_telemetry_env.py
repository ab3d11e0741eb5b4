"""OTEL_* configuration, the no-op path, and `turnframe chat` with telemetry (docs/telemetry.md)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from telemetry_kit import travel

from turnframe.cli import main
from turnframe.core.errors import UsageError
from turnframe.telemetry import (
    MISSING_EXTRA,
    NO_TELEMETRY,
    check_environment,
    telemetry_from_environment,
)
from turnframe.telemetry.otel import OpenTelemetry

SRC = Path(__file__).resolve().parents[2] / "src"
BLOCK_OTEL = """
import sys
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ImportError(f"No module named {name!r}")
sys.meta_path.insert(0, _Block())
"""


@pytest.fixture(autouse=True)
def _no_otel_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("OTEL_"):
            monkeypatch.delenv(key)


def _python(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    full.update(env or {}, PYTHONPATH=str(SRC))
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=120
    )


def test_importing_the_runtime_and_running_a_turn_never_imports_opentelemetry() -> None:
    code = """
import sys, anyio
from turnframe.runtime import Runtime
from turnframe.samples.travel import travel_application
from turnframe.store import InMemoryStore
from turnframe.telemetry import telemetry_from_environment
import turnframe.tasks.run, turnframe.understand, turnframe.serve.app
assert telemetry_from_environment().enabled is False
async def go():
    rt = Runtime(travel_application(), InMemoryStore())
    await rt.seed("a", "trip", {"name": "Porto"}, "t1")
anyio.run(go)
print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))
"""
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_with_the_extra_absent_otel_variables_give_one_line_and_no_telemetry() -> None:
    code = (
        BLOCK_OTEL
        + """
from turnframe.telemetry import telemetry_from_environment, check_environment
t = telemetry_from_environment()
print(t.enabled)
"""
    )
    done = _python(code, {"OTEL_TRACES_EXPORTER": "console"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
    assert done.stderr.strip() == MISSING_EXTRA


def test_chat_with_the_extra_absent_says_one_line_and_chats(tmp_path: Path) -> None:
    code = (
        BLOCK_OTEL
        + f"""
import sys, io
sys.stdin = io.TextIOWrapper(io.BytesIO(b"/quit\\n"), encoding="utf-8")
from turnframe.cli import main
sys.exit(main(["chat", "--model", "scripted:example", "--db", {str(tmp_path / "c.db")!r}]))
"""
    )
    done = _python(code, {"OTEL_SERVICE_NAME": "tf"})
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines() == [MISSING_EXTRA]
    assert "Traceback" not in done.stderr


def test_no_otel_variable_is_the_no_op() -> None:
    assert telemetry_from_environment({}) is NO_TELEMETRY


def test_sdk_disabled_is_the_no_op(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    assert telemetry_from_environment() is NO_TELEMETRY


def test_none_exporters_build_no_sdk_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "none")
    monkeypatch.setenv("OTEL_METRICS_EXPORTER", "none")
    telemetry = telemetry_from_environment()
    assert isinstance(telemetry, OpenTelemetry)
    assert telemetry._owned == ()


def test_an_unknown_exporter_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "carrier-pigeon")
    with pytest.raises(UsageError, match="OTEL_TRACES_EXPORTER=carrier-pigeon"):
        check_environment()
    with pytest.raises(UsageError, match="carrier-pigeon"):
        telemetry_from_environment()


def test_chat_exports_its_spans_to_the_console(tmp_path: Path) -> None:
    code = f"""
import sys, io
sys.stdin = io.TextIOWrapper(
    io.BytesIO(b"Rename the Porto trip to Summer Offsite\\n/quit\\n"), encoding="utf-8"
)
from turnframe.cli import main
sys.exit(main(["chat", "--model", "scripted:example", "--db", {str(tmp_path / "c.db")!r}]))
"""
    env = {
        "OTEL_TRACES_EXPORTER": "console",
        "OTEL_METRICS_EXPORTER": "none",
        "OTEL_SERVICE_NAME": "chat-under-test",
        "OTEL_BSP_SCHEDULE_DELAY": "600000",  # spans leave at shutdown, after the screen
    }
    done = _python(code, env)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert '"name": "turnframe.turn"' in out
    assert '"name": "chat scripted"' in out
    assert '"gen_ai.operation.name": "chat"' in out
    assert '"service.name": "chat-under-test"' in out
    assert "Summer Offsite" in out  # the chat's own screen...
    spans = out[out.index('"name"') :]
    assert "Summer Offsite" not in spans  # ...but never in a span


class _Collector(BaseHTTPRequestHandler):
    received: list[tuple[str, bytes]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((self.path, body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[tuple[str, list[tuple[str, bytes]]]]:
    _Collector.received = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", _Collector.received
    finally:
        server.shutdown()
        server.server_close()


def test_otlp_over_http_reaches_a_loopback_collector(
    monkeypatch: pytest.MonkeyPatch, collector: tuple[str, list[tuple[str, bytes]]]
) -> None:
    endpoint, received = collector
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp")
    monkeypatch.setenv("OTEL_METRICS_EXPORTER", "otlp")
    monkeypatch.setenv(
        "OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test,service.name=tf-otlp"
    )
    telemetry = telemetry_from_environment()

    async def run() -> None:
        app = await travel(telemetry)
        await app.three_acts()

    anyio.run(run)
    telemetry.shutdown()  # flushes both signals
    traces = [ExportTraceServiceRequest.FromString(b) for p, b in received if p == "/v1/traces"]
    metrics = [ExportMetricsServiceRequest.FromString(b) for p, b in received if p == "/v1/metrics"]
    names = {
        span.name
        for request in traces
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    }
    assert {"turnframe.turn", "turnframe.step.commit", "turnframe.commit.batch"} <= names
    resource = traces[0].resource_spans[0].resource
    attributes = {a.key: a.value.string_value for a in resource.attributes}
    assert attributes["service.name"] == "tf-otlp"
    assert attributes["deployment.environment"] == "test"
    metric_names = {
        m.name
        for request in metrics
        for resource in request.resource_metrics
        for scope in resource.scope_metrics
        for m in scope.metrics
    }
    assert {"turnframe.commits", "turnframe.turn.duration"} <= metric_names


def test_the_default_service_name_is_turnframe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    monkeypatch.setenv("OTEL_METRICS_EXPORTER", "none")
    telemetry = telemetry_from_environment()
    assert isinstance(telemetry, OpenTelemetry)
    (provider,) = telemetry._owned
    assert provider.resource.attributes["service.name"] == "turnframe"  # type: ignore[union-attr]
    telemetry.shutdown()


def test_serve_refuses_an_unknown_exporter_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("OTEL_METRICS_EXPORTER", "carrier-pigeon")
    code = main(["serve", "--db", str(tmp_path / "s.db"), "--port", "0"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().splitlines() == [
        "error: OTEL_METRICS_EXPORTER=carrier-pigeon: no installed exporter provides it"
        " (install turnframe[otel] for console and otlp over HTTP)"
    ]
    assert not (tmp_path / "s.db").exists()  # refused before anything was made


def test_a_global_provider_installed_later_is_used_from_the_next_turn() -> None:
    code = """
import anyio
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from turnframe.telemetry import OpenTelemetry

telemetry = OpenTelemetry()  # the API's global providers, none installed yet

async def turn(n):
    with telemetry.turn(f"t-{n}", entry="run"):
        with telemetry.step("load"):
            pass

anyio.run(turn, 1)
spans = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(spans))
trace.set_tracer_provider(provider)
anyio.run(turn, 2)
print(sorted((s.name, s.attributes["turnframe.turn.id"]) for s in spans.get_finished_spans()))
"""
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str([("turnframe.step.load", "t-2"), ("turnframe.turn", "t-2")])
