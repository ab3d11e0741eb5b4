"""PostgreSQL helpers for tests, scenarios and benchmarks: the DSN and throwaway schemas.

``TURNFRAME_TEST_POSTGRES_DSN`` names the test database (``.ci/run`` sets it);
``TURNFRAME_POSTGRES_DSN`` the application's. :func:`temporary_schema` creates a fresh,
migrated schema and drops it afterwards, so every test class, scenario file or benchmark
run works on its own tables without resetting the database.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from turnframe.core.errors import UsageError

__all__ = [
    "APP_DSN_VAR",
    "TEST_DSN_VAR",
    "drop_schema",
    "new_schema_name",
    "open_temporary_store",
    "postgres_dsn",
    "temporary_schema",
]

TEST_DSN_VAR = "TURNFRAME_TEST_POSTGRES_DSN"
APP_DSN_VAR = "TURNFRAME_POSTGRES_DSN"


def postgres_dsn(*, required: bool = True, test: bool = False) -> str | None:
    """Return the DSN from ``TURNFRAME_POSTGRES_DSN``, else ``TURNFRAME_TEST_POSTGRES_DSN``.

    Args:
        required: raise when neither is set (else return ``None``).
        test: prefer the test variable.

    Raises:
        UsageError: neither variable is set and ``required``.
    """
    order = (TEST_DSN_VAR, APP_DSN_VAR) if test else (APP_DSN_VAR, TEST_DSN_VAR)
    for name in order:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    if required:
        raise UsageError(
            f"no PostgreSQL DSN: set {APP_DSN_VAR} (or {TEST_DSN_VAR}), "
            "e.g. postgresql://postgres@127.0.0.1:5432/test"
        )
    return None


def new_schema_name(prefix: str = "tf_tmp") -> str:
    """Return ``<prefix>_<12 hex>``, a fresh schema name."""
    return f"{prefix}_{secrets.token_hex(6)}"


async def drop_schema(dsn: str, schema: str) -> None:
    """Drop ``schema`` and everything in it (no error when it is missing)."""
    import psycopg
    from psycopg import sql

    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        await conn.execute(
            sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
        )


@asynccontextmanager
async def temporary_schema(dsn: str, prefix: str = "tf_tmp") -> AsyncIterator[str]:
    """Create and migrate a fresh schema, yield its name, then drop it."""
    from turnframe.store.postgres import migrate

    schema = new_schema_name(prefix)
    try:
        await migrate(dsn, schema=schema)
        yield schema
    finally:
        await drop_schema(dsn, schema)


async def open_temporary_store(dsn: str | None = None, prefix: str = "tf_tmp") -> Any:
    """Open a :class:`~turnframe.store.postgres.PostgresStore` on a fresh migrated schema.

    The schema is dropped when the store is closed. ``dsn`` defaults to
    :func:`postgres_dsn` (``TURNFRAME_POSTGRES_DSN``, else the test variable).

    Raises:
        UsageError: no DSN is configured.
        StoreUnavailable: the database cannot be reached.
    """
    from turnframe.store.postgres import PostgresStore

    target = dsn or postgres_dsn()
    assert target is not None
    schema = new_schema_name(prefix)
    try:
        store = await PostgresStore.open(target, schema=schema, migrate_schema=True)
    except BaseException:
        with contextlib.suppress(Exception):  # best effort: the original error matters
            await drop_schema(target, schema)
        raise
    store.on_close(lambda: drop_schema(target, schema))
    return store
