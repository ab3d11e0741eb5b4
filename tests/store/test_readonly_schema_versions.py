"""A read-only open refuses a schema at another version, on SQLite and on PostgreSQL.

docs/shadow.md "No effect": a read-only store never migrates, so it must not read a
schema an older Turnframe left (a column it reads may be missing) or a newer one wrote.
The SQLite open checked this; the PostgreSQL read-only open read any version (a schema
missing its newest migration, or carrying version 99, shadowed as if current). Now both
refuse with ``StoreUnavailable`` naming the version, and the advice fits the case: an
older schema is migrated, a newer one was written by a newer Turnframe. Nothing is
written either way.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.store import StoreUnavailable
from turnframe.store._sqlite_schema import SCHEMA_VERSION
from turnframe.store.readonly import open_sqlite_readonly
from turnframe.store.sqlite import SqliteStore
from turnframe.testing.postgres import TEST_DSN_VAR, postgres_dsn

DSN = postgres_dsn(required=False, test=True)


def _sqlite_at(path: Path, version: int) -> bytes:
    async def make() -> None:
        store = await SqliteStore.open(path)
        await store.close()

    anyio.run(make)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE schema_version SET version = ?", (version,))
    conn.close()
    return path.read_bytes()


@pytest.mark.parametrize(
    ("version", "hint"),
    [
        (SCHEMA_VERSION + 1, "written by a newer Turnframe"),
        (SCHEMA_VERSION + 90, "written by a newer Turnframe"),
        (SCHEMA_VERSION - 1, "open it once read-write to migrate it"),
    ],
)
def test_sqlite_read_only_open_names_the_right_way_out(
    tmp_path: Path, version: int, hint: str
) -> None:
    path = tmp_path / "chat.db"
    before = _sqlite_at(path, version)
    with pytest.raises(StoreUnavailable, match=f"schema version {version};") as caught:
        open_sqlite_readonly(path)
    assert hint in str(caught.value)
    assert path.read_bytes() == before


_SHIPPED: list[int] = []


def _shipped() -> list[int]:
    if not _SHIPPED:
        from turnframe.store.postgres._migrations import migrations

        _SHIPPED.extend(m.version for m in migrations())
    return _SHIPPED


@pytest.mark.skipif(
    not DSN, reason=f"needs {TEST_DSN_VAR} (e.g. postgresql://postgres@127.0.0.1:5432/test)"
)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(versions=st.sets(st.integers(1, 9), max_size=8))
def test_postgres_read_only_open_refuses_any_other_migration_set(versions: set[int]) -> None:
    pytest.importorskip("psycopg")
    from turnframe.store.postgres import PostgresStore
    from turnframe.testing.postgres import open_temporary_store

    shipped = _shipped()

    async def go() -> None:
        store = await open_temporary_store(str(DSN), prefix="tf_rover")
        try:
            async with store.connection() as conn:
                await conn.execute("DELETE FROM tf_schema_migrations")
                for v in sorted(versions):
                    await conn.execute(
                        "INSERT INTO tf_schema_migrations (version, name) VALUES (%s, %s)",
                        (v, f"v{v}"),
                    )
            if sorted(versions) == shipped:
                ro = await PostgresStore.open(str(DSN), schema=store.schema, read_only=True)
                await ro.close()
                return
            with pytest.raises(StoreUnavailable) as caught:
                await PostgresStore.open(str(DSN), schema=store.schema, read_only=True)
            newest = max(versions, default=0)
            text = str(caught.value)
            assert f"is at migration version {newest};" in text
            assert f"reads version {shipped[-1]}" in text
            newer = newest > shipped[-1]
            assert ("newer Turnframe" in text) is newer
            assert ("turnframe db migrate" in text) is not newer
            async with store.connection() as conn:
                cur = await conn.execute("SELECT version FROM tf_schema_migrations ORDER BY 1")
                assert [r[0] for r in await cur.fetchall()] == sorted(versions)
        finally:
            await store.close()

    anyio.run(go)


@pytest.mark.skipif(
    not DSN, reason=f"needs {TEST_DSN_VAR} (e.g. postgresql://postgres@127.0.0.1:5432/test)"
)
def test_postgres_read_only_open_reads_the_shipped_version() -> None:
    from turnframe.store.postgres import PostgresStore
    from turnframe.testing.postgres import open_temporary_store

    async def go() -> None:
        store = await open_temporary_store(str(DSN), prefix="tf_rover")
        try:
            ro = await PostgresStore.open(str(DSN), schema=store.schema, read_only=True)
            await ro.close()
        finally:
            await store.close()

    anyio.run(go)
