"""What an evaluation run gave: per-task scores, cost per message, judge results, per case.

See docs/evals.md "Reading the table" and docs/architecture.md "Evaluation".

:meth:`EvalReport.to_json` is the run file ``turnframe eval run --out RUN.json`` writes and
``turnframe eval compare`` reads (``format`` :data:`RUN_FORMAT`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import JSONObject
from turnframe.eval.judge import JudgeResult

__all__ = [
    "RUN_FORMAT",
    "TASKS",
    "CaseCost",
    "CaseResult",
    "EvalReport",
    "Score",
    "run_file_text",
]

RUN_FORMAT = "turnframe-eval-run/1"
"""The ``format`` of a run file; ``eval compare`` refuses any other."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def run_file_text(run: JSONObject) -> str:
    """Return the run file's text for ``run`` (:meth:`EvalReport.to_json`): UTF-8-safe JSON.

    Non-ASCII text stays as it is written, except a lone surrogate (a model may answer
    the JSON escape of U+D800 alone, which UTF-8 cannot encode): it is written as its
    JSON escape, so ``json.loads`` gives back exactly ``run`` (docs/evals.md "Comparing
    two runs"). A surrogate in a Python ``str`` is always lone (a pair is one code
    point), and JSON's structure is ASCII, so every one sits inside a string.
    """
    text = json.dumps(run, ensure_ascii=False, indent=1)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


TASKS = (
    "segment",
    "route",
    "locate",
    "extract",
    "acts",
    "questions",
    "constraints",
    "links",
    "results",
)


@dataclass(slots=True)
class Score:
    """Counts for one task: true positives, produced and expected items."""

    hits: int = 0
    produced: int = 0
    expected: int = 0

    def add(self, produced: Iterable[Hashable], expected: Iterable[Hashable]) -> None:
        """Count one case's produced and expected items (multisets)."""
        p, e = Counter(produced), Counter(expected)
        self.hits += sum((p & e).values())
        self.produced += sum(p.values())
        self.expected += sum(e.values())

    @property
    def precision(self) -> float:
        """Hits over produced (1.0 when nothing was produced or expected)."""
        return self.hits / self.produced if self.produced else (1.0 if not self.expected else 0.0)

    @property
    def recall(self) -> float:
        """Hits over expected (1.0 when nothing was expected)."""
        return self.hits / self.expected if self.expected else 1.0

    @property
    def f1(self) -> float:
        """The harmonic mean of precision and recall."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CaseCost:
    """What one message cost the system under test (the judge's calls are not in it).

    Attributes:
        calls: model calls of the case's last turn (its replay record's ``calls``).
        prompt_tokens: their prompt tokens.
        completion_tokens: their completion tokens.
        critical_path_ms: the time the turn waited on the model (concurrent calls once).
        wall_ms: the whole case's wall time, ``before`` turns included.
        reply_calls: how many of ``calls`` wrote the reply's words (``--reply-model``).
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    critical_path_ms: float = 0.0
    wall_ms: float = 0.0
    reply_calls: int = 0

    def to_json(self) -> JSONObject:
        """Return the cost as JSON (ms rounded to 0.01)."""
        return {
            "calls": self.calls,
            "reply_calls": self.reply_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "critical_path_ms": round(self.critical_path_ms, 2),
            "wall_ms": round(self.wall_ms, 2),
        }


@dataclass(slots=True, kw_only=True)
class CaseResult:
    """One message's evidence: what was expected, what was produced, its cost and judge.

    Attributes:
        file: the set file's name.
        id: the case id.
        text: the message.
        perfect: every task read it perfectly and every expectation held.
        failures: the expectation failures, one line each.
        expected: ``acts`` (``op target args`` each), ``questions``, ``results`` (``item:
            status``), as the case states them.
        produced: the same lists as the turn produced them.
        reply: the reply's blocks as displayed (``{"kind", "text"}``).
        cost: what the message cost.
        judge: the judge's votes on the reply, or ``None`` without a judge.
    """

    file: str
    id: str
    text: str
    perfect: bool = False
    failures: list[str] = field(default_factory=list)
    expected: dict[str, list[str]] = field(default_factory=dict)
    produced: dict[str, list[str]] = field(default_factory=dict)
    reply: list[JSONObject] = field(default_factory=list)
    cost: CaseCost = field(default_factory=CaseCost)
    judge: JudgeResult | None = None

    @property
    def key(self) -> str:
        """``file#id``: how runs are matched case by case."""
        return f"{self.file}#{self.id}"

    def to_json(self) -> JSONObject:
        """Return the case as JSON."""
        return {
            "key": self.key,
            "file": self.file,
            "id": self.id,
            "text": self.text,
            "perfect": self.perfect,
            "failures": list(self.failures),
            "expected": {k: list(v) for k, v in self.expected.items()},
            "produced": {k: list(v) for k, v in self.produced.items()},
            "reply": [dict(b) for b in self.reply],
            "cost": self.cost.to_json(),
            "judge": self.judge.to_json() if self.judge is not None else None,
        }


@dataclass(slots=True)
class EvalReport:
    """What an evaluation run gave."""

    model: str
    effort: str
    cases: int = 0
    perfect: int = 0
    scores: dict[str, Score] = field(default_factory=lambda: {t: Score() for t in TASKS})
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    wall_ms: float = 0.0
    failures: list[str] = field(default_factory=list)
    imperfect: list[str] = field(default_factory=list)
    vote_rounds: int = 0
    vote_splits: int = 0
    vote_reads: int = 0
    vote_collapsed: int = 0
    unreachable: int = 0
    """Turns that ended because the model could not be reached."""
    results: list[CaseResult] = field(default_factory=list)
    """Every case's evidence, in run order."""
    judge: str | None = None
    """The judge's provider spec, or ``None`` for a run without a judge."""
    judge_votes: int = 0
    """Votes per judged reply."""
    reply_model: str | None = None
    """What wrote the replies' words (``None``: the words code writes)."""

    @property
    def disagreement(self) -> float:
        """The share of voted decisions whose reads gave more than one reading (0 if none)."""
        return self.vote_splits / self.vote_rounds if self.vote_rounds else 0.0

    def judge_summary(self) -> JSONObject | None:
        """Return the judge's totals (``None`` without a judge).

        ``pass_rate`` is passed over judged replies; an undecided reply (no valid vote)
        counts as not passed and is also counted in ``undecided``.
        """
        if self.judge is None:
            return None
        judged = [c.judge for c in self.results if c.judge is not None]
        passed = sum(j.passed is True for j in judged)
        votes = [v for j in judged for v in j.votes]
        calls = [c for j in judged for c in j.calls]
        return {
            "model": self.judge,
            "votes_per_reply": self.judge_votes,
            "judged": len(judged),
            "passed": passed,
            "undecided": sum(j.passed is None for j in judged),
            "pass_rate": round(passed / len(judged), 4) if judged else 0.0,
            "votes": len(votes),
            "invalid_votes": sum(not v.valid for v in votes),
            "collapsed_votes": sum(j.collapsed for j in judged),
            "split_replies": sum(_split(j) for j in judged),
            "unreachable_replies": sum(j.unreachable for j in judged),
            "calls": len(calls),
            "prompt_tokens": sum(int(c.get("prompt_tokens", 0)) for c in calls),
            "completion_tokens": sum(int(c.get("completion_tokens", 0)) for c in calls),
        }

    def cost_total(self) -> JSONObject:
        """Return the run's total cost (the sum of every case's :class:`CaseCost`)."""
        return CaseCost(
            calls=self.calls,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            critical_path_ms=self.latency_ms,
            wall_ms=self.wall_ms,
            reply_calls=sum(c.cost.reply_calls for c in self.results),
        ).to_json()

    def to_json(self) -> dict[str, Any]:
        """Return the report as one JSON object (the run file ``--out`` writes)."""
        n = max(self.cases, 1)
        return {
            "format": RUN_FORMAT,
            "model": self.model,
            "effort": self.effort,
            "reply_model": self.reply_model,
            "cases": self.cases,
            "perfect_cases": self.perfect,
            "tasks": {
                t: {
                    "precision": round(s.precision, 4),
                    "recall": round(s.recall, 4),
                    "f1": round(s.f1, 4),
                    "expected": s.expected,
                    "produced": s.produced,
                }
                for t, s in self.scores.items()
            },
            "per_turn": {
                "calls": round(self.calls / n, 2),
                "prompt_tokens": round(self.prompt_tokens / n, 1),
                "completion_tokens": round(self.completion_tokens / n, 1),
                "model_latency_ms": round(self.latency_ms / n, 2),
                "wall_ms": round(self.wall_ms / n, 2),
            },
            "cost": self.cost_total(),
            "votes": {
                "rounds": self.vote_rounds,
                "reads": self.vote_reads,
                "disagreeing_rounds": self.vote_splits,
                "disagreement_rate": round(self.disagreement, 4),
                "collapsed_reads": self.vote_collapsed,
            },
            "judge": self.judge_summary(),
            "failures": self.failures,
            "imperfect_cases": self.imperfect,
            "unreachable_turns": self.unreachable,
            "results": [c.to_json() for c in self.results],
        }

    def table(self) -> str:
        """Return the report as a text table: tasks, cost per message, judge, failures."""
        data = self.to_json()
        lines = [
            f"model {self.model} · effort {self.effort} · {self.cases} messages · "
            f"{self.perfect} read perfectly"
            + (f" · words by {self.reply_model}" if self.reply_model else ""),
            "",
            f"{'task':<12} {'precision':>9} {'recall':>7} {'F1':>6} {'expected':>9}",
        ]
        for task, s in data["tasks"].items():
            lines.append(
                f"{task:<12} {s['precision']:>9.3f} {s['recall']:>7.3f} {s['f1']:>6.3f} {s['expected']:>9}"
            )
        turn = data["per_turn"]
        lines += [
            "",
            f"per turn: {turn['calls']} calls · {turn['prompt_tokens']} prompt tokens · "
            f"{turn['completion_tokens']} completion tokens · {turn['model_latency_ms']} ms model "
            f"latency (critical path) · {turn['wall_ms']} ms wall",
        ]
        votes = data["votes"]
        lines.append(
            f"votes: {votes['rounds']} voted decisions · {votes['reads']} reads · "
            f"{votes['disagreeing_rounds']} disagreed ({votes['disagreement_rate']:.1%}) · "
            f"{votes['collapsed_reads']} identical requests not sent"
        )
        lines += ["", *self._cost_lines()]
        judge = data["judge"]
        if judge is not None:
            lines += [
                "",
                f"judge {judge['model']} · {judge['votes_per_reply']} votes per reply · "
                f"{judge['passed']}/{judge['judged']} replies pass ({judge['pass_rate']:.1%}) · "
                f"{judge['undecided']} undecided · {judge['split_replies']} split · "
                f"{judge['invalid_votes']}/{judge['votes']} votes invalid · "
                f"{judge['calls']} judge calls",
            ]
            failing = [c for c in self.results if c.judge is not None and not c.judge.passed]
            for case in failing[:40]:
                assert case.judge is not None
                bad = [k for k, v in case.judge.verdicts().items() if v is not True]
                lines.append(f"  {case.key}: {', '.join(bad)}")
        if self.imperfect:
            lines += ["", f"not read perfectly: {', '.join(self.imperfect)}"]
        if self.unreachable:
            lines += ["", f"{self.unreachable} turn(s) could not reach the model"]
        if self.failures:
            lines += ["", f"{len(self.failures)} expectation(s) failed:"]
            lines += [f"  {f}" for f in self.failures[:40]]
        return "\n".join(lines)

    def _cost_lines(self) -> list[str]:
        width = max([len("cost per message"), *(len(c.key) for c in self.results)])
        head = f"{'cost per message':<{width}} {'calls':>5} {'prompt':>8} {'completion':>10} {'critical ms':>11}"
        lines = [head]
        for case in self.results:
            c = case.cost
            lines.append(
                f"{case.key:<{width}} {c.calls:>5} {c.prompt_tokens:>8} "
                f"{c.completion_tokens:>10} {c.critical_path_ms:>11.1f}"
            )
        lines.append(
            f"{'total':<{width}} {self.calls:>5} {self.prompt_tokens:>8} "
            f"{self.completion_tokens:>10} {self.latency_ms:>11.1f}"
        )
        return lines


def _split(result: JudgeResult) -> bool:
    """Whether the valid votes on a reply disagreed on any check."""
    valid = [v for v in result.votes if v.valid]
    return any(len({bool(v.checks[c]["holds"]) for v in valid}) > 1 for c in result.checklist)
