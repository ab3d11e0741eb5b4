"""Turns over HTTP: JSON and SSE, reload, cards (docs/serving.md "Routes")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.anyio

MULTI = "Put Rui on the Porto trip, 2 to 6 July. And what's the bag allowance on the TP manifest?"


async def post_turn(
    client: httpx.AsyncClient, body: dict[str, Any], **headers: str
) -> httpx.Response:
    return await client.post("/v1/conversations/c1/turns", json=body, headers=headers)


async def test_a_text_turn_returns_its_blocks_and_reloads_identically(
    tmp_path: Path, serve: Any, sse: Any
) -> None:
    async with serve(tmp_path) as client:
        response = await post_turn(client, {"text": MULTI})
        assert response.status_code == 201, response.text
        view = response.json()
        kinds = [b["kind"] for b in view["blocks"]]
        assert kinds.count("receipt") == 2 and "answer" in kinds
        assert view["inspect"] == f"/v1/turns/{view['turn_id']}/inspection"
        again = await client.get(f"/v1/turns/{view['turn_id']}")
        assert again.json()["blocks"] == view["blocks"]
        reload = await client.get("/v1/conversations/c1")
        assert reload.json()["turns"] == [{"turn_id": view["turn_id"], "blocks": view["blocks"]}]


async def test_the_stream_orders_phases_steps_then_blocks_then_finished(
    tmp_path: Path, serve: Any, sse: Any
) -> None:
    async with serve(tmp_path) as client:
        response = await post_turn(
            client, {"text": "Add a seat to the Lisbon trip."}, Accept="text/event-stream"
        )
        assert response.status_code == 200
        frames = sse(response.text)
        events = [f["event"] for f in frames]
        assert events[-2:] == ["blocks", "finished"]
        assert set(events[:-2]) == {"phase", "step"}
        step = next(f["data"] for f in frames if f["event"] == "step")
        assert step["name"] == "scripted" and step["text"] == "Reading your message."
        assert events.index("step") < events.index("blocks")
        assert [int(f["id"]) for f in frames] == list(range(1, len(frames) + 1))
        card = next(b for b in frames[-2]["data"]["blocks"] if b["kind"] == "interaction")
        turn_id = frames[-1]["data"]["turn_id"]
        # a reconnect after event 2 gets the rest, identically
        rest = await client.get(f"/v1/turns/{turn_id}/events", headers={"Last-Event-ID": "2"})
        assert sse(rest.text) == frames[2:]
        cards = (await client.get("/v1/conversations/c1/cards")).json()["cards"]
        assert [c["interaction_id"] for c in cards] == [card["interaction_id"]]
        one = await client.get(
            f"/v1/cards/{card['interaction_id']}", params={"conversation_id": "c1"}
        )
        assert one.json()["status"] == "open"
        june = card["options"][1]["id"]
        click = {
            "click": {
                "interaction_id": card["interaction_id"],
                "option_id": june,
                "expected_revision": card["expected_revision"],
            }
        }
        clicked = await post_turn(client, click)
        assert clicked.status_code == 201, clicked.text
        assert any(b["kind"] == "receipt" for b in clicked.json()["blocks"])
        assert clicked.json()["model_calls"] == 0
        assert (await client.get("/v1/conversations/c1/cards")).json()["cards"] == []


async def test_a_turn_this_process_does_not_hold_is_served_from_the_store(
    tmp_path: Path, serve: Any, sse: Any
) -> None:
    from turnframe.serve.state import ServeConfig
    from turnframe.store.base import TurnRecord

    async with serve(tmp_path, config=ServeConfig(turn_wait_seconds=0.2)) as client:
        view = (await post_turn(client, {"text": MULTI})).json()
        service = client.app.state.turnframe.service  # type: ignore[attr-defined]
        service._turns.clear()  # as after a restart, or in another worker
        frames = sse((await client.get(f"/v1/turns/{view['turn_id']}/events")).text)
        assert [f["event"] for f in frames] == ["blocks", "finished"]
        assert frames[0]["data"]["blocks"] == view["blocks"]
        assert frames[1]["data"]["blocks"] == view["blocks"]
        # a turn another worker has begun and not replied: waited for, then turn_in_progress
        await service.runtime.store.begin_turn(
            TurnRecord(turn_id="turn-elsewhere", account="acme", conversation_id="c1")
        )
        import anyio

        streams: list[httpx.Response] = []

        async def stream() -> None:
            streams.append(await client.get("/v1/turns/turn-elsewhere/events"))

        async with anyio.create_task_group() as group:
            for _ in range(3):
                group.start_soon(stream)
            await anyio.sleep(0.05)
            assert len(service._following) == 1  # three clients, one poll of the store
        assert len({s.text for s in streams}) == 1
        frames = sse(streams[0].text)
        assert [f["event"] for f in frames] == ["error"]
        assert service._following == {}
        assert frames[0]["data"]["code"] == "turn_in_progress"
        stored = await client.get("/v1/turns/turn-elsewhere")
        assert stored.status_code == 409 and stored.json()["code"] == "turn_in_progress"


async def test_healthz_and_pages(tmp_path: Path, serve: Any) -> None:
    from turnframe.serve.routes import STATIC_DIR

    async with serve(tmp_path) as client:
        assert (await client.get("/healthz")).json() == {"status": "ok"}
        absent = await client.get("/v1/turns/turn-none")
        for path, name in (("/", "chat.html"), ("/turns/turn-1", "inspector.html")):
            page = await client.get(path)
            if (STATIC_DIR / name).is_file():  # package data of the web and inspect slices
                assert page.status_code == 200
                assert page.headers["content-type"].startswith("text/html")
                assert page.text == (STATIC_DIR / name).read_text()
            else:
                assert page.status_code == 404 and page.content == absent.content
