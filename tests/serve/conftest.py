"""Fixtures for the serving core's tests: the travel app served over SQLite with its tour."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
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


async def seeded_store(path: Path) -> SqliteStore:
    """Return a SQLite store at ``path`` seeded with the travel demo records."""
    from turnframe.samples.travel import DEMO_RECORDS, seed_all

    store = await SqliteStore.open(path)
    runtime = Runtime(load_application("travel"), store)
    for _key, case, state in seed_all(DEMO_RECORDS):
        await runtime.seed(DEVELOPMENT_ACTOR.account, case.workflow, state, case_id=case.case_id)
    return store


@asynccontextmanager
async def served(
    tmp_path: Path, *, config: ServeConfig | None = None, **options: Any
) -> AsyncIterator[httpx.AsyncClient]:
    """Serve the travel tour on a fresh SQLite file; yield a client (lifespan entered)."""
    app_model = load_application("travel")
    tmp_path.mkdir(parents=True, exist_ok=True)
    store = await seeded_store(tmp_path / "serve.db")
    reader = options.pop("reader", tour_reader(app_model))
    app = create_app(
        app_model,
        store,
        reader=reader,
        clock=FixedClock(TODAY),
        config=config or ServeConfig(),
        suggestions=getattr(reader, "says", ()),
        **options,
    )
    try:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
                client.app = app  # type: ignore[attr-defined]
                yield client
    finally:
        await store.close()


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
