"""A case remembers the version that wrote it; rollback leaves every case readable.

docs/guides/canary-and-rollback.md "What a case remembers", "Rollback". Run on memory,
SQLite and (with ``TURNFRAME_TEST_POSTGRES_DSN``) PostgreSQL.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from versions_kit import Deployment, TripV2, TripV3

from turnframe.core.events import EventDraft
from turnframe.core.ids import CaseRef
from turnframe.core.results import ResultStatus
from turnframe.core.versions import CaseVersionMismatch, Rollout, VersionRouting
from turnframe.store import CommitRequest, TurnStore
from turnframe.store.memory import InMemoryStore
from turnframe.store.sqlite import SqliteStore
from turnframe.testing.postgres import drop_schema, new_schema_name, postgres_dsn

STORES = ["memory", "sqlite", "postgres"]


@asynccontextmanager
async def _store(kind: str, tmp: Path) -> AsyncIterator[TurnStore]:
    if kind == "memory":
        yield InMemoryStore()
        return
    if kind == "sqlite":
        store: Any = await SqliteStore.open(tmp / "v.db")
        try:
            yield store
        finally:
            await store.close()
        return
    dsn = postgres_dsn(required=False, test=True)
    if not dsn:
        pytest.skip("PostgreSQL tests need TURNFRAME_TEST_POSTGRES_DSN")
    from turnframe.store.postgres import PostgresStore

    schema = new_schema_name("tf_versions")
    store = await PostgresStore.open(dsn, schema=schema, max_size=2, migrate_schema=True)
    try:
        yield store
    finally:
        await store.close()
        await drop_schema(dsn, schema)


def _run(kind: str, tmp: Path, body: Callable[[TurnStore], Awaitable[None]]) -> None:
    async def main() -> None:
        async with _store(kind, tmp) as store:
            await body(store)

    anyio.run(main)


def _canary(account: str) -> VersionRouting:
    return VersionRouting(
        rollouts=(Rollout(workflow="trip", candidate="trip/2", accounts=frozenset({account})),)
    )


@pytest.mark.parametrize("kind", STORES)
def test_the_store_keeps_the_version_of_the_last_commit(kind: str, tmp_path: Path) -> None:
    async def body(store: TurnStore) -> None:
        dep = Deployment(store, TripV2())
        await dep.seed()
        trip = dep.refs["T1"]
        seeded = await store.load_case(trip)
        assert seeded is not None and seeded.workflow_version == "trip/1"
        dep.registry.routing = _canary(dep.actor.account)
        result = await dep.add_extra("c1")
        assert result.results["a1"].status is ResultStatus.COMMITTED
        row = await store.load_case(trip)
        assert row is not None and row.workflow_version == "trip/2"
        listed = {r.case: r.workflow_version for r in await store.list_cases(dep.actor.account)}
        assert listed[trip] == "trip/2" and listed[dep.refs["T2"]] == "trip/1"

    _run(kind, tmp_path, body)


@pytest.mark.parametrize("kind", STORES)
def test_rollback_leaves_every_case_readable(kind: str, tmp_path: Path) -> None:
    """Cases v2 wrote (its state loads under v1) are read and changed by v1 after rollback."""

    async def body(store: TurnStore) -> None:
        dep = Deployment(store, TripV2())
        await dep.seed()
        dep.registry.routing = _canary(dep.actor.account)
        for key in ("T1", "T2"):
            result = await dep.add_extra(f"c-{key}", key)
            assert result.results["a1"].status is ResultStatus.COMMITTED
        dep.registry.routing = VersionRouting(
            rollouts=(Rollout(workflow="trip", candidate="trip/2"),)
        )  # rolled back: share 0, no account
        for row in await store.list_cases(dep.actor.account):
            erased = dep.registry.for_turn(dep.actor.account, "c-T1").workflow(row.case.workflow)
            assert erased.version != "trip/2"
            erased.definition.project(erased.typed(row.state), dep.registry and _today())
        result = await dep.add_extra("c-T1", "T1")  # the same conversation, now on v1
        assert result.results["a1"].status is ResultStatus.COMMITTED
        row = await store.load_case(dep.refs["T1"])
        assert row is not None and row.workflow_version == "trip/1"

    _run(kind, tmp_path, body)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_state_the_live_version_cannot_load_is_a_typed_error_and_loses_nothing(
    kind: str, tmp_path: Path
) -> None:
    async def body(store: TurnStore) -> None:
        dep = Deployment(store, TripV3())
        await dep.seed()
        dep.registry.routing = VersionRouting(
            rollouts=(Rollout(workflow="trip", candidate="trip/3", share=1.0),)
        )
        assert (await dep.add_extra("c1")).results["a1"].status is ResultStatus.COMMITTED
        trip = dep.refs["T1"]
        written = await store.load_case(trip)
        assert written is not None and written.workflow_version == "trip/3"
        assert "v3" in written.state
        dep.registry.routing = None  # rollback to v1, which cannot load trip/3's shape
        with pytest.raises(CaseVersionMismatch) as caught:
            await dep.add_extra("c1")
        assert (caught.value.written_by, caught.value.live) == ("trip/3", "trip/1")
        assert "route this conversation to version 'trip/3'" in str(caught.value)
        after = await store.load_case(trip)
        assert after == written  # nothing changed
        # The version that wrote it reads it still (the documented way back).
        again = dep.registry.workflow("trip", written.workflow_version)
        assert again.typed(written.state).name == "Lisbon"

    _run(kind, tmp_path, body)


def _today() -> Any:
    from versions_kit import TODAY

    return TODAY


def _request(case: CaseRef, version: str | None) -> CommitRequest:
    return CommitRequest(
        account="a",
        case=case,
        expected_revision=1,
        state={"name": "x"},
        events=(EventDraft(type="trip.renamed", data={}, operation="trip.rename"),),
        idempotency_key="k-after",
        request_hash="h",
        turn_id="t",
        workflow_version=version,
    )


def test_a_sqlite_database_without_the_column_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "v5.db"

    async def old() -> None:
        store = await SqliteStore.open(path)
        first = _request(CaseRef("trip", "old"), None)
        await store.commit(replace(first, expected_revision=0, idempotency_key="k-old"))
        await store.close()

    anyio.run(old)
    with sqlite3.connect(path) as conn:  # back to version 5, as that release wrote it
        conn.execute("ALTER TABLE cases DROP COLUMN workflow_version")
        conn.execute("ALTER TABLE turns DROP COLUMN replay_outcome")  # version 7's
        conn.execute("DELETE FROM schema_version")
        conn.execute("INSERT INTO schema_version (version) VALUES (5)")
        columns = [r[1] for r in conn.execute("PRAGMA table_info(cases)")]
        assert "workflow_version" not in columns
    conn.close()

    async def main() -> None:
        store = await SqliteStore.open(path)
        try:
            row = await store.load_case(CaseRef("trip", "old"))
            assert row is not None and (row.state, row.workflow_version) == ({"name": "x"}, None)
            await store.commit(_request(CaseRef("trip", "old"), "trip/2"))
            row = await store.load_case(CaseRef("trip", "old"))
            assert row is not None and (row.revision, row.workflow_version) == (2, "trip/2")
        finally:
            await store.close()

    anyio.run(main)


def test_a_postgres_schema_before_migration_0006_still_reads() -> None:
    dsn = postgres_dsn(required=False, test=True)
    if not dsn:
        pytest.skip("PostgreSQL tests need TURNFRAME_TEST_POSTGRES_DSN")
    psycopg = pytest.importorskip("psycopg")
    from turnframe.store.postgres import PostgresStore, migrate, print_sql

    schema = new_schema_name("tf_versions_up")

    async def main() -> None:
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            await conn.execute(f"CREATE SCHEMA {schema}")
            await conn.execute(f"SET search_path TO {schema}")
            await conn.execute(print_sql().split("-- 0006")[0].encode())  # 0001 to 0005
            await conn.execute(
                "INSERT INTO tf_case (workflow, case_id, account, state, revision)"
                " VALUES ('trip', 'old', 'a', %s, 1)",
                (json.dumps({"name": "Old"}),),
            )
        applied = await migrate(dsn, schema=schema)
        assert applied[0] == "0006_case_workflow_version"  # then any later ones
        store = await PostgresStore.open(dsn, schema=schema)
        try:
            row = await store.load_case(CaseRef("trip", "old"))
            assert row is not None and (row.state, row.workflow_version) == ({"name": "Old"}, None)
            await store.commit(_request(CaseRef("trip", "old"), "trip/2"))
            row = await store.load_case(CaseRef("trip", "old"))
            assert row is not None and (row.revision, row.workflow_version) == (2, "trip/2")
        finally:
            await store.close()

    try:
        anyio.run(main)
    finally:
        anyio.run(drop_schema, dsn, schema)


def test_a_version_mismatch_is_visible_in_the_turn_duration_error_type() -> None:
    """docs/guides/canary-and-rollback.md "What to watch": ``error.type`` names it."""
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    from turnframe.telemetry.otel import OpenTelemetry

    reader = InMemoryMetricReader()
    telemetry = OpenTelemetry(meter_provider=MeterProvider(metric_readers=[reader]))

    async def main() -> None:
        dep = Deployment(InMemoryStore(), TripV3(), telemetry=telemetry)
        await dep.seed()
        dep.registry.routing = VersionRouting(stable={"trip": "trip/3"})
        await dep.add_extra("c1")
        dep.registry.routing = None
        with pytest.raises(CaseVersionMismatch):
            await dep.add_extra("c1")

    anyio.run(main)
    data = reader.get_metrics_data()
    assert data is not None
    errors = [
        dict(point.attributes).get("error.type", "")
        for resource in data.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == "turnframe.turn.duration"
        for point in metric.data.data_points
    ]
    assert any(str(e).endswith("CaseVersionMismatch") for e in errors), errors
