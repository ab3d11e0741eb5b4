"""``turnframe scenario run FILE_OR_DIR... [--app SPEC] [--json] [--store ...]`` and ``scenario schema``.

The format, the exit codes and the JSON lines are described in docs/scenario-format.md.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from turnframe.core.errors import UsageError
from turnframe.runtime.loading import load_application
from turnframe.store.errors import StoreError
from turnframe.testing.scenario import ScenarioFileError, discover, run_scenario_file

__all__ = ["print_schema", "run_scenarios"]


def run_scenarios(
    paths: Sequence[str], *, as_json: bool, store: str, app: str | None = None
) -> int:
    """Run every scenario file under ``paths`` and print the outcome.

    Prints one line per failed expectation (file, turn, expectation, expected, actual),
    one ``invalid: FILE at PATH: message`` line per invalid file, one ``failed: FILE:
    ErrorType: message`` line for a file whose run raised something unexpected (the
    other files still run), and a closing ``N passed, N failed, N invalid`` line. An
    ``--app`` that cannot be loaded is one ``error:`` line before any file runs; a
    ``sample:`` application that cannot be loaded is spelled out for the first file
    naming it and referred to for the others. With ``as_json``, one JSON object per file
    (``file``, ``status`` ``passed``/``failed``/``invalid``, ``passed``, ``failures``, and
    for an invalid file ``error`` and ``where``), then one ``{"summary": {...}}`` object
    with the three counts.

    Args:
        paths: scenario files and directories.
        as_json: print JSON lines instead of text.
        store: ``memory``, ``sqlite`` or ``postgres``.
        app: the ``--app`` spec for files without ``sample:`` (docs/scenario-format.md).

    Returns:
        0 when every scenario passed; 2 when a path is missing, a directory holds no
        scenario file, ``app`` cannot be loaded, or any file is invalid; otherwise 1
        when one failed.
    """
    try:
        files = discover(paths)
    except ScenarioFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not files:
        print("error: no scenario files given", file=sys.stderr)
        return 2
    if app is not None:
        try:
            load_application(app)  # an application error is the run's, said once
        except UsageError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    counts = {"passed": 0, "failed": 0, "invalid": 0}
    app_errors: dict[str, str] = {}  # an application's load error -> the first file
    for path in files:
        try:
            outcome = run_scenario_file(path, store=store, app=app)
        except ScenarioFileError as exc:
            counts["invalid"] += 1
            first = app_errors.get(exc.message) if exc.where == "sample" else None
            if exc.where == "sample" and first is None:
                app_errors[exc.message] = str(path)
            if as_json:
                _json_line(
                    {
                        "file": str(path),
                        "status": "invalid",
                        "passed": False,
                        "where": exc.where,
                        "error": str(exc),
                        "failures": [],
                    }
                )
            elif first is not None:
                print(f"invalid: {path} at sample: the same error as {first}")
            else:
                print(f"invalid: {exc}")
            continue
        except (UsageError, StoreError):
            raise  # the run's own settings (the store, its DSN): one `error:` line, exit 2
        except Exception as exc:  # the run of this file broke; the others still run
            counts["failed"] += 1
            error = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
            if as_json:
                _json_line(
                    {
                        "file": str(path),
                        "status": "failed",
                        "passed": False,
                        "error": error,
                        "failures": [],
                    }
                )
            else:
                print(f"failed: {path}: {error}")
            continue
        status = "passed" if outcome.passed else "failed"
        counts[status] += 1
        if as_json:
            _json_line(
                {
                    "file": outcome.file,
                    "status": status,
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
                }
            )
        else:
            for failure in outcome.failures:
                print(failure.line())
    if as_json:
        _json_line({"summary": counts})
    else:
        print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['invalid']} invalid")
    if counts["invalid"]:
        return 2
    return 1 if counts["failed"] else 0


def print_schema() -> int:
    """Print the scenario format's JSON Schema (for editors); return 0."""
    from turnframe.testing.scenario.schema import shipped_schema

    print(json.dumps(shipped_schema(), indent=2, ensure_ascii=False))
    return 0


def _json_line(obj: dict[str, Any]) -> None:
    print(json.dumps(obj, default=str))
