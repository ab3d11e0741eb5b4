"""Fixtures for the serving core's tests: the travel app served over SQLite with its tour."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from turnframe.runtime import FixedClock, Runtime
from turnframe.runtime.loading import load_application
from turnframe.serve.app import create_app
from turnframe.serve.auth import DEVELOPMENT_ACTOR
from turnframe.serve.state import ServeConfig
from turnframe.serve.tour import tour_reader
from turnframe.store.sqlite import SqliteStore

TODAY = __import__("datetime").date(2026, 5, 1)
BASE = "http://127.0.0.1"
SRC = str(Path(__import__("turnframe").__file__).resolve().parent.parent)
LINE = re.compile(r"^serving (\S+) on (http://127\.0\.0\.1:(\d+)/) \(store (\w+)")


async def seeded_store(path: Path, *, seed: bool = True) -> SqliteStore:
    """Return a SQLite store at ``path`` seeded with the travel demo records."""
    from turnframe.samples.travel import DEMO_RECORDS, seed_all

    store = await SqliteStore.open(path)
    if not seed:
        return store
    runtime = Runtime(load_application("travel"), store)
    for _key, case, state in seed_all(DEMO_RECORDS):
        await runtime.seed(DEVELOPMENT_ACTOR.account, case.workflow, state, case_id=case.case_id)
    return store


@asynccontextmanager
async def served(
    tmp_path: Path, *, config: ServeConfig | None = None, tcp: bool = False, **options: Any
) -> AsyncIterator[httpx.AsyncClient]:
    """Serve the travel tour on a fresh SQLite file; yield a client (lifespan entered)."""
    app_model = load_application("travel")
    tmp_path.mkdir(parents=True, exist_ok=True)
    store = await seeded_store(tmp_path / "serve.db", seed=options.pop("seed", True))
    reader = options.pop("reader", tour_reader(app_model))
    wrap = options.pop("wrap", None)
    app = create_app(
        app_model,
        wrap(store) if wrap is not None else store,
        reader=reader,
        clock=FixedClock(TODAY),
        config=config or ServeConfig(),
        suggestions=getattr(reader, "says", ()),
        **options,
    )
    try:
        async with app.router.lifespan_context(app):
            if tcp:
                async with on_loopback(app) as base:
                    async with httpx.AsyncClient(base_url=base, timeout=10) as client:
                        client.app = app  # type: ignore[attr-defined]
                        yield client
                return
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
                client.app = app  # type: ignore[attr-defined]
                yield client
    finally:
        await store.close()


@asynccontextmanager
async def on_loopback(app: Any) -> AsyncIterator[str]:
    """Serve ``app`` (lifespan already entered) with uvicorn on a free loopback port.

    httpx's ASGITransport buffers a whole response, so a test that reads a stream as it
    arrives (or leaves it early) talks to a real server.
    """
    import anyio
    import uvicorn

    config = uvicorn.Config(app, host="127.0.0.1", port=0, lifespan="off", log_level="warning")
    server = uvicorn.Server(config)
    sock = config.bind_socket()
    port = sock.getsockname()[1]
    async with anyio.create_task_group() as group:
        group.start_soon(server.serve, [sock])
        with anyio.fail_after(10):
            while not server.started:
                await anyio.sleep(0.01)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True


def parse_sse(text: str) -> list[dict[str, Any]]:
    """Parse an SSE body into frames ``{id, event, data}`` (data parsed as JSON)."""
    frames = []
    for chunk in text.replace("\r\n", "\n").split("\n\n"):
        frame: dict[str, Any] = {}
        for line in chunk.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            frame[name] = value[1:] if value.startswith(" ") else value
        if "event" in frame:
            frame["data"] = json.loads(frame["data"])
            frames.append(frame)
    return frames


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def serve() -> Any:
    """Return :func:`served` (the travel tour served over SQLite, a client yielded)."""
    return served


@pytest.fixture
def sse() -> Any:
    """Return :func:`parse_sse`."""
    return parse_sse


@contextmanager
def running(
    *args: str, env: dict[str, str] | None = None, log: Path | None = None
) -> Iterator[tuple[str, str]]:
    """Run ``turnframe ARGS`` until its ``serving …`` line; yield (base URL, that line).

    The process is stopped (SIGTERM, then SIGKILL) when the block ends.
    """
    environment = {**os.environ, **(env or {})}
    environment["PYTHONPATH"] = SRC + os.pathsep + environment.get("PYTHONPATH", "")
    errors = log or Path(os.devnull)
    with errors.open("w") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "turnframe.cli", *args],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env=environment,
        )
        try:
            assert process.stdout is not None
            line = process.stdout.readline().strip()
            found = LINE.match(line)
            if found is None:
                process.kill()
                raise AssertionError(f"no serving line: {line!r} (stderr in {log})")
            yield found.group(2).rstrip("/"), line
        finally:
            process.terminate()
            try:
                process.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate(timeout=5)


@pytest.fixture(name="running")
def running_fixture() -> Any:
    """Return :func:`running` (``turnframe ARGS`` in a subprocess until its serving line)."""
    return running
