"""The scenario files under scenarios/, run as tests through Turnframe's pytest plugin."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from turnframe.testing.pytest_plugin import scenario_files

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
APP = "consent.app:application"


def test_there_are_scenario_files() -> None:
    assert len(scenario_files(SCENARIOS)) == 3


@pytest.mark.parametrize("store", ["memory", "sqlite"])
@pytest.mark.parametrize("path", scenario_files(SCENARIOS), ids=lambda path: path.name)
def test_scenario(path: Path, store: str, turnframe_scenario: Callable[..., None]) -> None:
    turnframe_scenario(path, store=store, app=APP)
