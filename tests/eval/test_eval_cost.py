"""Cost per message: calls, tokens and critical path equal the turn's call records.

docs/evals.md "Cost per message".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from turnframe.eval import run as eval_run
from turnframe.eval import run_eval
from turnframe.eval.run import JudgeSetup
from turnframe.providers.base import ModelRequest, ModelResponse, Provider
from turnframe.testing.judge import ScriptedJudge

SET_FILE = Path(__file__).resolve().parents[2] / "eval" / "travel" / "01_single_acts.yaml"


class _Counting(Provider):
    """Passes calls to another provider and keeps each response it gave."""

    def __init__(self, inner: Provider, log: list[ModelResponse]) -> None:
        self.inner = inner
        self.profile = inner.profile
        self.log = log

    async def complete(self, request: ModelRequest) -> ModelResponse:
        response = await self.inner.complete(request)
        self.log.append(response)
        return response


def test_each_message_s_cost_is_what_its_calls_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    per_case: list[list[ModelResponse]] = []
    real = eval_run.oracle_provider

    def counting(*args: Any) -> Provider:
        per_case.append([])
        return _Counting(real(*args), per_case[-1])

    monkeypatch.setattr(eval_run, "oracle_provider", counting)
    judge = ScriptedJudge()
    report = anyio.run(run_eval, SET_FILE, "oracle", "medium", None, JudgeSetup(judge, 3))
    data = report.to_json()
    assert len(per_case) == data["cases"] == len(data["results"])
    for case, responses in zip(data["results"], per_case, strict=True):
        cost = case["cost"]
        assert cost["calls"] == len(responses) > 0, case["key"]
        assert cost["prompt_tokens"] == sum(r.usage.prompt_tokens for r in responses)
        assert cost["completion_tokens"] == sum(r.usage.completion_tokens for r in responses)
        assert 0 < cost["critical_path_ms"] <= cost["wall_ms"]
    total = data["cost"]
    for key in ("calls", "prompt_tokens", "completion_tokens"):
        assert total[key] == sum(c["cost"][key] for c in data["results"])
    assert total["critical_path_ms"] == pytest.approx(
        sum(c["cost"]["critical_path_ms"] for c in data["results"]), abs=0.05
    )
    # The judge's calls are its own, never the system's.
    assert data["judge"]["calls"] == len(judge.requests) == 3 * data["cases"]
    assert total["calls"] == sum(len(r) for r in per_case)
    rows = {line.split()[0]: line.split()[1:] for line in report.table().splitlines() if line}
    for case in data["results"]:
        cost = case["cost"]
        assert rows[case["key"]][:3] == [
            str(cost["calls"]),
            str(cost["prompt_tokens"]),
            str(cost["completion_tokens"]),
        ]
    assert rows["total"][:3] == [
        str(total["calls"]),
        str(total["prompt_tokens"]),
        str(total["completion_tokens"]),
    ]
