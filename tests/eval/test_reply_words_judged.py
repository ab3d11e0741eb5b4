"""``--reply-model``: a model writes the reply's words, the judge grades them, they cost.

docs/evals.md "Judges and checklists". Needs a scenario runner that takes a reply writer
(``run_scenario(reply_writer=...)``); skipped, saying so, with one that does not.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from turnframe.core.errors import UsageError
from turnframe.eval import JudgeSetup, run_eval
from turnframe.providers.base import ModelRequest
from turnframe.providers.scripted import ScriptedProvider
from turnframe.testing.judge import ScriptedJudge, judge_request_data
from turnframe.testing.scenario.runner import run_scenario

SET_FILE = Path(__file__).resolve().parents[2] / "eval" / "travel" / "01_single_acts.yaml"

pytestmark = pytest.mark.skipif(
    "reply_writer" not in inspect.signature(run_scenario).parameters,
    reason="the scenario runner takes no reply writer yet (run_scenario(reply_writer=...))",
)


def _writer(request: ModelRequest) -> Any:
    data = json.loads(request.messages[1].content)
    if request.task == "acknowledge":
        # The first fact's own words: the only words the word guard lets it use.
        facts = data["data"]["on_screen"] or [data["data"]["ask_next"]]
        return {"sentences": [{"about": [facts[0]["ref"]], "text": facts[0]["text"]}]}
    if request.task == "review":
        return {"checks": dict.fromkeys(data["checklist"], True)}
    return {"text": data["data"]["facts"]}


def test_the_model_s_words_are_judged_and_counted_in_the_cost() -> None:
    judge = ScriptedJudge()
    writer = ScriptedProvider(_writer)
    report = anyio.run(run_eval, SET_FILE, "oracle", "medium", None, JudgeSetup(judge, 1), writer)
    data = report.to_json()
    assert data["reply_model"] == "provider"
    written = 0
    for case, request in zip(data["results"], judge.requests, strict=True):
        receipts = [b["text"] for b in case["reply"] if b["kind"] == "receipt"]
        words = [b for b in case["reply"] if b["kind"] != "receipt" and receipts]
        if any(b["text"].startswith(receipts[0]) for b in words):
            written += 1
            assert judge_request_data(request)["reply"] == case["reply"]
    assert written, "no reply carried the model's acknowledgement"
    assert data["cost"]["reply_calls"] == len(writer.requests) > 0
    for case in data["results"]:
        assert 0 < case["cost"]["reply_calls"] < case["cost"]["calls"]


def test_same_with_the_oracle_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="oracle writes no words"):
        anyio.run(run_eval, SET_FILE, "oracle", "low", None, None, "same")
