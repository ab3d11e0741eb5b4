"""The acceptance scenarios under ``scenarios/`` on every embedded store, and the runner's reports.

Each scenario file is one behaviour the architecture, the ADR and the product decisions
require (see the file's ``description``). They run through the ``turnframe_scenario``
fixture that the package's pytest11 entry point registers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from turnframe.cli import main
from turnframe.testing.pytest_plugin import scenario_files

ROOT = Path(__file__).resolve().parents[1]
SCENARIO_DIR = ROOT / "scenarios"
SCENARIOS = scenario_files(SCENARIO_DIR)
STORES = ("memory", "sqlite")


def _id(path: Path) -> str:
    return path.relative_to(SCENARIO_DIR).as_posix()


def test_the_acceptance_scenarios_are_found() -> None:
    assert len(SCENARIOS) >= 16
    assert all(p.suffix == ".yaml" for p in SCENARIOS)


def test_the_scenario_fixture_comes_from_the_entry_point(request: pytest.FixtureRequest) -> None:
    plugin = request.config.pluginmanager.get_plugin("turnframe")
    assert plugin is not None and hasattr(plugin, "turnframe_scenario")


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("path", SCENARIOS, ids=_id)
def test_scenario(path: Path, store: str, turnframe_scenario: Callable[..., None]) -> None:
    turnframe_scenario(path, store=store)


_WRONG = """\
name: an ambiguous act expected, wrongly, to commit
sample: travel
today: 2026-05-01
actor: {account: acme, user: u1, roles: [customer]}
records:
  - {key: T1, workflow: trip, name: Lisbon, start: 2026-05-12, end: 2026-05-15}
  - {key: T2, workflow: trip, name: Lisbon, start: 2026-06-03, end: 2026-06-06}
turns:
  - text: "Add insurance to the Lisbon trip."
    understanding:
      acts:
        - {id: a1, operation: trip.add_extra, target: {handles: [T1, T2]}, args: {kind: insurance}}
    expect:
      results: {a1: needs_clarification}
  - click: {interaction: last, option: T1}
    expect:
      results: {a1: committed}
      commands: [{operation: trip.add_extra, case: T2}]
"""


@pytest.mark.parametrize("store", STORES)
def test_a_wrong_expectation_fails_with_file_turn_expectation_expected_and_actual(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], store: str
) -> None:
    path = tmp_path / "wrong.yaml"
    path.write_text(_WRONG, encoding="utf-8")

    code = main(["scenario", "run", str(path), "--store", store])

    out = capsys.readouterr().out.splitlines()
    assert code == 1
    expected_line = (
        f"{path}: turn 2: commands: expected [('trip.add_extra', 'T2')], "
        f"actual [('trip.add_extra', 'T1')]"
    )
    assert expected_line in out
    assert out[-1] == "0 passed, 1 failed, 0 invalid"
    # the expectations that held are not reported
    assert not [line for line in out if "results.a1" in line]


def test_a_wrong_expectation_is_reported_in_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "wrong.yaml"
    path.write_text(_WRONG, encoding="utf-8")

    code = main(["scenario", "run", str(path), "--json"])

    line, summary = capsys.readouterr().out.splitlines()
    report = json.loads(line)
    assert code == 1
    assert json.loads(summary) == {"summary": {"passed": 0, "failed": 1, "invalid": 0}}
    assert report["file"] == str(path) and report["passed"] is False
    assert report["status"] == "failed"
    assert report["failures"] == [
        {
            "turn": 2,
            "expectation": "commands",
            "expected": [["trip.add_extra", "T2"]],
            "actual": [["trip.add_extra", "T1"]],
        }
    ]


def test_a_wrong_result_code_names_the_item(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "code.yaml"
    path.write_text(
        _WRONG.replace("{a1: needs_clarification}", "{a1: needs_clarification:missing:kind}"),
        encoding="utf-8",
    )

    code = main(["scenario", "run", str(path)])

    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert (
        f"{path}: turn 1: results.a1: expected 'needs_clarification:missing:kind', "
        "actual 'needs_clarification:ambiguous_target'"
    ) in out


def test_an_unknown_key_makes_the_file_invalid_and_names_its_yaml_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "invalid.yaml"
    path.write_text(
        _WRONG.replace("results: {a1: needs_clarification}", "resultz: {a1: needs_clarification}"),
        encoding="utf-8",
    )

    code = main(["scenario", "run", str(path)])

    out = capsys.readouterr().out
    assert code == 2
    assert f"{path} at turns[0].expect.resultz" in out
    assert "Extra inputs are not permitted" in out


def test_an_invalid_file_beside_a_passing_one_still_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = SCENARIOS[0]
    bad = tmp_path / "invalid.yaml"
    bad.write_text(_WRONG.replace("  - click:", "  - clik:"), encoding="utf-8")

    code = main(["scenario", "run", str(good), str(bad)])

    out = capsys.readouterr().out
    assert code == 2
    assert f"{bad} at turns[1].clik" in out
    assert out.splitlines()[-1] == "1 passed, 0 failed, 1 invalid"
