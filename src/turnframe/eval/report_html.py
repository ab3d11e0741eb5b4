"""An HTML report of an evaluation run that a person can read, in one self-contained page.

See docs/evals.md "The HTML report".

The page holds the per-task table, the cost per message, the judge's totals and, for
each failing message (not read perfectly, or not passed by the judge), its evidence:
the message, expected and produced acts, questions and results, the expectation
failures, the reply as shown and every judge vote with its reasons.

Every piece of text from the run (messages, replies, reasons, file names, model names)
is escaped, so a hostile message shows as text and cannot add markup. The page loads
nothing: no script, no external style, image or font, and its Content-Security-Policy
forbids any.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

__all__ = ["render_html"]

_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem;
  padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; text-align: left;
  vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.bad { background: #fde8e8; } .ok { background: #e8f6e8; }
section.case { border: 1px solid #bbb; border-radius: 6px; padding: .5rem 1rem;
  margin: 1rem 0; }
pre, .msg { white-space: pre-wrap; word-break: break-word; background: #f5f5f7;
  padding: .4rem .6rem; border-radius: 4px; }
"""

_CSP = "default-src 'none'; style-src 'unsafe-inline'"


_UNSHOWABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
"""Control characters (but tab and line breaks) and lone surrogates: HTML cannot carry
them and UTF-8 cannot encode a surrogate, so each is shown as U+FFFD."""


def _e(value: Any) -> str:
    return escape(_UNSHOWABLE.sub("\ufffd", str(value)), quote=True)


def _table(head: Sequence[str], rows: Iterable[Sequence[Any]], numeric: int = 0) -> str:
    """Return a table; every cell is escaped; columns from ``numeric`` on are right-aligned."""
    out = ["<table><thead><tr>", *(f"<th>{_e(h)}</th>" for h in head), "</tr></thead><tbody>"]
    for row in rows:
        out.append("<tr>")
        for i, cell in enumerate(row):
            cls = ' class="n"' if numeric and i >= numeric else ""
            out.append(f"<td{cls}>{_e(cell)}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _list(items: Iterable[Any]) -> str:
    cells = [f"<li>{_e(i)}</li>" for i in items]
    return f"<ul>{''.join(cells)}</ul>" if cells else "<p>none</p>"


def _evidence(case: Mapping[str, Any]) -> str:
    expected, produced = case.get("expected", {}), case.get("produced", {})
    rows = []
    for part in ("acts", "questions", "results"):
        rows.append(
            f"<tr><th>{_e(part)}</th><td>{_list(expected.get(part, []))}</td>"
            f"<td>{_list(produced.get(part, []))}</td></tr>"
        )
    return (
        "<table><thead><tr><th></th><th>expected</th><th>produced</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _votes(judge: Mapping[str, Any]) -> str:
    checks = list(judge.get("checklist", {}))
    verdicts = judge.get("verdicts", {})
    head = ["vote", "valid", *checks]
    rows = []
    for vote in judge.get("votes", []):
        if vote.get("valid"):
            cells = []
            for c in checks:
                v = vote.get("checks", {}).get(c, {})
                cells.append(f"{'yes' if v.get('holds') else 'no'}: {v.get('reason', '')}")
        else:
            cells = [f"invalid: {vote.get('error') or ''}"] + [""] * (len(checks) - 1)
        rows.append([vote.get("vote"), "yes" if vote.get("valid") else "no", *cells])
    rows.append(["majority", "", *(_verdict(verdicts.get(c)) for c in checks)])
    statements = _table(["check", "statement"], judge.get("checklist", {}).items())
    return statements + _table(head, rows)


def _verdict(value: Any) -> str:
    return "holds" if value is True else "fails" if value is False else "undecided"


def _case(case: Mapping[str, Any]) -> str:
    judge = case.get("judge")
    cost = case.get("cost", {})
    parts = [
        f'<section class="case"><h3>{_e(case.get("key", ""))}</h3>',
        f"<p>read perfectly: {'yes' if case.get('perfect') else 'no'}"
        + (f" · judge: {_e(_passed(judge.get('passed')))}" if judge else "")
        + f" · {_e(cost.get('calls', 0))} calls · {_e(cost.get('prompt_tokens', 0))} prompt"
        f" / {_e(cost.get('completion_tokens', 0))} completion tokens ·"
        f" {_e(cost.get('critical_path_ms', 0))} ms critical path</p>",
        "<h4>Message</h4>",
        f'<div class="msg">{_e(case.get("text", ""))}</div>',
        "<h4>Expected and produced</h4>",
        _evidence(case),
    ]
    if case.get("failures"):
        parts += ["<h4>Expectations that failed</h4>", _list(case["failures"])]
    parts += [
        "<h4>Reply as shown</h4>",
        _table(["block", "text"], ((b.get("kind"), b.get("text")) for b in case.get("reply", []))),
    ]
    if judge:
        parts += ["<h4>Judge votes</h4>", _votes(judge)]
    parts.append("</section>")
    return "".join(parts)


def _passed(value: Any) -> str:
    return "passed" if value is True else "failed" if value is False else "undecided"


def render_html(run: Mapping[str, Any]) -> str:
    """Return the HTML page of a run (the JSON :meth:`EvalReport.to_json` gives).

    Every text of ``run`` is escaped; the page loads no resource.
    """
    tasks = run.get("tasks", {})
    task_rows = [
        (t, f"{s['precision']:.3f}", f"{s['recall']:.3f}", f"{s['f1']:.3f}", s["expected"])
        for t, s in tasks.items()
    ]
    results = list(run.get("results", []))
    cost_rows = [
        (
            c.get("key"),
            c["cost"]["calls"],
            c["cost"]["prompt_tokens"],
            c["cost"]["completion_tokens"],
            c["cost"]["critical_path_ms"],
        )
        for c in results
    ]
    total = run.get("cost", {})
    cost_rows.append(
        (
            "total",
            total.get("calls", 0),
            total.get("prompt_tokens", 0),
            total.get("completion_tokens", 0),
            total.get("critical_path_ms", 0),
        )
    )
    judge = run.get("judge")
    failing = [
        c for c in results if not c.get("perfect") or (c.get("judge") and not c["judge"]["passed"])
    ]
    title = f"Evaluation: {run.get('model', '')} · effort {run.get('effort', '')}"
    if run.get("reply_model"):
        title += f" · words by {run['reply_model']}"
    body = [
        f"<h1>{_e(title)}</h1>",
        f"<p>{_e(run.get('cases', 0))} messages · {_e(run.get('perfect_cases', 0))} read "
        f"perfectly · {_e(len(failing))} failing</p>",
        "<h2>Per task</h2>",
        _table(["task", "precision", "recall", "F1", "expected"], task_rows, numeric=1),
        "<h2>Cost per message</h2>",
        "<p>The system under test only (the judge's calls are counted under Judge).</p>",
        _table(
            ["message", "calls", "prompt tokens", "completion tokens", "critical path ms"],
            cost_rows,
            numeric=1,
        ),
    ]
    if judge:
        body += [
            "<h2>Judge</h2>",
            _table(
                ["model", "votes per reply", "judged", "passed", "pass rate", "undecided"]
                + ["split", "invalid votes", "judge calls"],
                [
                    (
                        judge["model"],
                        judge["votes_per_reply"],
                        judge["judged"],
                        judge["passed"],
                        f"{judge['pass_rate']:.1%}",
                        judge["undecided"],
                        judge["split_replies"],
                        f"{judge['invalid_votes']}/{judge['votes']}",
                        judge["calls"],
                    )
                ],
            ),
        ]
    body.append("<h2>Failing messages</h2>")
    body += [_case(c) for c in failing] or ["<p>none: every message passed.</p>"]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )
