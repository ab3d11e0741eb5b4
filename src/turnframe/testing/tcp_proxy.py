"""A loopback TCP proxy that can cut a connection right after forwarding COMMIT.

The fault injector behind the "commit outcome unknown" tests (docs/postgres.md "Store"): the
client's ``COMMIT`` reaches the server, which commits, and the proxy closes both sides before the
reply comes back, so the client cannot know whether its transaction committed. Threads and blocking
sockets, so it runs beside any event loop.
"""

from __future__ import annotations

import socket
import threading
import time

__all__ = ["CuttingProxy"]


class CuttingProxy:
    """Forward ``127.0.0.1:<port>`` to ``(host, port)``; optionally cut after COMMIT.

    Args:
        host: the upstream host.
        port: the upstream port.

    Attributes:
        port: the proxy's ephemeral port (after :meth:`start`).
        cut_after_commit: when set, the next client packet holding ``COMMIT`` is
            forwarded, then both sides are closed after ``grace`` seconds.
        cuts: how many connections were cut.
    """

    def __init__(self, host: str, port: int, *, grace: float = 0.2) -> None:
        self.upstream = (host, port)
        self.grace = grace
        self.cut_after_commit = threading.Event()
        self.cuts = 0
        self.port = 0
        self._listener: socket.socket | None = None
        self._sockets: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def start(self) -> CuttingProxy:
        """Listen on an ephemeral loopback port and accept in a daemon thread."""
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        listener.settimeout(0.1)
        self._listener = listener
        self.port = listener.getsockname()[1]
        self._spawn(self._accept)
        return self

    def _spawn(self, target: object, *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)  # type: ignore[arg-type]
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        assert self._listener is not None
        while not self._stop.is_set():
            try:
                client, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets += [client, server]
            pair = (client, server)
            muted = threading.Event()
            self._spawn(self._pump, client, server, True, pair, muted)
            self._spawn(self._pump, server, client, False, pair, muted)

    def _pump(
        self,
        src: socket.socket,
        dst: socket.socket,
        from_client: bool,
        pair: tuple[socket.socket, socket.socket],
        muted: threading.Event,
    ) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if not from_client and muted.is_set():
                    continue  # the reply to COMMIT is swallowed
                cutting = from_client and self.cut_after_commit.is_set() and b"COMMIT" in data
                if cutting:
                    muted.set()
                    self.cut_after_commit.clear()
                dst.sendall(data)
                if cutting:
                    time.sleep(self.grace)  # the server commits; its reply is never relayed
                    self.cuts += 1
                    break
        except OSError:
            pass
        for sock in pair:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def stop(self) -> None:
        """Close every socket and stop accepting. Idempotent."""
        self._stop.set()
        with self._lock:
            for sock in self._sockets:
                try:
                    sock.close()
                except OSError:
                    pass
        if self._listener is not None:
            self._listener.close()
        for thread in self._threads:
            thread.join(timeout=2)
