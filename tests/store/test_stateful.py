"""The Hypothesis stateful store test (docs/architecture.md "Stores") on every bundled store."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from turnframe.store import InMemoryStore, TurnStore
from turnframe.store.sqlite import SqliteStore
from turnframe.store.stateful import store_machine
from turnframe.testing.postgres import postgres_dsn


async def _memory() -> TurnStore:
    return InMemoryStore()


_TMP = Path(tempfile.mkdtemp(prefix="tf-stateful-"))


async def _sqlite() -> TurnStore:
    return await SqliteStore.open(_TMP / "stateful.db")


TestMemoryStoreMachine = store_machine(_memory).TestCase
TestSqliteStoreMachine = store_machine(_sqlite, max_examples=20).TestCase


@pytest.fixture(scope="module")
def pg_machine_schema() -> object:
    dsn = postgres_dsn(required=False, test=True)
    if not dsn:
        pytest.skip("the PostgreSQL stateful test needs TURNFRAME_TEST_POSTGRES_DSN")
    import anyio

    from turnframe.store.postgres import migrate
    from turnframe.testing.postgres import drop_schema, new_schema_name

    schema = new_schema_name("tf_stateful")
    anyio.run(lambda: migrate(dsn, schema=schema))
    yield dsn, schema
    anyio.run(drop_schema, dsn, schema)


def test_postgres_store_machine(pg_machine_schema: tuple[str, str]) -> None:
    from hypothesis.stateful import run_state_machine_as_test

    from turnframe.store.postgres import PostgresStore

    dsn, schema = pg_machine_schema

    async def make() -> TurnStore:
        return await PostgresStore.open(dsn, schema=schema, max_size=2)

    machine = store_machine(make, max_examples=15, steps=20)
    run_state_machine_as_test(machine, settings=machine.TestCase.settings)
