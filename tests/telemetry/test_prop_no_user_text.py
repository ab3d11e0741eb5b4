"""Property: no message text and no record name reaches a span or a metric label.

Random message words, a random record name and a random new name (an argument value the
user typed) go through a text turn that commits; every span name, attribute (keys and
values), event and every metric name and label recorded is searched for them
(docs/telemetry.md "What is never recorded").
"""

from __future__ import annotations

import functools
from typing import Any

import anyio
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from telemetry_kit import travel

from turnframe.core import CaseRef
from turnframe.core.acts import ProposedTarget, SemanticAct, Understanding
from turnframe.core.results import ResultStatus
from turnframe.core.turn import TurnInput
from turnframe.telemetry.otel import OpenTelemetry
from turnframe.understand import Brief

WORDS = st.text(
    alphabet=st.characters(codec="utf-8", categories=("L", "N")), min_size=8, max_size=24
)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, tuple | list):
        return [s for v in value for s in _strings(v)]
    return [str(value)]


def _recorded(text: str, record: str, new_name: str) -> list[str]:
    """Run one committing rename turn; return every span and metric string it recorded."""
    spans_out = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans_out))
    reader = InMemoryMetricReader()
    telemetry = OpenTelemetry(
        tracer_provider=tracer_provider,
        meter_provider=MeterProvider(metric_readers=[reader]),
        capture_content=False,
    )

    async def run() -> None:
        app = await travel(telemetry)
        case = CaseRef("trip", "t9")
        state = {
            "name": record,
            "destination": record,
            "start": None,
            "end": None,
            "travelers": [],
            "extras": [],
            "status": "planning",
            "next_extra": 1,
        }
        await app.runtime.seed(app.actor.account, "trip", state, case.case_id)

        def build(brief: Brief) -> Understanding:
            act = SemanticAct(
                id="a1",
                operation="trip.rename",
                target=ProposedTarget(handles=(app.runtime.handle_for(brief.turn_id, case),)),
                args={"name": new_name},
                evidence={"name": new_name},
            )
            return Understanding(acts=(act,))

        app.script.push(build)
        result = await app.runtime.run_turn(
            app.actor, "conv", TurnInput(text=f"{text} {record} {new_name}")
        )
        assert result.results["a1"].status is ResultStatus.COMMITTED

    anyio.run(run)
    recorded: list[str] = []
    for span in spans_out.get_finished_spans():
        recorded.append(span.name)
        for key, value in (span.attributes or {}).items():
            recorded += [key, *_strings(value)]
        for event in span.events:
            recorded.append(event.name)
            for key, value in (event.attributes or {}).items():
                recorded += [key, *_strings(value)]
    data = reader.get_metrics_data()
    assert data is not None
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                recorded.append(metric.name)
                for point in metric.data.data_points:
                    for key, value in (point.attributes or {}).items():
                        recorded += [key, *_strings(value)]
    assert len(recorded) > 50  # the turn was recorded
    return recorded


@functools.cache
def _vocabulary() -> frozenset[str]:
    """What a turn records whatever the user typed: the strings of a turn with other words."""
    words = ("Zqxjkvbw", "Qzjxwvkb", "Xjqzvbwk")
    recorded = frozenset(_recorded(*words))
    assert not [v for v in recorded for w in words if w in v]  # the baseline leaks nothing
    return recorded


@settings(max_examples=25, deadline=None)
@given(text=WORDS, record=WORDS, new_name=WORDS)
def test_no_user_text_or_record_name_is_recorded(text: str, record: str, new_name: str) -> None:
    assume(new_name.strip().casefold() != record.strip().casefold())  # a rename that changes
    # A word inside Turnframe's own vocabulary (``workflow`` in ``turnframe.workflow``)
    # is found there whatever the turn: such a draw tells nothing about a leak.
    vocabulary = _vocabulary()
    assume(not any(w in v for w in (text, record, new_name) for v in vocabulary))
    recorded = _recorded(text, record, new_name)
    for secret in (text, record, new_name):
        leaked = [s for s in recorded if secret in s]
        assert leaked == [], secret
