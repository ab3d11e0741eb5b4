"""``eval compare``: what regressed and improved between two saved runs.

docs/evals.md "Comparing two runs".
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from turnframe.core.errors import UsageError
from turnframe.eval.compare import compare_runs, read_run


def _save(tmp_path: Path, name: str, data: dict[str, Any]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_run_against_itself_regresses_nothing(tmp_path: Path, oracle_run: dict[str, Any]) -> None:
    a = read_run(_save(tmp_path, "a.json", oracle_run))
    comparison = compare_runs(a, a)
    assert not comparison.regressed
    assert all(t.change == "same" for t in comparison.tasks)
    assert "nothing regressed" in comparison.table()


def test_a_planted_regression_is_named_per_task_and_per_case(
    tmp_path: Path, oracle_run: dict[str, Any]
) -> None:
    planted = copy.deepcopy(oracle_run)
    planted["tasks"]["locate"].update(precision=0.5, recall=1.0, f1=0.6667)
    victim = planted["results"][1]
    victim["perfect"] = False
    victim["judge"]["passed"] = False
    planted["judge"]["pass_rate"] = 0.9
    planted["cost"]["calls"] += 10
    a = read_run(_save(tmp_path, "a.json", oracle_run))
    b = read_run(_save(tmp_path, "b.json", planted))
    forward = compare_runs(a, b)
    assert forward.regressed
    changes = {t.task: t.change for t in forward.tasks}
    assert changes["locate"] == "regressed"
    assert {k for k, v in changes.items() if v != "same"} == {"locate"}
    assert forward.now_imperfect == [victim["key"]] and forward.now_perfect == []
    assert forward.judge_now_failing == [victim["key"]]
    data = forward.to_json()
    assert data["tasks"]["locate"]["delta"] == {"precision": -0.5, "recall": 0.0, "f1": -0.3333}
    assert data["judge"]["delta"] == -0.1
    calls = data["cost_per_message"]["calls"]
    assert calls["delta"] == pytest.approx(10 / oracle_run["cases"], abs=0.01)
    # The other way round everything that regressed has improved, and nothing regressed.
    back = compare_runs(b, a)
    assert not back.regressed
    assert {t.task: t.change for t in back.tasks}["locate"] == "improved"
    assert back.now_perfect == [victim["key"]] and back.judge_now_passing == [victim["key"]]


def test_a_real_worse_run_regresses(
    tmp_path: Path, oracle_run: dict[str, Any], hostile_run: dict[str, Any]
) -> None:
    a = read_run(_save(tmp_path, "a.json", oracle_run))
    b = read_run(_save(tmp_path, "b.json", hostile_run))
    comparison = compare_runs(a, b)
    assert comparison.regressed
    assert comparison.now_imperfect  # the oracle read them all perfectly
    assert comparison.judge == {"before": 1.0, "after": 0.0}
    table = comparison.table()
    assert "regressed:" in table and "judge pass rate" in table


def test_cases_only_in_one_run_are_listed_not_regressions(
    tmp_path: Path, oracle_run: dict[str, Any]
) -> None:
    fewer = copy.deepcopy(oracle_run)
    gone = fewer["results"].pop()
    a = read_run(_save(tmp_path, "a.json", oracle_run))
    b = read_run(_save(tmp_path, "b.json", fewer))
    comparison = compare_runs(a, b)
    assert comparison.removed == [gone["key"]] and not comparison.regressed


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "is not JSON"),
        ("[1, 2]", "is not a run file"),
        ('{"format": "other"}', "is not a run file"),
        ('{"format": "turnframe-eval-run/1", "model": "m"}', "effort"),
    ],
)
def test_a_file_that_is_not_a_run_is_one_usage_error(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(UsageError, match=message) as caught:
        read_run(path)
    assert "\n" not in str(caught.value)
    with pytest.raises(UsageError, match="cannot read"):
        read_run(tmp_path / "missing.json")
