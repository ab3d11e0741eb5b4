"""Every recorded turn's reduction re-runs from its recorded inputs to the same plan (I20)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from turnframe.runtime.replay import replay_reduction
from turnframe.testing.scenario.runner import load_scenario, run_scenario

SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "scenarios").rglob("*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_scenario_turn_replays_its_reduction_to_the_same_plan(path: Path) -> None:
    checked: list[str] = []
    problems: list[str] = []

    async def on_turn(run: Any, number: int, turn: Any, result: Any) -> None:
        record = await run.store.load_replay(run.actor.account, result.turn_id)
        if record is None or "reduction" not in record:
            return
        same, again = replay_reduction(record["reduction"], run.runtime.registry)
        checked.append(result.turn_id)
        if not same:
            problems.append(f"turn {number}: {record['reduction']['plan']} != {again}")

    outcome = anyio.run(lambda: run_scenario(load_scenario(path), str(path), on_turn=on_turn))
    assert not outcome.failures
    assert problems == []
    assert checked
