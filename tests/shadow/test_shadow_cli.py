"""``turnframe shadow``: exit codes, one-line errors, ``--json``, and no write (docs/shadow.md)."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
import yaml
from shadow_traffic import TURNS, file_digest, row_counts

from turnframe.cli import main

RENAME_SHORT = {
    "segment": {
        "units": [
            {
                "id": "u1",
                "kind": "request",
                "from": 0,
                "to": 6,
                "hypothetical": False,
                "continues": None,
            }
        ]
    },
    "route": {
        "routes": [
            {
                "unit": "u1",
                "operations": ["trip.rename"],
                "topic": None,
                "constraint": None,
                "card": None,
                "corrects": None,
                "cancels": None,
            }
        ]
    },
    "locate": [{"handles": [], "find": {"from": 1, "to": 3, "copy": "the Porto trip"}}],
    "extract": [{"values": [{"argument": "name", "from": 5, "to": 5, "copy": "Summer"}]}],
    "verify": {"verdict": "ok", "grounding": "user", "findings": []},
}


def closed_port() -> int:
    """Return a loopback port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def shadow(capsys: pytest.CaptureFixture[str], db: Path, *extra: str) -> tuple[int, str, str]:
    code = main(["shadow", "--db", str(db), *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_is_one_object_and_a_run_with_differences_exits_0(
    capsys: pytest.CaptureFixture[str], recorded_db: Path, tmp_path: Path
) -> None:
    answers = tmp_path / "short.yaml"
    answers.write_text(yaml.safe_dump(RENAME_SHORT))
    before = file_digest(recorded_db), row_counts(recorded_db)
    code, out, err = shadow(
        capsys, recorded_db, "--model", f"scripted:{answers}", "--turns", "t-rename", "--json"
    )
    assert (code, err) == (0, "")
    data: Any = json.loads(out)
    assert data["model"] == f"scripted:{answers}"
    assert [t["status"] for t in data["turns"]] == ["different"]
    assert data["totals"]["by_dimension"] == {"acts": 1, "targets": 0, "results": 0, "commands": 1}
    code, out, _ = shadow(
        capsys,
        recorded_db,
        "--model",
        f"scripted:{answers}",
        "--turns",
        "t-rename",
        "--fail-on-diff",
    )
    assert code == 1
    assert "turn t-rename: different" in out and "commands + " in out
    assert (file_digest(recorded_db), row_counts(recorded_db)) == before


def test_a_conversation_read_with_its_own_calls_is_all_same(
    capsys: pytest.CaptureFixture[str], recorded_db: Path
) -> None:
    code, out, err = shadow(
        capsys, recorded_db, "--model", "recorded", "--conversation", "c1", "--fail-on-diff"
    )
    assert (code, err) == (0, "")
    for turn in TURNS:
        assert f"turn {turn}: " in out
    assert "5 turns: 3 read, 3 same, 0 different, 0 outside, 2 skipped" in out
    code, out, _ = shadow(
        capsys, recorded_db, "--model", "recorded", "--conversation", "c1", "--last", "1", "--json"
    )
    assert code == 0 and [t["turn_id"] for t in json.loads(out)["turns"]] == ["t-start"]


def test_an_unreachable_model_exits_3_in_one_line_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], recorded_db: Path
) -> None:
    before = file_digest(recorded_db), row_counts(recorded_db)
    spec = f"openai-compatible:http://127.0.0.1:{closed_port()}/v1#some-model"
    code, out, err = shadow(capsys, recorded_db, "--model", spec, "--turns", "t-rename")
    assert code == 3 and out == ""
    assert err.count("\n") == 1 and "could not be reached" in err and "t-rename" in err
    assert (file_digest(recorded_db), row_counts(recorded_db)) == before


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--model", "bogus:x", "--turns", "t-rename"], "unknown model"),
        (["--model", "scripted:/no/such/file.yaml", "--turns", "t-rename"], "cannot read"),
        (["--model", "recorded", "--turns", "t-rename,nope"], "no turn 'nope'"),
        (["--model", "recorded", "--turns", ","], "comma-separated"),
        (["--model", "recorded"], "name the turns"),
        (["--model", "recorded", "--turns", "t-rename", "--conversation", "c1"], "not both"),
        (["--model", "recorded", "--conversation", "c9"], "no replied turn"),
        (["--model", "recorded", "--conversation", "c1", "--last", "0"], "--last"),
        (["--model", "recorded", "--turns", "t-rename", "--dsn", "x"], "--dsn is for"),
        (["--model", "recorded", "--turns", "t-rename", "--account", "globex"], "no turn"),
        (["--model", "recorded", "--turns", "t-rename", "--app", "no_such_app"], "no_such_app"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], recorded_db: Path, argv: list[str], says: str
) -> None:
    before = file_digest(recorded_db)
    code, out, err = shadow(capsys, recorded_db, *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and says in err
    assert file_digest(recorded_db) == before


@pytest.mark.parametrize("model", ["recorded", "hostile:3"])
def test_turns_read_with_another_app_are_a_usage_error_naming_workflow_and_app(
    capsys: pytest.CaptureFixture[str], recorded_db: Path, model: str
) -> None:
    """Turns recorded with travel, read with expenses: refused, not skipped or ``same``."""
    before = file_digest(recorded_db)
    app = "turnframe.samples.expenses:expenses_application"
    code, out, err = shadow(
        capsys, recorded_db, "--model", model, "--turns", ",".join(TURNS), "--app", app
    )
    assert code == 2 and out == "", out
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "'manifest'" in err and "'expenses'" in err and "does not register" in err
    assert file_digest(recorded_db) == before


def test_a_missing_database_is_exit_2_and_is_not_created(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "none.db"
    code, _, err = shadow(capsys, missing, "--model", "recorded", "--turns", "t1")
    assert code == 2 and "no SQLite database" in err and err.count("\n") == 1
    assert not missing.exists()


def test_postgres_needs_a_dsn(capsys: pytest.CaptureFixture[str], recorded_db: Path) -> None:
    code, _, err = shadow(
        capsys, recorded_db, "--store", "postgres", "--model", "recorded", "--turns", "t1"
    )
    assert code == 2 and "--dsn" in err


def test_the_effort_reaches_the_reading(
    capsys: pytest.CaptureFixture[str], recorded_db: Path
) -> None:
    # Read at another effort, the turn's own calls no longer answer every prompt.
    code, out, _ = shadow(
        capsys, recorded_db, "--model", "recorded", "--turns", "t-rename", "--json"
    )
    assert code == 0 and json.loads(out)["turns"][0]["status"] == "same"
    code, out, _ = shadow(
        capsys,
        recorded_db,
        "--model",
        "recorded",
        "--turns",
        "t-rename",
        "--effort",
        "high",
        "--json",
    )
    (turn,) = json.loads(out)["turns"]
    assert code == 0 and turn["status"] == "skipped"
    assert turn["reason"].startswith("the recorded calls do not answer the reading again")
