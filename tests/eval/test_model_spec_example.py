"""``scripted:example`` means the shipped chat script in every command (docs/chat.md).

``turnframe chat`` plays it; ``shadow``, ``eval run`` and the library's
``provider_from_spec`` refuse it in one line saying what it is, and never read a file
named ``example`` instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from turnframe.cli import main
from turnframe.core import UsageError
from turnframe.eval.models import EXAMPLE_SCRIPT, provider_from_spec

TABLE = "segment:\n  units: []\n"
"""A readable answers table, written to a file named ``example`` to prove it is not read."""

SAYS = "is the shipped chat script"


@pytest.fixture
def example_file_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / EXAMPLE_SCRIPT).write_text(TABLE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_library_refuses_it_even_beside_a_file_named_example(example_file_here: Path) -> None:
    with pytest.raises(UsageError, match=SAYS):
        provider_from_spec(f"scripted:{EXAMPLE_SCRIPT}")
    provider_from_spec("scripted:./example")  # the file itself is still reachable by path


@pytest.mark.parametrize(
    "argv",
    [
        ["shadow", "--model", "scripted:example", "--turns", "t1", "--db", "none.db"],
        [
            "eval",
            "run",
            str(Path(__file__).parents[2] / "eval" / "travel"),
            "--model",
            "scripted:example",
        ],
    ],
)
def test_shadow_and_eval_run_say_what_it_is_in_one_line(
    argv: list[str], example_file_here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: ") and err.count("\n") == 1, err
    assert SAYS in err and "turnframe chat" in err


def test_chat_plays_the_shipped_script(
    example_file_here: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO("/quit\n"))
    code = main(["chat", "--model", "scripted:example", "--db", str(example_file_here / "c.db")])
    out = capsys.readouterr().out
    assert code == 0 and "Scripted chat (no model)" in out, out
