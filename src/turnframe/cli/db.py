"""``turnframe db migrate|print-sql``: the PostgreSQL store's schema (ADR 0011).

``migrate`` applies the shipped numbered SQL files under an advisory lock (``schema.sql``
for an empty schema); ``print-sql`` prints the same statements for an adopter's own
migration tool (Alembic, Django, Flyway). The DSN comes from ``--dsn`` or
``TURNFRAME_POSTGRES_DSN``.
"""

from __future__ import annotations

import os
import sys

__all__ = ["run_db", "run_dead_letters", "run_recipe"]

DSN_VAR = "TURNFRAME_POSTGRES_DSN"


def run_db(command: str, *, dsn: str | None, schema: str, after: int, fresh: bool) -> int:
    """Run ``migrate`` or ``print-sql``; return the exit code (0 ok, 2 usage, 1 failure)."""
    try:
        from turnframe.store.postgres import migrate, print_sql
    except ImportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from turnframe.core.errors import TurnframeError

    if command == "print-sql":
        try:
            sys.stdout.write(
                print_sql(after=after, schema=None if schema == "public" else schema, fresh=fresh)
            )
        except TurnframeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return 0
    target = dsn or os.environ.get(DSN_VAR, "").strip()
    if not target:
        print(f"error: give --dsn or set {DSN_VAR}", file=sys.stderr)
        return 2
    import anyio

    try:
        applied = anyio.run(lambda: migrate(target, schema=schema))
    except TurnframeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if applied:
        print(f"schema {schema}: applied {', '.join(applied)}")
    else:
        print(f"schema {schema}: up to date")
    return 0


def run_recipe(table: str, key: str, column: str) -> int:
    """Print the no-revision-column recipe's SQL (docs/recipes/no-revision-column.md)."""
    try:
        from turnframe.store.postgres.recipes import compare_and_set_sql, no_revision_column_sql
    except ImportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        ddl = no_revision_column_sql(table, column=column)
        cas = compare_and_set_sql(table, key, column=column)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(f"{ddl}\n-- the executor's compare-and-set (zero rows: stale)\n{cas}")
    return 0


def run_dead_letters(*, dsn: str | None, schema: str, account: str | None, as_json: bool) -> int:
    """List dead-lettered turns (with reasons) and outbox rows (with last errors).

    Returns 0 when there are none, 1 when there are some (so monitoring can alert),
    2 for a usage error.
    """
    target = dsn or os.environ.get(DSN_VAR, "").strip()
    if not target:
        print(f"error: give --dsn or set {DSN_VAR}", file=sys.stderr)
        return 2
    import json

    import anyio

    from turnframe.core.errors import TurnframeError

    async def collect() -> list[dict[str, object]]:
        from turnframe.store.postgres import PostgresStore

        store = await PostgresStore.open(target, schema=schema)
        try:
            found: list[dict[str, object]] = []
            for dead in await store.dead_turns(account):
                found.append(
                    {
                        "kind": "turn",
                        "id": dead.record.turn_id,
                        "account": dead.record.account,
                        "conversation": dead.record.conversation_id,
                        "attempts": dead.record.attempts,
                        "reason": dead.reason,
                    }
                )
            for message in await store.outbox_messages("dead_letter"):
                row = await store.outbox_row(message.id)
                found.append(
                    {
                        "kind": "outbox",
                        "id": message.id,
                        "case": str(message.case),
                        "topic": message.topic,
                        "attempts": None if row is None else row.attempts,
                        "reason": None if row is None else row.last_error,
                    }
                )
            return found
        finally:
            await store.close()

    try:
        entries = anyio.run(collect)
    except TurnframeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for entry in entries:
        if as_json:
            print(json.dumps(entry))
        else:
            print(
                f"{entry['kind']} {entry['id']}: {entry['reason']} (attempts {entry['attempts']})"
            )
    if not as_json:
        print(f"{len(entries)} dead letter(s)")
    return 1 if entries else 0
