"""The scenario runner (docs/scenario-format.md): acceptance tests in YAML for any application."""

from turnframe.testing.scenario.apps import AppChoice, application_for, seeder_for
from turnframe.testing.scenario.runner import (
    Failure,
    ScenarioFileError,
    ScenarioOutcome,
    discover,
    load_scenario,
    prepare_scenario,
    run_scenario,
    run_scenario_file,
    seed_records,
)
from turnframe.testing.scenario.seeding import GenericSeeder, SeedError

__all__ = [
    "AppChoice",
    "Failure",
    "GenericSeeder",
    "ScenarioFileError",
    "ScenarioOutcome",
    "SeedError",
    "application_for",
    "discover",
    "load_scenario",
    "prepare_scenario",
    "run_scenario",
    "run_scenario_file",
    "seed_records",
    "seeder_for",
]
