"""``turnframe serve`` and ``turnframe demo --web`` on a real uvicorn (docs/serving.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from turnframe.cli import main

UNTOURED = (
    "import dataclasses\n"
    "from turnframe.samples.expenses import expenses_application\n"
    "application = dataclasses.replace(expenses_application(), tour=None)\n"
)


@pytest.fixture(autouse=True)
def untoured_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Put ``untoured_app:application`` (the expenses sample without its tour) on the path."""
    home = tmp_path / "untoured"
    home.mkdir()
    (home / "untoured_app.py").write_text(UNTOURED, encoding="utf-8")
    monkeypatch.syspath_prepend(str(home))
    monkeypatch.delitem(sys.modules, "untoured_app", raising=False)


def test_serve_prints_its_line_and_answers(tmp_path: Path, running: Any) -> None:
    db = tmp_path / "serve.db"
    with running("serve", "--db", str(db), "--port", "0", log=tmp_path / "err") as (base, line):
        assert "model tour" in line and str(db) in line
        assert httpx.get(f"{base}/healthz", timeout=10).json() == {"status": "ok"}
        turn = httpx.post(
            f"{base}/v1/conversations/c1/turns",
            json={"text": "Add a seat to the Lisbon trip."},
            headers={"Accept": "text/event-stream", "Idempotency-Key": "cli-1"},
            timeout=20,
        )
        assert "event: blocks" in turn.text and "event: finished" in turn.text


def test_demo_web_serves_the_tour_with_its_suggestions(tmp_path: Path, running: Any) -> None:
    with running("demo", "--web", "--port", "0", "--db", str(tmp_path / "d.db")) as (base, _):
        session = httpx.get(f"{base}/v1/session", timeout=10).json()
        assert len(session["suggestions"]) == 6 and session["actor"]["user"] == "maria"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--workers", "2"], "--workers > 1 needs --store postgres"),
        (["--host", "0.0.0.0"], "loopback"),
        (["--auth", "no_such_module:x"], "--auth"),
        (["--app", "no_such_app_xyz"], "no_such_app_xyz"),
        (["--locale", "xx"], "--locale"),
        (["--store", "postgres"], "--dsn"),
        (["--app", "untoured_app:application", "--model", "tour"], "has no tour"),
        (["--model", "scripted:/no/such/file.yaml"], "/no/such/file.yaml"),
        # a closed loopback port: the database cannot be reached at start-up
        (["--store", "postgres", "--dsn", "postgresql://postgres@127.0.0.1:9/x"], "127.0.0.1:9"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    args: list[str],
    says: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TURNFRAME_POSTGRES_DSN", raising=False)
    code = main(["serve", "--db", str(tmp_path / "x.db"), *args])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: ") and says in err and err.count("\n") == 1


def test_a_worker_builds_the_same_app_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from starlette.applications import Starlette

    from turnframe.cli.serve import SECRET_VAR, SETTINGS_VAR, worker_app
    from turnframe.core.errors import UsageError

    monkeypatch.delenv(SETTINGS_VAR, raising=False)
    with pytest.raises(UsageError, match=SETTINGS_VAR):
        worker_app()
    settings = {"app": "travel", "db": str(tmp_path / "w.db"), "model": "tour"}
    monkeypatch.setenv(SETTINGS_VAR, json.dumps(settings))
    monkeypatch.setenv(SECRET_VAR, "ab" * 32)
    app = worker_app()
    assert isinstance(app, Starlette)
    token = app.state.turnframe_csrf.mint()
    from turnframe.serve.http import CsrfTokens

    assert CsrfTokens(bytes.fromhex("ab" * 32)).valid(token)  # the shared secret
    assert len(app.state.turnframe_suggestions) == 6
    monkeypatch.setenv(SETTINGS_VAR, json.dumps({**settings, "unknown": 1}))
    with pytest.raises(UsageError, match="malformed"):
        worker_app()


def test_demo_web_of_an_app_without_a_tour_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["demo", "--web", "--app", "untoured_app:application", "--db", str(tmp_path / "e.db")]
    )
    assert code == 2 and "has no tour" in capsys.readouterr().err


def test_without_the_serve_extra_the_import_and_the_command_name_it() -> None:
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "sys.modules['starlette'] = None\n"
        "try:\n"
        "    import turnframe.serve.app\n"
        "except ImportError as exc:\n"
        "    assert 'turnframe[serve]' in str(exc), exc\n"
        "else:\n"
        "    raise SystemExit('turnframe.serve imported without starlette')\n"
        "from turnframe.cli import main\n"
        "code = main(['serve', '--port', '0', '--db', sys.argv[1]])\n"
        "print('exit', code)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, "/nonexistent/x.db"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.stdout.strip() == "exit 2", proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1 and 'pip install "turnframe[serve]"' in proc.stderr
