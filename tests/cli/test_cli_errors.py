"""Bad input at the command line gets one clear line and exit 2, never a traceback."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from turnframe.cli import main
from turnframe.cli.demo import run_demo

BASE = """name: x
sample: {sample}
today: 2026-05-01
actor: {{account: acme, user: u1}}
records:
  - {{key: T1, workflow: trip, name: Lisbon}}
turns:
  - text: hi
    understanding:
      acts:
        - {{id: a1, operation: {operation}, target: {{handles: [{handle}]}}, args: {{name: Porto}}}}
"""


def _scenario(tmp_path: Path, **kw: str) -> str:
    values = {"sample": "travel", "operation": "trip.rename", "handle": "T1", **kw}
    path = tmp_path / "s.yaml"
    path.write_text(BASE.format(**values), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"sample": "hotels"}, "at sample: no application 'hotels'"),
        ({"handle": "T9"}, "acts[0].target.handles: unknown record key 'T9'"),
        ({"operation": "trip.fly_to_moon"}, "acts[0].operation: unknown operation"),
    ],
)
def test_unknown_names_make_the_file_invalid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, str], where: str
) -> None:
    assert main(["scenario", "run", _scenario(tmp_path, **change)]) == 2
    assert where in capsys.readouterr().out


def test_the_valid_file_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenario", "run", _scenario(tmp_path)]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out


@pytest.mark.parametrize("content", [b"\xa8\xff\x00binary", b"today: 2026-13-45\n"])
def test_unreadable_files_are_invalid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    assert main(["scenario", "run", str(path)]) == 2
    assert "invalid:" in capsys.readouterr().out


def test_the_demo_never_overwrites_an_existing_file(tmp_path: Path) -> None:
    keep = tmp_path / "keep.txt"
    keep.write_text("precious")
    assert run_demo(db=str(keep), out=io.StringIO()) == 2
    assert keep.read_text() == "precious"


def test_postgres_store_without_a_dsn_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TURNFRAME_POSTGRES_DSN", raising=False)
    monkeypatch.delenv("TURNFRAME_TEST_POSTGRES_DSN", raising=False)
    assert main(["scenario", "run", _scenario(tmp_path), "--store", "postgres"]) == 2
    assert "error: no PostgreSQL DSN" in capsys.readouterr().err
