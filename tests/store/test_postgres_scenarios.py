"""Every scenario under ``scenarios/`` on PostgreSQL, each file in a fresh schema.

Skips (naming ``TURNFRAME_TEST_POSTGRES_DSN``) when the variable is unset.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from turnframe.cli import main
from turnframe.testing.postgres import TEST_DSN_VAR, postgres_dsn
from turnframe.testing.pytest_plugin import scenario_files

ROOT = Path(__file__).resolve().parents[2]
SCENARIO_DIR = ROOT / "scenarios"
SCENARIOS = scenario_files(SCENARIO_DIR)


@pytest.fixture(autouse=True)
def _needs_postgres() -> None:
    if not postgres_dsn(required=False, test=True):
        pytest.skip(f"PostgreSQL scenarios need {TEST_DSN_VAR}")
    pytest.importorskip("psycopg")


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.relative_to(SCENARIO_DIR).as_posix())
def test_scenario_on_postgres(path: Path, turnframe_scenario) -> None:  # type: ignore[no-untyped-def]
    turnframe_scenario(path, store="postgres")


def test_cli_store_flag_runs_on_postgres(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["scenario", "run", str(SCENARIOS[0]), "--store", "postgres"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0, out
    assert out[-1] == "1 passed, 0 failed, 0 invalid"
