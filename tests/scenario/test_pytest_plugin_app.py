"""The pytest plugin collects any application's scenario files (``--turnframe-app``, ini)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from scenario_app_texts import GENERIC

ROOT = Path(__file__).resolve().parents[2]

_TEST = """\
import pytest
from turnframe.testing.pytest_plugin import scenario_files

@pytest.mark.parametrize("path", scenario_files("scenarios"), ids=str)
def test_scenario(path, turnframe_scenario):
    turnframe_scenario(path)
"""


def _project(tmp_path: Path, ini: str = "") -> Path:
    project = tmp_path / "project"
    (project / "scenarios").mkdir(parents=True)
    (project / "scenarios" / "one.yaml").write_text(GENERIC, encoding="utf-8")
    (project / "test_it.py").write_text(_TEST, encoding="utf-8")
    (project / "pytest.ini").write_text(f"[pytest]\n{ini}", encoding="utf-8")
    return project


def _pytest(project: Path, app_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(app_home)]),
    }
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_app_comes_from_the_command_line_option(tmp_path: Path, trips_app: ModuleType) -> None:
    home = Path(trips_app.__file__).parent
    project = _project(tmp_path)
    done = _pytest(project, home, "--turnframe-app", "trips_app:application")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_the_app_comes_from_the_ini_option(tmp_path: Path, trips_app: ModuleType) -> None:
    home = Path(trips_app.__file__).parent
    project = _project(tmp_path, "turnframe_app = trips_app:application\n")
    done = _pytest(project, home)
    assert done.returncode == 0, done.stdout + done.stderr


def test_without_an_app_the_file_fails_as_invalid(tmp_path: Path, trips_app: ModuleType) -> None:
    home = Path(trips_app.__file__).parent
    done = _pytest(_project(tmp_path), home)
    assert done.returncode == 1
    assert "invalid scenario file:" in done.stdout and "at sample:" in done.stdout
