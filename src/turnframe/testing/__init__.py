"""Turnframe's test kit: scenario runner, scripted understanding and helpers.

No pytest import here: the pytest plugin lives in ``turnframe.testing.pytest_plugin`` and
the store conformance suite in ``turnframe.store.conformance``.
"""

from turnframe.testing.scenario import (
    Failure,
    ScenarioFileError,
    ScenarioOutcome,
    discover,
    load_scenario,
    run_scenario,
    run_scenario_file,
)
from turnframe.understand import ScriptedUnderstanding

__all__ = [
    "Failure",
    "ScenarioFileError",
    "ScenarioOutcome",
    "ScriptedUnderstanding",
    "discover",
    "load_scenario",
    "run_scenario",
    "run_scenario_file",
]
