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
    code = (
        "import sys, turnframe.core, turnframe.runtime.reduce\n"
        "bad = [m for m in ('asyncio', 'anyio', 'sqlite3', 'pydantic', 'yaml', 'turnframe.store')"
        " if m in sys.modules and m != 'asyncio']\n"
        "import turnframe.core as c\n"
        "print(','.join(bad))\n"
    )
    proc = _run(
        sys.executable,
        "-c",
        "import sys, turnframe.core; print(','.join(m for m in "
        "('anyio', 'sqlite3', 'pydantic', 'yaml', 'turnframe.store', 'turnframe.runtime') "
        "if m in sys.modules))",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "", f"turnframe.core loaded {proc.stdout.strip()}"
    del code
