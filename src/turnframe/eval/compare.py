"""Comparing two evaluation runs: what regressed and what improved, per task and per case.

See docs/evals.md "Comparing two runs".

A run file is what ``turnframe eval run --out`` writes (:meth:`EvalReport.to_json`). A
comparison *regresses* when, from run A to run B, a task's F1 falls, a message read
perfectly in A is not in B, the judge's pass rate falls, or a reply the judge passed in A
it does not pass in B. Cost changes are reported, never counted as a regression.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import UsageError
from turnframe.core.ids import JSONObject
from turnframe.eval.report import RUN_FORMAT

__all__ = ["EPSILON", "Comparison", "RunFile", "TaskDelta", "compare_runs", "read_run"]

EPSILON = 0.00005
"""Scores are stored to four decimals; a change smaller than this is no change."""

COST_KEYS = ("calls", "prompt_tokens", "completion_tokens", "critical_path_ms")


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _TaskScore(_Loose):
    precision: float
    recall: float
    f1: float


class _Cost(_Loose):
    calls: int
    prompt_tokens: int
    completion_tokens: int
    critical_path_ms: float


class _Judge(_Loose):
    model: str
    judged: int
    passed: int
    pass_rate: float


class _CaseJudge(_Loose):
    passed: bool | None


class _Case(_Loose):
    key: str
    perfect: bool
    cost: _Cost
    judge: _CaseJudge | None = None


class RunFile(_Loose):
    """The parts of a run file a comparison reads (every other field is ignored)."""

    format: Literal["turnframe-eval-run/1"]
    model: str
    effort: str
    reply_model: str | None = None
    cases: int
    tasks: dict[str, _TaskScore]
    cost: _Cost
    judge: _Judge | None = None
    results: list[_Case]


def read_run(path: str | Path) -> RunFile:
    """Return the run file at ``path``.

    Raises:
        UsageError: one line: unreadable, not JSON, or not a run file (naming the first
            wrong field).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"{path} is not JSON: {str(exc)[:120]}") from None
    if not isinstance(data, dict) or data.get("format") != RUN_FORMAT:
        raise UsageError(
            f"{path} is not a run file of `turnframe eval run --out` (format {RUN_FORMAT})"
        )
    try:
        return RunFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UsageError(f"{path}: {where}: {first['msg']}") from None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TaskDelta:
    """One task's scores in both runs.

    Attributes:
        task: the task.
        before: ``precision``, ``recall``, ``f1`` in run A (``None``: not in A).
        after: the same in run B (``None``: not in B).
    """

    task: str
    before: dict[str, float] | None
    after: dict[str, float] | None

    def delta(self, key: str) -> float:
        """Return B − A for ``key`` (0 when the task is missing from a run)."""
        if self.before is None or self.after is None:
            return 0.0
        return self.after[key] - self.before[key]

    @property
    def change(self) -> str:
        """``regressed`` (F1 fell), ``improved`` (F1 rose), ``same``, ``added`` or ``removed``."""
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        d = self.delta("f1")
        return "regressed" if d < -EPSILON else "improved" if d > EPSILON else "same"


@dataclass(slots=True, kw_only=True)
class Comparison:
    """What changed from run A to run B (see the module docstring for "regressed").

    Attributes:
        before: run A's header (model, effort, messages).
        after: run B's header.
        tasks: per-task scores.
        now_imperfect: cases read perfectly in A and not in B.
        now_perfect: cases read perfectly in B and not in A.
        added: cases only in B.
        removed: cases only in A.
        judge: pass rates (``None`` unless both runs had a judge).
        judge_now_failing: replies the judge passed in A and not in B.
        judge_now_passing: replies the judge passed in B and not in A.
        cost: per-message averages of A and B for each :data:`COST_KEYS`.
    """

    before: JSONObject
    after: JSONObject
    tasks: list[TaskDelta] = field(default_factory=list)
    now_imperfect: list[str] = field(default_factory=list)
    now_perfect: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    judge: dict[str, float] | None = None
    judge_now_failing: list[str] = field(default_factory=list)
    judge_now_passing: list[str] = field(default_factory=list)
    cost: dict[str, tuple[float, float]] = field(default_factory=dict)

    def regressions(self) -> list[str]:
        """Return what regressed, one phrase each (empty: nothing regressed)."""
        out = [
            f"task {t.task} (F1 {t.delta('f1'):+.3f})"
            for t in self.tasks
            if t.change == "regressed"
        ]
        if self.now_imperfect:
            out.append(f"{len(self.now_imperfect)} case(s) no longer read perfectly")
        if self.judge is not None and self.judge["after"] < self.judge["before"] - EPSILON:
            out.append(f"judge pass rate ({self.judge['after'] - self.judge['before']:+.1%})")
        if self.judge_now_failing:
            out.append(f"{len(self.judge_now_failing)} reply(ies) no longer pass the judge")
        return out

    @property
    def regressed(self) -> bool:
        """Whether anything regressed (``eval compare`` then exits 1)."""
        return bool(self.regressions())

    def to_json(self) -> dict[str, Any]:
        """Return the comparison as one JSON object."""
        return {
            "before": dict(self.before),
            "after": dict(self.after),
            "regressed": self.regressed,
            "regressions": self.regressions(),
            "tasks": {
                t.task: {
                    "change": t.change,
                    "before": t.before,
                    "after": t.after,
                    "delta": {k: round(t.delta(k), 4) for k in ("precision", "recall", "f1")},
                }
                for t in self.tasks
            },
            "cases": {
                "now_imperfect": self.now_imperfect,
                "now_perfect": self.now_perfect,
                "added": self.added,
                "removed": self.removed,
            },
            "judge": None
            if self.judge is None
            else {
                **self.judge,
                "delta": round(self.judge["after"] - self.judge["before"], 4),
                "now_failing": self.judge_now_failing,
                "now_passing": self.judge_now_passing,
            },
            "cost_per_message": {
                k: {"before": a, "after": b, "delta": round(b - a, 2)}
                for k, (a, b) in self.cost.items()
            },
        }

    def table(self) -> str:
        """Return the comparison as a text table (long case lists cut; ``--json`` has all)."""
        a, b = self.before, self.after

        def head(run: JSONObject) -> str:
            words = f" · words by {run['reply_model']}" if run.get("reply_model") else ""
            return f"{run['model']} · effort {run['effort']} · {run['cases']} messages{words}"

        lines = [
            f"A: {head(a)}",
            f"B: {head(b)}",
            "",
            f"{'task':<12} {'ΔP':>7} {'ΔR':>7} {'F1 A':>6} {'F1 B':>6} {'ΔF1':>7}  change",
        ]
        for t in self.tasks:
            f1a = f"{t.before['f1']:.3f}" if t.before else "-"
            f1b = f"{t.after['f1']:.3f}" if t.after else "-"
            lines.append(
                f"{t.task:<12} {t.delta('precision'):>+7.3f} {t.delta('recall'):>+7.3f} "
                f"{f1a:>6} {f1b:>6} {t.delta('f1'):>+7.3f}  {t.change}"
            )
        lines.append("")
        for label, keys in (
            ("perfect → imperfect", self.now_imperfect),
            ("imperfect → perfect", self.now_perfect),
            ("only in A", self.removed),
            ("only in B", self.added),
        ):
            lines.append(f"{label}: {_names(keys)}")
        if self.judge is not None:
            j = self.judge
            lines += [
                "",
                f"judge pass rate: {j['before']:.1%} → {j['after']:.1%} "
                f"({(j['after'] - j['before']) * 100:+.1f} points)",
                f"judge passing → failing: {_names(self.judge_now_failing)}",
                f"judge failing → passing: {_names(self.judge_now_passing)}",
            ]
        lines += ["", "cost per message (A → B):"]
        for key, (x, y) in self.cost.items():
            lines.append(f"  {key:<18} {x:>10.2f} → {y:>10.2f}  ({y - x:+.2f})")
        found = self.regressions()
        lines += ["", f"regressed: {'; '.join(found)}" if found else "nothing regressed"]
        return "\n".join(lines)


def _names(keys: list[str], limit: int = 6) -> str:
    """Return ``keys`` for the table: ``none``, or the first ``limit`` and how many more."""
    if not keys:
        return "none"
    shown = ", ".join(keys[:limit])
    return shown if len(keys) <= limit else f"{shown} … and {len(keys) - limit} more"


def compare_runs(before: RunFile, after: RunFile) -> Comparison:
    """Return what changed from run ``before`` (A) to run ``after`` (B).

    Raises:
        UsageError: the runs share no message (``file#id``): runs of two different sets,
            or an empty run, have nothing to compare, and their task scores would be
            compared over different messages.
    """
    if not {c.key for c in before.results} & {c.key for c in after.results}:
        raise UsageError(
            "the two runs share no message (file#id): they are runs of different sets, "
            "so there is nothing to compare"
        )

    def head(run: RunFile) -> JSONObject:
        return {
            "model": run.model,
            "effort": run.effort,
            "reply_model": run.reply_model,
            "cases": run.cases,
        }

    def scores(s: _TaskScore | None) -> dict[str, float] | None:
        return None if s is None else {"precision": s.precision, "recall": s.recall, "f1": s.f1}

    names = list(before.tasks) + [t for t in after.tasks if t not in before.tasks]
    out = Comparison(
        before=head(before),
        after=head(after),
        tasks=[
            TaskDelta(task=t, before=scores(before.tasks.get(t)), after=scores(after.tasks.get(t)))
            for t in names
        ],
    )
    a = {c.key: c for c in before.results}
    b = {c.key: c for c in after.results}
    out.removed = [k for k in a if k not in b]
    out.added = [k for k in b if k not in a]
    both = [k for k in a if k in b]
    out.now_imperfect = [k for k in both if a[k].perfect and not b[k].perfect]
    out.now_perfect = [k for k in both if b[k].perfect and not a[k].perfect]
    if before.judge is not None and after.judge is not None:
        out.judge = {"before": before.judge.pass_rate, "after": after.judge.pass_rate}

        def passed(case: _Case) -> bool:
            return case.judge is not None and case.judge.passed is True

        judged = [k for k in both if a[k].judge is not None and b[k].judge is not None]
        out.judge_now_failing = [k for k in judged if passed(a[k]) and not passed(b[k])]
        out.judge_now_passing = [k for k in judged if passed(b[k]) and not passed(a[k])]
    out.cost = {
        k: (
            round(float(getattr(before.cost, k)) / max(before.cases, 1), 2),
            round(float(getattr(after.cost, k)) / max(after.cases, 1), 2),
        )
        for k in COST_KEYS
    }
    return out
