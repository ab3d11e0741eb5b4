"""``turnframe providers conformance [--json]`` and ``turnframe providers table``.

Both run the conformance suite against the loopback fakes (no network) through every
built-in adapter's real SDK. ``table`` writes docs/providers.md from the results, so
the published table is always the output of a run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, TextIO

import anyio

__all__ = ["add_commands", "run_providers"]


def add_commands(sub: Any) -> None:
    """Add ``providers conformance`` and ``providers table`` to the ``turnframe`` parser."""
    providers = sub.add_parser("providers", help="provider adapters: conformance and table")
    psub = providers.add_subparsers(dest="providers_command", required=True)
    conf = psub.add_parser("conformance", help="run the conformance suite against loopback fakes")
    conf.add_argument("--json", action="store_true", help="one JSON object")
    conf.add_argument("--target", action="append", help="only targets whose name contains this")
    conf.add_argument("--case", action="append", help="only these cases")
    table = psub.add_parser("table", help="run the suite and write the compatibility table")
    table.add_argument("--output", default="docs/providers.md", help="default: docs/providers.md")
    table.add_argument("--target", action="append", help="only targets whose name contains this")


async def _run(targets: list[Any], cases: list[str] | None) -> list[Any]:
    from turnframe.providers.conformance.runner import run_target
    from turnframe.providers.conformance.server import LoopbackServer

    results: list[Any] = []
    with LoopbackServer() as server:
        for target in targets:
            results.extend(await run_target(target, server, cases))
    return results


def run_providers(args: Any, out: TextIO | None = None) -> int:
    """Run ``providers conformance`` or ``providers table``; 1 when a case failed."""
    from turnframe.providers.conformance.runner import CASES
    from turnframe.providers.conformance.table import render_table
    from turnframe.providers.conformance.targets import builtin_targets

    stream = out or sys.stdout
    targets = builtin_targets()
    if args.target:
        targets = [t for t in targets if any(name in t.name for name in args.target)]
    cases = getattr(args, "case", None)
    if cases:
        unknown = [c for c in cases if c not in CASES]
        if unknown:
            print(
                f"error: unknown case {', '.join(unknown)}; known: {', '.join(CASES)}",
                file=sys.stderr,
            )
            return 2
    results = anyio.run(_run, targets, cases)
    failed = [r for r in results if r.status == "fail"]
    if args.providers_command == "table":
        path = Path(args.output)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_table(targets, results), encoding="utf-8")
        print(f"wrote {path} ({len(results)} results, {len(failed)} failed)", file=stream)
        return 1 if failed else 0
    if args.json:
        print(
            json.dumps(
                {
                    "passed": sum(r.status == "pass" for r in results),
                    "failed": len(failed),
                    "results": [r.to_json() for r in results],
                }
            ),
            file=stream,
        )
    else:
        for target in targets:
            mine = [r for r in results if r.target == target.name]
            passed = sum(r.status == "pass" for r in mine)
            print(f"{target.name}: {passed}/{len(mine)} passed", file=stream)
            for r in mine:
                if r.status != "pass":
                    print(f"  {r.case}: {r.status} {r.detail}", file=stream)
    return 1 if failed else 0
