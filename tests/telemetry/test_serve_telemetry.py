"""`create_app(telemetry=...)`: each worker's lifespan builds it, turns are traced, shutdown flushes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
from telemetry_kit import TODAY, Recorded

from turnframe.runtime import FixedClock, Runtime
from turnframe.runtime.loading import load_application
from turnframe.samples.travel import DEMO_RECORDS, seed_all
from turnframe.serve.app import create_app
from turnframe.serve.auth import DEVELOPMENT_ACTOR
from turnframe.serve.tour import tour_reader
from turnframe.store.sqlite import SqliteStore

TEXT = "Put Rui on the Porto trip, 2 to 6 July. And what's the bag allowance on the TP manifest?"


def test_a_served_turn_is_traced_and_the_telemetry_shut_down(
    tmp_path: Path, recorded: Recorded
) -> None:
    built: list[Any] = []
    shut: list[bool] = []

    def factory() -> Any:
        built.append(recorded.telemetry)
        recorded.telemetry.shutdown = lambda: shut.append(True)  # type: ignore[method-assign]
        return recorded.telemetry

    async def run() -> None:
        app_model = load_application("travel")
        store = await SqliteStore.open(tmp_path / "serve.db")
        seeding = Runtime(app_model, store)
        for _key, case, state in seed_all(DEMO_RECORDS):
            await seeding.seed(DEVELOPMENT_ACTOR.account, case.workflow, state, case.case_id)
        reader = tour_reader(app_model)
        app = create_app(
            app_model, store, reader=reader, clock=FixedClock(TODAY), telemetry=factory
        )
        try:
            async with app.router.lifespan_context(app):
                assert built and not shut
                transport = httpx.ASGITransport(app=app)
                async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
                    response = await c.post("/v1/conversations/c1/turns", json={"text": TEXT})
                    assert response.status_code == 201, response.text
        finally:
            await store.close()

    anyio.run(run)
    assert shut == [True]
    names = [s.name for s in recorded.spans()]
    assert names.count("turnframe.turn") == 1
    assert "turnframe.step.understand" in names

    assert recorded.total("turnframe.commits") >= 1
