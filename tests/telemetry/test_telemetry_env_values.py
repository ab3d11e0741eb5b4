"""Bad ``OTEL_*`` values are one-line usage errors; shutdown never waits long on a dead collector.

docs/telemetry.md "From the environment": every value the SDK parses is checked before a
turn runs, and quitting with the collector down is bounded.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.core.errors import UsageError
from turnframe.telemetry import check_environment, telemetry_from_environment

SRC = Path(__file__).resolve().parents[2] / "src"

# Variables the SDK itself parses when its providers are built (not the exporters'
# own, which only warn): integers, a float interval, and names.
SDK_NUMBERS = (
    "OTEL_BSP_MAX_QUEUE_SIZE",
    "OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
    "OTEL_BSP_SCHEDULE_DELAY",
    "OTEL_BSP_EXPORT_TIMEOUT",
    "OTEL_METRIC_EXPORT_INTERVAL",
    "OTEL_METRIC_EXPORT_TIMEOUT",
    "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT",
    "OTEL_ATTRIBUTE_COUNT_LIMIT",
    "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT",
    "OTEL_SPAN_EVENT_COUNT_LIMIT",
    "OTEL_SPAN_LINK_COUNT_LIMIT",
)
SDK_NAMES = ("OTEL_TRACES_SAMPLER", "OTEL_METRICS_EXEMPLAR_FILTER", "OTEL_TRACES_SAMPLER_ARG")


@pytest.fixture(autouse=True)
def _no_otel_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("OTEL_"):
            monkeypatch.delenv(key)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_VALUES = st.one_of(
    st.integers(min_value=-5, max_value=3).map(str),
    st.sampled_from(["", "x", "1.5", "-0", " 7 ", "1e3", "zz", "always_on"]),
    st.text(alphabet="abc-019. ", max_size=5),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variable=st.sampled_from(SDK_NUMBERS + SDK_NAMES),
    value=_VALUES,
    exporter=st.sampled_from(["console", "otlp"]),
)
def test_any_sdk_value_builds_or_is_one_usage_error(
    variable: str, value: str, exporter: str
) -> None:
    """The class: whatever value an SDK-parsed variable holds, the check and the build
    agree, and a refusal is a ``UsageError`` of one line, never another exception."""
    env = {
        "OTEL_TRACES_EXPORTER": exporter,
        "OTEL_METRICS_EXPORTER": exporter,
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{_closed_port()}",
        variable: value,
    }
    with mock.patch.dict(os.environ, env):
        try:
            check_environment()
        except UsageError as exc:
            said = str(exc)
            assert "\n" not in said and "OTEL_" in said
            with pytest.raises(UsageError):
                telemetry_from_environment()
            return
        telemetry = telemetry_from_environment()
        telemetry.shutdown(timeout_seconds=1.0)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("OTEL_BSP_MAX_QUEUE_SIZE", "0"),
        ("OTEL_METRIC_EXPORT_INTERVAL", "-5"),
        ("OTEL_METRICS_EXEMPLAR_FILTER", "zz"),
        ("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "x"),
    ],
)
def test_a_value_the_sdk_refuses_is_a_usage_error(variable: str, value: str) -> None:
    env = {"OTEL_TRACES_EXPORTER": "console", "OTEL_METRICS_EXPORTER": "console", variable: value}
    with mock.patch.dict(os.environ, env):
        with pytest.raises(UsageError, match="OTEL_\\* variable is invalid"):
            check_environment()
        with pytest.raises(UsageError, match="OTEL_\\* variable is invalid"):
            telemetry_from_environment()


def _chat(
    tmp_path: Path, env: dict[str, str], said: str = "/quit\n"
) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    full.update(env, PYTHONPATH=str(SRC))
    return subprocess.run(
        [sys.executable, "-m", "turnframe.cli", "chat", "--model", "scripted:example"]
        + ["--db", str(tmp_path / "c.db")],
        input=said,
        capture_output=True,
        text=True,
        env=full,
        timeout=120,
    )


def test_chat_with_a_limit_the_sdk_refuses_at_import_is_one_line_exit_2(tmp_path: Path) -> None:
    # The SDK reads the span limits when opentelemetry.sdk.trace is first imported.
    done = _chat(
        tmp_path,
        {"OTEL_TRACES_EXPORTER": "none", "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "-1"},
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "error: an OTEL_* variable is invalid: OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT must be a"
        " non-negative integer but got -1"
    ]


@pytest.fixture
def dead_collector() -> Iterator[str]:
    yield f"http://127.0.0.1:{_closed_port()}"


def test_shutdown_with_the_collector_down_is_bounded(dead_collector: str) -> None:
    env = {
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_METRICS_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_ENDPOINT": dead_collector,
    }
    with mock.patch.dict(os.environ, env):
        telemetry = telemetry_from_environment()
    with telemetry.turn("t1", entry="run"), telemetry.step("load"):
        telemetry.count("turnframe.commits", 1, {"workflow": "trip"})
    started = time.monotonic()
    telemetry.shutdown(timeout_seconds=1.0)
    assert time.monotonic() - started < 4.0
    # No export thread is left retrying in the background (it would go on mutating the
    # process, e.g. the global random state its backoff draws from).
    left = [t.name for t in threading.enumerate() if t.name == "turnframe-otel-shutdown"]
    assert left == []
