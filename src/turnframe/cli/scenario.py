"""``turnframe scenario run FILE_OR_DIR... [--json] [--store memory|sqlite]``."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from turnframe.testing.scenario import ScenarioFileError, discover, run_scenario_file

__all__ = ["run_scenarios"]


def run_scenarios(paths: Sequence[str], *, as_json: bool, store: str) -> int:
    """Run every scenario file under ``paths`` and print the outcome.

    Prints one line per failed expectation (file, turn, expectation, expected, actual) and
    a closing ``N passed, N failed`` line; with ``as_json``, one JSON object per scenario.

    Returns:
        0 when every scenario passed, 1 when one failed, 2 when a file is invalid.
    """
    try:
        files = discover(paths)
    except ScenarioFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    passed = failed = 0
    invalid = False
    for path in files:
        try:
            outcome = run_scenario_file(path, store=store)
        except ScenarioFileError as exc:
            invalid = True
            failed += 1
            if as_json:
                print(
                    json.dumps(
                        {"file": str(path), "passed": False, "error": str(exc), "failures": []}
                    )
                )
            else:
                print(f"invalid: {exc}")
            continue
        if outcome.passed:
            passed += 1
        else:
            failed += 1
        if as_json:
            print(
                json.dumps(
                    {
                        "file": outcome.file,
                        "passed": outcome.passed,
                        "failures": [
                            {
                                "turn": f.turn,
                                "expectation": f.expectation,
                                "expected": f.expected,
                                "actual": f.actual,
                            }
                            for f in outcome.failures
                        ],
                    },
                    default=str,
                )
            )
        else:
            for failure in outcome.failures:
                print(failure.line())
    if not as_json:
        print(f"{passed} passed, {failed} failed")
    if invalid:
        return 2
    return 1 if failed else 0
