"""The manifest's airline submission as a saga over the outbox (I19).

See docs/architecture.md "Claims", "Stores".

``manifest.submit`` commits the status ``submitting`` with an outbox row on
:data:`~turnframe.samples.travel.manifest.SUBMIT_TOPIC`. :class:`ManifestSubmissionSaga`
is the :class:`~turnframe.runtime.EffectHandler` a relay runs for it:

* deliver: POST the payload to the airline with the outbox id (``X-Outbox-Id``, the
  airline deduplicates by it). 2xx → ``submitted`` (or the status the airline names);
  a refusal → ``rejected``; connection refused → not received (resent later);
  a timeout after transmission → ``outcome_unknown``, never a resend.
* reconcile: ask the airline by outbox id (``GET /manifests/<id>``); a known
  submission's status is recorded, an unknown one is resent (an informed resend).
* callbacks: the airline reports later statuses (received by the airline, accepted,
  issued…) in HMAC-signed callbacks; :meth:`ManifestSubmissionSaga.handle_callback`
  verifies them before they become a ``VerifiedCallback`` origin (I4).

Every status is committed through :meth:`Runtime.external_update` and the manifest's
pure :meth:`ManifestWorkflow.external_update`, so statuses only move forward and are
never collapsed into "done".
"""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.to_thread

from turnframe.core import CaseRef, OutboxMessage
from turnframe.core.errors import TurnFailure
from turnframe.runtime import (
    Delivery,
    DeliveryKind,
    Runtime,
    SignedCallback,
    verify_callback,
)
from turnframe.samples.travel.manifest import SUBMIT_TOPIC, ManifestWorkflow

__all__ = ["AirlineClient", "ManifestSubmissionSaga", "serve_callbacks"]

log = logging.getLogger("turnframe.samples.travel.airline")


class AirlineClient:
    """The airline's HTTP JSON API, called from a worker thread (stdlib ``http.client``).

    Args:
        base_url: ``http://host:port``.
        timeout: seconds to wait for an answer once the request is sent.
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
            except (TimeoutError, OSError, http.client.HTTPException) as exc:
                # The request may have reached the airline: the outcome is unknown.
                return Delivery(kind=DeliveryKind.UNKNOWN, detail=f"no answer: {exc!r}")
        finally:
            conn.close()
        try:
            answer: Any = json.loads(data or b"{}")
        except ValueError:
            answer = {}
        answer = answer if isinstance(answer, dict) else {}
        status = answer.get("status")
        reference = str(answer.get("reference") or "")
        if response.status == 404:
            return Delivery(kind=DeliveryKind.NOT_RECEIVED, detail="unknown to the airline")
        if response.status == 503:
            return Delivery(kind=DeliveryKind.NOT_RECEIVED, detail="airline unavailable")
        if 200 <= response.status < 300:
            kind = DeliveryKind.REJECTED if status == "rejected" else DeliveryKind.DELIVERED
            return Delivery(
                kind=kind, status=str(status or "submitted"), reference=reference, detail=""
            )
        if response.status in (400, 409, 422):
            return Delivery(
                kind=DeliveryKind.REJECTED,
                status="rejected",
                reference=reference,
                detail=str(answer.get("reason", response.status)),
            )
        return Delivery(kind=DeliveryKind.UNKNOWN, detail=f"HTTP {response.status}")

    async def submit(self, outbox_id: str, payload: dict[str, Any]) -> Delivery:
        """POST the manifest with its outbox id (the airline deduplicates by it)."""
        body = json.dumps({"outbox_id": outbox_id, **payload}).encode()
        headers = {"Content-Type": "application/json", "X-Outbox-Id": outbox_id}
        return await anyio.to_thread.run_sync(self._call, "POST", "/manifests", body, headers)

    async def status(self, outbox_id: str) -> Delivery:
        """Ask what became of the submission with this outbox id (reconciliation)."""
        return await anyio.to_thread.run_sync(
            self._call, "GET", f"/manifests/{outbox_id}", None, {}
        )


def _case(text: object) -> CaseRef | None:
    if not isinstance(text, str) or "/" not in text:
        return None
    workflow, _, case_id = text.partition("/")
    return CaseRef(workflow, case_id)


class ManifestSubmissionSaga:
    """The relay's handler for manifest submissions, and the airline's callback endpoint.

    Args:
        runtime: the runtime whose store holds the manifests.
        client: the airline API.
        callback_secret: the HMAC secret the airline signs callbacks with.
        clock: Unix time, for the callbacks' timestamp check.
    """

    topic = SUBMIT_TOPIC
    retry_safe = False  # an airline submission must not be repeated blindly

    def __init__(
        self,
        runtime: Runtime,
        client: AirlineClient,
        *,
        callback_secret: bytes = b"",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.runtime = runtime
        self.client = client
        self.secret = callback_secret
        self.clock = clock
        self.workflow = ManifestWorkflow()

    async def deliver(self, message: OutboxMessage) -> Delivery:
        """Transmit the submission."""
        return await self.client.submit(message.id, dict(message.payload))

    async def reconcile(self, message: OutboxMessage) -> Delivery:
        """Ask the airline by outbox id; never resend blindly."""
        return await self.client.status(message.id)

    async def settled(self, message: OutboxMessage, delivery: Delivery) -> None:
        """Commit the manifest's external status for this outcome (I19)."""
        if delivery.kind is DeliveryKind.UNKNOWN:
            status = "outcome_unknown"
        elif delivery.kind is DeliveryKind.REJECTED:
            status = "rejected"
        elif delivery.kind is DeliveryKind.DELIVERED:
            status = delivery.status or "submitted"
        else:
            return
        await self.apply(message.case, status, delivery.reference or message.id)

    async def apply(self, case: CaseRef, status: str, reference: str) -> bool:
        """Commit ``status`` on the manifest; ``False`` when it is already there or past it."""
        for _ in range(5):
            row = await self.runtime.store.load_case(case)
            if row is None:
                log.warning("airline status %s for unknown manifest %s", status, case)
                return False
            try:
                await self.runtime.external_update(
                    row.account,
                    case,
                    source="airline",
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
                await anyio.sleep(0.01)  # the manifest changed concurrently: re-read
        return False

    async def handle_callback(self, body: bytes, *, signature: str, timestamp: str) -> bool:
        """Verify a signed airline callback, then commit the status it reports (I4).

        Raises:
            CallbackRejected: the signature, timestamp or body did not verify.
        """
        signed: SignedCallback = verify_callback(
            self.secret,
            body,
            signature=signature,
            timestamp=timestamp,
            now=self.clock(),
            source="airline",
        )
        case = _case(signed.body.get("manifest"))
        status = signed.body.get("status")
        if case is None or not isinstance(status, str):
            return False
        return await self.apply(case, status, signed.origin.reference)


async def serve_callbacks(
    saga: ManifestSubmissionSaga, host: str = "127.0.0.1", port: int = 0
) -> asyncio.Server:
    """Serve ``POST /callbacks/airline`` (a minimal HTTP/1.1 endpoint) for ``saga``.

    Answers 204 when the callback verified (whether or not it changed anything), 401
    when it did not, 400 for a malformed request. Returns the started server (read its
    port from ``server.sockets[0].getsockname()[1]``).
    """
    from turnframe.runtime import CallbackRejected

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        code = 400
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = (lines[0].split(" ") + ["", "", ""])[:3]
            headers = {
                k.strip().lower(): v.strip()
                for k, _, v in (line.partition(":") for line in lines[1:] if line)
            }
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            if method == "POST" and path == "/callbacks/airline":
                try:
                    await saga.handle_callback(
                        body,
                        signature=headers.get("x-signature", ""),
                        timestamp=headers.get("x-timestamp", ""),
                    )
                    code = 204
                except CallbackRejected as exc:
                    log.warning("airline callback refused: %s", exc)
                    code = 401
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            code = 400
        reason = {204: "No Content", 400: "Bad Request", 401: "Unauthorized"}[code]
        writer.write(
            f"HTTP/1.1 {code} {reason}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode()
        )
        try:
            await writer.drain()
        finally:
            writer.close()

    return await asyncio.start_server(handle, host, port)
