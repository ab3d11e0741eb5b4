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
        assert reload.json()["turns"] == [
            {
                "turn_id": view["turn_id"],
                "input": {"text": MULTI, "click": None},
                "blocks": view["blocks"],
            }
        ]


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
        # the reload carries what the user sent: the text, then the click and its label
        turns = (await client.get("/v1/conversations/c1")).json()["turns"]
        assert [t["input"] for t in turns] == [
            {"text": "Add a seat to the Lisbon trip.", "click": None},
            {
                "text": None,
                "click": {
                    "interaction_id": card["interaction_id"],
                    "option_id": june,
                    "label": card["options"][1]["label"],
                },
            },
        ]
        assert [t["turn_id"] for t in turns] == [turn_id, clicked.json()["turn_id"]]


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


async def test_the_reload_reads_each_turns_own_record_and_another_account_gets_404(
    tmp_path: Path, serve: Any
) -> None:
    from starlette.requests import Request

    from turnframe.core.acts import Understanding
    from turnframe.core.ids import Actor
    from turnframe.core.turn import TurnInput
    from turnframe.runtime.inspection import turn_alias as alias
    from turnframe.serve.reload import conversation_turns
    from turnframe.understand import ScriptedUnderstanding

    async def by_header(request: Request) -> Actor:
        account, _, user = request.headers["x-actor"].partition("/")
        return Actor(account=account, user=user, roles=frozenset({"customer"}))

    maria, eve = {"X-Actor": "acme/maria"}, {"X-Actor": "evil/eve"}
    async with serve(tmp_path, authenticate=by_header) as client:
        first = await client.post(
            "/v1/conversations/c1/turns",
            json={"text": "Add a seat to the Lisbon trip."},
            headers=maria,
        )
        card = next(b for b in first.json()["blocks"] if b["kind"] == "interaction")
        option = card["options"][0]
        click = {"interaction_id": card["interaction_id"], "option_id": option["id"]}
        clicked = await client.post(
            "/v1/conversations/c1/turns", json={"click": click}, headers=maria
        )
        assert clicked.status_code == 201, clicked.text
        theirs = await client.get("/v1/conversations/c1", headers=eve)
        absent = await client.get("/v1/conversations/nope", headers=eve)
        assert theirs.status_code == absent.status_code == 404
        assert theirs.content == absent.content
        # eve's turn under maria's turn id is stored under eve's alias; her reload reads it
        service = client.app.state.turnframe.service  # type: ignore[attr-defined]
        taken = first.json()["turn_id"]
        await service.runtime.run_turn(
            Actor(account="evil", user="eve", roles=frozenset({"customer"})),
            "c1",
            TurnInput(text="mine"),
            turn_id=taken,
            understander=ScriptedUnderstanding([Understanding()]),
        )
        mine = (await client.get("/v1/conversations/c1", headers=eve)).json()["turns"]
        assert [(t["turn_id"], t["input"]) for t in mine] == [
            (alias("evil", taken), {"text": "mine", "click": None})
        ]
        ours = (await client.get("/v1/conversations/c1", headers=maria)).json()["turns"]
        assert [t["input"]["text"] for t in ours] == ["Add a seat to the Lisbon trip.", None]
        # one turn record per turn; a click whose card no shown reply drew reads that card
        store = service.runtime.store
        reads: list[str] = []
        get_turn, get_card = store.get_turn, store.get_interaction

        async def counted_turn(account: str, turn_id: str) -> Any:
            reads.append("turn")
            return await get_turn(account, turn_id)

        async def counted_card(account: str, conversation_id: str, card_id: str) -> Any:
            reads.append("card")
            return await get_card(account, conversation_id, card_id)

        store.get_turn, store.get_interaction = counted_turn, counted_card
        replies = await store.conversation_replies("acme", "c1")
        full = await conversation_turns(store, "acme", "c1", replies)
        assert reads == ["turn", "turn"]
        alone = await conversation_turns(store, "acme", "c1", replies[1:])
        assert reads == ["turn", "turn", "turn", "card"]
        assert full[1].input == alone[0].input
        assert alone[0].input is not None and alone[0].input.click is not None
        assert alone[0].input.click.label == option["label"]
        assert await conversation_turns(store, "evil", "c1", replies[:1]) == [
            full[0].model_copy(update={"input": None})
        ]
