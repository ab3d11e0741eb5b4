"""The ``turnframe`` command line: ``demo`` and ``scenario run``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="turnframe",
        description="Turnframe: the model proposes meaning; deterministic code decides effects; "
        "committed events decide claims.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="a guided tour of the travel sample, offline, on SQLite")
    demo.add_argument("--db", help="SQLite file (default: a fresh file under the user data dir)")
    demo.add_argument("--locale", default="en", help="reply locale: en or pt-PT (default en)")

    scenario = sub.add_parser("scenario", help="scenario files")
    scenario_sub = scenario.add_subparsers(dest="scenario_command", required=True)
    run = scenario_sub.add_parser("run", help="run scenario files or directories")
    run.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    run.add_argument("--json", action="store_true", help="one JSON object per scenario")
    run.add_argument("--store", choices=("memory", "sqlite"), default="memory")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code.

    Exit codes: 0 success; 1 a scenario failed; 2 a usage error or an invalid file.
    """
    args = _parser().parse_args(argv)
    if args.command == "demo":
        from turnframe.cli.demo import run_demo

        return int(run_demo(db=args.db, locale=str(args.locale)))
    if args.command == "scenario":
        from turnframe.cli.scenario import run_scenarios

        return run_scenarios(args.paths, as_json=args.json, store=args.store)
    return 2  # pragma: no cover - argparse requires a command


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
