"""``turnframe shadow``: read recorded turns again with another model (docs/shadow.md).

Exit codes: 0 the run finished (differences are findings; with ``--fail-on-diff`` a
difference or an outside turn exits 1), 2 a usage error (a bad spec, an unknown turn, an
unreadable store; one line), 3 the model could not be reached.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

import anyio

from turnframe.cli.chat import ACTOR, DEFAULT_APP
from turnframe.core.errors import UsageError
from turnframe.core.turn import Effort
from turnframe.eval.models import KNOWN_MODELS, provider_from_spec
from turnframe.eval.shadow import (
    ProviderFor,
    ShadowModelUnreachable,
    ShadowReport,
    conversation_turns,
    recorded_calls,
    shadow_turns,
)
from turnframe.runtime.loading import load_application
from turnframe.store.readonly import ReadOnlyStore, open_sqlite_readonly

__all__ = [
    "EXIT_UNREACHABLE",
    "add_commands",
    "open_postgres_readonly",
    "render_report",
    "run_shadow",
]

EXIT_UNREACHABLE = 3
"""The exit code when the shadow model cannot be reached."""

RECORDED = "recorded"
"""The ``--model`` that serves each turn its own recorded calls (must give ``same``)."""


def add_commands(sub: Any) -> None:
    """Add ``shadow`` to the ``turnframe`` parser."""
    p = sub.add_parser(
        "shadow",
        help="read recorded turns again with another model and compare the plans (no effect)",
        description=(
            "Read recorded turns again with another model, reduce each new reading on the "
            "turn's recorded snapshots and report how the plans differ (acts, targets, "
            "results, commands). The store is opened read-only; nothing is written."
        ),
    )
    p.add_argument("--app", default=DEFAULT_APP, help=f"module:attribute (default {DEFAULT_APP})")
    p.add_argument(
        "--model",
        required=True,
        help=f"PROVIDER:MODEL to qualify: {KNOWN_MODELS}; or `{RECORDED}` (each turn's own calls)",
    )
    p.add_argument("--turns", help="comma-separated turn ids")
    p.add_argument("--conversation", help="every replied turn of this conversation")
    p.add_argument("--last", type=int, help="only the conversation's last N turns")
    p.add_argument("--account", default=ACTOR.account, help="the turns' account")
    p.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    p.add_argument("--db", help="SQLite file (default: chat.db under the user data dir)")
    p.add_argument("--dsn", help="PostgreSQL DSN (with --store postgres)")
    p.add_argument("--schema", default="public", help="PostgreSQL schema (default public)")
    p.add_argument("--effort", choices=[e.value for e in Effort], help="default: as recorded")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument(
        "--fail-on-diff", action="store_true", help="exit 1 when a turn differs or is outside"
    )


def _turn_ids(text: str | None) -> list[str] | None:
    if text is None:
        return None
    ids = [t.strip() for t in text.split(",") if t.strip()]
    if not ids:
        raise UsageError("--turns takes comma-separated turn ids")
    return ids


def _provider(spec: str) -> ProviderFor:
    return recorded_calls if spec == RECORDED else provider_from_spec(spec)


async def open_postgres_readonly(dsn: str, *, schema: str = "public") -> ReadOnlyStore:
    """Return a read-only store over the PostgreSQL schema ``schema`` at ``dsn``.

    The schema is never migrated; every write is refused by
    :class:`~turnframe.store.readonly.ReadOnlyStore` before any SQL is sent, and the
    sessions run with ``default_transaction_read_only=on``
    (``PostgresStore.open(read_only=True)``), so PostgreSQL refuses one too
    (docs/shadow.md "No effect").

    Raises:
        StoreUnavailable: the database cannot be reached or holds no Turnframe tables.
        StoreError: ``schema`` is not a plain lower-case identifier.
    """
    from turnframe.store.postgres import PostgresStore

    return ReadOnlyStore(await PostgresStore.open(dsn, schema=schema, max_size=2, read_only=True))


async def _open(args: argparse.Namespace) -> ReadOnlyStore:
    if args.store == "postgres":
        if not args.dsn:
            raise UsageError("--store postgres needs --dsn")
        return await open_postgres_readonly(str(args.dsn), schema=str(args.schema))
    if args.dsn:
        raise UsageError("--dsn is for --store postgres; SQLite takes --db")
    if args.db:
        return open_sqlite_readonly(args.db)
    from turnframe.store.sqlite import default_path

    return open_sqlite_readonly(Path(default_path()).with_name("chat.db"))


async def _run(args: argparse.Namespace) -> ShadowReport:
    turns = _turn_ids(args.turns)
    if turns is not None and (args.conversation or args.last is not None):
        raise UsageError("give --turns, or --conversation (with --last), not both")
    if turns is None and not args.conversation:
        raise UsageError("name the turns: --turns ID,... or --conversation ID [--last N]")
    app = load_application(str(args.app))
    provider = _provider(str(args.model))
    store = await _open(args)
    try:
        if turns is None:
            turns = await conversation_turns(store, args.account, args.conversation, args.last)
        return await shadow_turns(
            app,
            store,
            provider,
            turns,
            account=str(args.account),
            model=str(args.model),
            effort=args.effort,
        )
    finally:
        await store.close()


def render_report(report: ShadowReport, out: TextIO) -> None:
    """Print ``report`` for a person: one block per turn, then the totals."""
    for turn in report.turns:
        head = f"turn {turn.turn_id}: {turn.status}"
        if turn.reason:
            head += f" ({turn.reason})"
        if turn.replay_same is False:
            head += " [the recorded reduction no longer replays to its plan]"
        print(head, file=out)
        for line in turn.outside:
            print(f"  outside: {line}", file=out)
        for d in turn.differences:
            sign = "-" if d.change == "removed" else "+"
            print(f"  {d.dimension:<8} {sign} {d.item}", file=out)
    t = report.totals
    dims = ", ".join(f"{k} {v}" for k, v in t.by_dimension.items())
    print(
        f"{t.turns} turns: {t.read} read, {t.same} same, {t.different} different, "
        f"{t.outside} outside, {t.skipped} skipped; differing by dimension: {dims}; "
        f"{t.model_calls} model calls, {t.prompt_tokens} prompt + "
        f"{t.completion_tokens} completion tokens ({report.model})",
        file=out,
    )


def run_shadow(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run ``turnframe shadow``; return the exit code (module docstring).

    Raises:
        UsageError: a bad spec, turn id, store or option (the caller prints one line).
    """
    stream = out or sys.stdout
    try:
        report = anyio.run(_run, args)
    except ShadowModelUnreachable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_UNREACHABLE
    if args.json:
        print(report.model_dump_json(), file=stream)
    else:
        render_report(report, stream)
    if args.fail_on_diff and (report.totals.different or report.totals.outside):
        return 1
    return 0
