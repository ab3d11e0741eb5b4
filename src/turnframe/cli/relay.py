"""``turnframe relay``: an outbox relay process on the PostgreSQL store.

See docs/architecture.md "Claims", "Stores".

Runs :class:`~turnframe.runtime.OutboxRelay` with the travel sample's manifest
submission saga (the reference handler), and serves the airline's signed callbacks on
``--callback-port`` (``POST /callbacks/airline``, HMAC secret from
``TURNFRAME_AIRLINE_SECRET``). Several relay processes may run against one database:
their leases keep them apart. Stops on SIGINT/SIGTERM, or after one round with
``--once``. Adopters with their own effects build an ``OutboxRelay`` with their handlers.
"""

from __future__ import annotations

import os
import signal
import socket
import sys

__all__ = ["run_relay"]


def run_relay(
    *,
    dsn: str | None,
    schema: str,
    airline_url: str,
    callback_port: int | None,
    once: bool,
    lease_seconds: float,
    poll: float,
    owner: str | None,
) -> int:
    """Run the relay; return the exit code (0 ok, 2 usage, 1 store failure)."""
    target = dsn or os.environ.get("TURNFRAME_POSTGRES_DSN", "").strip()
    if not target:
        print("error: give --dsn or set TURNFRAME_POSTGRES_DSN", file=sys.stderr)
        return 2
    import anyio

    from turnframe.core.errors import TurnframeError

    try:
        return anyio.run(
            lambda: _main(
                target, schema, airline_url, callback_port, once, lease_seconds, poll, owner
            )
        )
    except TurnframeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


async def _main(
    dsn: str,
    schema: str,
    airline_url: str,
    callback_port: int | None,
    once: bool,
    lease_seconds: float,
    poll: float,
    owner: str | None,
) -> int:
    import anyio

    from turnframe.runtime import OutboxRelay, Runtime
    from turnframe.samples.travel import travel_application
    from turnframe.samples.travel.airline_saga import (
        AirlineClient,
        ManifestSubmissionSaga,
        serve_callbacks,
    )
    from turnframe.store.postgres import PostgresStore

    store = await PostgresStore.open(dsn, schema=schema)
    server = None
    try:
        runtime = Runtime(travel_application(), store)
        secret = os.environ.get("TURNFRAME_AIRLINE_SECRET", "").encode()
        saga = ManifestSubmissionSaga(runtime, AirlineClient(airline_url), callback_secret=secret)
        name = owner or f"relay-{socket.gethostname()}-{os.getpid()}"
        relay = OutboxRelay(store, [saga], owner=name, lease_seconds=lease_seconds)
        if callback_port is not None:
            server = await serve_callbacks(saga, "127.0.0.1", callback_port)
            port = server.sockets[0].getsockname()[1]
            print(f"relay {name}: callbacks on http://127.0.0.1:{port}/callbacks/airline")
        if once:
            report = await relay.run_once()
            print(
                f"relay {name}: delivered {report.delivered}, rejected {report.rejected}, "
                f"unknown {report.unknown}, reconciled {report.reconciled}, "
                f"retried {report.retried}, dead {report.dead}, expired {report.expired}"
            )
            return 0
        stop = anyio.Event()
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with anyio.create_task_group() as tg:

                async def wait_signal() -> None:
                    async for _ in signals:
                        stop.set()
                        return

                tg.start_soon(wait_signal)
                print(f"relay {name}: running (Ctrl-C stops)")
                await relay.run(stop=stop, poll=poll)
                tg.cancel_scope.cancel()
        return 0
    finally:
        if server is not None:
            server.close()
        await store.close()
