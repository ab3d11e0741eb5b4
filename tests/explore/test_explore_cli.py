"""``turnframe explore``: the table, ``--json``, and exit codes 0/1/2 (docs/explorer.md "Command line")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from turnframe.cli import main

JOBS = "planted_jobs"


@pytest.fixture(autouse=True)
def _importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).parent))


def test_a_clean_app_prints_the_table_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "--app", f"{JOBS}:job_app"]) == 0
    out = capsys.readouterr().out
    assert "workflow  states  transitions  depth  cut  findings" in out
    assert "job           31           52      4   no         0" in out
    assert out.rstrip().endswith("no findings")


def test_findings_exit_1_with_their_paths(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "--app", f"{JOBS}:PauseIsADeadEnd_app"]) == 1
    out = capsys.readouterr().out
    assert "DeadEnd in job: phase 'paused'" in out
    assert 'path: absent -> job.create(title="Alpha") -> job.start() -> job.pause()' in out


def test_json_is_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "--app", f"{JOBS}:CancelDrops_app", "--json", "--depth", "2"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False and data["limits"] == {"depth": 2, "states": 2000}
    (job,) = data["workflows"]
    assert [f["kind"] for f in job["findings"]] == ["TransitionRemovesCase"]
    assert job["findings"][0]["path_text"] == 'absent -> job.create(title="Alpha") -> job.cancel()'


def test_limits_cut_the_walk(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "--app", f"{JOBS}:job_app", "--json", "--states", "3"]) == 0
    (job,) = json.loads(capsys.readouterr().out)["workflows"]
    assert job["states"] == 3 and job["cut"] is True


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        ([], "explore needs --app SPEC"),
        (["--app", "no_such_module_x:app"], "cannot import module 'no_such_module_x'"),
        (["--app", f"{JOBS}:job_app", "jbo"], "no workflow 'jbo'; did you mean 'job'?"),
        (["--app", f"{JOBS}:job_app", "--depth", "-1"], "depth must be a whole number >= 0"),
        (["--app", f"{JOBS}:job_app", "--states", "0"], "states must be a whole number >= 1"),
        (["--app", f"{JOBS}:job_app", "--depth", "deep"], "--depth must be a whole number"),
        (["--app", f"{JOBS}:job_app", "--states", "100000000"], "states must be at most 1,000,000"),
        (["--app", f"{JOBS}:job_app", "--depth", "1001"], "depth must be at most 1,000"),
        (["--app", f"{JOBS}:job_app", "--records", "/nonexistent/r.yaml"], "cannot read it"),
    ],
)
def test_a_usage_error_is_one_line_and_exit_2(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explore", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0], captured.err


def test_records_from_a_file_seed_the_walk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "records.yaml"
    records.write_text(
        "records:\n  - {key: J1, workflow: job, state: {title: Seeded, status: paused}}\n",
        encoding="utf-8",
    )
    assert main(["explore", "--app", f"{JOBS}:PauseIsADeadEnd_app", "--records", str(records)]) == 1
    out = capsys.readouterr().out
    assert "path: seed J1" in out  # the seeded paused job is a shorter way to the dead end


def test_records_that_are_not_a_list_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "records.yaml"
    records.write_text("records: 3\n", encoding="utf-8")
    assert main(["explore", "--app", f"{JOBS}:job_app", "--records", str(records)]) == 2
    assert "give a list of records" in capsys.readouterr().err
