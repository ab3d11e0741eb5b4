"""A shadow run writes nothing (docs/shadow.md "No effect").

Two guards, each tested: :class:`ReadOnlyStore` refuses every write method of the
``TurnStore`` protocol (enumerated from the protocol itself, so a method added later
must be classified) and passes every read through; beneath it the database is opened
read-only (SQLite ``mode=ro``). And the outcome: the SQLite file's bytes and every
table's row count are identical after shadow runs over recorded turns with cards, clicks
and commits, the same on PostgreSQL when ``TURNFRAME_TEST_POSTGRES_DSN`` is set.
"""

from __future__ import annotations

import inspect
import os
import sqlite3
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from shadow_traffic import ACTOR, TURNS, file_digest, record_turns, row_counts

from turnframe.eval.shadow import recorded_calls, shadow_turns
from turnframe.providers import ScriptedProvider
from turnframe.samples.travel import travel_application
from turnframe.store import StoreError, StoreUnavailable, TurnStore
from turnframe.store.readonly import (
    READ_METHODS,
    WRITE_METHODS,
    ReadOnlyStore,
    StoreReadOnly,
    open_sqlite_readonly,
)

PROTOCOL = sorted(
    name for name, value in vars(TurnStore).items() if callable(value) and not name.startswith("_")
)


class Spy:
    """A stand-in store answering every method with a marker and recording each call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        async def method(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, args, kwargs))
            return ("answer of", name)

        return method


def dummy_arguments(name: str) -> tuple[list[Any], dict[str, Any]]:
    """Return placeholder arguments for protocol method ``name`` (one per parameter)."""
    params = list(inspect.signature(getattr(TurnStore, name)).parameters.values())[1:]
    args = [f"<{p.name}>" for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    kwargs = {p.name: f"<{p.name}>" for p in params if p.kind is p.KEYWORD_ONLY}
    return args, kwargs


def test_every_protocol_method_is_either_a_read_or_a_write() -> None:
    assert PROTOCOL, "the protocol lists no method"
    assert set(PROTOCOL) == READ_METHODS | WRITE_METHODS
    assert not READ_METHODS & WRITE_METHODS
    # The wrapper has no public attribute beyond the protocol (and its ``inner``).
    own = {n for n in dir(ReadOnlyStore) if not n.startswith("_")}
    assert own == set(PROTOCOL) | {"inner"}


@pytest.mark.parametrize("name", sorted(WRITE_METHODS))
def test_each_write_is_refused_before_the_store_sees_it(name: str) -> None:
    spy = Spy()
    store = ReadOnlyStore(cast(TurnStore, spy))
    args, kwargs = dummy_arguments(name)

    async def go() -> None:
        with pytest.raises(StoreReadOnly) as caught:
            await getattr(store, name)(*args, **kwargs)
        assert caught.value.method == name and name in str(caught.value)

    anyio.run(go)
    assert spy.calls == []


@pytest.mark.parametrize("name", sorted(READ_METHODS))
def test_each_read_passes_through_with_its_arguments(name: str) -> None:
    spy = Spy()
    store = ReadOnlyStore(cast(TurnStore, spy))
    args, kwargs = dummy_arguments(name)

    async def go() -> Any:
        return await getattr(store, name)(*args, **kwargs)

    answer = anyio.run(go)
    # ``close`` returns nothing, whatever the store answers; every other read its answer.
    assert answer == (None if name == "close" else ("answer of", name))
    ((called, got_args, got_kwargs),) = spy.calls
    assert called == name
    assert [*got_args, *got_kwargs.values()] == [*args, *kwargs.values()]


def test_no_shadow_run_changes_the_sqlite_file(recorded_db: Path) -> None:
    before_bytes, before_rows = file_digest(recorded_db), row_counts(recorded_db)
    assert before_rows["turns"] == len(TURNS) and before_rows["replays"] == len(TURNS)
    assert before_rows["interactions"] >= 2 and before_rows["events"] > 0
    # A reading that fails after segmenting (no route answer): an unreadable message.
    short = {
        "segment": {
            "units": [{"id": "u1", "kind": "request", "from": 0, "to": 6, "hypothetical": False}]
        }
    }

    async def go() -> None:
        for provider in (recorded_calls, ScriptedProvider(short)):
            store = open_sqlite_readonly(recorded_db)
            try:
                await shadow_turns(
                    travel_application(), store, provider, TURNS, account=ACTOR.account
                )
            finally:
                await store.close()

    anyio.run(go)
    assert file_digest(recorded_db) == before_bytes
    assert row_counts(recorded_db) == before_rows
    wal = recorded_db.with_name(recorded_db.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_beneath_the_wrapper_sqlite_itself_refuses_a_write(recorded_db: Path) -> None:
    before = file_digest(recorded_db)

    async def go() -> None:
        store = open_sqlite_readonly(recorded_db)
        try:
            with pytest.raises(StoreReadOnly):
                await store.put_conversation_state(ACTOR.account, "c1", {})
            with pytest.raises(StoreUnavailable, match="readonly"):
                await store.inner.put_conversation_state(ACTOR.account, "c1", {})
        finally:
            await store.close()

    anyio.run(go)
    assert file_digest(recorded_db) == before


def test_a_missing_or_foreign_file_is_refused_and_never_created(tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    with pytest.raises(StoreUnavailable, match="no SQLite database"):
        open_sqlite_readonly(missing)
    assert not missing.exists()
    foreign = tmp_path / "other.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    digest = file_digest(foreign)
    with pytest.raises(StoreUnavailable, match="Turnframe store"):
        open_sqlite_readonly(foreign)
    assert file_digest(foreign) == digest
    text = tmp_path / "notes.db"
    text.write_text("not a database")
    with pytest.raises(StoreUnavailable):
        open_sqlite_readonly(text)
    assert text.read_text() == "not a database"


DSN = os.environ.get("TURNFRAME_TEST_POSTGRES_DSN")


async def _pg_tables(dsn: str, schema: str) -> dict[str, tuple[int, str]]:
    """Return table → (row count, md5 of its rows as text) for every table of ``schema``."""
    import psycopg
    from psycopg import sql

    out: dict[str, tuple[int, str]] = {}
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        cur = await conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s "
            "AND table_type = 'BASE TABLE' ORDER BY table_name",
            (schema,),
        )
        names = [r[0] for r in await cur.fetchall()]
        for name in names:
            table = sql.Identifier(schema, name)
            query = sql.SQL(
                "SELECT COUNT(*), COALESCE(md5(string_agg(t::text, '|' ORDER BY t::text)), '')"
                " FROM {} AS t"
            ).format(table)
            row = await (await conn.execute(query)).fetchone()
            assert row is not None
            out[name] = (int(row[0]), str(row[1]))
    return out


@pytest.mark.skipif(
    not DSN, reason="set TURNFRAME_TEST_POSTGRES_DSN=postgresql://... to run on PostgreSQL"
)
def test_no_shadow_run_changes_the_postgres_schema() -> None:
    from turnframe.cli.shadow import open_postgres_readonly
    from turnframe.testing.postgres import open_temporary_store

    assert DSN is not None

    async def go() -> None:
        store = await open_temporary_store(DSN, prefix="tf_shadow")
        try:
            await record_turns(store)
            schema = str(store.schema)
            before = await _pg_tables(DSN, schema)
            assert sum(count for count, _ in before.values()) > 0
            view = await open_postgres_readonly(DSN, schema=schema)
            try:
                report = await shadow_turns(
                    travel_application(), view, recorded_calls, TURNS, account=ACTOR.account
                )
                with pytest.raises(StoreReadOnly):
                    await view.save_replay(ACTOR.account, "t-rename", {})
                # Past the wrapper, PostgreSQL itself refuses (a read-only session).
                with pytest.raises(StoreError, match="read-only transaction"):
                    await view.inner.save_replay(ACTOR.account, "t-rename", {})
            finally:
                await view.close()
            assert report.totals.same == 3 and report.totals.skipped == 2
            assert await _pg_tables(DSN, schema) == before
        finally:
            await store.close()

    anyio.run(go)
