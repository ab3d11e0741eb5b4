"""Numbered plain-SQL migrations and their runner (ADR 0011; docs/postgres.md "Store").

The SQL ships as package data: ``migrations/NNNN_name.sql`` (applied in order to an
existing schema) and ``schema.sql`` (the whole current schema, applied to an empty one).
The runner holds a session advisory lock on a dedicated autocommit connection while it
works, so concurrent ``migrate`` calls (several workers starting at once) apply each file
once; it records what it applied in ``tf_schema_migrations``. :func:`print_sql` gives
the same statements for adopters who run their own migration tool.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass
from importlib import resources
from typing import Any

import anyio
import psycopg
from psycopg import sql

from turnframe.core.dataclass_init import fast_init
from turnframe.store.errors import StoreError, StoreUnavailable
from turnframe.store.postgres._errors import describe, translate

__all__ = [
    "Migration",
    "applied_versions",
    "check_versions_for_reading",
    "check_schema_name",
    "fresh_schema_sql",
    "migrate",
    "migrations",
    "print_sql",
]

VERSION_TABLE = "tf_schema_migrations"
_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_SCHEMA = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


@fast_init
@dataclass(frozen=True, slots=True)
class Migration:
    """One numbered migration file.

    Attributes:
        version: its number.
        name: the rest of its file name.
        sql: its statements.
    """

    version: int
    name: str
    sql: str


def _package() -> resources.abc.Traversable:
    return resources.files("turnframe.store.postgres")


def migrations() -> list[Migration]:
    """Return the shipped migrations in version order."""
    found = []
    for entry in (_package() / "migrations").iterdir():
        match = _FILE.match(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    if [m.version for m in found] != list(range(1, len(found) + 1)):
        raise StoreError("the shipped migrations are not numbered 0001, 0002, … without gaps")
    return found


def fresh_schema_sql() -> str:
    """Return ``schema.sql``: the whole current schema for an empty database."""
    return (_package() / "schema.sql").read_text(encoding="utf-8")


def check_schema_name(schema: str) -> str:
    """Return ``schema`` if it is a plain lower-case identifier, else raise ``StoreError``."""
    if not _SCHEMA.match(schema):
        raise StoreError(f"schema name {schema!r} must match {_SCHEMA.pattern}")
    return schema


def lock_key(schema: str) -> int:
    """Return the advisory-lock key (a signed 64-bit integer) of ``schema``'s migrations."""
    digest = hashlib.blake2b(f"turnframe.migrate:{schema}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _version_table_ddl() -> str:
    return (
        f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (\n"
        "    version integer PRIMARY KEY,\n"
        "    name text NOT NULL,\n"
        "    applied_at timestamptz NOT NULL DEFAULT now()\n"
        ");\n"
    )


def print_sql(*, after: int = 0, schema: str | None = None, fresh: bool = False) -> str:
    """Return the SQL an adopter's own migration tool runs instead of :func:`migrate`.

    Args:
        after: leave out migrations up to and including this version.
        schema: when given, statements are preceded by ``CREATE SCHEMA``/``SET search_path``.
        fresh: print ``schema.sql`` (an empty database) instead of the numbered files.

    Returns:
        The statements: the version table, then each migration in a transaction with
        the row that records it.
    """
    parts = ["-- Turnframe PostgreSQL store migrations (`turnframe db print-sql`)\n"]
    if schema is not None:
        name = check_schema_name(schema)
        parts.append(f"CREATE SCHEMA IF NOT EXISTS {name};\nSET search_path TO {name};\n")
    parts.append(_version_table_ddl())
    pending = [m for m in migrations() if m.version > after]
    if fresh:
        rows = ", ".join(f"({m.version}, '{m.name}')" for m in migrations())
        parts.append(
            f"BEGIN;\n{fresh_schema_sql().rstrip()}\n"
            f"INSERT INTO {VERSION_TABLE} (version, name) VALUES {rows};\nCOMMIT;\n"
        )
        return "\n".join(parts)
    for m in pending:
        parts.append(
            f"-- {m.version:04d}_{m.name}\nBEGIN;\n{m.sql.rstrip()}\n"
            f"INSERT INTO {VERSION_TABLE} (version, name) VALUES ({m.version}, '{m.name}');\n"
            "COMMIT;\n"
        )
    return "\n".join(parts)


async def applied_versions(conn: psycopg.AsyncConnection[Any]) -> list[int]:
    """Return the versions recorded in the connection's search path (``[]`` if none)."""
    cur = await conn.execute("SELECT to_regclass(%s) IS NOT NULL", (VERSION_TABLE,))
    row = await cur.fetchone()
    if not row or not row[0]:
        return []
    cur = await conn.execute(f"SELECT version FROM {VERSION_TABLE} ORDER BY version")
    return [int(r[0]) for r in await cur.fetchall()]


async def check_versions_for_reading(
    conn: psycopg.AsyncConnection[Any], where: str, schema: str
) -> None:
    """Refuse a schema whose recorded migrations are not exactly the shipped ones.

    A read-only open (docs/shadow.md "No effect") cannot migrate, so it must not read a
    schema an older Turnframe left behind (a column it reads may be missing) or a newer
    one wrote (its rows may mean something else); the SQLite read-only open refuses
    another schema version the same way.

    Raises:
        StoreUnavailable: naming the schema, the versions found and the shipped ones.
    """
    found = await applied_versions(conn)
    shipped = [m.version for m in migrations()]
    if found == shipped:
        return
    newest = max(found, default=0)
    if newest > shipped[-1]:
        hint = "it was written by a newer Turnframe"
    else:
        hint = "run `turnframe db migrate` first (a read-only open never migrates)"
    raise StoreUnavailable(
        f"PostgreSQL at {where}: schema {schema} is at migration version {newest}; "
        f"this Turnframe reads version {shipped[-1]}: {hint}"
    )


async def migrate(
    dsn: str,
    *,
    schema: str = "public",
    lock_timeout: float = 30.0,
    connect_timeout: float = 10.0,
    fresh_install: bool = True,
) -> list[str]:
    """Bring ``schema`` up to the shipped version under an advisory lock.

    An empty schema gets ``schema.sql`` in one transaction (every version recorded) when
    ``fresh_install`` is true, else every numbered file in order; an existing one gets
    the files it lacks, each in its own transaction with its version row.

    Args:
        dsn: the database (``postgresql://…``).
        schema: the schema (created if missing).
        lock_timeout: seconds to wait for another migrator's lock.
        connect_timeout: seconds to wait for the connection.
        fresh_install: use ``schema.sql`` for an empty schema.

    Returns:
        What was applied: ``["schema.sql"]``, ``["0002_…"]``, or ``[]`` when current.

    Raises:
        StoreUnavailable: the database cannot be reached, or the lock was not had in time.
        StoreError: a statement failed (the failed file is rolled back whole), or the
            database holds a newer version than this Turnframe knows.
    """
    name = check_schema_name(schema)
    where = _where(dsn)
    with translate(where):
        conn = await psycopg.AsyncConnection.connect(
            dsn, autocommit=True, connect_timeout=max(1, int(connect_timeout))
        )
    try:
        with translate(where):
            key = lock_key(name)
            deadline = time.monotonic() + lock_timeout
            while True:
                cur = await conn.execute("SELECT pg_try_advisory_lock(%s)", (key,))
                row = await cur.fetchone()
                if row and row[0]:
                    break
                if time.monotonic() > deadline:
                    raise StoreUnavailable(
                        f"PostgreSQL at {where}: another migration of schema {name} held "
                        f"its lock for more than {lock_timeout:g} s"
                    )
                await anyio.sleep(0.1)
            try:
                return await _apply(conn, name, fresh_install)
            finally:
                await conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
    finally:
        await conn.close()


async def _apply(conn: psycopg.AsyncConnection[Any], schema: str, fresh: bool) -> list[str]:
    ident = sql.Identifier(schema)
    await conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(ident))
    await conn.execute(sql.SQL("SET search_path TO {}").format(ident))
    await conn.execute(_version_table_ddl())
    known = migrations()
    done = set(await applied_versions(conn))
    newest = max((m.version for m in known), default=0)
    if done and max(done) > newest:
        raise StoreError(
            f"schema {schema} is at migration {max(done)}; this Turnframe knows up to {newest}"
        )
    applied: list[str] = []
    if not done and fresh:
        async with conn.transaction():
            await conn.execute(fresh_schema_sql().encode())
            for m in known:
                await conn.execute(
                    f"INSERT INTO {VERSION_TABLE} (version, name) VALUES (%s, %s)",
                    (m.version, m.name),
                )
        return ["schema.sql"]
    for m in known:
        if m.version in done:
            continue
        try:
            async with conn.transaction():
                await conn.execute(m.sql.encode())
                await conn.execute(
                    f"INSERT INTO {VERSION_TABLE} (version, name) VALUES (%s, %s)",
                    (m.version, m.name),
                )
        except psycopg.Error as exc:
            raise StoreError(
                f"migration {m.version:04d}_{m.name} failed: {describe(schema, exc)}"
            ) from exc
        applied.append(f"{m.version:04d}_{m.name}")
    return applied


def _where(dsn: str) -> str:
    """Return host:port/dbname of a DSN without its password, for messages."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.Error:
        return "<unparseable DSN>"
    host = info.get("host") or "localhost"
    port = info.get("port") or "5432"
    return f"{host}:{port}/{info.get('dbname') or info.get('user') or ''}"
