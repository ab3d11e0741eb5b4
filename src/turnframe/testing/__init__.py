"""Turnframe's test kit: scenario runner, scripted understanding and helpers.

``ScriptedUnderstanding`` entries are functions of a :class:`Brief`; :func:`open_store`
opens a store of each kind for the same test; :class:`ScriptedJudge` is a reply judge for
``turnframe eval run --judge`` that calls no model (docs/evals.md "The scripted judge").

No pytest import here: the pytest plugin lives in ``turnframe.testing.pytest_plugin`` and
the store conformance suite in ``turnframe.store.conformance``.
"""

from turnframe.testing.judge import ScriptedJudge
from turnframe.testing.scenario import (
    Failure,
    ScenarioFileError,
    ScenarioOutcome,
    discover,
    load_scenario,
    run_scenario,
    run_scenario_file,
)
from turnframe.testing.stores import STORE_KINDS, StoreKind, open_store
from turnframe.understand import Brief, ScriptedUnderstanding

__all__ = [
    "STORE_KINDS",
    "Brief",
    "Failure",
    "ScenarioFileError",
    "ScenarioOutcome",
    "ScriptedJudge",
    "ScriptedUnderstanding",
    "StoreKind",
    "discover",
    "load_scenario",
    "open_store",
    "run_scenario",
    "run_scenario_file",
]
