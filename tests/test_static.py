"""Static gates run by the test command: ruff, mypy (strict on core and runtime), import-linter."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, check=False)


def _tool(name: str) -> str:
    path = shutil.which(name) or str(Path(sys.executable).with_name(name))
    if not Path(path).exists():
        pytest.fail(f"{name} is not installed: run pip install -e '.[dev]'")
    return path


def test_ruff_lint() -> None:
    proc = _run(_tool("ruff"), "check", "src", "tests", "benchmarks")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict_core_and_runtime() -> None:
    proc = _run(sys.executable, "-m", "mypy")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_import_contracts() -> None:
    proc = _run(_tool("lint-imports"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "broken" not in proc.stdout.split("Contracts:")[-1].replace("0 broken", "")


def test_importing_core_loads_no_io_or_async_library() -> None:
    """A fresh interpreter importing ``turnframe.core`` loads no I/O, async or schema library."""
    probe = (
        "import sys, turnframe.core\n"
        "banned = ('anyio', 'sqlite3', 'pydantic', 'yaml', 'dateutil', 'platformdirs',\n"
        "          'turnframe.store', 'turnframe.runtime', 'turnframe.understand')\n"
        "print(','.join(m for m in banned if m in sys.modules))\n"
    )
    proc = _run(sys.executable, "-c", probe)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "", f"turnframe.core loaded {proc.stdout.strip()}"
