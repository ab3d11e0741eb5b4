"""A payment delivered through the outbox to the loopback payments service, and back.

The report is paid in a real turn (finance's Confirm card), which commits
``payment_pending`` with an outbox row. The :class:`PaymentSaga` delivers it to
:class:`turnframe.testing.payments.PaymentsServer` on 127.0.0.1 and commits what the
service answers; signed callbacks move it on. Statuses only move forward and are never
collapsed; a timeout after transmission is an explicit ``outcome_unknown`` that
reconciliation resolves without paying twice (docs/invariants.md I4, I19).

On every store the saga is driven message by message; on PostgreSQL (the store with
outbox leases) the :class:`turnframe.runtime.OutboxRelay` drives it.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from expenses_world import FINANCE, TODAY, World, world

from turnframe.core import OutboxMessage
from turnframe.runtime import CallbackRejected, DeliveryKind, OutboxRelay
from turnframe.samples.expenses import PaymentSaga, PaymentsClient
from turnframe.testing.payments import PaymentsServer

SECRET = b"payments-test-secret"
APPROVED = {
    "key": "R1",
    "workflow": "expense_report",
    "title": "Lisbon offsite",
    "submitter": "u1",
    "lines": [{"description": "Hotel Avenida", "amount": "120.00"}],
    "status": "approved",
    "approved_by": "m1",
}


async def _pay(w: World) -> OutboxMessage:
    await w.say(
        "Pay the Lisbon offsite report.",
        {"id": "a1", "operation": "expense_report.pay", "handles": ["R1"]},
        actor=FINANCE,
    )
    await w.click("confirm", actor=FINANCE)
    (message,) = await w.store.outbox_messages()
    return message


async def _statuses(w: World) -> list[Any]:
    events = await w.store.case_events(w.refs["R1"])
    return [e.data["status"] for e in events if e.type == "expense_report.status_changed"]


def run(
    kind: str, tmp_path: Path, body: Callable[[World, PaymentsServer, PaymentSaga], Awaitable[None]]
) -> None:
    async def main() -> None:
        async with world(kind, tmp_path, [APPROVED]) as w:
            with PaymentsServer(SECRET, hang=1.0) as service:
                saga = PaymentSaga(
                    w.runtime, PaymentsClient(service.url, timeout=0.5), callback_secret=SECRET
                )
                await body(w, service, saga)

    anyio.run(main)


def test_the_service_listens_on_loopback_only() -> None:
    with PaymentsServer() as service:
        assert service.url.startswith("http://127.0.0.1:")


def test_delivered_then_signed_callbacks_move_the_status_forward_only(
    store_kind: str, tmp_path: Path
) -> None:
    async def body(w: World, service: PaymentsServer, saga: PaymentSaga) -> None:
        message = await _pay(w)
        delivery = await saga.deliver(message)
        assert delivery.kind is DeliveryKind.DELIVERED and delivery.reference == "PAY-00001"
        await saga.settled(message, delivery)
        state = await w.state("R1")
        assert state["status"] == "payment_submitted"
        assert state["payment_reference"] == "PAY-00001"
        assert service.payments[message.id].payload["amount"] == "120.00"
        signed = service.callback(message.id, "payment_processing")
        assert await saga.handle_callback(
            signed.body, signature=signed.signature, timestamp=signed.timestamp
        )
        assert (await w.state("R1"))["status"] == "payment_processing"
        forged = service.callback(message.id, "paid", secret=b"wrong")
        with pytest.raises(CallbackRejected):
            await saga.handle_callback(
                forged.body, signature=forged.signature, timestamp=forged.timestamp
            )
        stale = service.callback(message.id, "paid", at=1.0)
        with pytest.raises(CallbackRejected):
            await saga.handle_callback(
                stale.body, signature=stale.signature, timestamp=stale.timestamp
            )
        assert (await w.state("R1"))["status"] == "payment_processing"
        paid = service.callback(message.id, "paid")
        assert await saga.handle_callback(
            paid.body, signature=paid.signature, timestamp=paid.timestamp
        )
        again = service.callback(message.id, "payment_submitted")  # a step back: ignored
        assert not await saga.handle_callback(
            again.body, signature=again.signature, timestamp=again.timestamp
        )
        assert (await w.state("R1"))["status"] == "paid"
        assert await _statuses(w) == ["payment_submitted", "payment_processing", "paid"]
        erased = w.runtime.registry.workflow("expense_report")
        view = erased.definition.project(erased.typed(await w.state("R1")), TODAY)
        assert view.outcome is not None and view.outcome.code == "paid"

    run(store_kind, tmp_path, body)


def test_a_timeout_is_an_unknown_outcome_reconciled_without_paying_twice(
    store_kind: str, tmp_path: Path
) -> None:
    async def body(w: World, service: PaymentsServer, saga: PaymentSaga) -> None:
        message = await _pay(w)
        service.mode = "timeout"
        delivery = await saga.deliver(message)
        assert delivery.kind is DeliveryKind.UNKNOWN
        await saga.settled(message, delivery)
        assert (await w.state("R1"))["status"] == "outcome_unknown"
        service.mode = "accept"
        reconciled = await saga.reconcile(message)  # asks; never resends
        assert reconciled.kind is DeliveryKind.DELIVERED
        await saga.settled(message, reconciled)
        assert (await w.state("R1"))["status"] == "payment_submitted"
        assert service.deliveries == {message.id: 1}
        assert await _statuses(w) == ["outcome_unknown", "payment_submitted"]

    run(store_kind, tmp_path, body)


def test_a_refusal_fails_the_payment_and_an_unreachable_service_changes_nothing(
    store_kind: str, tmp_path: Path
) -> None:
    async def body(w: World, service: PaymentsServer, saga: PaymentSaga) -> None:
        message = await _pay(w)
        service.mode = "down"
        down = await saga.deliver(message)
        assert down.kind is DeliveryKind.NOT_RECEIVED
        await saga.settled(message, down)
        assert (await w.state("R1"))["status"] == "payment_pending"
        service.mode = "reject"
        refused = await saga.deliver(message)
        assert refused.kind is DeliveryKind.REJECTED
        await saga.settled(message, refused)
        assert (await w.state("R1"))["status"] == "payment_failed"
        # terminal: no later report moves it
        late = service.callback(message.id, "paid")
        assert not await saga.handle_callback(
            late.body, signature=late.signature, timestamp=late.timestamp
        )
        assert (await w.state("R1"))["status"] == "payment_failed"

    run(store_kind, tmp_path, body)


@pytest.mark.skipif(
    not os.environ.get("TURNFRAME_TEST_POSTGRES_DSN"),
    reason="the outbox relay's leases need PostgreSQL: set TURNFRAME_TEST_POSTGRES_DSN",
)
def test_the_outbox_relay_delivers_and_reconciles_a_payment(tmp_path: Path) -> None:
    async def body(w: World, service: PaymentsServer, saga: PaymentSaga) -> None:
        message = await _pay(w)
        service.mode = "timeout"
        relay = OutboxRelay(w.store, [saga], owner="relay-1", retry_in=0.0, reconcile_after=0.0)
        report = await relay.run_once()  # the POST times out; the same round reconciles
        assert report.unknown == 1 and report.reconciled == 1
        assert (await w.state("R1"))["status"] == "payment_submitted"
        assert await _statuses(w) == ["outcome_unknown", "payment_submitted"]
        assert service.deliveries == {message.id: 1}  # asked by outbox id, never resent
        row = await w.store.outbox_row(message.id)
        assert row is not None and row.message.status == "delivered"
        signed = service.callback(message.id, "paid")
        assert await saga.handle_callback(
            signed.body, signature=signed.signature, timestamp=signed.timestamp
        )
        assert (await relay.run_once()).busy is False  # nothing left to deliver
        assert (await w.state("R1"))["status"] == "paid"

    run("postgres", tmp_path, body)
