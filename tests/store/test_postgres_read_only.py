"""``PostgresStore.open(read_only=True)``: PostgreSQL itself refuses every write.

The sessions run with ``default_transaction_read_only=on``, so a write sent through the
raw store (no :class:`~turnframe.store.readonly.ReadOnlyStore` in front) fails in the
database with SQLSTATE 25006 and changes nothing, while reads answer as on a writable
store (docs/shadow.md "No effect"). Runs against ``TURNFRAME_TEST_POSTGRES_DSN``; without
it the database tests skip with a message naming the variable.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest

from turnframe.core.events import EventDraft
from turnframe.core.ids import CaseRef
from turnframe.store import (
    CommitRequest,
    RevisionConflict,
    StoreError,
    StoreUnavailable,
    TurnRecord,
)
from turnframe.testing.postgres import TEST_DSN_VAR, postgres_dsn

psycopg = pytest.importorskip("psycopg")

from turnframe.store.postgres import PostgresStore  # noqa: E402
from turnframe.testing.postgres import open_temporary_store  # noqa: E402

CASE = CaseRef("trip", "t1")


DSN = postgres_dsn(required=False, test=True)


def _request(key: str, expected: int) -> CommitRequest:
    return CommitRequest(
        account="a",
        case=CASE,
        expected_revision=expected,
        state={"name": key},
        events=(EventDraft(type="x", data={"k": key}, operation="o"),),
        idempotency_key=key,
        request_hash="h",
        turn_id="t",
    )


async def _setting(store: PostgresStore) -> str:
    async with store.connection() as conn:
        row = await (await conn.execute("SHOW default_transaction_read_only")).fetchone()
    assert row is not None
    return str(row[0])


@pytest.mark.skipif(
    not DSN, reason=f"needs {TEST_DSN_VAR} (e.g. postgresql://postgres@127.0.0.1:5432/test)"
)
def test_a_write_through_the_raw_read_only_store_is_refused_by_postgres() -> None:
    dsn = str(DSN)

    async def go() -> None:
        store = await open_temporary_store(dsn, prefix="tf_ro")
        try:
            await store.commit(_request("k1", 0))
            await store.save_replay("a", "t", {"turn_id": "t"})
            ro = await PostgresStore.open(dsn, schema=store.schema, max_size=2, read_only=True)
            try:
                assert await _setting(ro) == "on" and await _setting(store) == "off"
                row = await ro.load_case(CASE)
                assert row is not None and row.revision == 1
                assert await ro.load_replay("a", "t") == {"turn_id": "t"}
                writes: list[Callable[[], Awaitable[Any]]] = [
                    lambda: ro.commit(_request("k2", 1)),
                    lambda: ro.save_replay("a", "t2", {"turn_id": "t2"}),
                    lambda: ro.begin_turn(
                        TurnRecord(turn_id="t3", account="a", conversation_id="c")
                    ),
                ]
                for write in writes:
                    with pytest.raises(StoreError) as caught:
                        await write()
                    # The database's refusal, not a retryable outage or a conflict.
                    assert not isinstance(caught.value, StoreUnavailable | RevisionConflict)
                    assert "read-only transaction" in str(caught.value)
            finally:
                await ro.close()
            row = await store.load_case(CASE)
            assert row is not None and row.revision == 1 and row.state == {"name": "k1"}
            assert await store.load_replay("a", "t2") is None
            assert await store.get_turn("a", "t3") is None
        finally:
            await store.close()

    anyio.run(go)


def test_read_only_with_migrate_is_refused_before_connecting() -> None:
    async def go() -> None:
        # A closed loopback port: the error comes before any connection is tried.
        with pytest.raises(StoreError, match="read-only PostgresStore cannot migrate"):
            await PostgresStore.open(
                "postgresql://nobody@127.0.0.1:9/none", read_only=True, migrate_schema=True
            )

    anyio.run(go)
