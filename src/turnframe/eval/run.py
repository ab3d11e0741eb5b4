"""Running an evaluation set: per-task precision, recall and F1, calls, tokens and latency.

Every case runs through the real pipeline (a fresh store, the scenario runner) with the
chosen provider; the reading is scored against the case's expectations per task.
"""

from __future__ import annotations

import inspect
import time
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from turnframe.core.errors import UsageError
from turnframe.core.turn import Effort
from turnframe.eval.dataset import EvalCase, EvalFile, load_set
from turnframe.eval.models import provider_from_spec
from turnframe.eval.oracle import OracleReading, oracle_provider
from turnframe.providers import Provider
from turnframe.runtime import TurnResult
from turnframe.runtime.app import Application
from turnframe.runtime.replay import recorded_understanding
from turnframe.testing.scenario.model import ScenarioModel, TurnModel
from turnframe.testing.scenario.runner import run_scenario
from turnframe.understand import Brief, ModelUnderstanding, UnderstandingResult
from turnframe.understand.merged import script_merge
from turnframe.understand.words import normalize

__all__ = ["EvalReport", "Score", "critical_path_ms", "run_eval", "unreachable_model"]

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

    @property
    def disagreement(self) -> float:
        """The share of voted decisions whose reads gave more than one reading (0 if none)."""
        return self.vote_splits / self.vote_rounds if self.vote_rounds else 0.0

    def to_json(self) -> dict[str, Any]:
        """Return the report as one JSON object."""
        n = max(self.cases, 1)
        return {
            "model": self.model,
            "effort": self.effort,
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
            "votes": {
                "rounds": self.vote_rounds,
                "reads": self.vote_reads,
                "disagreeing_rounds": self.vote_splits,
                "disagreement_rate": round(self.disagreement, 4),
                "collapsed_reads": self.vote_collapsed,
            },
            "failures": self.failures,
            "imperfect_cases": self.imperfect,
            "unreachable_turns": self.unreachable,
        }

    def table(self) -> str:
        """Return the report as a text table."""
        data = self.to_json()
        lines = [
            f"model {self.model} · effort {self.effort} · {self.cases} messages · "
            f"{self.perfect} read perfectly",
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
        if self.imperfect:
            lines += ["", f"not read perfectly: {', '.join(self.imperfect)}"]
        if self.unreachable:
            lines += ["", f"{self.unreachable} turn(s) could not reach the model"]
        if self.failures:
            lines += ["", f"{len(self.failures)} expectation(s) failed:"]
            lines += [f"  {f}" for f in self.failures[:40]]
        return "\n".join(lines)


async def run_eval(
    path: str | Path, model: str, effort: str = "medium", app: Application | None = None
) -> EvalReport:
    """Run every case of the set at ``path`` with ``model`` (``oracle`` or a provider spec).

    Args:
        path: a set file or a directory of them.
        model: ``oracle`` (each case's own expectations, as a model would answer them) or
            a provider spec (:func:`~turnframe.eval.models.provider_from_spec`).
        effort: ``low``, ``medium`` or ``high``.
        app: the application the cases run with (default: the one each file's
            ``sample`` names); handed to the scenario runner.

    A turn that could not reach the model is counted in :attr:`EvalReport.unreachable`
    (``turnframe eval run`` then exits 3).

    Raises:
        UsageError: for an unknown model or a bad set, or an ``app`` other than a set's
            sample with a scenario runner that takes no application.
    """
    Effort(effort)
    report = EvalReport(model=model, effort=effort)
    base: Provider | None = None if model == "oracle" else provider_from_spec(model)
    takes_app = "app" in inspect.signature(run_scenario).parameters
    for file, data in load_set(path):
        if app is not None and not takes_app and app.name != data.sample:
            raise UsageError(
                f"{file}: this scenario runner runs only the sample a set names "
                f"({data.sample!r}), not the application {app.name!r}"
            )
        for case in data.cases:
            await _run_case(report, file, data, case, base, effort, app if takes_app else None)
    return report


async def _run_case(
    report: EvalReport,
    file: Path,
    data: EvalFile,
    case: EvalCase,
    base: Provider | None,
    effort: str,
    app: Application | None = None,
) -> None:
    reading = OracleReading(case)
    turns: list[dict[str, Any]] = [
        *case.before,
        {"text": case.text, "understanding": "model", "effort": effort},
    ]
    expect: dict[str, Any] = {}
    if case.results:
        expect["results"] = case.results
    if case.commands is not None:
        expect["commands"] = case.commands
    if expect:
        turns[-1]["expect"] = expect
    scenario = ScenarioModel.model_validate(
        {
            "name": case.id,
            "sample": data.sample,
            "today": data.today,
            "actor": data.actor,
            "locale": data.locale_of(case),
            "records": data.records,
            "turns": turns,
        }
    )
    captured: dict[str, Any] = {}

    async def reader(run: Any, turn: TurnModel, brief: Brief) -> UnderstandingResult:
        def handle(key: str) -> str:
            return str(run.with_handles(brief, key))

        def card(ref: str) -> str:
            return str(run.with_handles(brief, f"card:{ref}"))

        provider = base if base is not None else oracle_provider(reading, handle, card)
        understander = ModelUnderstanding(provider, effort=effort, merge=script_merge(provider))
        return await understander.understand(brief)

    async def on_turn(run: Any, number: int, turn: TurnModel, result: TurnResult) -> None:
        if unreachable_model(result):
            report.unreachable += 1
        if number != len(turns):
            return
        record = await run.store.load_replay(run.actor.account, result.turn_id)
        keys = {run.runtime.handle_for(result.turn_id, ref): key for key, ref in run.refs.items()}
        captured.update(record=record or {}, keys=keys, result=result)

    started = time.perf_counter()
    extra: dict[str, Any] = {"app": app} if app is not None else {}
    outcome = await run_scenario(
        scenario, f"{file.name}#{case.id}", model_reader=reader, on_turn=on_turn, **extra
    )
    report.wall_ms += (time.perf_counter() - started) * 1000
    report.cases += 1
    report.failures.extend(f.line() for f in outcome.failures)
    record = captured.get("record", {})
    calls = record.get("calls", [])
    report.calls += len(calls)
    report.prompt_tokens += sum(int(c.get("prompt_tokens", 0)) for c in calls)
    report.completion_tokens += sum(int(c.get("completion_tokens", 0)) for c in calls)
    report.latency_ms += critical_path_ms(calls)
    for round_ in (record.get("reading") or {}).get("votes", []):
        report.vote_rounds += 1
        report.vote_reads += int(round_.get("reads", 0))
        report.vote_splits += int(round_.get("distinct", 1)) > 1
        report.vote_collapsed += int(round_.get("collapsed", 0))
    perfect = _score(
        report, reading, case, record, captured.get("keys", {}), captured.get("result")
    )
    if perfect and outcome.passed:
        report.perfect += 1
    else:
        report.imperfect.append(case.id)


def unreachable_model(result: TurnResult) -> bool:
    """Return whether ``result`` ended because the language model could not be reached.

    Its reply holds a ``model_unreachable:<kind>`` notice (docs/architecture.md).
    """
    return any(b.kind == "notice" and b.code.startswith("model_unreachable") for b in result.blocks)


def _target(target: Any, keys: dict[str, str]) -> Any:
    if not target:
        return ()
    if target.get("new"):
        return "new"
    if target.get("find"):
        return ("find", " ".join(normalize(w) for w in str(target["find"]).split()))
    return tuple(sorted(keys.get(h, h) for h in target.get("handles", [])))


def _expected_target(target: Any) -> Any:
    if target == "new":
        return "new"
    if isinstance(target, dict):
        return ("find", " ".join(normalize(w) for w in target["find"].split()))
    return tuple(sorted(target))


def _value(value: str, keys: dict[str, str]) -> str:
    # The committed value exactly as it will be stored (a handle as its record key):
    # "Joana Costa," is not "Joana Costa" (docs/adr/0018-decoder-enforceable-schemas.md).
    return keys.get(value) or value


def _score(
    report: EvalReport,
    reading: OracleReading,
    case: EvalCase,
    record: dict[str, Any],
    keys: dict[str, str],
    result: TurnResult | None,
) -> bool:
    u = recorded_understanding(record) or {}
    acts = [a for a in u.get("acts", []) if a.get("operation")]
    s = report.scores
    same = {k: k for k in keys.values()}
    before = {t: (sc.hits, sc.produced, sc.expected) for t, sc in s.items()}
    # The units segmentation produced, from the typed trace (never from step text: a
    # failed segmentation produced none, whatever its error says).
    units = (record.get("reading") or {}).get("units", [])
    s["segment"].add(
        [str(x["kind"]) for x in units if x.get("kind") != "other"],
        [x.kind for x in reading.units],
    )
    s["route"].add([a["operation"] for a in acts], [a.op for a in case.acts])
    s["locate"].add(
        [(a["operation"], _target(a["target"], keys)) for a in acts],
        [(a.op, _expected_target(a.target)) for a in case.acts],
    )
    s["extract"].add(
        [(a["operation"], k, _value(v, keys)) for a in acts for k, v in a["args"].items()],
        [(a.op, k, _value(v, same)) for a in case.acts for k, v in a.args.items()],
    )
    s["acts"].add(
        [
            (
                a["id"],
                a["operation"],
                _target(a["target"], keys),
                tuple(sorted((k, _value(v, keys)) for k, v in a["args"].items())),
                bool(a["hypothetical"]),
                a["evidence_source"],
            )
            for a in acts
        ],
        [
            (
                reading.act_id(i),
                a.op,
                _expected_target(a.target),
                tuple(sorted((k, _value(v, same)) for k, v in a.args.items())),
                a.hypothetical,
                a.source,
            )
            for i, a in enumerate(case.acts)
        ],
    )
    s["questions"].add(
        [(q["topic"], _target(q.get("target") or {}, keys)) for q in u.get("questions", [])],
        [(q.topic, tuple(sorted(q.target))) for q in case.questions],
    )
    s["constraints"].add(
        [(c["kind"], c["scope"]) for c in u.get("constraints", [])]
        + [("card", c["option"]) for c in u.get("card_answers", [])],
        [(c.kind, c.scope) for c in case.constraints]
        + [("card", k.option) for k in case.card_answers],
    )
    expected_links = [
        ("corrects", reading.act_id(i), reading.act_id(case.acts.index(_corrected(case, a))))
        for i, a in enumerate(case.acts)
        if a.corrects
    ] + [("cancels", x.unit, x.cancels) for x in case.cancellations]
    produced_links = [
        ("corrects", link["act"], link["corrects"])
        for link in u.get("links", [])
        if link.get("corrects")
    ] + [
        (
            "cancels",
            reading.units_text(link["act"], case),
            _cancelled_unit(reading, link["cancels"]),
        )
        for link in u.get("links", [])
        if link.get("cancels")
    ]
    s["links"].add(produced_links, expected_links)
    got = result.results if result else {}

    def label(item: str, detailed: bool) -> str | None:
        r = got.get(item)
        if r is None:
            return None
        return f"{r.status.value}:{r.code}" if detailed and r.code else r.status.value

    s["results"].add(
        [(k, label(k, ":" in v)) for k, v in case.results.items()],
        list(case.results.items()),
    )
    return all(
        (sc.hits - before[t][0]) == (sc.produced - before[t][1]) == (sc.expected - before[t][2])
        for t, sc in s.items()
    )


def _corrected(case: EvalCase, act: Any) -> Any:
    return next(a for a in case.acts if a.unit == act.corrects)


def _cancelled_unit(reading: OracleReading, act_id: str) -> str | None:
    act = reading.acts_by_id.get(act_id)
    return act.unit if act else None


def critical_path_ms(calls: Sequence[Mapping[str, Any]]) -> float:
    """Return the time a turn waited on the model: the union of its calls' intervals, in ms.

    Each call spans ``[ended_ms - latency_ms, ended_ms]``; concurrent calls overlap, so
    they count once, not summed (issue 11 item 7). A record without ``ended_ms`` (older
    replay records) counts its latency in full.
    """
    spans: list[tuple[float, float]] = []
    extra = 0.0
    for call in calls:
        latency = float(call.get("latency_ms", 0.0) or 0.0)
        ended = call.get("ended_ms")
        if ended is None:
            extra += latency
        elif latency > 0:
            spans.append((float(ended) - latency, float(ended)))
    total = 0.0
    end = float("-inf")
    for start, stop in sorted(spans):
        if stop <= end:
            continue
        total += stop - max(start, end)
        end = stop
    return total + extra
