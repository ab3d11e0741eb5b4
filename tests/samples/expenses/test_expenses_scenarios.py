"""The expenses scenario files pass on every store, run with ``--app`` (the application spec).

The runner is given the application as ``module:attribute``, the way ``turnframe
scenario run --app`` gives it, so the files' ``sample: expenses`` is checked against the
application's name and no installed entry-point metadata is needed. A runner that takes
no application yet (before the scenario runner serves any app) skips with that reason;
every invalid file and every failed expectation fails.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from turnframe.testing import run_scenario_file

SPEC = "turnframe.samples.expenses:expenses_application"
FILES = sorted((Path(__file__).parents[3] / "scenarios" / "expenses").glob("*.yaml"))


def test_there_are_scenarios_for_every_behaviour() -> None:
    assert len(FILES) >= 8


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_the_scenario_passes(path: Path, store_kind: str) -> None:
    if "app" not in inspect.signature(run_scenario_file).parameters:
        pytest.skip("this scenario runner takes no application (--app) yet")
    outcome = run_scenario_file(path, store=store_kind, app=SPEC)
    assert outcome.passed, "\n".join(f.line() for f in outcome.failures)
