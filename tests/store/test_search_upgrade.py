"""Upgrading a database made before the word-search index (turnframe.store.search).

Cases stored before the index exist come back from ``unindexed_cases`` after the upgrade,
are left out of ``find_cases`` until indexed, and the stored directory indexes them before
its first lookup, so its answers are the same as before the upgrade.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from turnframe.core.events import EventDraft
from turnframe.core.ids import Actor, CaseRef
from turnframe.runtime import StoredCaseDirectory
from turnframe.samples.travel import travel_application
from turnframe.store import CommitRequest, TurnStore
from turnframe.store._sqlite_schema import SCHEMA_VERSION
from turnframe.store._sqlite_search import _SEARCH_SCHEMA_V3
from turnframe.store.sqlite import SqliteStore
from turnframe.testing.postgres import drop_schema, new_schema_name, postgres_dsn

ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
_REGISTRY = travel_application().registry
_TRAVELERS = {"K1": "Kim Lee", "A1": "Ana Silva", "A2": "Ana Souza"}


def _seed_request(key: str, name: str) -> CommitRequest:
    state = {"full_name": name, "birth_date": "1980-04-02"}
    state = _REGISTRY.workflow("traveler").definition.dump_state(
        _REGISTRY.workflow("traveler").typed(state)
    )
    return CommitRequest(
        account=ACTOR.account,
        case=CaseRef("traveler", key),
        expected_revision=0,
        state=state,
        events=(EventDraft(type="traveler.seeded", data=state, operation="seed"),),
        idempotency_key=f"seed-{key}",
        request_hash="h",
        turn_id="",
    )


async def _check_upgraded(store: TurnStore) -> None:
    unindexed = [r.case.case_id for r in await store.unindexed_cases(ACTOR.account)]
    assert unindexed == list(_TRAVELERS)
    assert (await store.find_cases(ACTOR.account, "ana")).rows == ()
    directory = StoredCaseDirectory(_REGISTRY, store)
    found = await directory.find(ACTOR, "traveler", "ana")
    assert [c.case_id for c in found] == ["A1", "A2"]
    assert list(await store.unindexed_cases(ACTOR.account)) == []
    page = await store.find_cases(ACTOR.account, "silva")
    assert [r.case.case_id for r in page.rows] == ["A1"]


def test_sqlite_database_of_schema_1_is_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "old.db"

    async def make_old() -> None:
        store = await SqliteStore.open(path)
        for key, name in _TRAVELERS.items():
            await store.commit(_seed_request(key, name))
        await store.close()

    anyio.run(make_old)
    # Take the database back to what schema version 1 held: no search tables.
    conn = sqlite3.connect(path)
    conn.executescript(
        "DROP TABLE case_terms; DROP TABLE case_search;"
        " DROP INDEX cases_by_account_workflow; ALTER TABLE replays DROP COLUMN outcome;"
        " ALTER TABLE cases DROP COLUMN workflow_version;"
        " ALTER TABLE turns DROP COLUMN replay_outcome;"
        " DELETE FROM schema_version; INSERT INTO schema_version VALUES (1);"
    )
    conn.close()

    async def upgrade() -> None:
        store = await SqliteStore.open(path)
        try:
            assert store._conn is not None
            versions = store._conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
            assert versions == (SCHEMA_VERSION,)
            await _check_upgraded(store)
        finally:
            await store.close()

    anyio.run(upgrade)


def test_postgres_schema_before_migration_0003_is_upgraded() -> None:
    dsn = postgres_dsn(required=False, test=True)
    if not dsn:
        pytest.skip("PostgreSQL tests need TURNFRAME_TEST_POSTGRES_DSN")
    psycopg = pytest.importorskip("psycopg")
    from turnframe.store.postgres import PostgresStore, migrate, print_sql

    schema = new_schema_name("tf_search_up")

    async def main() -> None:
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            await conn.execute(f"CREATE SCHEMA {schema}")
            await conn.execute(f"SET search_path TO {schema}")
            await conn.execute(print_sql().split("-- 0003")[0].encode())  # 0001, 0002
            for key, name in _TRAVELERS.items():
                state = _seed_request(key, name).state
                await conn.execute(
                    "INSERT INTO tf_case (workflow, case_id, account, state, revision)"
                    " VALUES ('traveler', %s, %s, %s, 1)",
                    (key, ACTOR.account, json.dumps(state)),
                )
        await migrate(dsn, schema=schema)
        store = await PostgresStore.open(dsn, schema=schema)
        try:
            await _check_upgraded(store)
        finally:
            await store.close()

    try:
        anyio.run(main)
    finally:
        anyio.run(drop_schema, dsn, schema)


def test_sqlite_indexed_database_of_schema_3_is_upgraded(tmp_path: Path) -> None:
    """Versions 4 and 5 rebuild ``case_search``: its texts and postings survive the copy.

    A version-3 file (texts indexed, postings written) opens at the current version; its
    lookups answer as before, its recent page takes creation order as change order, and
    a commit after the upgrade changes words with the stale postings of version 5.
    """
    path = tmp_path / "v3.db"

    async def make_old() -> None:
        store = await SqliteStore.open(path)
        for key, name in _TRAVELERS.items():
            await store.commit(replace(_seed_request(key, name), search_text=name))
        await store.close()

    anyio.run(make_old)
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT pos, account, workflow, text FROM case_search").fetchall()
    assert [r[3] for r in rows] == [name.lower() for name in _TRAVELERS.values()]
    conn.execute("DROP TABLE case_search")
    conn.executescript(_SEARCH_SCHEMA_V3)
    conn.executemany(
        "INSERT INTO case_search (pos, account, workflow, text) VALUES (?, ?, ?, ?)", rows
    )
    conn.execute("ALTER TABLE cases DROP COLUMN workflow_version")  # version 6's
    conn.execute("ALTER TABLE turns DROP COLUMN replay_outcome")  # version 7's
    conn.executescript("DELETE FROM schema_version; INSERT INTO schema_version VALUES (3);")
    conn.commit()
    conn.close()

    async def upgrade() -> None:
        store = await SqliteStore.open(path)
        try:
            assert store._conn is not None
            versions = store._conn.execute("SELECT version FROM schema_version").fetchall()
            assert versions == [(v,) for v in range(3, SCHEMA_VERSION + 1)]
            assert list(await store.unindexed_cases(ACTOR.account)) == []
            ana = await store.find_cases(ACTOR.account, "ana")
            assert [r.case.case_id for r in ana.rows] == ["A1", "A2"]
            (each,) = await store.find_cases_each(ACTOR.account, ["souza"])
            assert [r.case.case_id for r in each.rows] == ["A2"]
            recent = await store.list_cases_page(ACTOR.account, recent=True, limit=2)
            assert [r.case.case_id for r in recent.rows] == ["A1", "A2"] and recent.more
            k1 = await store.load_case(CaseRef("traveler", "K1"))
            assert k1 is not None
            rename = replace(
                _seed_request("K1", "Kim Park"),
                expected_revision=k1.revision,
                events=(),
                idempotency_key="rename-K1",
                search_text="Kim Park",
            )
            await store.commit(rename)
            recent = await store.list_cases_page(ACTOR.account, recent=True, limit=1)
            assert [r.case.case_id for r in recent.rows] == ["K1"]
            assert [
                r.case.case_id for r in (await store.find_cases(ACTOR.account, "park")).rows
            ] == ["K1"]
            assert (await store.find_cases(ACTOR.account, "lee")).rows == ()
            (stale,) = store._conn.execute(
                "SELECT stale FROM case_search WHERE text = 'kim park'"
            ).fetchone()
            assert set(stale.split()) == {"e", "l", "le", "ee", "lee"}
        finally:
            await store.close()

    anyio.run(upgrade)
