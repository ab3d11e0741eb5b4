"""``benchmarks/directory_lookup.py`` refuses bad arguments with a usage error, not a traceback.

A size that is not an integer, a size below 2, ``--repeat 0`` (no samples, so no median)
and a store that is not ``sqlite``/``postgres`` each exit with argparse's status 2
before any store opens.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "directory_lookup.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("directory_lookup", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--sizes", "x"], "--sizes"),
        (["--sizes", "0"], "--sizes"),
        (["--sizes", "10", "--repeat", "0"], "--repeat"),
        (["--sizes", "10", "--stores", "mysql"], "--stores"),
    ],
)
def test_bad_arguments_are_a_usage_error(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    module = _load()
    monkeypatch.setattr(sys, "argv", ["directory_lookup.py", *argv])
    with pytest.raises(SystemExit) as exited:
        module.main()
    assert exited.value.code == 2
    assert says in capsys.readouterr().err
