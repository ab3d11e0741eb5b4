"""A sample airline endpoint on loopback, for the outbox relay and saga tests.

:class:`AirlineServer` is a stdlib ``ThreadingHTTPServer`` on ``127.0.0.1`` and an
ephemeral port. ``POST /manifests`` receives a submission (deduplicated by its
``X-Outbox-Id``); ``GET /manifests/<outbox id>`` answers reconciliation. The behaviour of
the next submissions is chosen with :attr:`AirlineServer.mode`:

``accept``    answer 202 ``{"status": "submitted", "reference": …}``
``reject``    answer 422 ``{"status": "rejected", "reason": …}``
``delay``     wait :attr:`delay` seconds, then accept
``timeout``   record the submission as received, then never answer (the client times
              out after transmission: the outcome is unknown to it)
``down``      answer 503 without recording anything (definitely not received)

:meth:`AirlineServer.call_back` posts an HMAC-signed status callback to a URL.
:attr:`AirlineServer.deliveries` counts every POST per outbox id, so a test can tell a
redelivery (same id, deduplicated) from a duplicate effect (two submissions).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from turnframe.runtime import sign_callback

__all__ = ["AirlineServer", "Submission"]


@dataclass
class Submission:
    """One submission the airline received (once per outbox id).

    Attributes:
        outbox_id: the sender's outbox id.
        reference: the airline's reference.
        payload: the body.
        status: the airline's status of it.
    """

    outbox_id: str
    reference: str
    payload: dict[str, Any]
    status: str = "submitted"
    history: list[str] = field(default_factory=list)


class AirlineServer:
    """A loopback airline (see the module notes). Use as a context manager.

    Args:
        secret: the HMAC secret for callbacks.
    """

    def __init__(self, secret: bytes = b"test-secret") -> None:
        self.secret = secret
        self.mode = "accept"
        self.delay = 0.5
        self.hang = 5.0
        self.submissions: dict[str, Submission] = {}
        self.deliveries: dict[str, int] = {}
        self.lock = threading.Lock()
        self._release = threading.Event()
        airline = self

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
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                outbox_id = self.headers.get("X-Outbox-Id") or str(body.get("outbox_id", ""))
                mode = airline.mode
                if mode == "down":
                    self._send(503, {"reason": "unavailable"})
                    return
                with airline.lock:
                    airline.deliveries[outbox_id] = airline.deliveries.get(outbox_id, 0) + 1
                    known = airline.submissions.get(outbox_id)
                    if known is None:
                        status = "rejected" if mode == "reject" else "submitted"
                        known = Submission(
                            outbox_id=outbox_id,
                            reference=f"AL-{len(airline.submissions) + 1:05d}",
                            payload=body,
                            status=status,
                            history=[status],
                        )
                        airline.submissions[outbox_id] = known
                if mode == "timeout":
                    airline._release.wait(airline.hang)  # received; never answered in time
                    return
                if mode == "delay":
                    time.sleep(airline.delay)
                if known.status == "rejected":
                    self._send(
                        422,
                        {
                            "status": "rejected",
                            "reference": known.reference,
                            "reason": "bad manifest",
                        },
                    )
                else:
                    self._send(202, {"status": known.status, "reference": known.reference})

            def do_GET(self) -> None:
                outbox_id = self.path.rsplit("/", 1)[-1]
                with airline.lock:
                    known = airline.submissions.get(outbox_id)
                if known is None:
                    self._send(404, {"reason": "unknown submission"})
                else:
                    self._send(200, {"status": known.status, "reference": known.reference})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> AirlineServer:
        """Start serving in a daemon thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Release hung requests and stop serving."""
        self._release.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> AirlineServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def advance(self, outbox_id: str, status: str) -> Submission:
        """Move a received submission to ``status`` on the airline's side."""
        with self.lock:
            known = self.submissions[outbox_id]
            known.status = status
            known.history.append(status)
            return known

    def call_back(
        self,
        url: str,
        outbox_id: str,
        status: str,
        *,
        secret: bytes | None = None,
        timestamp: float | None = None,
    ) -> int:
        """Advance the submission to ``status`` and POST a signed callback; return the code."""
        known = self.advance(outbox_id, status)
        body = json.dumps(
            {
                "reference": known.reference,
                "outbox_id": outbox_id,
                "manifest": known.payload.get("manifest"),
                "status": status,
            }
        ).encode()
        stamp = str(int(timestamp if timestamp is not None else time.time()))
        parts = urlsplit(url)
        conn = http.client.HTTPConnection(
            parts.hostname or "127.0.0.1", parts.port or 80, timeout=5
        )
        try:
            conn.request(
                "POST",
                parts.path or "/",
                body=body,
                headers={
                    "Content-Type": "application/json",
                    "X-Timestamp": stamp,
                    "X-Signature": sign_callback(secret or self.secret, stamp, body),
                },
            )
            return conn.getresponse().status
        finally:
            conn.close()
