"""A loopback payments service, for the expenses sample's outbox relay and saga tests.

:class:`PaymentsServer` is a stdlib ``ThreadingHTTPServer`` on ``127.0.0.1`` and an
ephemeral port (never another interface). ``POST /payments`` receives a payment,
deduplicated by its ``X-Outbox-Id``; ``GET /payments/<outbox id>`` answers
reconciliation. :attr:`PaymentsServer.mode` chooses how the next payments are met:

``accept``    answer 202 ``{"status": "payment_submitted", "reference": "PAY-00001"}``
``reject``    answer 422 ``{"status": "payment_failed", "reason": …}``
``timeout``   record the payment as received, then never answer in time (the client's
              outcome is unknown)
``down``      answer 503 without recording anything (definitely not received)

:meth:`PaymentsServer.callback` moves a payment on the service's side and returns the
HMAC-signed callback (:func:`turnframe.runtime.sign_callback`) it would send.
:attr:`PaymentsServer.deliveries` counts every POST per outbox id, so a test can tell a
redelivery (same id, deduplicated) from a second payment.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from turnframe.core.dataclass_init import fast_init
from turnframe.runtime import sign_callback

__all__ = ["Payment", "PaymentsServer", "SignedStatus"]


@dataclass
class Payment:
    """One payment the service received (once per outbox id).

    Attributes:
        outbox_id: the sender's outbox id.
        reference: the service's reference (``PAY-00001``).
        payload: the body as received.
        status: the service's status of it.
        history: every status it had, in order.
    """

    outbox_id: str
    reference: str
    payload: dict[str, Any]
    status: str
    history: list[str] = field(default_factory=list)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class SignedStatus:
    """A status callback as the service signs it: hand its parts to a callback receiver.

    Attributes:
        body: the JSON body (``report``, ``outbox_id``, ``reference``, ``status``).
        signature: the ``X-Signature`` header.
        timestamp: the ``X-Timestamp`` header (Unix seconds).
    """

    body: bytes
    signature: str
    timestamp: str


class PaymentsServer:
    """A loopback payments service (see the module notes). Use as a context manager.

    Args:
        secret: the HMAC secret callbacks are signed with.
        hang: seconds a ``timeout`` request is held before the connection is dropped.
    """

    def __init__(self, secret: bytes = b"test-secret", *, hang: float = 5.0) -> None:
        self.secret = secret
        self.mode = "accept"
        self.hang = hang
        self.payments: dict[str, Payment] = {}
        self.deliveries: dict[str, int] = {}
        self.lock = threading.Lock()
        self._release = threading.Event()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def _send(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                if self.path != "/payments":
                    self._send(404, {"reason": "no such endpoint"})
                    return
                length = int(self.headers.get("Content-Length", "0"))
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    self._send(400, {"reason": "not JSON"})
                    return
                outbox_id = self.headers.get("X-Outbox-Id") or str(body.get("outbox_id", ""))
                mode = service.mode
                if mode == "down":
                    self._send(503, {"reason": "unavailable"})
                    return
                with service.lock:
                    service.deliveries[outbox_id] = service.deliveries.get(outbox_id, 0) + 1
                    known = service.payments.get(outbox_id)
                    if known is None:
                        status = "payment_failed" if mode == "reject" else "payment_submitted"
                        known = Payment(
                            outbox_id=outbox_id,
                            reference=f"PAY-{len(service.payments) + 1:05d}",
                            payload=body,
                            status=status,
                            history=[status],
                        )
                        service.payments[outbox_id] = known
                if mode == "timeout":
                    service._release.wait(service.hang)  # received; never answered in time
                    return
                answer = {"status": known.status, "reference": known.reference}
                if known.status == "payment_failed":
                    self._send(422, {**answer, "reason": "payee account closed"})
                else:
                    self._send(202, answer)

            def do_GET(self) -> None:
                outbox_id = self.path.rsplit("/", 1)[-1]
                with service.lock:
                    known = service.payments.get(outbox_id)
                if not self.path.startswith("/payments/") or known is None:
                    self._send(404, {"reason": "unknown payment"})
                else:
                    self._send(200, {"status": known.status, "reference": known.reference})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> PaymentsServer:
        """Start serving in a daemon thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Release held requests and stop serving."""
        self._release.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> PaymentsServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def advance(self, outbox_id: str, status: str) -> Payment:
        """Move a received payment to ``status`` on the service's side.

        Raises:
            KeyError: when no payment with ``outbox_id`` was received.
        """
        with self.lock:
            known = self.payments[outbox_id]
            known.status = status
            known.history.append(status)
            return known

    def callback(
        self, outbox_id: str, status: str, *, secret: bytes | None = None, at: float | None = None
    ) -> SignedStatus:
        """Advance the payment to ``status`` and return the signed callback reporting it.

        ``secret`` signs with another key (a forged callback); ``at`` sets the timestamp.
        """
        known = self.advance(outbox_id, status)
        body = json.dumps(
            {
                "report": known.payload.get("report"),
                "outbox_id": outbox_id,
                "reference": known.reference,
                "status": status,
            }
        ).encode()
        stamp = str(int(at if at is not None else time.time()))
        return SignedStatus(
            body=body, signature=sign_callback(secret or self.secret, stamp, body), timestamp=stamp
        )
