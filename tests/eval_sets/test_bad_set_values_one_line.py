"""A set file the scenario runner refuses is one line, exit 2, before any case runs.

docs/eval-sets.md "Writing a case"; COMMON rule: CLI errors are one line, exit 2.

The set format checks its own fields, but each case is then built into a scenario
(``today``, the ``results`` statuses, the ``before`` turns...), and a value the
scenario refuses used to escape as a pydantic traceback in the middle of the run. A
YAML syntax error used to print PyYAML's eight-line message.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.cli import main
from turnframe.core.errors import UsageError
from turnframe.eval import run_eval

HEAD = "sample: expenses\nactor: {account: acme, user: u1, roles: [employee]}\n"
GOOD = "  - {id: ok1, text: 'Open an expense report called Rome workshop'}\n"


def _file(tmp: Path, today: str, case: str) -> Path:
    path = tmp / "set.yaml"
    path.write_text(f"{HEAD}today: {today}\ncases:\n{GOOD}{case}", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("today", "case", "where"),
    [
        ("notadate", "", "today"),
        ("2026-05-01", "  - {id: b1, text: hi, results: {a1: bogus_status}}\n", "results"),
        ("2026-05-01", "  - {id: b2, text: hi, before: [{bogus: 1}]}\n", "turns"),
        ("2026-05-01", "  - {id: b3, text: hi\n", "line"),
    ],
)
def test_a_value_the_scenario_refuses_is_one_line_exit_2_before_any_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], today: str, case: str, where: str
) -> None:
    path = _file(tmp_path, today, case)
    assert main(["eval", "run", str(path), "--model", "oracle"]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # the good case before it did not run either
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert where in err and "Traceback" not in err


@settings(max_examples=12, deadline=None)
@given(
    today=st.text(st.characters(codec="ascii", exclude_characters="'\\\n\r"), max_size=12),
    status=st.text(st.characters(codec="ascii", exclude_characters="'\\\n\r"), max_size=16),
)
def test_any_today_or_result_status_runs_or_is_one_usage_error(
    tmp_path_factory: pytest.TempPathFactory, today: str, status: str
) -> None:
    case = f"  - {{id: b1, text: hi, results: {{a1: '{status}'}}}}\n"
    path = _file(tmp_path_factory.mktemp("set"), f"'{today}'", case)
    try:
        anyio.run(run_eval, path, "oracle", "low")
    except UsageError as exc:
        assert "\n" not in str(exc)
