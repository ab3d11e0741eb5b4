"""The critical path per effort, in model-call latencies counted by a logical clock.

Every call waits for the clock's next tick; the clock ticks only when every task of the
turn is blocked, and a tick ends every call then in flight at once. So the number of
ticks a reading takes is its critical path in call latencies (calls sent together count
once), with no wall time measured (docs/architecture.md "Effort"): low ≤ 2, medium ≤ 3,
high ≤ 5, over the evaluation set with the oracle's answers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio import wait_all_tasks_blocked

from turnframe.eval.dataset import EvalCase, load_set
from turnframe.eval.oracle import OracleReading, oracle_provider
from turnframe.providers import ModelRequest, ModelResponse, Provider
from turnframe.testing.scenario.model import ScenarioModel
from turnframe.testing.scenario.runner import run_scenario
from turnframe.understand import ModelUnderstanding, UnderstandingResult

EVAL_SET = Path(__file__).resolve().parents[2] / "eval" / "travel"
BOUNDS = {"low": 2, "medium": 3, "high": 5}


class TickingProvider(Provider):
    """Wraps a provider; each call ends at the clock's next tick (a logical latency).

    Attributes:
        ticks: the ticks so far: the critical path in call latencies.
        stages: the tick each call ended at, in call order, with its task name.
    """

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.profile = inner.profile
        self.ticks = 0
        self.stages: list[tuple[str, int]] = []
        self._waiting: list[anyio.Event] = []
        self._done = False

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Wait for the next tick, then answer as the inner provider does."""
        event = anyio.Event()
        self._waiting.append(event)
        await event.wait()
        self.stages.append((request.task, self.ticks))
        return await self.inner.complete(request)

    async def drive(self) -> None:
        """Tick whenever every other task is blocked and calls are waiting."""
        while not self._done:
            await wait_all_tasks_blocked()
            if self._waiting:
                self.ticks += 1
                waiting, self._waiting = self._waiting, []
                for event in waiting:
                    event.set()
            else:
                await anyio.sleep(0)

    def stop(self) -> None:
        """End the clock (the reading is over)."""
        self._done = True


async def _path(case: EvalCase, data: Any, effort: str) -> TickingProvider:
    reading = OracleReading(case)
    seen: list[TickingProvider] = []

    async def reader(run: Any, turn: Any, brief: Any) -> UnderstandingResult:
        provider = TickingProvider(
            oracle_provider(
                reading,
                lambda key: str(run.with_handles(brief, key)),
                lambda ref: str(run.with_handles(brief, f"card:{ref}")),
            )
        )
        seen.append(provider)
        async with anyio.create_task_group() as group:
            group.start_soon(provider.drive)
            try:
                return await ModelUnderstanding(provider, effort=effort).understand(brief)
            finally:
                provider.stop()

    scenario = ScenarioModel.model_validate(
        {
            "name": case.id,
            "sample": data.sample,
            "today": data.today,
            "actor": data.actor,
            "records": data.records,
            "turns": [{"text": case.text, "understanding": "model", "effort": effort}],
        }
    )
    await run_scenario(scenario, case.id, model_reader=reader)
    (provider,) = seen
    return provider


def _cases() -> list[tuple[EvalCase, Any]]:
    return [(c, data) for _f, data in load_set(EVAL_SET) for c in data.cases if not c.before]


@pytest.mark.parametrize("effort", ["low", "medium", "high"])
def test_the_critical_path_of_every_message_is_within_its_effort_bound(effort: str) -> None:
    async def run() -> dict[str, int]:
        return {c.id: (await _path(c, data, effort)).ticks for c, data in _cases()}

    paths = anyio.run(run)
    assert paths, "the evaluation set has messages"
    over = {case: n for case, n in paths.items() if n > BOUNDS[effort]}
    assert over == {}


def test_low_effort_reads_then_verifies_in_two_latencies() -> None:
    case, data = next((c, d) for c, d in _cases() if any(a.args for a in c.acts))

    provider = anyio.run(_path, case, data, "low")
    assert provider.ticks == 2
    assert [task for task, tick in provider.stages if tick == 1] == ["read"]
    assert {task for task, tick in provider.stages if tick == 2} == {"verify"}


def test_medium_effort_runs_locate_and_extract_beside_each_other_after_the_merged_read() -> None:
    case, data = next((c, d) for c, d in _cases() if any(a.args for a in c.acts))

    provider = anyio.run(_path, case, data, "medium")
    assert provider.ticks == 3
    assert {task for task, tick in provider.stages if tick == 1} == {"segment_route"}
    assert {task for task, tick in provider.stages if tick == 2} <= {
        "extract",
        "locate",
        "coverage",
    }
    assert "extract" in {task for task, tick in provider.stages if tick == 2}
    assert {task for task, tick in provider.stages if tick == 3} == {"verify"}
