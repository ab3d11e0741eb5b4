"""Shared helpers of the shipped evaluation set tests (docs/eval-sets.md).

Every directory under ``eval/`` holding YAML files is a shipped set; the tests find them
here so a new set is covered the day it is added.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from turnframe.eval import EvalReport, run_eval

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT / "eval"
EFFORTS = ("low", "medium", "high")
NEW_SETS = ("expenses", "travel-pt")
"""The sets issue 13 ships beside ``travel`` (each must hold 25 cases or more)."""


def shipped_sets() -> list[Path]:
    """Return every set directory under ``eval/`` (one holding ``*.yaml`` files), sorted."""
    return sorted(d for d in EVAL.iterdir() if d.is_dir() and any(d.rglob("*.yaml")))


def run(path: Path | str, model: str, effort: str = "medium") -> EvalReport:
    """Run the set at ``path`` with ``model`` at ``effort`` and return its report."""
    return asyncio.run(run_eval(path, model, effort))
