"""Judge votes on a reply: majority per check, every vote kept, malformed answers are votes.

docs/evals.md "Judges and checklists".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core.errors import UsageError
from turnframe.eval import run_eval
from turnframe.eval.dataset import EvalCase
from turnframe.eval.judge import (
    DEFAULT_CHECKS,
    JudgeResult,
    ReplyView,
    checklist,
    judge_provider,
    judge_reply,
)
from turnframe.eval.run import JudgeSetup
from turnframe.testing.judge import ScriptedJudge, judge_request_data

SET = Path(__file__).resolve().parents[2] / "eval" / "travel"
VIEW = ReplyView(
    message="Add insurance to the Porto trip",
    locale="en",
    reply=({"kind": "receipt", "text": "Added insurance to trip Porto."},),
    committed=("Added insurance to trip Porto.",),
)
CHECKS = {c: DEFAULT_CHECKS[c] for c in ("claims_only_committed", "no_untouched_record")}


def _judge(script: list[Any], votes: int = 3) -> tuple[JudgeResult, ScriptedJudge]:
    provider = ScriptedJudge(script)
    return anyio.run(judge_reply, provider, VIEW, CHECKS, votes), provider


def test_a_unanimous_judge_passes_and_every_vote_is_recorded() -> None:
    result, provider = _judge([True])
    data = result.to_json()
    assert data["passed"] is True and data["valid_votes"] == 3
    assert [v["vote"] for v in data["votes"]] == [0, 1, 2]
    assert all(v["checks"].keys() == CHECKS.keys() for v in data["votes"])
    assert sorted(provider.votes_seen) == [0, 1, 2]
    assert data["calls"] == 3


def test_a_split_vote_two_to_one_is_decided_by_the_majority_and_keeps_the_minority() -> None:
    result, _ = _judge([True, True, {"claims_only_committed": False}])
    data = result.to_json()
    assert data["verdicts"] == {"claims_only_committed": True, "no_untouched_record": True}
    assert data["passed"] is True
    minority = data["votes"][2]["checks"]["claims_only_committed"]
    assert minority == {"holds": False, "reason": "scripted: fails"}
    # The other way round: two votes say it fails, so it fails.
    result, _ = _judge([{"claims_only_committed": False}, True, {"claims_only_committed": False}])
    assert result.verdicts()["claims_only_committed"] is False
    assert result.passed is False


def test_a_malformed_answer_is_an_invalid_vote_after_one_repair_not_a_crash() -> None:
    result, provider = _judge(["{not json", True, True])
    data = result.to_json()
    bad = data["votes"][0]
    assert bad["valid"] is False and bad["checks"] == {} and bad["error"]
    assert data["valid_votes"] == 2 and data["passed"] is True
    # Vote 0 was read twice (the first read and its repair round); the others once.
    assert sorted(provider.votes_seen) == [0, 0, 1, 2]
    verdicts = [c["verdict"] for c in result.calls]
    assert sum(v.startswith("invalid") for v in verdicts) == 2


def test_a_schema_valid_json_missing_a_check_is_invalid_too() -> None:
    answer = json.dumps({"checks": {"claims_only_committed": {"holds": True, "reason": "x"}}})
    result, _ = _judge([answer], votes=1)
    assert result.votes[0].valid is False
    assert "no_untouched_record" in (result.votes[0].error or "")
    assert result.passed is None


def test_a_tie_among_the_valid_votes_is_no_majority_for_holds() -> None:
    result, _ = _judge(["{bad", True, False])
    assert result.valid_votes == 2
    assert result.passed is False


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from([True, False, "{malformed"]), min_size=1, max_size=7),
    st.integers(min_value=1, max_value=7),
)
def test_the_verdict_is_the_majority_of_the_valid_votes(script: list[Any], votes: int) -> None:
    result, _ = _judge(script, votes)
    entries = [script[n % len(script)] for n in range(votes)]
    valid = [e for e in entries if isinstance(e, bool)]
    assert len(result.votes) == votes
    assert [v.valid for v in result.votes] == [isinstance(e, bool) for e in entries]
    want = None if not valid else 2 * sum(valid) > len(valid)
    assert result.passed is want


def test_a_run_with_a_judge_records_every_vote_of_every_reply() -> None:
    provider = ScriptedJudge([True, {"no_untouched_record": False}, True])
    judge = JudgeSetup(provider, votes=3)
    report = anyio.run(run_eval, SET / "03_cards_and_answers.yaml", "oracle", "low", None, judge)
    data = report.to_json()
    assert data["judge"]["judged"] == data["cases"] == len(data["results"])
    assert data["judge"]["split_replies"] == data["cases"]
    assert data["judge"]["pass_rate"] == 1.0
    for case in data["results"]:
        assert len(case["judge"]["votes"]) == 3
        assert case["judge"]["votes"][1]["checks"]["no_untouched_record"]["holds"] is False
    assert data["judge"]["calls"] == len(provider.requests) == 3 * data["cases"]


def test_the_judge_sees_the_reply_and_the_message_only() -> None:
    provider = ScriptedJudge()
    anyio.run(run_eval, SET / "02_multi_acts.yaml", "oracle", "low", None, JudgeSetup(provider, 1))
    assert provider.requests
    for request in provider.requests:
        data = judge_request_data(request)
        assert set(data) == {"message", "locale", "reply", "committed", "not_done", "checklist"}
        text = request.messages[1].content
        # Record fields the reply never shows (a traveler's birth date, record keys).
        assert "1980-04-02" not in text and "birth_date" not in text
        assert '"T1"' not in text and "handle" not in text


def test_the_checklist_adds_what_applies_and_the_case_s_own_checks() -> None:
    case = EvalCase.model_validate(
        {
            "id": "x",
            "text": "what's in the June trip?",
            "questions": [{"unit": "what's in the June trip?", "topic": "trip_summary"}],
            "checks": {"names_the_trip": "The reply names the June trip."},
        }
    )
    refused = ReplyView(message="m", locale="en", not_done=("Not done: no such trip.",))
    checks = checklist(case, refused)
    assert list(checks) == [
        "claims_only_committed",
        "refusals_stay_refusals",
        "answers_each_question",
        "no_untouched_record",
        "names_the_trip",
    ]
    bad = case.model_copy(update={"checks": {"Bad Id!": "x"}})
    with pytest.raises(UsageError, match="check id"):
        checklist(bad, refused)


def test_votes_out_of_range_and_a_bad_script_file_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="votes"):
        anyio.run(judge_reply, ScriptedJudge(), VIEW, CHECKS, 0)
    script = tmp_path / "judge.yaml"
    script.write_text("script: [1, 2]\n")
    with pytest.raises(UsageError, match="judge script"):
        judge_provider(f"scripted-judge:{script}")
    script.write_text("[true, {claims_only_committed: false}, '{oops']\n")
    assert isinstance(judge_provider(f"scripted-judge:{script}"), ScriptedJudge)


def test_a_bad_case_check_stops_the_run_before_any_case_runs(tmp_path: Path) -> None:
    text = (SET / "01_single_acts.yaml").read_text(encoding="utf-8")
    marker = "\n  - id: "
    first, rest = text.split(marker, 1)
    head, tail = rest.split("\n", 1)
    bad = f"{first}{marker}{head}\n    checks: {{'Not An Id': 'x'}}\n{tail}"
    path = tmp_path / "bad.yaml"
    path.write_text(bad, encoding="utf-8")
    provider = ScriptedJudge()
    with pytest.raises(UsageError, match="check id"):
        anyio.run(run_eval, path, "oracle", "low", None, JudgeSetup(provider, 1))
    assert provider.requests == []


def test_a_judge_without_structured_output_is_refused_up_front() -> None:
    from turnframe.providers.base import Capabilities
    from turnframe.providers.errors import CapabilityMissing
    from turnframe.providers.scripted import ScriptedProvider

    loose = ScriptedProvider({}, capabilities=Capabilities(structured_output=False))
    with pytest.raises(CapabilityMissing):
        JudgeSetup(loose, 3)


def test_a_rule_decides_a_check_from_what_the_judge_was_shown() -> None:
    def committed(data: Any) -> tuple[bool, str]:
        return bool(data["committed"]), f"{len(data['committed'])} receipt(s) shown"

    provider = ScriptedJudge(rules={"claims_only_committed": committed}, default=False)
    result = anyio.run(judge_reply, provider, VIEW, CHECKS, 1)
    vote = result.votes[0]
    assert vote.checks["claims_only_committed"] == {"holds": True, "reason": "1 receipt(s) shown"}
    assert vote.checks["no_untouched_record"]["holds"] is False  # the default decides
    empty = ReplyView(message="m", locale="en")
    result = anyio.run(judge_reply, provider, empty, CHECKS, 1)
    assert result.votes[0].checks["claims_only_committed"]["holds"] is False


def test_a_judge_that_takes_no_temperature_nor_seed_is_asked_once() -> None:
    from turnframe.providers.base import Capabilities

    provider = ScriptedJudge(capabilities=Capabilities(temperature=False, seed=False))
    result = anyio.run(judge_reply, provider, VIEW, CHECKS, 3)
    assert len(provider.requests) == 1 and len(result.votes) == 1
    assert result.collapsed == 2 and result.to_json()["collapsed_votes"] == 2
    assert result.passed is True
