"""Numbers a user can trust (issue 11 item 7).

* The eval's model-latency figure is the critical path: concurrent calls count once.
* ``turnframe eval run … | head`` ends quietly (no traceback, exit 0) when the reader
  closes the pipe early.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio

from turnframe.eval.run import critical_path_ms
from turnframe.providers import ModelRequest, ModelResponse, Provider, Usage
from turnframe.providers.base import ModelProfile
from turnframe.tasks import schema as s
from turnframe.tasks.budget import TurnBudget
from turnframe.tasks.run import TaskModels, TaskRunner, concurrently
from turnframe.tasks.task import Task

ROOT = Path(__file__).resolve().parents[2]


def test_the_critical_path_counts_overlapping_calls_once() -> None:
    concurrent = [
        {"latency_ms": 100.0, "ended_ms": 100.0},
        {"latency_ms": 100.0, "ended_ms": 101.0},
        {"latency_ms": 50.0, "ended_ms": 90.0},
    ]
    assert abs(critical_path_ms(concurrent) - 101.0) < 1e-9
    chained = [{"latency_ms": 100.0, "ended_ms": 100.0}, {"latency_ms": 100.0, "ended_ms": 250.0}]
    assert critical_path_ms(chained) == 200.0
    assert critical_path_ms([{"latency_ms": 40.0}]) == 40.0  # an older record: as reported


class _Slow(Provider):
    def __init__(self) -> None:
        self.profile = ModelProfile(provider="slow", model="m")

    async def complete(self, request: ModelRequest) -> ModelResponse:
        await anyio.sleep(0.2)
        return ModelResponse(text='{"x": true}', usage=Usage(prompt_tokens=1, completion_tokens=1))


def test_three_concurrent_calls_take_one_call_of_critical_path() -> None:
    async def main() -> list[Any]:
        runner = TaskRunner(TaskModels(_Slow()), TurnBudget())
        task = Task(
            name="t", instructions="", prompt_id="t@1", data={}, schema=s.obj({"x": s.boolean()})
        )
        async with concurrently() as group:
            for _ in range(3):
                group.start_soon(runner.run, task)
        return [r.to_json() for r in runner.records]

    calls = anyio.run(main)
    summed = sum(c["latency_ms"] for c in calls)
    path = critical_path_ms(calls)
    assert summed > 550  # what the figure used to say
    assert 190 < path < 350, path


def test_eval_run_into_a_closed_pipe_exits_quietly() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    writer = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "turnframe.cli",
            "eval",
            "run",
            str(ROOT / "eval" / "travel"),
            "--model",
            "oracle",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert writer.stdout is not None and writer.stderr is not None
    writer.stdout.close()  # the reader (``head``) is gone before the table is printed
    err = writer.stderr.read().decode()
    code = writer.wait(timeout=120)
    writer.stderr.close()
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert code == 0
