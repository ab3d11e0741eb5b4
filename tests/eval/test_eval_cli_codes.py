"""``turnframe eval run --judge --out --html`` and ``eval compare``: files and exit codes.

docs/evals.md "Comparing two runs" (0 nothing regressed, 1 something did, 2 a bad file).
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from turnframe.cli import main

SET_FILE = Path(__file__).resolve().parents[2] / "eval" / "travel" / "03_cards_and_answers.yaml"


def _run(tmp_path: Path, name: str, *extra: str) -> tuple[int, Path]:
    out = tmp_path / f"{name}.json"
    code = main(
        ["eval", "run", str(SET_FILE), "--effort", "low", "--out", str(out), "--json", *extra]
    )
    return code, out


def test_run_writes_the_run_and_the_report_and_compare_exits_by_what_regressed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    html = tmp_path / "report.html"
    code, good = _run(
        tmp_path, "good", "--model", "oracle", "--judge", "scripted-judge", "--html", str(html)
    )
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    saved = json.loads(good.read_text())
    assert printed == saved and saved["format"] == "turnframe-eval-run/1"
    assert saved["judge"]["votes_per_reply"] == 3
    assert html.read_text().startswith("<!DOCTYPE html>")
    script = tmp_path / "judge.json"
    script.write_text(json.dumps([False, False, True]))
    code, bad = _run(tmp_path, "bad", "--model", "hostile:3", "--judge", f"scripted-judge:{script}")
    assert code == 0
    capsys.readouterr()
    assert main(["eval", "compare", str(good), str(good)]) == 0
    assert "nothing regressed" in capsys.readouterr().out
    assert main(["eval", "compare", str(good), str(bad)]) == 1
    assert "regressed:" in capsys.readouterr().out
    assert main(["eval", "compare", str(bad), str(good), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["regressed"] is False and data["judge"]["delta"] == 1.0


def test_compare_exits_2_with_one_line_for_a_bad_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    for args in ([str(bad), str(bad)], [str(tmp_path / "none.json"), str(bad)]):
        assert main(["eval", "compare", *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "extra",
    [
        ["--judge", "no-such-model:x"],
        ["--judge", "scripted-judge:/nonexistent/judge.yaml"],
        ["--out", "/"],
        # An empty value is a mistake, never "no judge" or "no file".
        ["--judge", ""],
        ["--out", ""],
        ["--html", ""],
        # Either the runner takes no reply writer, or the oracle writes no words.
        ["--reply-model", "same"],
    ],
)
def test_run_usage_errors_are_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    assert main(["eval", "run", str(SET_FILE), "--model", "oracle", *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


@pytest.mark.parametrize("votes", ["0", "26", "three"])
def test_votes_out_of_range_is_refused_by_the_parser(
    capsys: pytest.CaptureFixture[str], votes: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["eval", "run", str(SET_FILE), "--model", "oracle", "--votes", votes])
    assert exited.value.code == 2
    assert "--votes" in capsys.readouterr().err


def test_run_exits_3_when_the_judge_is_unreachable(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("openai")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    judge = f"openai-compatible:http://127.0.0.1:{port}/v1#judge"
    code = main(
        ["eval", "run", str(SET_FILE), "--model", "oracle", "--effort", "low"]
        + ["--judge", judge, "--votes", "1", "--json"]
    )
    captured = capsys.readouterr()
    assert code == 3
    assert "the judge" in captured.err and "could not be reached" in captured.err
    data = json.loads(captured.out)
    assert data["judge"]["unreachable_replies"] == data["cases"]
    assert all(not v["valid"] for c in data["results"] for v in c["judge"]["votes"])


@pytest.mark.parametrize("flag", ["--out", "--html"])
def test_an_unwritable_output_path_is_refused_before_any_case_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    # The run would otherwise be made (model calls paid) and its file lost at the end.
    target = tmp_path / "no-such-dir" / "run.json"
    assert main(["eval", "run", str(SET_FILE), "--model", "oracle", flag, str(target)]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # no case ran: no table
    assert err.startswith("error: cannot write ") and err.count("\n") == 1
    assert not target.parent.exists()
