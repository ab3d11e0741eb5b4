"""``turnframe explore``: the state explorer over an application's workflows (docs/explorer.md).

``turnframe explore --app SPEC [WORKFLOW] [--depth N] [--states N] [--records FILE]
[--json]`` walks every workflow (or the one named) breadth first from the absent state
and prints a table of states explored, transitions, depth reached and findings per
workflow, then each finding with its shortest path; ``--json`` prints one object.
Exit 0 with no finding, 1 with findings, 2 for a usage error (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from turnframe.core.errors import UsageError

__all__ = ["add_commands", "run_explore"]


def add_commands(sub: Any) -> None:
    """Add the ``explore`` command to the ``turnframe`` subparsers ``sub``."""
    explore = sub.add_parser(
        "explore",
        help="walk every reachable state of an app's workflows and check them (docs/explorer.md)",
    )
    explore.add_argument(
        "--app",
        metavar="SPEC",
        help="the application (required): module:attribute or an installed app's name",
    )
    explore.add_argument("workflow", nargs="?", help="only this workflow (default: every one)")
    explore.add_argument(
        "--depth",
        default=None,
        metavar="N",
        help="most moves from a root (default 6, at most 1000)",
    )
    explore.add_argument(
        "--states",
        default=None,
        metavar="N",
        help="most states kept per workflow (default 2000, at most 1000000)",
    )
    explore.add_argument(
        "--records",
        metavar="FILE",
        help="a YAML file whose `records:` seed records created outside conversation "
        "(default: the app's tour's records)",
    )
    explore.add_argument("--json", action="store_true", help="print one JSON object")


def _whole(name: str, given: str | None, default: int) -> int:
    if given is None:
        return default
    try:
        return int(given.strip())
    except ValueError:
        raise UsageError(f"--{name} must be a whole number, got {given!r}") from None


def run_explore(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run ``turnframe explore``; return 0 (no finding), 1 (findings) or 2 (usage error).

    A usage error (bad ``--app``, an unknown workflow, a bad limit, unreadable records)
    is one line on stderr.
    """
    from turnframe.runtime.loading import load_application
    from turnframe.testing.explore import DEFAULT_DEPTH, DEFAULT_STATES, explore, read_records

    stream = out or sys.stdout
    try:
        if not args.app:
            raise UsageError(
                "explore needs --app SPEC (module:attribute or an installed app's name)"
            )
        depth = _whole("depth", args.depth, DEFAULT_DEPTH)
        states = _whole("states", args.states, DEFAULT_STATES)
        app = load_application(str(args.app))
        records = read_records(args.records) if args.records else None
        report = explore(app, args.workflow, depth=depth, states=states, records=records)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False), file=stream)
        return 0 if report.ok else 1
    rows = [("workflow", "states", "transitions", "depth", "cut", "findings")]
    for w in report.workflows:
        rows.append(
            (
                w.workflow,
                str(w.states),
                str(w.transitions),
                str(w.depth_reached),
                "yes" if w.cut else "no",
                str(len(w.findings)),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    print(
        f"{report.application}: explored to depth {report.limits.depth}, at most "
        f"{report.limits.states} states per workflow, today {report.today.isoformat()}",
        file=stream,
    )
    for row in rows:
        cells = [c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(row)]
        print("  ".join(cells).rstrip(), file=stream)
    for w in report.workflows:
        for text in w.notes:
            print(f"note: {w.workflow}: {text}", file=stream)
    if report.ok:
        print("no findings", file=stream)
        return 0
    print("", file=stream)
    print(report.describe_findings(), file=stream)
    return 1
