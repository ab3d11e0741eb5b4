"""Saved runs shared by the evaluation tests (each run once per session)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from turnframe.eval import run_eval
from turnframe.eval.run import JudgeSetup
from turnframe.testing.judge import ScriptedJudge

SET_FILE = Path(__file__).resolve().parents[2] / "eval" / "travel" / "03_cards_and_answers.yaml"


@pytest.fixture(scope="session")
def oracle_run() -> dict[str, Any]:
    """The oracle on one set file, judged by a judge that passes every check (3 votes)."""
    report = anyio.run(run_eval, SET_FILE, "oracle", "low", None, JudgeSetup(ScriptedJudge(), 3))
    data: dict[str, Any] = json.loads(json.dumps(report.to_json()))
    return data


@pytest.fixture(scope="session")
def hostile_run() -> dict[str, Any]:
    """The hostile model on the same file, judged by a judge that splits 2–1 against."""
    judge = ScriptedJudge([False, {"claims_only_committed": True}, False])
    report = anyio.run(run_eval, SET_FILE, "hostile:1", "low", None, JudgeSetup(judge, 3))
    data: dict[str, Any] = json.loads(json.dumps(report.to_json()))
    return data
