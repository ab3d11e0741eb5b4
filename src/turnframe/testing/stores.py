"""Open a store for a test: memory, SQLite in a temporary directory, or a PostgreSQL schema.

An adopter's scripted tests run the same turns on every store the framework ships
(docs/architecture.md "Stores"); :func:`open_store` gives one by kind and cleans it up
(docs/authoring.md "Testing your app").
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal

from turnframe.core.errors import UsageError
from turnframe.store import InMemoryStore, TurnStore

__all__ = ["STORE_KINDS", "StoreKind", "open_store"]

StoreKind = Literal["memory", "sqlite", "postgres"]
"""The stores a test can open."""

STORE_KINDS: tuple[StoreKind, ...] = ("memory", "sqlite", "postgres")


@asynccontextmanager
async def open_store(
    kind: StoreKind, *, path: str | Path | None = None, dsn: str | None = None
) -> AsyncIterator[TurnStore]:
    """Open a fresh store of ``kind`` for a test; close (and remove) it on leaving.

    Args:
        kind: ``"memory"``; ``"sqlite"`` (a database file in a temporary directory,
            removed afterwards, unless ``path`` names the file to use and keep);
            ``"postgres"`` (a fresh migrated schema, dropped afterwards, via
            :func:`turnframe.testing.postgres.open_temporary_store`).
        path: the SQLite file (``"sqlite"`` only).
        dsn: the PostgreSQL DSN (``"postgres"`` only); default ``TURNFRAME_POSTGRES_DSN``,
            else ``TURNFRAME_TEST_POSTGRES_DSN``.

    Raises:
        UsageError: an unknown ``kind``; ``"postgres"`` without a DSN (the message names
            the variables to set: a test skips on it, e.g. with
            ``pytest.skip(str(exc))``); ``path``/``dsn`` given to a kind that takes none.
        StoreUnavailable: the database cannot be opened or reached.
    """
    if kind not in STORE_KINDS:
        raise UsageError(f"unknown store {kind!r}: choose from {', '.join(STORE_KINDS)}")
    if path is not None and kind != "sqlite":
        raise UsageError(f"path= is for the sqlite store, not {kind!r}")
    if dsn is not None and kind != "postgres":
        raise UsageError(f"dsn= is for the postgres store, not {kind!r}")
    store: TurnStore
    if kind == "memory":
        store = InMemoryStore()
        try:
            yield store
        finally:
            await store.close()
    elif kind == "sqlite":
        from turnframe.store.sqlite import SqliteStore

        if path is not None:
            store = await SqliteStore.open(path)
            try:
                yield store
            finally:
                await store.close()
            return
        with tempfile.TemporaryDirectory(prefix="turnframe-test-") as workdir:
            store = await SqliteStore.open(Path(workdir) / "test.db")
            try:
                yield store
            finally:
                await store.close()
    else:
        from turnframe.testing.postgres import open_temporary_store, postgres_dsn

        target = dsn or postgres_dsn()  # UsageError naming the variables when unset
        store = await open_temporary_store(target, prefix="tf_test")
        try:
            yield store
        finally:
            await store.close()
