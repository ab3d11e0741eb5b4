"""An AG-UI client runs the travel tour against the real app (``create_app``, SQLite).

Every event is parsed back with the SDK's own models (:mod:`test_agui_client`); what
the runs claim is checked against the store: a receipt's events are committed, a
retried run commits nothing more, a foreign card and a typed label commit nothing.
"""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    CustomEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageStartEvent,
)
from starlette.requests import Request
from test_agui_client import Conversation, Reply, body, parse_stream, read_reply

from turnframe.cli.chat import _reader as chat_reader
from turnframe.core.ids import Actor
from turnframe.runtime import FixedClock, Runtime
from turnframe.runtime.loading import load_application
from turnframe.serve import app as app_module
from turnframe.serve.agui import agui_endpoint
from turnframe.serve.app import RouteSpec, create_app
from turnframe.serve.state import ServeConfig
from turnframe.serve.tour import tour_reader
from turnframe.store.base import TurnStore
from turnframe.store.sqlite import SqliteStore

pytestmark = pytest.mark.anyio

TODAY = date(2026, 5, 1)
SEAT = "Add a seat to the Lisbon trip."


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _by_header(request: Request) -> Actor:
    """Two accounts: ``X-Account`` (default acme, whose records the tour seeds)."""
    account = request.headers.get("x-account", "acme")
    return Actor(account=account, user="maria", roles=frozenset({"customer"}))


def _agui_route() -> tuple[RouteSpec, ...]:
    if any(spec.path == "/v1/agui" for spec in app_module.ROUTES):
        return ()
    return (
        RouteSpec(
            method="POST", path="/v1/agui", endpoint=agui_endpoint, response="stream",
            summary="An AG-UI run: one turn, streamed as AG-UI events",
        ),
    )  # fmt: skip


@asynccontextmanager
async def served(
    tmp_path: Path, reader: Any = None
) -> AsyncIterator[tuple[httpx.AsyncClient, TurnStore]]:
    from turnframe.samples.travel import DEMO_RECORDS, seed_all

    application = load_application("travel")
    store = await SqliteStore.open(tmp_path / "agui.db")
    seeder = Runtime(application, store)
    for _key, case, state in seed_all(DEMO_RECORDS):
        await seeder.seed("acme", case.workflow, state, case_id=case.case_id)
    app = create_app(
        application,
        store,
        reader=reader or tour_reader(application),
        authenticate=_by_header,
        clock=FixedClock(TODAY),
        config=ServeConfig(),
        extra_routes=_agui_route(),
    )
    try:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://127.0.0.1"
            ) as client:
                yield client, store
    finally:
        await store.close()


async def run(
    client: httpx.AsyncClient, agui_run: RunAgentInput, **headers: str
) -> tuple[str, Reply]:
    response = await client.post(
        "/v1/agui",
        content=body(agui_run),
        headers={"content-type": "application/json", "accept": "text/event-stream"} | headers,
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return response.text, read_reply(parse_stream(response.text))


async def event_count(store: TurnStore) -> int:
    return sum([len(await store.case_events(row.case)) for row in await store.list_cases("acme")])


async def test_a_text_run_draws_a_card_and_a_click_run_commits_it(tmp_path: Path) -> None:
    async with served(tmp_path) as (client, store):
        before = await event_count(store)
        conv = Conversation(thread_id="agui-1")
        _, first = await run(client, conv.say(SEAT))
        assert isinstance(first.events[0], RunStartedEvent)
        (card,) = first.cards
        assert card.arguments["kind"] == "select_target" and len(card.arguments["options"]) == 2
        assert isinstance(first.last, RunFinishedEvent) and first.last.outcome is not None
        assert first.last.outcome.pending_tool_call_ids == [card.call_id]
        cards = (await client.get("/v1/conversations/agui-1/cards")).json()["cards"]
        assert [c["interaction_id"] for c in cards] == [card.arguments["interaction_id"]]
        assert await event_count(store) == before

        conv.heard(first)
        june = card.arguments["options"][1]["label"]
        clicked = conv.click(card, june)
        once, second = await run(client, clicked)
        receipts = [b for b in second.blocks.values() if b["kind"] == "receipt"]
        assert len(receipts) == 1
        event_ids = receipts[0]["receipt"]["event_ids"]
        assert event_ids and len(await store.events_by_id(event_ids)) == len(event_ids)
        assert any(second.texts[m] for m, b in second.blocks.items() if b["kind"] == "receipt")
        after = await event_count(store)
        assert after > before
        assert isinstance(second.last, RunFinishedEvent)
        assert second.last.result["model_calls"] == 0  # a click needs no model
        assert (await client.get("/v1/conversations/agui-1/cards")).json()["cards"] == []

        again, _ = await run(client, clicked)  # a retried run: the same turn
        assert again == once
        assert await event_count(store) == after

        conv.heard(second)  # clicking the answered card again, in a new run
        _, twice = await run(client, conv.click(card, june))
        assert isinstance(twice.last, RunFinishedEvent)
        assert twice.last.result["turn_id"] != second.last.result["turn_id"]
        assert [b["kind"] for b in twice.blocks.values()] == ["notice"]
        assert await event_count(store) == after  # exactly one effect

        reload = (await client.get("/v1/conversations/agui-1")).json()["turns"]
        assert [t["blocks"] for t in reload][-2:] == [
            second.last.result["blocks"],
            twice.last.result["blocks"],
        ]


async def test_a_foreign_or_unknown_card_is_run_error_not_found_and_nothing_commits(
    tmp_path: Path,
) -> None:
    async with served(tmp_path) as (client, store):
        conv = Conversation(thread_id="agui-2")
        _, first = await run(client, conv.say(SEAT))
        conv.heard(first)
        before = await event_count(store)
        label = first.cards[0].arguments["options"][0]["label"]
        foreign, reply = await run(
            client, conv.click(first.cards[0], label), **{"x-account": "other"}
        )
        assert [type(e) for e in reply.events] == [RunStartedEvent, RunErrorEvent]
        assert isinstance(reply.last, RunErrorEvent) and reply.last.code == "not_found"
        unknown, _ = await run(
            client, conv.click(first.cards[0], label, interaction_id="no-such-card")
        )
        assert foreign.split("\n\n")[1] == unknown.split("\n\n")[1]  # byte for byte
        assert await event_count(store) == before
        cards = (await client.get("/v1/conversations/agui-2/cards")).json()["cards"]
        assert len(cards) == 1  # still open
        # the refused answers stay in the client's history; the next run reads only its own
        _, after = await run(client, conv.click(first.cards[0], label))
        assert [b["kind"] for b in after.blocks.values()][0] == "receipt"


async def test_typing_an_options_label_is_not_a_click(tmp_path: Path) -> None:
    async with served(tmp_path) as (client, store):
        conv = Conversation(thread_id="agui-3")
        _, first = await run(client, conv.say(SEAT))
        conv.heard(first)
        before = await event_count(store)
        label = first.cards[0].arguments["options"][1]["label"]
        _, typed = await run(client, conv.say(label))
        assert isinstance(typed.last, RunFinishedEvent | RunErrorEvent)
        assert not [b for b in typed.blocks.values() if b["kind"] == "receipt"]
        assert await event_count(store) == before
        cards = (await client.get("/v1/conversations/agui-3/cards")).json()["cards"]
        assert [c["interaction_id"] for c in cards] == [first.cards[0].arguments["interaction_id"]]


async def test_a_browser_run_needs_the_csrf_token_and_a_bad_body_is_422(tmp_path: Path) -> None:
    async with served(tmp_path) as (client, _store):
        response = await client.post(
            "/v1/agui", content=b'{"threadId": 1}', headers={"content-type": "application/json"}
        )
        assert response.status_code == 422 and response.json()["code"] == "invalid_request"
        assert response.headers["content-type"] == "application/problem+json"
        agui_run = Conversation(thread_id="agui-4").say(SEAT)
        response = await client.post(
            "/v1/agui",
            content=body(agui_run),
            headers={"content-type": "application/json", "origin": "http://127.0.0.1"},
        )
        assert response.status_code == 403 and response.json()["code"] == "csrf_failed"
        token = (await client.get("/v1/session")).json()["csrf_token"]  # sets the cookie
        response = await client.post(
            "/v1/agui",
            content=body(agui_run),
            headers={
                "content-type": "application/json",
                "origin": "http://127.0.0.1",
                "x-csrf-token": token,
            },
        )
        assert response.status_code == 200 and read_reply(parse_stream(response.text)).cards


async def test_a_read_message_streams_its_steps_then_its_receipt(tmp_path: Path) -> None:
    """With a model-shaped reader (the scripted chat) each understanding step is a STEP pair."""
    reader, _ = chat_reader("scripted:example", "medium", io.StringIO())
    async with served(tmp_path, reader) as (client, store):
        before = await event_count(store)
        _, reply = await run(
            client, Conversation(thread_id="agui-5").say("Rename the Porto trip to Summer Offsite")
        )
        steps = [
            (e.type, e.step_name)
            for e in reply.events
            if isinstance(e, StepStartedEvent | StepFinishedEvent)
        ]
        assert steps and steps[0] == ("STEP_STARTED", "segment")
        assert [name for kind, name in steps[::2]] == [name for kind, name in steps[1::2]]
        assert {kind for kind, _ in steps[::2]} == {"STEP_STARTED"}
        assert {kind for kind, _ in steps[1::2]} == {"STEP_FINISHED"}
        phases = [e.value["phase"] for e in reply.events if isinstance(e, CustomEvent)]
        assert phases.index("committed") < phases.index("replied")
        first_text = next(
            i for i, e in enumerate(reply.events) if isinstance(e, TextMessageStartEvent)
        )
        last_step = max(i for i, e in enumerate(reply.events) if isinstance(e, StepFinishedEvent))
        assert last_step < first_text  # blocks only after commit
        (receipt,) = [b for b in reply.blocks.values() if b["kind"] == "receipt"]
        assert len(await store.events_by_id(receipt["receipt"]["event_ids"])) == 1
        assert await event_count(store) == before + 1
        assert isinstance(reply.last, RunFinishedEvent) and reply.last.result["model_calls"] > 0


async def test_forwarded_props_locale_is_the_replys_locale(tmp_path: Path) -> None:
    async with served(tmp_path) as (client, _store):
        conv = Conversation(thread_id="agui-6")
        _, first = await run(client, conv.say(SEAT))
        conv.heard(first)
        card = first.cards[0]
        clicked = conv.click(card, card.arguments["options"][0]["label"])
        pt = clicked.model_copy(update={"forwarded_props": {"locale": "pt-PT"}})
        _, reply = await run(client, pt)
        (receipt,) = [b for b in reply.blocks.values() if b["kind"] == "receipt"]
        assert receipt["receipt"]["locale"] == "pt-PT"
        unknown = conv.say("hello").model_copy(update={"forwarded_props": {"locale": "xx-XX"}})
        _, refused = await run(client, unknown)
        assert isinstance(refused.last, RunErrorEvent) and refused.last.code == "invalid_request"
