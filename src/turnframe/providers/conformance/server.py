"""A loopback fake of the vendors' wire formats, scripted from fixture files.

:class:`LoopbackServer` binds ``127.0.0.1`` on an ephemeral port and serves, for each
incoming request, the next scripted response: a status, headers, and either a body
or a list of stream frames in one framing:

* ``sse`` (OpenAI, Anthropic, Gemini ``alt=sse``): ``{"event": ..., "data": ...}``,
  ``{"data": "[DONE]"}`` or ``{"comment": "keep-alive"}``;
* ``ndjson`` (Ollama): one JSON object a line;
* ``eventstream`` (Bedrock): binary ``application/vnd.amazon.eventstream`` messages,
  ``{"event": "messageStart", "data": {...}}`` or ``{"exception": "throttlingException",
  "data": {...}}``, each with its prelude and message CRC32 (encoded here, no AWS library).

A response may also say ``delay_ms`` (before the headers), ``hang_s`` (never answer
within that time), ``frame_delay_ms`` (between frames), ``split`` (send every frame
in two chunks, cut mid-way, so parsers see torn lines and torn UTF-8), ``drop_after``
(close the connection after N frames, mid-body) and ``stall_after`` (stop sending
after N frames). Streams use chunked transfer encoding, so a dropped connection is
distinguishable from a finished body.

The server records every request (method, path, headers, JSON body) and whether the
client disconnected early, so tests can assert what was sent, that exactly one
attempt was made and that a cancelled stream was closed. It speaks plain HTTP through
the SDKs' own clients: nothing in any HTTP library is patched.
"""

from __future__ import annotations

import binascii
import json
import select
import socket
import struct
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from turnframe.core.dataclass_init import fast_init

__all__ = ["LoopbackServer", "RecordedRequest", "eventstream_frame"]

_CONTENT_TYPES = {
    "sse": "text/event-stream",
    "ndjson": "application/x-ndjson",
    "eventstream": "application/vnd.amazon.eventstream",
}


def _header(name: str, value: str) -> bytes:
    n, v = name.encode(), value.encode()
    return struct.pack("!B", len(n)) + n + struct.pack("!BH", 7, len(v)) + v


def eventstream_frame(kind: str, payload: Mapping[str, Any], *, exception: bool = False) -> bytes:
    """Encode one ``application/vnd.amazon.eventstream`` message (headers are strings)."""
    headers = (
        _header(":exception-type" if exception else ":event-type", kind)
        + _header(":content-type", "application/json")
        + _header(":message-type", "exception" if exception else "event")
    )
    body = json.dumps(payload).encode()
    prelude = struct.pack("!II", 12 + len(headers) + len(body) + 4, len(headers))
    message = prelude + struct.pack("!I", binascii.crc32(prelude)) + headers + body
    return message + struct.pack("!I", binascii.crc32(message))


def _encode(framing: str, frame: Any) -> bytes:
    if framing == "ndjson":
        return (
            frame if isinstance(frame, str) else json.dumps(frame, ensure_ascii=False)
        ).encode() + b"\n"
    if framing == "eventstream":
        if "exception" in frame:
            return eventstream_frame(frame["exception"], frame.get("data") or {}, exception=True)
        return eventstream_frame(frame["event"], frame.get("data") or {})
    # sse
    if "comment" in frame:
        return f": {frame['comment']}\n\n".encode()
    if "raw" in frame:
        return str(frame["raw"]).encode()
    lines = []
    if frame.get("event"):
        lines.append(f"event: {frame['event']}")
    data = frame.get("data")
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    lines.append(f"data: {text}")
    return ("\n".join(lines) + "\n\n").encode()


@fast_init
@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request the fake received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes = b""


@dataclass(slots=True)
class _Script:
    responses: list[dict[str, Any]] = field(default_factory=list)
    substitutions: dict[str, str] = field(default_factory=dict)


def _substitute(value: Any, subs: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        for key, replacement in subs.items():
            value = value.replace(key, replacement)
        return value
    if isinstance(value, list):
        return [_substitute(v, subs) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, subs) for k, v in value.items()}
    return value


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        del format, args

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = b""
            while True:
                size = int(self.rfile.readline().strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _serve(self) -> None:
        owner = self.server.owner
        raw = self._read_body()
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        owner._record(
            RecordedRequest(
                method=self.command,
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
                raw=raw,
            )
        )
        response = owner._next()
        if response is None:
            self._send_json(599, {"error": {"message": "the fake server has no scripted response"}})
            return
        if response.get("hang_s"):
            self._hang(float(response["hang_s"]))
            self.close_connection = True
            return
        if response.get("delay_ms"):
            time.sleep(float(response["delay_ms"]) / 1000)
        try:
            if "stream" in response:
                self._send_stream(response)
            else:
                body_value = response.get("body", "")
                status = int(response.get("status", 200))
                self._send_json(status, body_value, response.get("headers") or {})
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            owner.disconnected.set()
            self.close_connection = True

    def _hang(self, seconds: float) -> None:
        """Answer nothing for ``seconds``; stop early when the client hangs up."""
        deadline = time.monotonic() + seconds
        sock = self.connection
        while time.monotonic() < deadline and not self.server.owner.stopping.is_set():
            readable, _, _ = select.select([sock], [], [], 0.05)
            if readable:
                try:
                    if not sock.recv(1, socket.MSG_PEEK):
                        self.server.owner.disconnected.set()
                        return
                except OSError:
                    self.server.owner.disconnected.set()
                    return

    def _send_json(self, status: int, body: Any, headers: Mapping[str, str] | None = None) -> None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        hdrs = {"Content-Type": "application/json", **dict(headers or {})}
        for key, value in hdrs.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _send_stream(self, response: Mapping[str, Any]) -> None:
        framing = str(response.get("framing", "sse"))
        self.send_response(int(response.get("status", 200)))
        headers = {"Content-Type": _CONTENT_TYPES[framing], **dict(response.get("headers") or {})}
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        frames: Sequence[Any] = response["stream"]
        delay = float(response.get("frame_delay_ms") or 0) / 1000
        drop_after = response.get("drop_after")
        stall_after = response.get("stall_after")
        for n, frame in enumerate(frames):
            if drop_after is not None and n >= int(drop_after):
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if stall_after is not None and n >= int(stall_after):
                self._hang(float(response.get("stall_s", 5)))
                self.close_connection = True
                return
            data = _encode(framing, frame)
            if response.get("split") and len(data) > 1:
                cut = len(data) // 2
                self._chunk(data[:cut])
                time.sleep(0.001)
                self._chunk(data[cut:])
            else:
                self._chunk(data)
            if delay:
                time.sleep(delay)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: LoopbackServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client hanging up (a timeout, a cancel) is expected here, not an error."""
        del request, client_address


class LoopbackServer:
    """The scripted fake: start it, :meth:`script` the next responses, point an SDK at :attr:`url`.

    Use it as a context manager (or call :meth:`start` and :meth:`stop`).
    """

    def __init__(self) -> None:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._script = _Script()
        self.requests: list[RecordedRequest] = []
        self.disconnected = threading.Event()
        self.stopping = threading.Event()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> LoopbackServer:
        """Serve in a daemon thread."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port."""
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def script(
        self, responses: Sequence[Mapping[str, Any]], substitutions: Mapping[str, str] | None = None
    ) -> None:
        """Serve ``responses`` to the next requests, in order; forget earlier requests."""
        with self._lock:
            self._script = _Script(
                responses=[dict(r) for r in responses], substitutions=dict(substitutions or {})
            )
            self.requests = []
            self.disconnected.clear()

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next(self) -> dict[str, Any] | None:
        with self._lock:
            if not self._script.responses:
                return None
            response = self._script.responses.pop(0)
            return dict(_substitute(response, self._script.substitutions))
