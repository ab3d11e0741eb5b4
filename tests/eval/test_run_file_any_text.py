"""Run files and HTML reports hold any text a model answers (docs/evals.md "Comparing two runs").

A judge (or a reply writer) answers JSON; ``"\\ud800"`` is valid JSON and decodes to a
lone surrogate, which UTF-8 cannot encode. ``--out`` and ``--html`` used to crash with a
``UnicodeEncodeError`` traceback after the whole run, losing the run file. Control
characters in the same texts must not reach the page either.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.cli import main
from turnframe.eval.compare import read_run
from turnframe.eval.report import run_file_text
from turnframe.eval.report_html import render_html

SET_FILE = Path(__file__).resolve().parents[2] / "eval" / "travel" / "03_cards_and_answers.yaml"

# Every code point, lone surrogates and control characters included.
any_text = st.text(st.characters(blacklist_categories=()), max_size=30)
_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def _with(run: dict[str, Any], words: str) -> dict[str, Any]:
    data = copy.deepcopy(run)
    case = data["results"][0]
    case.update(text=words, perfect=False, failures=[words])
    case["reply"] = [{"kind": "notice", "text": words}]
    vote = case["judge"]["votes"][0]
    vote["checks"][next(iter(vote["checks"]))]["reason"] = words
    data["model"] = words
    return data


@settings(max_examples=120, deadline=None)
@given(words=any_text)
def test_a_run_file_keeps_any_text_exactly_and_is_utf_8(
    oracle_run: dict[str, Any], words: str
) -> None:
    data = _with(oracle_run, words)
    text = run_file_text(data)
    text.encode("utf-8")  # never raises
    assert json.loads(text) == data


@settings(max_examples=120, deadline=None)
@given(words=any_text)
def test_the_html_page_encodes_and_holds_no_control_character(
    oracle_run: dict[str, Any], words: str
) -> None:
    page = render_html(_with(oracle_run, words))
    page.encode("utf-8")  # never raises
    assert not _FORBIDDEN.search(page)


def test_a_judge_reason_with_a_lone_surrogate_is_written_and_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = {
        "checks": {
            "claims_only_committed": {"holds": False, "reason": "bad \ud800 \x1b[31m end"},
            "no_untouched_record": {"holds": True, "reason": "ok"},
        }
    }
    script = tmp_path / "judge.json"
    script.write_text(json.dumps([json.dumps(answer)]), encoding="utf-8")
    out, html = tmp_path / "run.json", tmp_path / "run.html"
    code = main(
        ["eval", "run", str(SET_FILE), "--model", "oracle", "--effort", "low"]
        + ["--judge", f"scripted-judge:{script}", "--votes", "1"]
        + ["--out", str(out), "--html", str(html)]
    )
    assert code == 0, capsys.readouterr().err
    reasons = [
        v["checks"]["claims_only_committed"]["reason"]
        for r in json.loads(out.read_text(encoding="utf-8"))["results"]
        for v in r["judge"]["votes"]
        if v["valid"]
    ]
    assert "bad \ud800 \x1b[31m end" in reasons
    assert "bad \ufffd \ufffd[31m end" in html.read_text(encoding="utf-8")
    read_run(out)
    assert main(["eval", "compare", str(out), str(out)]) == 0
