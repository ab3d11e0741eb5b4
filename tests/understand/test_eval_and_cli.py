"""The evaluation set, the oracle, ``turnframe eval run``, ``chat`` and ``replay``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import anyio
import pytest

from turnframe.cli import main
from turnframe.eval import load_set, run_eval

EVAL_SET = Path(__file__).resolve().parents[2] / "eval" / "travel"


def test_the_travel_set_has_at_least_60_messages() -> None:
    cases = [c for _f, data in load_set(EVAL_SET) for c in data.cases]
    assert len(cases) >= 60
    assert len({c.id for c in cases}) == len(cases)


def test_the_oracle_scores_100_percent() -> None:
    report = anyio.run(run_eval, EVAL_SET, "oracle", "low")
    assert report.failures == []
    assert report.perfect == report.cases
    for task, score in report.scores.items():
        assert score.f1 == 1.0, task


def test_eval_run_prints_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "eval",
            "run",
            str(EVAL_SET / "01_single_acts.yaml"),
            "--model",
            "oracle",
            "--effort",
            "low",
            "--json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["tasks"]["acts"]["f1"] == 1.0
    assert {"calls", "prompt_tokens", "model_latency_ms"} <= report["per_turn"].keys()


def test_chat_without_a_model_explains_and_points_to_the_demo(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TURNFRAME_MODEL", raising=False)
    assert main(["chat"]) == 2
    out = capsys.readouterr().out
    assert "TURNFRAME_MODEL" in out and "turnframe demo" in out


def test_chat_turn_then_replay_shows_the_same_plan(tmp_path: Path) -> None:
    import argparse

    from turnframe.cli.chat import run_command

    answers = tmp_path / "answers.json"
    answers.write_text(
        json.dumps(
            {
                "segment": {
                    "units": [
                        {
                            "id": "u1",
                            "kind": "request",
                            "from": 0,
                            "to": 5,
                            "hypothetical": False,
                            "continues": None,
                        }
                    ]
                },
                "route": {
                    "routes": [
                        {
                            "unit": "u1",
                            "operations": ["trip.start"],
                            "topic": None,
                            "constraint": None,
                            "card": None,
                            "corrects": None,
                            "cancels": None,
                        }
                    ]
                },
                "extract": {
                    "values": [{"argument": "name", "from": 4, "to": 5, "copy": "Oslo Summit"}]
                },
                "verify": {"verdict": "ok", "grounding": "user", "findings": []},
            }
        )
    )
    db = str(tmp_path / "chat.db")
    out = io.StringIO()
    args = argparse.Namespace(
        command="chat", model=f"scripted:{answers}", db=db, effort="low", locale="en"
    )
    code = run_command(
        args, stdin=io.StringIO("Start a trip called Oslo Summit\n/inspect\n"), out=out
    )
    text = out.getvalue()
    assert code == 0
    assert "Started trip Oslo Summit" in text
    turn_id = text.split("[", 1)[1].split(" ·")[0]
    replayed = io.StringIO()
    args = argparse.Namespace(command="replay", turn_id=turn_id, db=db, account="acme")
    assert run_command(args, out=replayed) == 0
    assert "the plan is identical" in replayed.getvalue()
    assert "reduction re-run from its recorded inputs; the plan is identical" in (
        replayed.getvalue()
    )


def test_a_merged_low_effort_turn_replays_as_it_was_read(tmp_path: Path) -> None:
    """The trace keeps ``merge``: the replay asks the same merged read (docs/architecture.md)."""
    import argparse

    from turnframe.cli.chat import run_command

    unit = {"id": "u1", "kind": "request", "from": 0, "to": 5, "hypothetical": False}
    value = {"argument": "name", "from": 4, "to": 5, "copy": "Oslo Summit"}
    links = {"topic": None, "constraint": None, "card": None, "corrects": None, "cancels": None}
    act = {"operation": "trip.start", "target": None, "values": [value]}
    answers = tmp_path / "answers.json"
    answers.write_text(
        json.dumps(
            {
                "read": {"units": [{**unit, "continues": None, "acts": [act], **links}]},
                "verify": {"verdict": "ok", "grounding": "user", "findings": []},
            }
        )
    )
    db = str(tmp_path / "chat.db")
    out = io.StringIO()
    args = argparse.Namespace(
        command="chat", model=f"scripted:{answers}", db=db, effort="low", locale="en"
    )
    assert run_command(args, stdin=io.StringIO("Start a trip called Oslo Summit\n"), out=out) == 0
    text = out.getvalue()
    assert "Started trip Oslo Summit" in text
    turn_id = text.split("[", 1)[1].split(" ·")[0]
    replayed = io.StringIO()
    args = argparse.Namespace(command="replay", turn_id=turn_id, db=db, account="acme")
    assert run_command(args, out=replayed) == 0
    assert "2 recorded calls served; the plan is identical" in replayed.getvalue()


def test_numbered_option_is_a_structured_click(tmp_path: Path) -> None:
    import argparse

    from turnframe.cli.chat import run_command

    answers = tmp_path / "answers.yaml"
    answers.write_text("{}")
    out = io.StringIO()
    args = argparse.Namespace(
        command="chat",
        model=f"scripted:{answers}",
        db=str(tmp_path / "c.db"),
        effort="low",
        locale="en",
    )
    assert run_command(args, stdin=io.StringIO("1\n/quit\n"), out=out) == 0
