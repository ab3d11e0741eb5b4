"""The PostgreSQL store: the conformance suite, migrations, joined transactions, errors.

Runs against ``TURNFRAME_TEST_POSTGRES_DSN`` (``.ci/run`` sets it); without it every
test here skips with a message naming the variable. Each test class works in a fresh
schema of its own, dropped afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from turnframe.core.events import EventDraft
from turnframe.core.ids import CaseRef
from turnframe.store import (
    CommitOutcomeUnknown,
    CommitRequest,
    RevisionConflict,
    StoreError,
    StoreUnavailable,
    TurnRecord,
    TurnReply,
    TurnStore,
)
from turnframe.store.conformance import StoreConformance
from turnframe.testing.postgres import TEST_DSN_VAR, drop_schema, new_schema_name, postgres_dsn
from turnframe.testing.tcp_proxy import CuttingProxy

psycopg = pytest.importorskip("psycopg")

from turnframe.store.postgres import (  # noqa: E402
    PostgresStore,
    applied_versions,
    migrate,
    migrations,
    print_sql,
)
from turnframe.store.postgres import _sql as q  # noqa: E402


def _dsn() -> str:
    dsn = postgres_dsn(required=False, test=True)
    if not dsn:
        pytest.skip(
            f"PostgreSQL tests need {TEST_DSN_VAR} (e.g. postgresql://postgres@127.0.0.1:5432/test)"
        )
    return dsn


@pytest.fixture(scope="class")
def pg_schema(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    dsn = _dsn()
    schema = new_schema_name("tf_test")
    anyio.run(lambda: migrate(dsn, schema=schema))
    request.cls.dsn = dsn
    request.cls.schema = schema
    try:
        yield dsn, schema
    finally:
        anyio.run(drop_schema, dsn, schema)


@pytest.mark.usefixtures("pg_schema")
class TestPostgresStore(StoreConformance):
    dsn: str
    schema: str

    async def make_store(self) -> TurnStore:
        return await PostgresStore.open(self.dsn, schema=self.schema, max_size=4)

    async def make_peer_store(self, store: TurnStore) -> TurnStore | None:
        return await PostgresStore.open(self.dsn, schema=self.schema, max_size=2)


def _request(key: str, expected: int = 0, case: str = "t1", **state: Any) -> CommitRequest:
    return CommitRequest(
        account="a",
        case=CaseRef("trip", case),
        expected_revision=expected,
        state=dict(state),
        events=(EventDraft(type="x", data={"k": key}, operation="o"),),
        idempotency_key=key,
        request_hash="h",
        turn_id="t",
    )


def _catalog(dsn: str, schema: str) -> dict[str, list[tuple[Any, ...]]]:
    with psycopg.connect(dsn, autocommit=True) as conn:

        def rows(sql: str) -> list[tuple[Any, ...]]:
            return sorted(conn.execute(sql, (schema,)).fetchall())

        return {
            "columns": rows(
                "SELECT table_name, column_name, ordinal_position, data_type, is_nullable,"
                " column_default, is_identity FROM information_schema.columns"
                " WHERE table_schema = %s"
            ),
            "indexes": rows(
                "SELECT tablename, indexname, replace(indexdef, schemaname || '.', '')"
                " FROM pg_indexes WHERE schemaname = %s"
            ),
            "constraints": rows(
                "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid)"
                " FROM pg_constraint WHERE connamespace = %s::regnamespace"
            ),
            "sequences": rows(
                "SELECT sequence_name, data_type FROM information_schema.sequences"
                " WHERE sequence_schema = %s"
            ),
        }


def test_migrated_database_equals_fresh_install() -> None:
    dsn = _dsn()
    fresh, stepped = new_schema_name("tf_fresh"), new_schema_name("tf_steps")

    async def main() -> None:
        assert await migrate(dsn, schema=fresh) == ["schema.sql"]
        applied = await migrate(dsn, schema=stepped, fresh_install=False)
        assert applied == [f"{m.version:04d}_{m.name}" for m in migrations()]
        assert await migrate(dsn, schema=stepped) == []  # current: nothing to do
        assert await migrate(dsn, schema=fresh) == []

    try:
        anyio.run(main)
        a, b = _catalog(dsn, fresh), _catalog(dsn, stepped)
        strip = lambda cat: {  # noqa: E731 - schema names differ, nothing else may
            k: [tuple(str(x).replace(fresh, "S").replace(stepped, "S") for x in r) for r in v]
            for k, v in cat.items()
        }
        assert a["columns"] and strip(a) == strip(b)
    finally:
        anyio.run(drop_schema, dsn, fresh)
        anyio.run(drop_schema, dsn, stepped)


def test_migration_upgrades_an_old_schema_and_concurrent_migrators_apply_once() -> None:
    dsn = _dsn()
    schema = new_schema_name("tf_upgrade")

    async def main() -> None:
        first = migrations()[0]
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            await conn.execute(f"CREATE SCHEMA {schema}")
            await conn.execute(f"SET search_path TO {schema}")
            await conn.execute(print_sql().split("-- 0002")[0].encode())  # only 0001
            assert await applied_versions(conn) == [first.version]
        results: list[list[str]] = []

        async def one() -> None:
            results.append(await migrate(dsn, schema=schema))

        async with anyio.create_task_group() as tg:
            for _ in range(4):
                tg.start_soon(one)
        assert sorted(results, key=len)[-1] == [
            f"{m.version:04d}_{m.name}" for m in migrations()[1:]
        ]
        assert sum(1 for r in results if r) == 1
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            await conn.execute(f"SET search_path TO {schema}")
            assert await applied_versions(conn) == [m.version for m in migrations()]

    try:
        anyio.run(main)
    finally:
        anyio.run(drop_schema, dsn, schema)


def test_a_schema_before_migration_0007_keeps_reading_its_two_part_replay_records() -> None:
    """Migration 0007 keeps the second part in the turn's row; older parts still read.

    docs/adr/0024-four-writes-per-turn.md rule 4: a record whose second part is in
    ``tf_replay.outcome`` reads whole after the migration; a new second part
    (``finish_turn``) goes in ``tf_turn.replay_outcome`` and its keys win; saving the
    record whole again clears both places.
    """
    dsn = _dsn()
    schema = new_schema_name("tf_outcome")

    async def main() -> None:
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            await conn.execute(f"CREATE SCHEMA {schema}")
            await conn.execute(f"SET search_path TO {schema}")
            await conn.execute(print_sql().split("-- 0007")[0].encode())  # 0001 to 0006
            await conn.execute(
                "INSERT INTO tf_turn (turn_id, account, conversation_id, seq, phase, input, data)"
                " VALUES ('t', 'a', 'c', 1, 'committing', '{}', '{}')"
            )
            await conn.execute(
                "INSERT INTO tf_replay (account, turn_id, record, outcome)"
                " VALUES ('a', 't', '{\"x\": 1, \"y\": 1}', '{\"y\": 2, \"z\": 3}')"
            )
        assert await migrate(dsn, schema=schema) == ["0007_replay_outcome_in_turn"]
        store = await PostgresStore.open(dsn, schema=schema)
        try:
            assert await store.load_replay("a", "t") == {"x": 1, "y": 2, "z": 3}
            assert await store.load_replay("b", "t") is None  # another account's
            reply = TurnReply(
                turn_id="t", account="a", conversation_id="c", blocks=(), data={}, replay={"z": 4}
            )
            await store.finish_turn(reply)
            assert await store.load_replay("a", "t") == {"x": 1, "y": 2, "z": 4}
            await store.save_replay("a", "t", {"w": 0})
            assert await store.load_replay("a", "t") == {"w": 0}
            async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
                await conn.execute(f"SET search_path TO {schema}")
                cur = await conn.execute("SELECT replay_outcome FROM tf_turn")
                assert await cur.fetchall() == [(None,)]
        finally:
            await store.close()

    try:
        anyio.run(main)
    finally:
        anyio.run(drop_schema, dsn, schema)


def test_print_sql_runs_on_an_empty_schema() -> None:
    dsn = _dsn()
    schema = new_schema_name("tf_print")
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(print_sql(schema=schema).encode())
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(
                print_sql(schema=schema, fresh=True)
                .replace("CREATE TABLE IF NOT EXISTS", "CREATE TABLE IF NOT EXISTS")
                .split("BEGIN;")[0]
                .encode()
            )
        assert _catalog(dsn, schema)["columns"]

        async def main() -> None:
            store = await PostgresStore.open(dsn, schema=schema)
            try:
                assert (await store.commit(_request("k1"))).revision == 1
            finally:
                await store.close()

        anyio.run(main)
    finally:
        anyio.run(drop_schema, dsn, schema)


@pytest.mark.usefixtures("pg_schema")
class TestPostgresSpecifics:
    dsn: str
    schema: str

    def test_joined_store_commits_with_the_callers_transaction(self) -> None:
        async def main() -> None:
            store = await PostgresStore.open(self.dsn, schema=self.schema)
            try:
                async with store.connection() as conn:
                    await conn.execute(
                        "CREATE TABLE IF NOT EXISTS adopter_booking (ref text PRIMARY KEY)"
                    )
                    # committed together
                    async with conn.transaction():
                        await conn.execute("INSERT INTO adopter_booking VALUES ('b1')")
                        result = await store.joined(conn).commit(_request("j1", case="j1"))
                        assert result.revision == 1
                    # rolled back together: the adopter's error undoes Turnframe's commit
                    with pytest.raises(RuntimeError):
                        async with conn.transaction():
                            await conn.execute("INSERT INTO adopter_booking VALUES ('b2')")
                            await store.joined(conn).commit(_request("j2", case="j2"))
                            raise RuntimeError("adopter failed after the commit")
                    # a refused commit rolls back only its savepoint
                    async with conn.transaction():
                        await conn.execute("INSERT INTO adopter_booking VALUES ('b3')")
                        with pytest.raises(RevisionConflict):
                            await store.joined(conn).commit(_request("j3", case="j1"))
                        await conn.execute("INSERT INTO adopter_booking VALUES ('b4')")
                    cur = await conn.execute("SELECT ref FROM adopter_booking ORDER BY ref")
                    assert [r[0] for r in await cur.fetchall()] == ["b1", "b3", "b4"]
                assert await store.lookup_command("a", "j1") is not None
                assert await store.lookup_command("a", "j2") is None
                assert await store.load_case(CaseRef("trip", "j2")) is None
                assert await store.lookup_command("a", "j3") is None
            finally:
                await store.close()

        anyio.run(main)

    def test_unreachable_database_is_store_unavailable_with_a_clear_message(self) -> None:
        async def main() -> None:
            await PostgresStore.open("postgresql://postgres@127.0.0.1:1/test", connect_timeout=2)

        with pytest.raises(StoreUnavailable) as caught:
            anyio.run(main)
        assert "127.0.0.1:1/test" in str(caught.value)
        assert caught.value.failure.retryable is True

    def test_unmigrated_schema_is_store_unavailable_naming_the_command(self) -> None:
        async def main() -> None:
            await PostgresStore.open(self.dsn, schema="tf_never_migrated")

        with pytest.raises(StoreUnavailable, match="turnframe db migrate"):
            anyio.run(main)

    def test_closed_store_and_bad_values(self) -> None:
        async def main() -> None:
            store = await PostgresStore.open(self.dsn, schema=self.schema)
            with pytest.raises(StoreError):
                await store.put_conversation_state("a", "c", {"bad": {1}})  # type: ignore[dict-item]
            await store.save_replay("a", "t-odd", {"text": "\ud800 lone \x00 nul"})
            assert await store.load_replay("a", "t-odd") == {"text": "\ud800 lone \x00 nul"}
            await store.close()
            await store.close()
            with pytest.raises(StoreUnavailable, match="closed"):
                await store.load_case(CaseRef("trip", "t1"))

        anyio.run(main)

    def test_connection_lost_during_commit_is_outcome_unknown_settled_by_lookup(self) -> None:
        """A proxy forwards COMMIT, then cuts the line before the reply.

        See docs/postgres.md "Store".
        """
        info = psycopg.conninfo.conninfo_to_dict(self.dsn)
        host, port = info.get("host") or "127.0.0.1", int(info.get("port") or 5432)

        async def main() -> None:
            proxy = CuttingProxy(host, port).start()
            proxied = psycopg.conninfo.make_conninfo(self.dsn, host="127.0.0.1", port=proxy.port)
            store = await PostgresStore.open(proxied, schema=self.schema, min_size=1, max_size=1)
            direct = await PostgresStore.open(self.dsn, schema=self.schema)
            try:
                proxy.cut_after_commit.set()
                with pytest.raises(CommitOutcomeUnknown) as caught:
                    await store.commit(_request("lost-ack", case="lost"))
                assert proxy.cuts == 1
                assert caught.value.failure.needs_reconciliation is True
                assert caught.value.failure.effect_may_have_happened is True
                entry = await direct.lookup_command("a", "lost-ack")  # settled by lookup
                assert entry is not None and entry.result.revision == 1
                row = await direct.load_case(CaseRef("trip", "lost"))
                assert row is not None and row.revision == 1
            finally:
                await store.close()
                await direct.close()
                proxy.stop()

        anyio.run(main)


def test_begin_turn_numbers_by_an_index_probe_not_a_count() -> None:
    """The seq query reads the end of the (account, conversation, seq) index (ADR 0024).

    Checked on the plan PostgreSQL chooses for ``BEGIN_TURN``'s read after 3,000 turns:
    a backward index scan under a one-row limit, and no scan that visits every turn.
    """
    dsn = _dsn()
    schema = new_schema_name("tf_seq")

    async def main() -> None:
        await migrate(dsn, schema=schema)
        store = await PostgresStore.open(dsn, schema=schema, max_size=2)
        try:
            for n in range(3):
                await store.begin_turn(
                    TurnRecord(turn_id=f"w{n}", account="a", conversation_id="c")
                )
        finally:
            await store.close()

    anyio.run(main)
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"SET search_path TO {schema}")
            conn.execute(
                "INSERT INTO tf_turn (turn_id, account, conversation_id, seq, phase, input, data)"
                " SELECT 'x' || g, 'a', 'c', g + 3, 'replied', '{}', '{}'"
                " FROM generate_series(1, 3000) AS g"
            )
            conn.execute("ANALYZE tf_turn")
            select = q.BEGIN_TURN[q.BEGIN_TURN.index("SELECT") : q.BEGIN_TURN.index(" RETURNING")]
            params = {
                "turn_id": "t",
                "account": "a",
                "conv": "c",
                "phase": "received",
                "input": "{}",
                "data": "{}",
                "attempts": 0,
            }
            plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + select, params).fetchall())
    finally:
        anyio.run(drop_schema, dsn, schema)
    assert "Index Only Scan Backward" in plan or "Index Scan Backward" in plan, plan
    assert "Limit" in plan and "Seq Scan" not in plan, plan
