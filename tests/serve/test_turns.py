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
        assert set(events[:-2]) <= {"phase", "step"} and "phase" in events
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
