"""A turn a crashed worker left behind is finished by a serving worker (docs/serving.md "Workers")."""

from __future__ import annotations

import os
from datetime import date
from typing import Any

import anyio
import httpx
import pytest

from turnframe.core.ids import CaseRef
from turnframe.core.turn import TurnInput
from turnframe.runtime import FixedClock, Runtime
from turnframe.runtime.errors import TurnInterrupted
from turnframe.runtime.loading import load_application
from turnframe.serve.app import create_app
from turnframe.serve.auth import DEVELOPMENT_ACTOR
from turnframe.serve.recovery import ReaderUnderstanding, can_take_over
from turnframe.serve.state import ServeConfig
from turnframe.serve.tour import tour_reader
from turnframe.store.faults import FaultInjectingStore, FaultPlan
from turnframe.store.memory import InMemoryStore

pytestmark = pytest.mark.anyio

DSN = os.environ.get("TURNFRAME_TEST_POSTGRES_DSN")
TODAY = date(2026, 5, 1)
MULTI = "Put Rui on the Porto trip, 2 to 6 July. And what's the bag allowance on the TP manifest?"


async def test_a_refused_message_is_not_recovered_by_guessing() -> None:
    with pytest.raises(Exception, match="cannot be read"):
        await ReaderUnderstanding(lambda text: "not in the tour").understand(
            type("B", (), {"text": "x"})()  # type: ignore[arg-type]
        )
    assert not can_take_over(InMemoryStore())


@pytest.mark.skipif(
    not DSN,
    reason="set TURNFRAME_TEST_POSTGRES_DSN=postgresql://USER@127.0.0.1:5432/DB to run the "
    "serving recovery test on PostgreSQL",
)
@pytest.mark.parametrize("boundary", ["commit", "save_reply"])
async def test_a_crashed_workers_turn_is_finished_and_served(boundary: str) -> None:
    from turnframe.samples.travel import DEMO_RECORDS, seed_all
    from turnframe.testing.postgres import open_temporary_store

    app = load_application("travel")
    reader = tour_reader(app)
    store = await open_temporary_store(DSN, prefix="tf_serve_rec")
    try:
        assert can_take_over(store)
        runtime = Runtime(app, store, clock=FixedClock(TODAY))
        for _key, case, state in seed_all(DEMO_RECORDS):
            await runtime.seed("acme", case.workflow, state, case_id=case.case_id)
        plan = FaultPlan().arm(boundary)
        crashed = Runtime(app, FaultInjectingStore(store, plan), clock=FixedClock(TODAY))
        understander, _ = reader(MULTI)  # type: ignore[misc]
        with pytest.raises(TurnInterrupted):
            await crashed.run_turn(
                DEVELOPMENT_ACTOR,
                "c1",
                TurnInput(text=MULTI),
                turn_id="turn-crashed",
                understander=understander,
            )
        config = ServeConfig(recover_every_seconds=0.05, recover_idle_seconds=0)
        served = create_app(app, store, reader=reader, clock=FixedClock(TODAY), config=config)
        async with served.router.lifespan_context(served):
            transport = httpx.ASGITransport(app=served)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                with anyio.fail_after(10):
                    while True:
                        view = await client.get("/v1/turns/turn-crashed")
                        if view.status_code == 200:
                            break
                        assert view.json()["code"] == "turn_in_progress", view.text
                        await anyio.sleep(0.05)
                kinds = [b["kind"] for b in view.json()["blocks"]]
                assert kinds.count("receipt") == 2
                events: Any = await store.case_events(CaseRef("trip", "T3"))
                mine = [e for e in events if e.turn_id == "turn-crashed"]
                assert len(mine) == 2  # committed once, whatever the crash
    finally:
        await store.close()


@pytest.mark.parametrize("boundary", ["commit", "save_reply"])
async def test_a_one_process_server_finishes_what_its_last_run_left(
    tmp_path: Any, boundary: str
) -> None:
    """SQLite: a turn interrupted before a restart is resumed at start-up, once."""
    from turnframe.samples.travel import DEMO_RECORDS, seed_all
    from turnframe.store.sqlite import SqliteStore

    app = load_application("travel")
    reader = tour_reader(app)
    store = await SqliteStore.open(tmp_path / "r.db")
    try:
        runtime = Runtime(app, store, clock=FixedClock(TODAY))
        for _key, case, state in seed_all(DEMO_RECORDS):
            await runtime.seed("acme", case.workflow, state, case_id=case.case_id)
        crashed = Runtime(
            app, FaultInjectingStore(store, FaultPlan().arm(boundary)), clock=FixedClock(TODAY)
        )
        understander, _ = reader(MULTI)  # type: ignore[misc]
        with pytest.raises(TurnInterrupted):
            await crashed.run_turn(
                DEVELOPMENT_ACTOR, "c1", TurnInput(text=MULTI), turn_id="turn-left",
                understander=understander,
            )  # fmt: skip
        served = create_app(app, store, reader=reader, clock=FixedClock(TODAY))
        async with served.router.lifespan_context(served):
            transport = httpx.ASGITransport(app=served)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                with anyio.fail_after(10):
                    while (view := await client.get("/v1/turns/turn-left")).status_code != 200:
                        assert view.json()["code"] == "turn_in_progress", view.text
                        await anyio.sleep(0.02)
                assert [b["kind"] for b in view.json()["blocks"]].count("receipt") == 2
        events = await store.case_events(CaseRef("trip", "T3"))
        assert len([e for e in events if e.turn_id == "turn-left"]) == 2
        assert await store.unfinished_turns() == []
    finally:
        await store.close()
