"""``turnframe demo --app``: an application's tour; travel's built-in tour stays the default."""

from __future__ import annotations

import io
from pathlib import Path
from types import ModuleType

import pytest

from turnframe.cli import main
from turnframe.cli.demo import run_demo


def test_demo_plays_the_application_s_tour(tmp_path: Path, trips_app: ModuleType) -> None:
    out = io.StringIO()
    db = tmp_path / "tour.db"
    assert run_demo(db=str(db), locale=None, out=out, app="trips_app:application") == 0
    text = out.getvalue()
    assert "the trips application's tour" in text
    assert "SCRIPTED" in text
    assert 'user: "Rename the Lisbon trip to Lisboa."' in text
    assert "a1: trip.rename on T1 → " in text
    assert "[receipt]" in text
    assert str(db) in text and db.exists()


def test_a_tour_whose_expectations_fail_exits_1(tmp_path: Path, trips_app: ModuleType) -> None:
    tour = Path(trips_app.__file__).with_name("tour.yaml")
    tour.write_text(tour.read_text().replace("{a1: committed}", "{a1: rejected}"))
    out = io.StringIO()
    assert (
        run_demo(db=str(tmp_path / "t.db"), locale=None, out=out, app="trips_app:application") == 1
    )
    assert "expectations did not hold" in out.getvalue()


def test_an_application_without_a_tour_is_told_so(
    tmp_path: Path, trips_app: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["demo", "--app", "trips_app:untoured", "--db", str(tmp_path / "x.db")])
    assert code == 2
    err = capsys.readouterr().err
    assert "the application 'bare' has no tour" in err and "Application.tour" in err
    assert not (tmp_path / "x.db").exists()


def test_demo_app_travel_is_the_travel_tour(tmp_path: Path) -> None:
    out = io.StringIO()
    assert run_demo(db=str(tmp_path / "d.db"), out=out, app="travel") == 0
    assert "Turnframe demo: the travel sample" in out.getvalue()


def test_an_unknown_locale_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--locale", "fr", "--db", str(tmp_path / "d.db")]) == 2
    assert "the travel tour is written in en, pt-PT" in capsys.readouterr().err


def test_an_unknown_app_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--app", "no_such_app_anywhere"]) == 2
    assert "no application 'no_such_app_anywhere'" in capsys.readouterr().err
