"""A new ``turnframe chat`` database starts with the app's own records (docs/chat.md "Records").

The helpdesk example (examples/helpdesk, what ``turnframe new helpdesk`` makes) names its
tour; a new chat database is seeded from the tour's ``records:`` with the app's seeder,
once, and the first screen says so; ``--no-seed`` starts empty.
"""

from __future__ import annotations

import io
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from turnframe.cli import main

ROOT = Path(__file__).resolve().parents[2]
HELPDESK = "helpdesk.app:application"


@pytest.fixture(autouse=True)
def _helpdesk_on_path(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The example on the path for the test only; its modules are forgotten afterwards
    (``turnframe new helpdesk`` refuses a name that is already importable)."""
    before = set(sys.modules)
    monkeypatch.syspath_prepend(str(ROOT / "examples" / "helpdesk" / "src"))
    yield
    for name in set(sys.modules) - before:
        if name.split(".")[0] in ("helpdesk", "desk_without_tour", "desk_bad_tour"):
            del sys.modules[name]


def _chat(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], data: str, *args: str
) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data.encode()), encoding="utf-8"))
    code = main(["chat", "--model", "scripted:example", *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_a_new_database_is_seeded_from_the_tour_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "chat.db")
    code, out = _chat(monkeypatch, capsys, "/records\n", "--app", HELPDESK, "--db", db)
    assert code == 0, out
    assert "Records: seeded 2 from the tour" in out and "01_ambiguity_card.yaml (T1, T2)" in out
    assert out.count("Printer broken") == 2, out  # /records lists the tour's two tickets
    code, out = _chat(monkeypatch, capsys, "/records\n", "--app", HELPDESK, "--db", db)
    assert code == 0 and "Records: 2 already in this database" in out
    assert out.count("Printer broken") == 2, out  # not seeded a second time


def test_no_seed_starts_empty(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "chat.db")
    code, out = _chat(monkeypatch, capsys, "/records\n", "--app", HELPDESK, "--db", db, "--no-seed")
    assert code == 0, out
    assert "Records: none (--no-seed); this database starts empty." in out
    assert "Printer broken" not in out


def _app_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, tour: str) -> str:
    (tmp_path / f"{name}.py").write_text(
        textwrap.dedent(
            f"""
            from helpdesk.app import application as helpdesk

            def application():
                return helpdesk().__class__(
                    name="desk", registry=helpdesk().registry, tour={tour}
                )
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return f"{name}:application"


def test_an_app_without_a_tour_starts_empty_and_says_why(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    spec = _app_module(tmp_path, monkeypatch, "desk_without_tour", "None")
    code, out = _chat(monkeypatch, capsys, "", "--app", spec, "--db", str(tmp_path / "c.db"))
    assert code == 0, out
    assert "Records: none; 'desk' has no tour to seed from" in out


def test_an_invalid_tour_is_a_usage_error_naming_the_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tour = tmp_path / "tour.yaml"
    tour.write_text("name: x\nrecords: [{key: T1, workflow: nope, state: {}}]\nturns: []\n")
    spec = _app_module(tmp_path, monkeypatch, "desk_bad_tour", repr(str(tour)))
    code, out = _chat(monkeypatch, capsys, "", "--app", spec, "--db", str(tmp_path / "c.db"))
    assert code == 2, out
    assert str(tour) in out
