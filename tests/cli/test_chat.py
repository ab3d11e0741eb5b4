"""``turnframe chat`` without a key, honestly (docs/chat.md).

The first screen, the shipped script, ``/help`` and ``/records``, the message limit,
input that is not UTF-8, ``--app``, words (not step codes) at low effort, Ctrl-C during
a turn, and exit status 3 from ``chat`` and ``eval run`` when the model is unreachable.
"""

from __future__ import annotations

import io
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.cli import main
from turnframe.cli.chat_input import read_lines
from turnframe.cli.chat_screen import example_script

ROOT = Path(__file__).resolve().parents[2]
EVAL_SET = ROOT / "eval" / "travel" / "01_single_acts.yaml"
SRC = ROOT / "src"


def _stdin(data: bytes) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")


def _chat(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    data: bytes,
    *args: str,
) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", _stdin(data))
    code = main(["chat", *args])
    return code, capsys.readouterr().out


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "chat.db")


def test_the_first_screen_says_how_to_point_at_a_model(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TURNFRAME_MODEL", raising=False)
    assert main(["chat"]) == 2
    out = capsys.readouterr().out
    for words in (
        "scripted:example",
        "turnframe demo",
        "llama-server",
        "vLLM",
        "LM Studio",
        "Ollama",
        "openai-compatible:http://127.0.0.1:8080/v1#MODEL",
        "ollama:MODEL",
        "local:smollm2",
        "anthropic:",
        "TURNFRAME_MODEL",
    ):
        assert words in out, words


def test_help_describes_the_keyless_models(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["chat", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "scripted:example" in out and "hostile" in out and "--max-message-bytes" in out
    assert "--app" in out
    with pytest.raises(SystemExit):
        main(["eval", "run", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "oracle" in out and "3 when one could not" in out


def test_the_shipped_script_plays_a_conversation(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: str
) -> None:
    assert example_script().is_file()
    lines = [
        "Rename the Porto trip to Summer Offsite",
        "cancel   the LISBON trip",  # matched case-insensitively, spaces collapsed
        "1",  # the first Lisbon (a click: no model call)
        "1",  # confirm
        "Start a trip called Oslo Summit",
        "What is the weather?",
        "/records",
        "/help",
    ]
    code, out = _chat(
        monkeypatch, capsys, "\n".join(lines).encode() + b"\n", "--model", "scripted:example",
        "--db", db,
    )  # fmt: skip
    assert code == 0, out
    assert "Type one of these messages" in out and "you> " in out
    assert "Renamed trip Porto to Summer Offsite" in out
    assert "Which trip did you mean?" in out  # two Lisbons: a card, no guess (I8)
    assert "Cancelled trip Lisbon" in out
    assert "Started trip Oslo Summit" in out
    assert "! not in the script; type one of: Rename the Porto trip" in out
    assert "Summer Offsite (Porto)" in out and "Oslo Summit" in out  # /records
    assert "/records   the records you may address" in out  # /help


def test_a_message_over_the_limit_is_refused_and_not_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: str
) -> None:
    just = "é" * 4096  # 8192 bytes in UTF-8: at the default limit, read
    over = "x" * 8193
    code, out = _chat(
        monkeypatch, capsys, f"{over}\n{just}\n".encode(), "--model", "scripted:example",
        "--db", db,
    )  # fmt: skip
    assert code == 0
    refused = [line for line in out.splitlines() if "message refused" in line]
    assert refused == ["you> ! message refused: over 8192 bytes (UTF-8); not run"]
    assert "not in the script" in out  # the 8192-byte message was read (and not scripted)
    assert "[chat-" not in out  # no turn ran
    code, out = _chat(
        monkeypatch, capsys, b"Cancel the Lisbon trip\n", "--model", "scripted:example",
        "--db", db, "--max-message-bytes", "10",
    )  # fmt: skip
    assert "over 10 bytes" in out and "[chat-" not in out
    with pytest.raises(SystemExit):
        main(["chat", "--max-message-bytes", "0"])


def test_bytes_that_are_not_utf8_are_refused_not_crashed_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: str
) -> None:
    data = b"\xff\xfe caf\xe9\nStart a trip called Oslo Summit\n"
    code, out = _chat(monkeypatch, capsys, data, "--model", "scripted:example", "--db", db)
    assert code == 0
    assert out.count("message refused: not valid UTF-8 text; not run") == 1
    assert "Started trip Oslo Summit" in out  # the chat went on


def test_bytes_piped_into_a_real_process(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-m", "turnframe.cli", "chat", "--model", "scripted:example",
         "--db", str(tmp_path / "c.db")],
        input=b"\xc3\x28\n" + b"y" * 9000 + b"\n/quit\n",
        capture_output=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    assert "not valid UTF-8" in out and "over 8192 bytes" in out
    assert "Traceback" not in done.stderr.decode()


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(st.binary(max_size=40).filter(lambda b: b"\n" not in b), max_size=6),
    limit=st.integers(1, 30),
)
def test_read_lines_refuses_exactly_what_is_too_long_or_not_utf8(
    lines: list[bytes], limit: int
) -> None:
    got = list(read_lines(io.BytesIO(b"".join(line + b"\n" for line in lines)), limit))
    assert len(got) == len(lines)
    for line, read in zip(lines, got, strict=True):
        body = line.rstrip(b"\r")
        if len(body) > limit:
            assert read.refused is not None and "over" in read.refused
        else:
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError:
                assert read.refused is not None and "UTF-8" in read.refused
            else:
                assert read.refused is None and read.text == text


def test_app_is_loaded_by_spec(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: str
) -> None:
    code, out = _chat(
        monkeypatch, capsys, b"/records\n", "--app", "turnframe.samples.travel:travel_application",
        "--model", "scripted:example", "--db", db,
    )  # fmt: skip
    assert code == 0 and "Turnframe chat · travel" in out and "Ana Costa" in out
    monkeypatch.setattr(sys, "stdin", _stdin(b""))
    assert main(["chat", "--app", "no_such_module_xyz:app", "--model", "scripted:example"]) == 2
    assert "no_such_module_xyz" in capsys.readouterr().err
    assert main(["eval", "run", str(EVAL_SET), "--model", "oracle", "--app", "nope_xyz:a"]) == 2


def test_low_effort_narration_is_words_not_step_codes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: str
) -> None:
    code, out = _chat(
        monkeypatch, capsys, b"Start a trip called Oslo Summit\n", "--model",
        "scripted:example", "--effort", "low", "--db", db,
    )  # fmt: skip
    steps = [line for line in out.splitlines() if line.lstrip().startswith("·")]
    assert code == 0 and steps
    for line in steps:
        assert "u1" not in line and ":request" not in line and "→" not in line, line


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_eval_run_exits_3_when_the_model_is_unreachable(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("openai")
    model = f"openai-compatible:http://127.0.0.1:{_closed_port()}/v1#m"
    code = main(["eval", "run", str(EVAL_SET), "--model", model, "--effort", "low", "--json"])
    captured = capsys.readouterr()
    assert code == 3
    assert "could not reach the model" in captured.err
    assert '"unreachable_turns": ' in captured.out


def test_chat_exits_3_when_the_model_is_unreachable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: str
) -> None:
    pytest.importorskip("openai")
    model = f"openai-compatible:http://127.0.0.1:{_closed_port()}/v1#m"
    code, out = _chat(monkeypatch, capsys, b"Start a trip\n", "--model", model, "--db", db)
    assert code == 3 and "[chat-" in out


@pytest.fixture
def hanging_server() -> Iterator[int]:
    """A loopback HTTP server that accepts each request and never answers it."""
    release = threading.Event()

    class Hang(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            release.wait(60)

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hang)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        release.set()
        server.shutdown()
        server.server_close()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_cancels_the_running_turn_and_the_chat_goes_on(
    tmp_path: Path, hanging_server: int
) -> None:
    pytest.importorskip("openai")
    db = tmp_path / "c.db"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    model = f"openai-compatible:http://127.0.0.1:{hanging_server}/v1#m"
    child = subprocess.Popen(
        [sys.executable, "-m", "turnframe.cli", "chat", "--model", model, "--db", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    assert child.stdin is not None and child.stdout is not None
    try:
        child.stdin.write(b"Start a trip called Oslo\n")
        child.stdin.flush()
        seen = b""
        deadline = time.monotonic() + 60
        while b"\xc2\xb7 " not in seen and time.monotonic() < deadline:  # a step began
            seen += child.stdout.read1(4096)
        time.sleep(0.5)  # the model call is under way (the server holds it)
        child.send_signal(signal.SIGINT)
        child.stdin.write(b"/quit\n")
        child.stdin.flush()
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    text = (seen + out).decode()
    assert child.returncode == 0, err.decode()
    assert "! cancelled: turn chat-" in text and "nothing was done" in text
    with sqlite3.connect(db) as conn:
        phases = [row[0] for row in conn.execute("SELECT phase FROM turns")]
    assert phases and all(p == "replied" for p in phases), phases


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_at_the_prompt_leaves_at_once(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    child = subprocess.Popen(
        [sys.executable, "-m", "turnframe.cli", "chat", "--model", "scripted:example",
         "--db", str(tmp_path / "c.db")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    assert child.stdout is not None
    try:
        seen = b""
        deadline = time.monotonic() + 60
        while b"you> " not in seen and time.monotonic() < deadline:
            seen += child.stdout.read1(4096)
        child.send_signal(signal.SIGINT)  # stdin stays open: only Ctrl-C can end it
        _out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 130
    assert err.decode().strip().endswith("interrupted")


def test_eval_run_and_replay_take_app(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: str
) -> None:
    spec = "turnframe.samples.travel:travel_application"
    assert main(["eval", "run", str(EVAL_SET), "--model", "oracle", "--app", spec]) == 0
    assert "read perfectly" in capsys.readouterr().out
    code, out = _chat(
        monkeypatch, capsys, b"Start a trip called Oslo Summit\n", "--app", spec,
        "--model", "scripted:example", "--db", db,
    )  # fmt: skip
    turn_id = out.split("[", 1)[1].split(" ·")[0]
    assert main(["replay", turn_id, "--db", db, "--app", spec]) == 0
    assert "the plan is identical" in capsys.readouterr().out


def test_the_example_script_ships_as_package_data() -> None:
    """A wheel holds the script: pyproject's package data names it (not only the source tree)."""
    import fnmatch
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = data["tool"]["setuptools"]["package-data"]["turnframe.cli"]
    relative = example_script().relative_to(SRC / "turnframe" / "cli").as_posix()
    assert any(fnmatch.fnmatch(relative, g) for g in globs), (relative, globs)
