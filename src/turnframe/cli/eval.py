"""``turnframe eval run DIR`` and ``turnframe eval compare A.json B.json``.

See docs/evals.md.

``run`` scores a provider on an evaluation set (per-task table, cost per message, judge
votes with ``--judge``), and writes the run file (``--out``) and an HTML report
(``--html``). ``compare`` prints what changed between two run files.

Exit codes: ``run`` 0 done, 2 a usage error, 3 a turn (or every vote of the judge on a
reply) could not reach its model; ``compare`` 0 nothing regressed, 1 something regressed,
2 a file that is not a run file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

import anyio

from turnframe.cli.models import EXIT_UNREACHABLE, fetch_exit_code
from turnframe.core.errors import UsageError
from turnframe.eval.judge import MAX_VOTES
from turnframe.eval.models import KNOWN_MODELS
from turnframe.providers.model_files import ModelFetchError
from turnframe.runtime.loading import load_application

__all__ = ["add_commands", "run_eval_command"]

APP_HELP = (
    "the application: module:attribute, an installed app's name (entry point group "
    "turnframe.apps) or a module with an `application`; default: the one each set file names"
)


def _votes(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number of votes, not {text!r}") from None
    if not 1 <= value <= MAX_VOTES:
        raise argparse.ArgumentTypeError(f"1 to {MAX_VOTES} votes, not {value}")
    return value


def add_commands(sub: Any) -> None:
    """Add ``eval run`` and ``eval compare`` to the ``turnframe`` parser."""
    ev = sub.add_parser("eval", help="evaluation sets: run, compare")
    ev_sub = ev.add_subparsers(dest="eval_command", required=True)
    run = ev_sub.add_parser(
        "run",
        help="score a provider on an evaluation set",
        description="Exit status 0 when every turn reached the model, 3 when one could not "
        "(or when no vote of the judge on some reply could reach the judge).",
    )
    run.add_argument("path", metavar="DIR")
    run.add_argument(
        "--model",
        required=True,
        help="oracle (answers each case from its own expectations: scores 100%%), "
        f"or {KNOWN_MODELS}",
    )
    run.add_argument("--app", default=None, help=APP_HELP)
    run.add_argument("--effort", choices=("low", "medium", "high"), default="medium")
    run.add_argument("--json", action="store_true", help="one JSON object")
    run.add_argument(
        "--judge",
        metavar="PROVIDER:MODEL",
        help="grade each reply's words against a yes/no checklist with this model "
        "(scripted-judge[:FILE] needs no model; docs/evals.md)",
    )
    run.add_argument(
        "--reply-model",
        metavar="SPEC",
        help="a model writes each reply's words (acknowledgement, answers) as chat does; "
        "`same` is the --model under test (default: the words code writes)",
    )
    run.add_argument(
        "--votes", type=_votes, default=3, help="judge votes per reply, majority decides (3)"
    )
    run.add_argument("--out", metavar="RUN.json", help="write the run (for eval compare)")
    run.add_argument("--html", metavar="REPORT.html", help="write an HTML report")
    compare = ev_sub.add_parser(
        "compare",
        help="what regressed or improved between two runs",
        description="Exit status 0 when nothing regressed, 1 when something did, 2 for a "
        "file that is not a run file (docs/evals.md).",
    )
    compare.add_argument("before", metavar="A.json")
    compare.add_argument("after", metavar="B.json")
    compare.add_argument("--json", action="store_true", help="one JSON object")


def run_eval_command(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run ``eval run`` or ``eval compare``; return the exit code (see the module docstring)."""
    stream = out or sys.stdout
    try:
        if args.eval_command == "compare":
            return _compare(args, stream)
        return _run(args, stream)
    except ModelFetchError as exc:
        # One line: the index could not be reached (3) or the file failed its checks (2).
        print(f"error: {exc}", file=sys.stderr)
        return fetch_exit_code(exc)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace, stream: TextIO) -> int:
    from turnframe.eval import run_eval
    from turnframe.eval.run import JudgeSetup

    spec = getattr(args, "judge", None)
    # An empty spec is a mistake, not "no judge": it is refused like any unknown model.
    judge = JudgeSetup(spec, args.votes) if spec is not None else None
    app = load_application(args.app) if getattr(args, "app", None) else None
    for target in (getattr(args, "out", None), getattr(args, "html", None)):
        if target is not None:
            _check_writable(target)
    words = getattr(args, "reply_model", None)
    report = anyio.run(run_eval, args.path, args.model, args.effort, app, judge, words)
    data = report.to_json()
    # The table first: a file that cannot be written then loses nothing of the run.
    print(json.dumps(data) if args.json else report.table(), file=stream)
    if getattr(args, "out", None) is not None:
        from turnframe.eval.report import run_file_text

        _write(args.out, run_file_text(data))
    if getattr(args, "html", None) is not None:
        from turnframe.eval.report_html import render_html

        _write(args.html, render_html(data))
    summary = data["judge"]
    failed = []
    if report.unreachable:
        failed.append(f"{report.unreachable} turn(s) could not reach the model {args.model}")
    if summary and summary["unreachable_replies"]:
        failed.append(
            f"the judge {summary['model']} could not be reached for "
            f"{summary['unreachable_replies']} reply(ies)"
        )
    if failed:
        print(f"error: {'; '.join(failed)}", file=sys.stderr)
        return EXIT_UNREACHABLE
    return 0


def _compare(args: argparse.Namespace, stream: TextIO) -> int:
    from turnframe.eval.compare import compare_runs, read_run

    comparison = compare_runs(read_run(args.before), read_run(args.after))
    if args.json:
        print(json.dumps(comparison.to_json()), file=stream)
    else:
        print(comparison.table(), file=stream)
    return 1 if comparison.regressed else 0


def _check_writable(target: str) -> None:
    """Refuse, before any case runs, a ``--out``/``--html`` path that cannot be written.

    A run may cost real model calls; finding out only after it that its file cannot be
    written would lose the run file (docs/evals.md "Comparing two runs").

    Raises:
        UsageError: a directory, a missing parent directory, or one not writable.
    """
    path = Path(target)
    parent = path.parent
    if path.is_dir():
        raise UsageError(f"{target} is a directory; name a file to write")
    if not parent.is_dir():
        raise UsageError(f"cannot write {target}: no directory {parent}")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"cannot write {target}: permission denied")


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
