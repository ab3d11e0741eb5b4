"""Outbox relay and the manifest submission saga on PostgreSQL (I4, I19).

See docs/architecture.md "Claims", "Stores".

The airline is :class:`turnframe.testing.airline.AirlineServer` on loopback; it can
accept, reject, delay, time out after receiving, be down, and call back.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import date
from typing import Any

import anyio
import anyio.to_thread
import pytest

from turnframe.core import CaseRef, EventDraft, OutboxDraft
from turnframe.runtime import FixedClock, OutboxRelay, Runtime, SequentialIds
from turnframe.samples.travel import ManifestWorkflow, seed_order, seed_state, travel_application
from turnframe.samples.travel.airline_saga import (
    AirlineClient,
    ManifestSubmissionSaga,
    serve_callbacks,
)
from turnframe.samples.travel.manifest_model import SubmitManifest
from turnframe.store import CommitRequest
from turnframe.testing.airline import AirlineServer
from turnframe.testing.postgres import TEST_DSN_VAR, postgres_dsn

pytest.importorskip("psycopg")

RECORDS = [
    {
        "key": "T1",
        "workflow": "trip",
        "name": "Lisbon",
        "start": "2026-05-12",
        "end": "2026-05-15",
        "travelers": ["P1"],
    },
    {"key": "P1", "workflow": "traveler", "full_name": "Ana Costa", "birth_date": "1985-03-14"},
    {
        "key": "D1",
        "workflow": "manifest",
        "trip": "T1",
        "airline": "TP",
        "passengers": ["P1"],
        "status": "validated",
    },
]
SECRET = b"relay-test-secret"


@dataclass
class World:
    runtime: Runtime
    store: Any
    airline: AirlineServer
    saga: ManifestSubmissionSaga
    manifest: CaseRef
    callback_url: str

    async def submit(self) -> str:
        """Commit manifest.submit as the runtime would: status submitting + an outbox row."""
        row = await self.store.load_case(self.manifest)
        wf = ManifestWorkflow()
        state = wf.load_state(row.state)
        from turnframe.core import Actor, ExecutionContext

        ctx = ExecutionContext(
            case=self.manifest,
            actor=Actor(account="acme", user="u1"),
            today=date(2026, 5, 1),
            turn_id="t",
        )
        ex = wf.execute(state, SubmitManifest(), ctx)
        result = await self.store.commit(
            CommitRequest(
                account="acme",
                case=self.manifest,
                expected_revision=row.revision,
                state=wf.dump_state(ex.state),
                events=ex.events,
                outbox=ex.outbox,
                idempotency_key=f"submit-{self.manifest.case_id}",
                request_hash="h",
                turn_id="t",
                operations=("manifest.submit",),
            )
        )
        return result.outbox_ids[0]

    async def status(self) -> str:
        row = await self.store.load_case(self.manifest)
        return str(row.state["status"])

    def relay(self, timeout: float = 2.0, **kw: Any) -> OutboxRelay:
        self.saga.client.timeout = timeout
        kw.setdefault("reconcile_after", 0.0)
        return OutboxRelay(
            self.store, [self.saga], owner=kw.pop("owner", "relay-1"), retry_in=0.0, **kw
        )


def _dsn() -> str:
    dsn = postgres_dsn(required=False, test=True)
    if not dsn:
        pytest.skip(f"the relay tests need {TEST_DSN_VAR}")
    return dsn


@asynccontextmanager
async def world() -> AsyncIterator[World]:
    from turnframe.testing.postgres import open_temporary_store

    store = await open_temporary_store(_dsn(), prefix="tf_relay")
    airline = AirlineServer(SECRET).start()
    try:
        runtime = Runtime(
            travel_application(), store, clock=FixedClock(date(2026, 5, 1)), ids=SequentialIds()
        )
        refs: dict[str, CaseRef] = {}
        for record in seed_order(RECORDS):
            workflow, state = seed_state(record, refs)
            refs[str(record["key"])] = await runtime.seed("acme", workflow, state)
        saga = ManifestSubmissionSaga(runtime, AirlineClient(airline.url), callback_secret=SECRET)
        server = await serve_callbacks(saga)
        port = server.sockets[0].getsockname()[1]
        try:
            yield World(
                runtime,
                store,
                airline,
                saga,
                refs["D1"],
                f"http://127.0.0.1:{port}/callbacks/airline",
            )
        finally:
            server.close()
            await server.wait_closed()
    finally:
        airline.stop()
        await store.close()


def run(body: Callable[[World], Awaitable[None]]) -> None:
    async def main() -> None:
        async with world() as w:
            await body(w)

    anyio.run(main)


def test_accepted_submission_then_verified_callbacks_move_the_status_forward() -> None:
    async def body(w: World) -> None:
        outbox_id = await w.submit()
        assert await w.status() == "submitting"
        report = await w.relay().run_once()
        assert report.delivered == 1
        assert await w.status() == "submitted"
        row = await w.store.outbox_row(outbox_id)
        assert row.message.status == "delivered" and row.attempts == 1
        assert w.airline.deliveries == {outbox_id: 1}
        # callbacks: verified before they become an origin (I4)
        code = await anyio.to_thread.run_sync(
            w.airline.call_back, w.callback_url, outbox_id, "received_by_airline"
        )
        assert code == 204 and await w.status() == "received_by_airline"
        forged = await anyio.to_thread.run_sync(
            lambda: w.airline.call_back(w.callback_url, outbox_id, "issued", secret=b"wrong")
        )
        assert forged == 401 and await w.status() == "received_by_airline"
        stale = await anyio.to_thread.run_sync(
            lambda: w.airline.call_back(w.callback_url, outbox_id, "accepted", timestamp=1.0)
        )
        assert stale == 401 and await w.status() == "received_by_airline"
        code = await anyio.to_thread.run_sync(
            w.airline.call_back, w.callback_url, outbox_id, "accepted"
        )
        assert code == 204 and await w.status() == "accepted"
        # the same callback again changes nothing (statuses only move forward, I19)
        await anyio.to_thread.run_sync(w.airline.call_back, w.callback_url, outbox_id, "accepted")
        events = [
            e.data.get("status")
            for e in await w.store.case_events(w.manifest)
            if e.type == "manifest.status_changed"
        ]
        assert events == ["submitted", "received_by_airline", "accepted"]

    run(body)


def test_timeout_after_transmission_is_unknown_then_reconciled_without_resending() -> None:
    async def body(w: World) -> None:
        outbox_id = await w.submit()
        w.airline.mode = "timeout"
        report = await w.relay(timeout=0.3, reconcile_after=0.3).run_once()
        assert report.unknown == 1
        assert await w.status() == "outcome_unknown"
        assert (await w.store.outbox_row(outbox_id)).message.status == "outcome_unknown"
        w.airline.mode = "accept"
        await anyio.sleep(0.35)
        report = await w.relay().run_once()  # reconciliation asks by outbox id
        assert report.reconciled == 1 and report.delivered == 0
        assert await w.status() == "submitted"
        assert w.airline.deliveries == {outbox_id: 1}  # never resent
        assert (await w.store.outbox_row(outbox_id)).message.status == "delivered"

    run(body)


def test_delay_is_just_slow_and_rejection_is_recorded() -> None:
    async def body(w: World) -> None:
        outbox_id = await w.submit()
        w.airline.mode = "reject"
        assert (await w.relay().run_once()).rejected == 1
        assert await w.status() == "rejected"
        assert (await w.store.outbox_row(outbox_id)).message.status == "rejected"

    run(body)


def test_delayed_answer_within_the_timeout_is_delivered() -> None:
    async def body(w: World) -> None:
        await w.submit()
        w.airline.mode, w.airline.delay = "delay", 0.3
        assert (await w.relay(timeout=2.0).run_once()).delivered == 1
        assert await w.status() == "submitted"

    run(body)


def test_down_airline_is_retried_then_dead_lettered() -> None:
    async def body(w: World) -> None:
        outbox_id = await w.submit()
        w.airline.mode = "down"
        relay = w.relay(max_attempts=3)
        for _ in range(3):
            await relay.run_once()
        row = await w.store.outbox_row(outbox_id)
        assert row.message.status == "dead_letter" and row.attempts == 3
        assert row.last_error and "unavailable" in row.last_error
        assert await w.status() == "submitting"  # never claimed as sent
        assert w.airline.submissions == {}

    run(body)


def test_expired_lease_moves_to_unknown_and_a_late_ack_is_refused() -> None:
    async def body(w: World) -> None:
        outbox_id = await w.submit()
        crashed = await w.store.claim_outbox("crashed-relay", lease_seconds=0.2)
        assert [c.message.id for c in crashed] == [outbox_id]
        assert await w.store.claim_outbox("other", lease_seconds=5) == []  # leased: skipped
        await anyio.sleep(0.4)
        report = await w.relay().run_once()
        assert report.expired == 1
        assert await w.status() != "submitting"
        # never back to pending: the airline is asked instead (it never got it: resend)
        assert await w.store.settle_outbox(outbox_id, "crashed-relay", "delivered") is False
        assert w.airline.deliveries.get(outbox_id, 0) <= 1

    run(body)


def test_expired_lease_of_a_retry_safe_topic_goes_back_to_pending() -> None:
    async def body(w: World) -> None:
        case = CaseRef("trip", "rs-1")
        result = await w.store.commit(
            CommitRequest(
                account="acme",
                case=case,
                expected_revision=0,
                state={},
                idempotency_key="rs",
                request_hash="h",
                turn_id="t",
                events=(EventDraft(type="x", data={}, operation="o"),),
                outbox=(OutboxDraft(topic="notify.email", payload={}),),
            )
        )
        await w.store.claim_outbox("crashed", lease_seconds=0.1, topics=["notify.email"])
        await anyio.sleep(0.3)
        expired = await w.store.expire_outbox_leases(["notify.email"])
        assert expired == [(result.outbox_ids[0], "pending")]

    run(body)


def test_skip_locked_claims_are_exclusive_across_relays() -> None:
    async def body(w: World) -> None:
        drafts = tuple(OutboxDraft(topic="bulk", payload={"i": i}) for i in range(200))
        await w.store.commit(
            CommitRequest(
                account="acme",
                case=CaseRef("trip", "bulk"),
                expected_revision=0,
                state={},
                idempotency_key="bulk",
                request_hash="h",
                turn_id="t",
                events=(EventDraft(type="x", data={}, operation="o"),),
                outbox=drafts,
            )
        )
        from turnframe.store.postgres import PostgresStore

        peers = [await PostgresStore.open(w.store.dsn, schema=w.store.schema) for _ in range(4)]
        claimed: list[str] = []

        async def relay(i: int) -> None:
            while batch := await peers[i].claim_outbox(f"r{i}", limit=7, topics=["bulk"]):
                claimed.extend(c.message.id for c in batch)

        try:
            async with anyio.create_task_group() as tg:
                for i in range(4):
                    tg.start_soon(relay, i)
        finally:
            for p in peers:
                await p.close()
        assert len(claimed) == 200 and len(set(claimed)) == 200

    run(body)


def test_relay_cli_runs_a_round(capsys: pytest.CaptureFixture[str]) -> None:
    from turnframe.cli import main

    captured: dict[str, Any] = {}

    async def body(w: World) -> None:
        captured["outbox"] = await w.submit()
        captured["dsn"], captured["schema"], captured["url"] = (
            w.store.dsn,
            w.store.schema,
            w.airline.url,
        )

        def cli() -> int:
            return main(
                [
                    "relay",
                    "--dsn",
                    w.store.dsn,
                    "--schema",
                    w.store.schema,
                    "--airline-url",
                    w.airline.url,
                    "--once",
                    "--owner",
                    "cli-relay",
                ]
            )

        assert await anyio.to_thread.run_sync(cli) == 0
        assert await w.status() == "submitted"
        assert w.airline.deliveries == {captured["outbox"]: 1}

    run(body)
    assert "relay cli-relay: delivered 1" in capsys.readouterr().out
