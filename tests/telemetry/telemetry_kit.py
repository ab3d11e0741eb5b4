"""Helpers of the telemetry tests: in-memory SDK recording and a seeded travel runtime.

A uniquely named module (not ``conftest``), so ``from telemetry_kit import ...`` never
resolves to another directory's ``conftest`` in a run of several test directories.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from turnframe.core import Actor, CaseRef
from turnframe.core.acts import ProposedTarget, SemanticAct, Understanding
from turnframe.core.turn import TurnInput
from turnframe.runtime import FixedClock, InMemoryMetrics, Runtime, TurnResult
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application
from turnframe.store import InMemoryStore
from turnframe.telemetry.otel import OpenTelemetry
from turnframe.understand import Brief, ScriptedUnderstanding

TODAY = date(2026, 5, 1)


@dataclass
class Recorded:
    """An OpenTelemetry wired to in-memory exporters, and what it recorded."""

    spans_out: InMemorySpanExporter
    reader: InMemoryMetricReader
    telemetry: OpenTelemetry
    tracer_provider: TracerProvider
    meter_provider: MeterProvider

    def spans(self) -> list[ReadableSpan]:
        return list(self.spans_out.get_finished_spans())

    def metrics(self) -> dict[str, list[tuple[dict[str, Any], Any]]]:
        """Return metric name → [(attributes, value or histogram point)]."""
        out: dict[str, list[tuple[dict[str, Any], Any]]] = {}
        data = self.reader.get_metrics_data()
        if data is None:
            return out
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    for point in metric.data.data_points:
                        value = getattr(point, "value", point)
                        out.setdefault(metric.name, []).append((dict(point.attributes), value))
        return out

    def total(self, name: str) -> int:
        return sum(v for _, v in self.metrics().get(name, []))


@dataclass
class Travel:
    """A travel runtime with the demo records seeded and scripted understanding."""

    runtime: Runtime
    script: ScriptedUnderstanding
    refs: dict[str, CaseRef] = field(default_factory=dict)
    actor: Actor = field(default_factory=lambda: Actor(account="acct", user="ana"))
    metrics: InMemoryMetrics = field(default_factory=InMemoryMetrics)

    def act(self, brief: Brief, act_id: str, operation: str, key: str, **args: str) -> SemanticAct:
        return SemanticAct(
            id=act_id,
            operation=operation,
            target=ProposedTarget(
                handles=(self.runtime.handle_for(brief.turn_id, self.refs[key]),)
            ),
            args=args,
            evidence=dict(args),
        )

    async def three_acts(
        self, text: str = "add a seat, E2 paid by the company, rename Porto"
    ) -> TurnResult:
        def build(brief: Brief) -> Understanding:
            return Understanding(
                acts=(
                    self.act(brief, "a1", "trip.add_extra", "T1", kind="seat", payer="company"),
                    self.act(
                        brief, "a2", "trip.set_extra_payer", "T1", extra="E2", payer="company"
                    ),
                    self.act(brief, "a3", "trip.rename", "T3", name="Porto again"),
                )
            )

        self.script.push(build)
        return await self.runtime.run_turn(self.actor, "conv", TurnInput(text=text), turn_id="t-1")


async def travel(
    telemetry: Any, *, understander: Any = None, records: Callable[[], Any] | None = None
) -> Travel:
    """Return a seeded travel runtime with ``telemetry`` (``records``: the seed, default demo)."""
    script = ScriptedUnderstanding()
    metrics = InMemoryMetrics()
    runtime = Runtime(
        travel_application(),
        InMemoryStore(),
        understander or script,
        clock=FixedClock(TODAY),
        metrics=metrics,
        telemetry=telemetry,
    )
    made = Travel(runtime=runtime, script=script, metrics=metrics)
    seed = records() if records else DEMO_RECORDS
    for key, case, state in seed_all(seed, lambda workflow, key: CaseRef(workflow, key.lower())):
        await runtime.seed(made.actor.account, case.workflow, state, case.case_id)
        made.refs[key] = case
    return made


def recording() -> Recorded:
    """Return an ``OpenTelemetry`` wired to a fresh in-memory span exporter and metric reader."""
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    telemetry = OpenTelemetry(
        tracer_provider=tracer_provider, meter_provider=meter_provider, capture_content=False
    )
    return Recorded(exporter, reader, telemetry, tracer_provider, meter_provider)
