"""The consent example (examples/consent) passes its own tests, scenarios and the explorer.

The example models a legal acceptance as a small workflow on the authoring kit
(docs/guides/consent.md): its pytest suite, its scenario files (``turnframe scenario
run --app``) and ``turnframe explore`` run here in subprocesses, with ``src`` and the
example on the path, as ``pip install -e examples/consent`` would put them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "consent"
APP = "consent.app:application"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([str(ROOT / "src"), str(EXAMPLE / "src")])
    env = {**os.environ, "PYTHONPATH": path}
    return subprocess.run(
        [sys.executable, *args], cwd=EXAMPLE, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_consent_example_passes_its_own_tests() -> None:
    done = _run("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "21 passed" in done.stdout


@pytest.mark.parametrize("store", ["memory", "sqlite"])
def test_the_consent_scenarios_pass_with_app(store: str) -> None:
    done = _run(
        "-m", "turnframe.cli", "scenario", "run", "--store", store, "--app", APP, "scenarios"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed, 0 failed" in done.stdout


def test_the_consent_scenarios_pass_on_postgres() -> None:
    if not os.environ.get("TURNFRAME_TEST_POSTGRES_DSN"):
        pytest.skip("set TURNFRAME_TEST_POSTGRES_DSN to run the consent scenarios on PostgreSQL")
    done = _run(
        "-m", "turnframe.cli", "scenario", "run", "--store", "postgres", "--app", APP, "scenarios"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed, 0 failed" in done.stdout


def test_the_consent_app_explores_without_findings() -> None:
    done = _run("-m", "turnframe.cli", "explore", "--app", APP)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no findings" in done.stdout
