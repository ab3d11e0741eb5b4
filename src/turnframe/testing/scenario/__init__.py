"""The scenario runner (``shared/spec/scenario-format.md``): acceptance tests in YAML."""

from turnframe.testing.scenario.runner import (
    Failure,
    ScenarioFileError,
    ScenarioOutcome,
    discover,
    load_scenario,
    run_scenario,
    run_scenario_file,
)
from turnframe.testing.scenario.samples import ScenarioSample, TravelScenarioSample, sample_named

__all__ = [
    "Failure",
    "ScenarioFileError",
    "ScenarioOutcome",
    "ScenarioSample",
    "TravelScenarioSample",
    "discover",
    "load_scenario",
    "run_scenario",
    "run_scenario_file",
    "sample_named",
]
