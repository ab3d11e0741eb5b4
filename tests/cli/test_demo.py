"""The demo runs offline on SQLite and shows every mechanism of the tour."""

from __future__ import annotations

import io
from pathlib import Path

from turnframe.cli.demo import run_demo


def test_demo_runs_the_tour_on_sqlite(tmp_path: Path) -> None:
    out = io.StringIO()
    db = tmp_path / "demo.db"
    assert run_demo(db=str(db), out=out) == 0
    text = out.getvalue()
    assert "SCRIPTED" in text
    assert "[card select_target" in text and "[card confirm" in text
    assert "trip.add_extra on T2 → committed" in text
    assert "That card was already answered" in text
    assert "manifest.submit on D1 → rejected:do_not_submit" in text
    assert "a1: trip.rename → superseded" in text
    assert str(db) in text
    assert db.exists()
    assert "model calls: 1" not in text


def test_demo_in_portuguese(tmp_path: Path) -> None:
    out = io.StringIO()
    assert run_demo(db=str(tmp_path / "pt.db"), locale="pt-PT", out=out) == 0
    assert "A que viagem se referia?" in out.getvalue()


def test_demo_reports_an_unusable_database(tmp_path: Path, capsys: object) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert run_demo(db=str(blocker / "demo.db"), out=io.StringIO()) == 2
