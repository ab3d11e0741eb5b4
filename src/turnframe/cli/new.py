"""``turnframe new NAME``: scaffold a package with one workflow, its scenarios and tests.

The package installs with ``pip install -e .`` and passes ``pytest`` and ``turnframe
scenario run --app NAME scenarios/`` as made (docs/authoring.md "Start your own app").
The template and its checks are :mod:`turnframe.cli.scaffold`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from turnframe.cli.scaffold import DEFAULT_RECORD, render_app, write_app

__all__ = ["add_commands", "run_command"]


def add_commands(sub: Any) -> None:
    """Add ``new NAME [--record WORD] [--dir PATH]`` to the ``turnframe`` parser."""
    new = sub.add_parser(
        "new",
        help="scaffold an app package: one workflow, its scenarios and tests",
        description="Write a new package NAME (a Turnframe app with one workflow) into a new "
        "or empty directory. It installs with `pip install -e .` and passes `pytest` and "
        "`turnframe scenario run --app NAME scenarios/` as made.",
    )
    new.add_argument("name", metavar="NAME", help="the Python package name (e.g. helpdesk)")
    new.add_argument(
        "--record",
        default=DEFAULT_RECORD,
        metavar="WORD",
        help=f"the record kind, which names the workflow and its operations "
        f"(default {DEFAULT_RECORD}; e.g. work_order)",
    )
    new.add_argument(
        "--dir", metavar="PATH", help="where to write it (default: ./NAME); new or empty"
    )


def run_command(args: argparse.Namespace) -> int:
    """Render and write the package; print what was made and the next commands.

    Returns 0. Raises ``UsageError`` (exit 2, one line, nothing written) for an invalid
    NAME or ``--record``, a target that exists and is not an empty directory, or one that
    cannot be written (``--dir /proc/nope``).
    """
    app = render_app(str(args.name), record=str(args.record))
    target = Path(args.dir) if args.dir else Path(str(args.name))
    written = write_app(app, target)
    print(f"made {app.name} in {target} ({len(written)} files; workflow {app.record!r})")
    print("next:")
    print(f"  cd {target}")
    print("  pip install -e .")
    print("  pytest")
    print(f"  turnframe scenario run --app {app.name} scenarios/")
    return 0
