"""The helpdesk example (examples/helpdesk) passes its own tests and scenarios.

The example is what `turnframe new helpdesk` makes (tests/cli/test_new.py keeps them
equal) and the target of the authoring kit (docs/authoring.md): a package written
only against the public API, in at most 200 lines of domain code. Its pytest suite and
its scenario files run here in subprocesses, with ``src`` and the example on the path,
as ``pip install -e examples/helpdesk`` would put them.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

from turnframe.testing.scenario import run_scenario_file

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "helpdesk"
# tests/test_scenarios.py of the example runs its scenario files through the pytest
# plugin with an application; a runner without one cannot (the change lands separately).
RUNNER_TAKES_APP = "app" in inspect.signature(run_scenario_file).parameters


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([str(ROOT / "src"), str(EXAMPLE / "src")])
    env = {**os.environ, "PYTHONPATH": path}
    return subprocess.run(
        [sys.executable, *args], cwd=EXAMPLE, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_example_passes_its_own_tests() -> None:
    ignore = [] if RUNNER_TAKES_APP else ["--ignore", "tests/test_scenarios.py"]
    done = _run("-m", "pytest", "-q", "-p", "no:cacheprovider", *ignore, "tests")
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout


@pytest.mark.parametrize("store", ["memory", "sqlite"])
def test_the_example_scenarios_pass_with_app(store: str) -> None:
    done = _run(
        "-m",
        "turnframe.cli",
        "scenario",
        "run",
        "--store",
        store,
        "--app",
        "helpdesk.app:application",
        "scenarios",
    )
    if "unrecognized arguments: --app" in done.stderr:
        pytest.skip("this scenario runner takes no --app yet (the runner change lands separately)")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed, 0 failed" in done.stdout
