"""The payment of an approved report, as a saga over the outbox (docs/invariants.md I4, I19).

``expense_report.pay`` commits ``payment_pending`` with an outbox row on
:data:`~turnframe.samples.expenses.workflow.PAYMENT_TOPIC`. :class:`PaymentSaga` is the
:class:`turnframe.runtime.EffectHandler` an :class:`turnframe.runtime.OutboxRelay` runs
for it:

* deliver: ``POST /payments`` with the outbox id (``X-Outbox-Id``; the service
  deduplicates by it). 2xx → the status the service names (``payment_submitted`` by
  default); 4xx → ``payment_failed``; connection refused or 503 → not received (resent
  later); no answer after sending → ``outcome_unknown``, never a blind resend.
* reconcile: ``GET /payments/<outbox id>``; a known payment's status is recorded, an
  unknown one is resent (an informed resend).
* callbacks: later statuses arrive HMAC-signed; :meth:`PaymentSaga.handle_callback`
  verifies them (:func:`turnframe.runtime.verify_callback`) before they become a
  ``VerifiedCallback`` origin.

Every status goes through ``Runtime.external_update`` and the workflow's pure
``external_update``, so it only moves forward and is never collapsed into "paid".
"""

from __future__ import annotations

import http.client
import json
import logging
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.to_thread

from turnframe.core import CaseRef, OutboxMessage, TurnFailure
from turnframe.runtime import Delivery, DeliveryKind, Runtime, verify_callback
from turnframe.samples.expenses.workflow import PAYMENT_TOPIC, ExpenseReportWorkflow

__all__ = ["PaymentSaga", "PaymentsClient"]

log = logging.getLogger("turnframe.samples.expenses.payments")


class PaymentsClient:
    """The payments service's HTTP JSON API, called from a worker thread.

    Args:
        base_url: ``http://host:port``.
        timeout: seconds to wait for an answer once a request is sent.
    """

    def __init__(self, base_url: str, *, timeout: float = 2.0) -> None:
        parts = urlsplit(base_url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.timeout = timeout

    def _call(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str]
    ) -> Delivery:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            try:
                conn.connect()
            except OSError as exc:  # nothing was sent
                return Delivery(kind=DeliveryKind.NOT_RECEIVED, detail=f"connect failed: {exc}")
            try:
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
                data = response.read()
            except (OSError, http.client.HTTPException) as exc:
                return Delivery(kind=DeliveryKind.UNKNOWN, detail=f"no answer: {exc!r}")
        finally:
            conn.close()
        try:
            answer: Any = json.loads(data or b"{}")
        except ValueError:
            answer = {}
        answer = answer if isinstance(answer, dict) else {}
        reference = str(answer.get("reference") or "")
        if response.status in (404, 503):
            return Delivery(kind=DeliveryKind.NOT_RECEIVED, detail=f"HTTP {response.status}")
        if 200 <= response.status < 300:
            status = str(answer.get("status") or "payment_submitted")
            kind = DeliveryKind.REJECTED if status == "payment_failed" else DeliveryKind.DELIVERED
            return Delivery(kind=kind, status=status, reference=reference)
        if 400 <= response.status < 500:
            return Delivery(
                kind=DeliveryKind.REJECTED,
                status="payment_failed",
                reference=reference,
                detail=str(answer.get("reason", response.status)),
            )
        return Delivery(kind=DeliveryKind.UNKNOWN, detail=f"HTTP {response.status}")

    async def submit(self, outbox_id: str, payload: dict[str, Any]) -> Delivery:
        """POST the payment with its outbox id (the service deduplicates by it)."""
        body = json.dumps({"outbox_id": outbox_id, **payload}).encode()
        headers = {"Content-Type": "application/json", "X-Outbox-Id": outbox_id}
        return await anyio.to_thread.run_sync(self._call, "POST", "/payments", body, headers)

    async def status(self, outbox_id: str) -> Delivery:
        """Ask what became of the payment with this outbox id (reconciliation)."""
        return await anyio.to_thread.run_sync(self._call, "GET", f"/payments/{outbox_id}", None, {})


def _case(text: object) -> CaseRef | None:
    if not isinstance(text, str) or "/" not in text:
        return None
    workflow, _, case_id = text.partition("/")
    return CaseRef(workflow, case_id)


class PaymentSaga:
    """The relay's handler for payments, and the service's callback receiver.

    Args:
        runtime: the runtime whose store holds the reports.
        client: the payments API.
        callback_secret: the HMAC secret the service signs callbacks with.
        clock: Unix time, for the callbacks' timestamp check.
    """

    topic = PAYMENT_TOPIC
    retry_safe = False  # a payment is never repeated blindly

    def __init__(
        self,
        runtime: Runtime,
        client: PaymentsClient,
        *,
        callback_secret: bytes = b"",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.runtime = runtime
        self.client = client
        self.secret = callback_secret
        self.clock = clock
        self.workflow = ExpenseReportWorkflow()

    async def deliver(self, message: OutboxMessage) -> Delivery:
        """Transmit the payment."""
        return await self.client.submit(message.id, dict(message.payload))

    async def reconcile(self, message: OutboxMessage) -> Delivery:
        """Ask the service by outbox id; never resend blindly."""
        return await self.client.status(message.id)

    async def settled(self, message: OutboxMessage, delivery: Delivery) -> None:
        """Commit the report's external status for this outcome (I19)."""
        if delivery.kind is DeliveryKind.UNKNOWN:
            status = self.workflow.timeout_status
        elif delivery.kind is DeliveryKind.REJECTED:
            status = "payment_failed"
        elif delivery.kind is DeliveryKind.DELIVERED:
            status = delivery.status or "payment_submitted"
        else:
            return
        await self.apply(message.case, status, delivery.reference or message.id)

    async def apply(self, case: CaseRef, status: str, reference: str) -> bool:
        """Commit ``status`` on the report; ``False`` when it is already there or past it.

        Raises:
            TurnFailure: a store failure that is not a retryable conflict.
        """
        for _ in range(5):
            row = await self.runtime.store.load_case(case)
            if row is None:
                log.warning("payment status %s for unknown report %s", status, case)
                return False
            try:
                await self.runtime.external_update(
                    row.account,
                    case,
                    source=self.workflow.external_source,
                    reference=reference,
                    transition=lambda state: self.workflow.external_update(
                        state, status, reference=reference
                    ),
                )
                return True
            except ValueError:  # TransitionRefused: already at or past this status
                return False
            except TurnFailure as exc:
                if not exc.failure.retryable or exc.failure.effect_may_have_happened:
                    raise
                await anyio.sleep(0.01)  # the report changed concurrently: re-read
        return False

    async def handle_callback(self, body: bytes, *, signature: str, timestamp: str) -> bool:
        """Verify a signed callback, then commit the status it reports (I4).

        Returns whether a status was committed.

        Raises:
            CallbackRejected: the signature, timestamp or body did not verify.
        """
        signed = verify_callback(
            self.secret,
            body,
            signature=signature,
            timestamp=timestamp,
            now=self.clock(),
            source=self.workflow.external_source,
        )
        case = _case(signed.body.get("report"))
        status = signed.body.get("status")
        if case is None or not isinstance(status, str):
            return False
        return await self.apply(case, status, signed.origin.reference)
