"""Running an evaluation set: per-task precision, recall and F1, cost, judge votes.

See docs/evals.md "Running a set".

Every case runs through the real pipeline (a fresh store, the scenario runner) with the
chosen provider; the reading is scored against the case's expectations per task, its
cost is taken from its replay record's calls, and with a judge its reply is graded
(:mod:`turnframe.eval.judge`).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from turnframe.core.errors import UsageError
from turnframe.core.turn import Effort
from turnframe.eval.dataset import EvalCase, EvalFile, first_problem, load_set
from turnframe.eval.judge import JudgeSetup, check_ids, checklist, judge_reply, reply_view
from turnframe.eval.models import provider_from_spec
from turnframe.eval.oracle import OracleReading, oracle_provider
from turnframe.eval.report import TASKS, CaseCost, CaseResult, EvalReport, Score
from turnframe.providers import Provider
from turnframe.runtime import TurnResult
from turnframe.runtime.app import Application
from turnframe.runtime.replay import recorded_understanding
from turnframe.testing.scenario.model import ScenarioModel, TurnModel
from turnframe.testing.scenario.runner import run_scenario
from turnframe.understand import Brief, ModelUnderstanding, UnderstandingResult
from turnframe.understand.merged import script_merge
from turnframe.understand.reply import ModelReplyWriter
from turnframe.understand.words import normalize

__all__ = [
    "TASKS",
    "EvalReport",
    "JudgeSetup",
    "Score",
    "critical_path_ms",
    "run_eval",
    "unreachable_model",
]


async def run_eval(
    path: str | Path,
    model: str,
    effort: str = "medium",
    app: Application | None = None,
    judge: JudgeSetup | None = None,
    reply_model: str | Provider | None = None,
) -> EvalReport:
    """Run every case of the set at ``path`` with ``model`` (``oracle`` or a provider spec).

    Args:
        path: a set file or a directory of them.
        model: ``oracle`` (each case's own expectations, as a model would answer them) or
            a provider spec (:func:`~turnframe.eval.models.provider_from_spec`).
        effort: ``low``, ``medium`` or ``high``.
        app: the application the cases run with (default: the one each file's
            ``sample`` names); handed to the scenario runner.
        judge: grade each reply with this judge (every vote kept in the case's result).
        reply_model: a provider (or spec; ``same``: the model under test) that writes
            each reply's words (acknowledge, review, answer) as chat does; default none:
            the words code writes stand. Its calls count in the message's cost.

    A turn that could not reach the model is counted in :attr:`EvalReport.unreachable`
    (``turnframe eval run`` then exits 3).

    Raises:
        UsageError: for an unknown model or a bad set, an ``app`` other than a set's
            sample with a scenario runner that takes no application, or a
            ``reply_model`` it cannot use (``same`` with the oracle).
    """
    Effort(effort)
    report = EvalReport(model=model, effort=effort)
    if judge is not None:
        report.judge, report.judge_votes = judge.name, judge.votes
    base: Provider | None = None if model == "oracle" else provider_from_spec(model)
    writer = _reply_writer(reply_model, base, effort)
    if reply_model is not None:
        report.reply_model = reply_model if isinstance(reply_model, str) else "provider"
    takes_app = "app" in inspect.signature(run_scenario).parameters
    files = load_set(path)
    for file, data in files:
        for case in data.cases:
            # A bad per-case check, or a value the scenario runner refuses (``today``, a
            # result status, a ``before`` turn), stops the run before it starts.
            check_ids(case)
            _scenario(file, data, case, effort)
    for file, data in files:
        if app is not None and not takes_app and app.name != data.sample:
            raise UsageError(
                f"{file}: this scenario runner runs only the sample a set names "
                f"({data.sample!r}), not the application {app.name!r}"
            )
        for case in data.cases:
            await _run_case(
                report, file, data, case, base, effort, app if takes_app else None, judge, writer
            )
    return report


async def _run_case(
    report: EvalReport,
    file: Path,
    data: EvalFile,
    case: EvalCase,
    base: Provider | None,
    effort: str,
    app: Application | None = None,
    judge: JudgeSetup | None = None,
    writer: ModelReplyWriter | None = None,
) -> None:
    reading = OracleReading(case)
    scenario = _scenario(file, data, case, effort)
    turns = scenario.turns
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
    if writer is not None:
        extra["reply_writer"] = writer
    outcome = await run_scenario(
        scenario, f"{file.name}#{case.id}", model_reader=reader, on_turn=on_turn, **extra
    )
    wall = (time.perf_counter() - started) * 1000
    record = captured.get("record", {})
    # The reply's words are written after the commit, so their calls follow the reading's.
    reply_calls = (record.get("reply") or {}).get("calls", [])
    calls = [*record.get("calls", []), *reply_calls]
    cost = CaseCost(
        calls=len(calls),
        prompt_tokens=sum(int(c.get("prompt_tokens", 0)) for c in calls),
        completion_tokens=sum(int(c.get("completion_tokens", 0)) for c in calls),
        critical_path_ms=critical_path_ms(record.get("calls", [])) + critical_path_ms(reply_calls),
        wall_ms=wall,
        reply_calls=len(reply_calls),
    )
    report.wall_ms += wall
    report.cases += 1
    lines = [f.line() for f in outcome.failures]
    report.failures.extend(lines)
    report.calls += cost.calls
    report.prompt_tokens += cost.prompt_tokens
    report.completion_tokens += cost.completion_tokens
    report.latency_ms += cost.critical_path_ms
    for round_ in (record.get("reading") or {}).get("votes", []):
        report.vote_rounds += 1
        report.vote_reads += int(round_.get("reads", 0))
        report.vote_splits += int(round_.get("distinct", 1)) > 1
        report.vote_collapsed += int(round_.get("collapsed", 0))
    result: TurnResult | None = captured.get("result")
    shown = _evidence(case, record, captured.get("keys", {}), result)
    perfect = _score(report, reading, case, record, captured.get("keys", {}), result)
    perfect = perfect and outcome.passed
    if perfect:
        report.perfect += 1
    else:
        report.imperfect.append(case.id)
    view = reply_view(case.text, scenario.locale, result.blocks if result else ())
    judged = None
    if judge is not None and result is not None:
        judged = await judge_reply(judge.provider, view, checklist(case, view), judge.votes)
    report.results.append(
        CaseResult(
            file=file.name,
            id=case.id,
            text=case.text,
            perfect=perfect,
            failures=lines,
            expected=shown[0],
            produced=shown[1],
            reply=list(view.reply),
            cost=cost,
            judge=judged,
        )
    )


def _scenario(file: Path, data: EvalFile, case: EvalCase, effort: str) -> ScenarioModel:
    """Return the scenario one case runs as: its ``before`` turns, then its message.

    Raises:
        UsageError: one line naming ``file#id``, for a value the scenario format refuses
            (docs/scenario-format.md).
    """
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
    try:
        return ScenarioModel.model_validate(
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
    except ValidationError as exc:
        raise UsageError(f"{file.name}#{case.id}: {first_problem(exc)}") from None


def _evidence(
    case: EvalCase, record: dict[str, Any], keys: dict[str, str], result: TurnResult | None
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Return a case's expected and produced acts, questions and results, as words."""
    u = recorded_understanding(record) or {}

    def act_words(op: str, where: str, args: Mapping[str, str]) -> str:
        values = ", ".join(f"{k}={v}" for k, v in sorted(args.items()))
        return f"{op} → {where or '-'}" + (f" ({values})" if values else "")

    expected = {
        "acts": [act_words(a.op, _words(_expected_target(a.target)), a.args) for a in case.acts],
        "questions": [f"{q.topic} → {' '.join(q.target) or '-'}" for q in case.questions],
        "results": [f"{k}: {v}" for k, v in case.results.items()],
    }
    produced_results = []
    for item, r in sorted((result.results if result else {}).items()):
        produced_results.append(f"{item}: {r.status.value}" + (f":{r.code}" if r.code else ""))
    produced = {
        "acts": [
            act_words(
                str(a["operation"]),
                _words(_target(a["target"], keys)),
                {k: _value(str(v), keys) for k, v in a["args"].items()},
            )
            for a in u.get("acts", [])
            if a.get("operation")
        ],
        "questions": [
            f"{q['topic']} → {_words(_target(q.get('target') or {}, keys)) or '-'}"
            for q in u.get("questions", [])
        ],
        "results": produced_results,
    }
    return expected, produced


def _words(target: Any) -> str:
    """Return a scored target (``new``, ``("find", words)`` or keys) as words."""
    if target == "new":
        return "new"
    if isinstance(target, tuple) and target[:1] == ("find",):
        return f"find '{target[1]}'"
    return " ".join(str(k) for k in target)


def _reply_writer(
    spec: str | Provider | None, base: Provider | None, effort: str
) -> ModelReplyWriter | None:
    """Return the writer of the replies' words ``spec`` names (``None``: code's words)."""
    if spec is None:
        return None
    if "reply_writer" not in inspect.signature(run_scenario).parameters:
        raise UsageError(
            "this scenario runner cannot take a reply writer (run_scenario(reply_writer=...)), "
            "so --reply-model cannot be used"
        )
    if spec == "same":
        if base is None:
            raise UsageError("--reply-model same needs a model; the oracle writes no words")
        return ModelReplyWriter(base, effort=effort)
    return ModelReplyWriter(
        provider_from_spec(spec) if isinstance(spec, str) else spec, effort=effort
    )


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
