"""Shared helpers of the shipped evaluation set tests (docs/eval-sets.md).

Every directory under ``eval/`` holding YAML files is a shipped set; the tests find them
here so a new set is covered the day it is added.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import turnframe.eval.run as eval_run
from turnframe.eval import EvalReport, run_eval
from turnframe.testing.scenario.model import ScenarioModel

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


@dataclass
class Ran:
    """What one case ran with: its sample, its locale, and its last turn's reply blocks."""

    sample: str | None
    locale: str
    blocks: list[tuple[str, str]] = field(default_factory=list)
    """``(kind, text)`` of each block of the message's reply."""


def spy_cases(monkeypatch: pytest.MonkeyPatch) -> dict[str, Ran]:
    """Wrap the scenario runner the harness calls; return, per case id, what it ran with.

    Every turn of a case must run in the scenario's locale (its ``before`` turns too).
    """
    seen: dict[str, Ran] = {}
    real: Callable[..., Any] = eval_run.run_scenario

    async def spying(scenario: ScenarioModel, name: str, **kwargs: Any) -> Any:
        ran = seen[scenario.name] = Ran(scenario.sample, scenario.locale)
        on_turn = kwargs["on_turn"]

        async def watching(run_: Any, number: int, turn: Any, result: Any) -> None:
            assert (turn.locale or scenario.locale) == scenario.locale
            ran.blocks = [(b.kind, b.text) for b in result.blocks if getattr(b, "text", "")]
            await on_turn(run_, number, turn, result)

        return await real(scenario, name, **{**kwargs, "on_turn": watching})

    monkeypatch.setattr(eval_run, "run_scenario", spying)
    return seen
