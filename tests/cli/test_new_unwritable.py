"""``turnframe new --dir`` somewhere that cannot be written is one line, exit 2 (cli/scaffold.py)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.cli import main


@pytest.mark.parametrize("where", ["/proc/nope", "/proc/nope/deeper", "/dev/null/shop"])
def test_an_unwritable_dir_is_one_line_exit_2(
    where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["new", "shop6", "--dir", where]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot write ") and where.split("/")[1] in err
    assert err.count("\n") == 1 and "Traceback" not in err


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    parts=st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True), min_size=1, max_size=3)
)
def test_a_dir_under_a_file_is_refused_and_nothing_is_written(
    parts: list[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    home = tmp_path_factory.mktemp("new")
    blocker = home / "a_file"
    blocker.write_text("x", encoding="utf-8")
    target = blocker.joinpath(*parts)
    assert main(["new", "shop7", "--dir", str(target)]) == 2
    assert sorted(p.name for p in home.iterdir()) == ["a_file"]
    assert blocker.read_text(encoding="utf-8") == "x"
