"""``eval compare``: what regressed and improved between two saved runs.

docs/evals.md "Comparing two runs".
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


_SCORE = st.floats(min_value=0.0, max_value=1.0, allow_nan=False).map(lambda x: round(x, 4))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(_SCORE, _SCORE, _SCORE, st.booleans(), st.booleans()), min_size=9, max_size=9
    ),
    st.floats(min_value=0.0, max_value=1.0).map(lambda x: round(x, 4)),
)
def test_what_regressed_one_way_improved_the_other(
    tmp_path_factory: pytest.TempPathFactory,
    oracle_run: dict[str, Any],
    changes: list[tuple[float, float, float, bool, bool]],
    pass_rate: float,
) -> None:
    other = copy.deepcopy(oracle_run)
    for score, (p, r, f, perfect, passed), case in zip(
        other["tasks"].values(), changes, other["results"], strict=False
    ):
        score.update(precision=p, recall=r, f1=f)
        case["perfect"] = perfect
        case["judge"]["passed"] = passed
    other["judge"]["pass_rate"] = pass_rate
    tmp = tmp_path_factory.mktemp("runs")
    a = read_run(_save(tmp, "a.json", oracle_run))
    b = read_run(_save(tmp, "b.json", other))
    forward, back = compare_runs(a, b), compare_runs(b, a)
    assert not compare_runs(b, b).regressed
    flip = {"regressed": "improved", "improved": "regressed", "same": "same"}
    assert [flip[t.change] for t in forward.tasks] == [t.change for t in back.tasks]
    assert forward.now_imperfect == back.now_perfect
    assert forward.judge_now_failing == back.judge_now_passing
    worse = any(t.change == "regressed" for t in forward.tasks) or bool(forward.now_imperfect)
    worse = worse or pass_rate < 1.0 or bool(forward.judge_now_failing)
    assert forward.regressed == worse


@settings(max_examples=40, deadline=None)
@given(
    rename=st.lists(st.booleans(), min_size=1, max_size=40),
    drop_a=st.booleans(),
)
def test_runs_that_share_no_message_are_refused_not_compared(
    tmp_path_factory: pytest.TempPathFactory,
    oracle_run: dict[str, Any],
    rename: list[bool],
    drop_a: bool,
) -> None:
    # B's cases renamed where ``rename`` says (cycling); A keeps its own. Two different
    # sets (expenses against travel-pt) used to print "nothing regressed" and exit 0.
    other = copy.deepcopy(oracle_run)
    for i, case in enumerate(other["results"]):
        if rename[i % len(rename)]:
            case["key"] = "other_set.yaml#" + case["key"]
    base = copy.deepcopy(oracle_run)
    if drop_a:
        base["results"] = []
    tmp = tmp_path_factory.mktemp("runs")
    a = read_run(_save(tmp, "a.json", base))
    b = read_run(_save(tmp, "b.json", other))
    shared = {c["key"] for c in base["results"]} & {c["key"] for c in other["results"]}
    if shared:
        assert compare_runs(a, b).removed == sorted(
            {c["key"] for c in base["results"]} - shared,
            key=[c["key"] for c in base["results"]].index,
        )
    else:
        with pytest.raises(UsageError, match="share no message"):
            compare_runs(a, b)
