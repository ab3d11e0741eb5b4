"""The scenario runner serves any application: ``sample:``/``--app``, generic records, the
application's own directory, and ``external:`` through the workflow's hook."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from scenario_app_texts import GENERIC

from turnframe.cli import main
from turnframe.testing.scenario import ScenarioFileError, load_scenario, run_scenario_file

SPEC = "trips_app:application"


def _write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_file_without_sample_runs_with_the_app_given(
    tmp_path: Path, trips_app: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, GENERIC)
    assert main(["scenario", "run", str(path), "--app", SPEC]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 passed, 0 failed, 0 invalid"


def test_the_runner_uses_the_application_s_own_directory(
    tmp_path: Path, trips_app: ModuleType
) -> None:
    text = GENERIC.replace(
        "target: {handles: [T1]}", "target: {mention: the Lisbon trip, find: Lisbon}"
    )
    outcome = run_scenario_file(_write(tmp_path, text), app=SPEC)
    assert outcome.passed, outcome.failures
    assert len(trips_app.BUILT) == 1  # one runtime, built over the runner's store
    assert trips_app.FINDS  # the mention was looked up through the app's directory


def test_a_file_naming_no_application_is_invalid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, GENERIC)
    assert main(["scenario", "run", str(path)]) == 2
    out = capsys.readouterr().out
    assert f"invalid: {path} at sample: the file names no application" in out
    assert out.splitlines()[-1] == "0 passed, 0 failed, 1 invalid"


def test_a_file_naming_another_application_than_app_is_invalid(
    tmp_path: Path, trips_app: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "sample: travel\n" + GENERIC)
    assert main(["scenario", "run", str(path), "--app", SPEC]) == 2
    out = capsys.readouterr().out
    assert f"{path} at sample: the file names application 'travel'" in out


@pytest.mark.parametrize("spec", ["travel", "turnframe.samples.travel:travel_application"])
def test_sample_travel_agrees_with_app_travel_by_name_or_spec(spec: str) -> None:
    root = Path(__file__).resolve().parents[2] / "scenarios" / "travel"
    path = root / "23_external_statuses.yaml"
    assert run_scenario_file(path, app=spec).passed


def test_sample_names_any_loadable_application(tmp_path: Path, trips_app: ModuleType) -> None:
    path = _write(tmp_path, f"sample: {SPEC}\n" + GENERIC)
    assert run_scenario_file(path).passed


@pytest.mark.parametrize(
    ("change", "where", "message"),
    [
        (
            ("{key: P1, workflow: traveler,", "{key: P1, workflw: traveler,"),
            "records[1].workflw",
            "workflw",
        ),
        (("[{ref: P1}]", "[{ref: P9}]"), "records[0].state.travelers[0]", "unknown record 'P9'"),
        (
            ("workflow: traveler, state", "workflow: passenger, state"),
            "records[1].workflow",
            "unknown workflow 'passenger'",
        ),
        (("status: planning", "status: flying"), "records[0].state", "load_state refused"),
    ],
)
def test_generic_records_that_cannot_be_seeded_make_the_file_invalid(
    tmp_path: Path, trips_app: ModuleType, change: tuple[str, str], where: str, message: str
) -> None:
    path = _write(tmp_path, GENERIC.replace(*change))
    with pytest.raises(ScenarioFileError) as caught:
        run_scenario_file(path, app=SPEC)
    assert caught.value.where == where
    assert message in str(caught.value)


def test_a_ref_id_gives_the_bare_case_id_and_id_sets_it(
    tmp_path: Path, trips_app: ModuleType
) -> None:
    text = GENERIC.replace(
        "{key: P1, workflow: traveler,", "{key: P1, id: ana, workflow: traveler,"
    ).replace(
        "T1: {name: Lisboa, travelers: [P1]}", "T1: {name: Lisboa, travelers: [traveler/ana]}"
    )
    assert run_scenario_file(_write(tmp_path, text), app=SPEC).passed
    from trips_app import application

    from turnframe.core.ids import CaseRef
    from turnframe.testing.scenario import GenericSeeder

    seeder = GenericSeeder(application().registry)
    _, state = seeder.seed_state(
        {
            "key": "X",
            "workflow": "traveler",
            "state": {"full_name": {"ref_id": "P1"}, "status": "active"},
        },
        {"P1": CaseRef("traveler", "p1")},
    )
    assert state["full_name"] == "p1"


def test_records_referring_in_a_cycle_are_refused(trips_app: ModuleType) -> None:
    from trips_app import application

    from turnframe.testing.scenario import GenericSeeder, SeedError

    seeder = GenericSeeder(application().registry)
    a = {"key": "A", "workflow": "trip", "state": {"x": {"ref": "B"}}}
    b = {"key": "B", "workflow": "trip", "state": {"y": [{"ref": "A"}]}}
    with pytest.raises(SeedError, match="cycle: A -> B -> A"):
        seeder.seed_order([a, b])
    assert [
        r["key"] for r in seeder.seed_order([a, {"key": "B", "workflow": "trip", "state": {}}])
    ] == ["B", "A"]


_EXTERNAL = """\
name: an external system reports on a case of a third-party application
today: 2026-05-01
actor: {account: acme, user: u1, roles: [customer]}
records:
  - {key: P1, workflow: traveler, state: {full_name: Ana Costa, birth_date: 1985-03-14, status: active}}
  - key: M1
    workflow: manifest
    state: {trip: trip/t9, airline: TP, passengers: [{ref: P1}], status: submitting, trip_name: Lisbon, trip_start: 2026-05-12}
turns:
  - external: {case: M1, status: accepted}
    expect:
      state: {M1: {status: accepted}}
  - external: {case: M1, timeout: true}
    expect:
      state: {M1: {status: outcome_unknown}}
  - external: {case: M1, status: issued}
    expect:
      state: {M1: {status: issued}}
  - external: {case: M1, status: accepted}
    expect:
      state: {M1: {status: issued}}
"""


def test_external_steps_reach_any_workflow_s_hook(tmp_path: Path, trips_app: ModuleType) -> None:
    outcome = run_scenario_file(_write(tmp_path, _EXTERNAL), app=SPEC)
    # the timeout reports the workflow's timeout_status; a step back from a terminal
    # status is refused by the hook, which the runner reports as a failed turn
    (failure,) = outcome.failures
    assert (failure.turn, failure.expectation, failure.expected) == (4, "external", "accepted")


def test_an_external_step_on_a_workflow_without_the_hook_is_invalid(
    tmp_path: Path, trips_app: ModuleType
) -> None:
    text = _EXTERNAL.replace(
        "external: {case: M1, status: accepted}", "external: {case: P1, status: accepted}"
    )
    with pytest.raises(ScenarioFileError) as caught:
        run_scenario_file(_write(tmp_path, text), app=SPEC)
    assert caught.value.where == "turns[0].external"
    assert "has no external_update" in str(caught.value)


def test_an_external_step_needs_exactly_one_of_status_and_timeout(
    tmp_path: Path, trips_app: ModuleType
) -> None:
    text = _EXTERNAL.replace(
        "{case: M1, status: accepted}", "{case: M1, status: accepted, timeout: true}"
    )
    with pytest.raises(ScenarioFileError, match="exactly one of"):
        load_scenario(_write(tmp_path, text), app=SPEC)


def test_json_lines_count_invalid_files_apart(
    tmp_path: Path, trips_app: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _write(tmp_path, GENERIC, "good.yaml")
    bad = _write(tmp_path, GENERIC.replace("results:", "resutls:"), "bad.yaml")
    assert main(["scenario", "run", str(good), str(bad), "--app", SPEC, "--json"]) == 2
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x.get("status") for x in lines[:2]] == ["passed", "invalid"]
    assert lines[1]["where"] == "turns[0].expect.resutls"
    assert lines[-1] == {"summary": {"passed": 1, "failed": 0, "invalid": 1}}
