"""Idempotency-Key: a retried request is the same turn, never a second (docs/serving.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from turnframe.core.ids import Actor
from turnframe.serve.service import turn_id_for_key

pytestmark = pytest.mark.anyio

BOOK = "Book Hotel Avenida for 3 nights in June."


async def _turn(client: httpx.AsyncClient, body: dict[str, Any], key: str | None) -> httpx.Response:
    headers = {} if key is None else {"Idempotency-Key": key}
    return await client.post("/v1/conversations/c1/turns", json=body, headers=headers)


async def _events(client: httpx.AsyncClient) -> int:
    """Return how many domain events the store holds for the seeded Lisbon June trip."""
    store = client.app.state.turnframe.service.runtime.store  # type: ignore[attr-defined]
    from turnframe.core.ids import CaseRef

    return len(await store.case_events(CaseRef("trip", "T2")))


async def _confirm_card(client: httpx.AsyncClient) -> dict[str, Any]:
    view = (await _turn(client, {"text": BOOK}, None)).json()
    card = next(b for b in view["blocks"] if b["kind"] == "interaction")
    return {
        "click": {
            "interaction_id": card["interaction_id"],
            "option_id": "confirm",
            "expected_revision": card["expected_revision"],
        }
    }


async def test_the_same_key_and_body_return_the_same_turn(tmp_path: Path, serve: Any) -> None:
    async with serve(tmp_path) as client:
        click = await _confirm_card(client)
        before = await _events(client)
        first = await _turn(client, click, "k-1")
        again = await _turn(client, click, "k-1")
        assert (first.status_code, again.status_code) == (201, 200)
        assert first.json() == again.json()
        assert await _events(client) == before + 1
        turns = (await client.get("/v1/conversations/c1")).json()["turns"]
        assert [t["turn_id"] for t in turns].count(first.json()["turn_id"]) == 1


async def test_concurrent_retries_attach_to_one_running_turn(tmp_path: Path, serve: Any) -> None:
    async with serve(tmp_path) as client:
        click = await _confirm_card(client)
        before = await _events(client)
        answers: list[httpx.Response] = []

        async def send() -> None:
            answers.append(await _turn(client, click, "k-same"))

        async with anyio.create_task_group() as group:
            for _ in range(5):
                group.start_soon(send)
        assert len({r.json()["turn_id"] for r in answers}) == 1
        assert sorted(r.status_code for r in answers) == [200, 200, 200, 200, 201]
        assert await _events(client) == before + 1


async def test_the_same_key_with_another_body_is_409(tmp_path: Path, serve: Any) -> None:
    async with serve(tmp_path) as client:
        first = await _turn(client, {"text": "Send the manifest."}, "k-2")
        assert first.status_code == 201
        other = await _turn(client, {"text": "Add a seat to the Lisbon trip."}, "k-2")
        assert other.status_code == 409
        assert other.headers["content-type"] == "application/problem+json"
        assert other.json()["code"] == "idempotency_key_reused"


async def test_a_key_from_another_process_is_answered_from_the_store(
    tmp_path: Path, serve: Any
) -> None:
    """The turn a key names was run by another worker: the stored reply, nothing again."""
    async with serve(tmp_path) as client:
        click = await _confirm_card(client)
        before = await _events(client)
        first = await _turn(client, click, "k-3")
        service = client.app.state.turnframe.service  # type: ignore[attr-defined]
        service._turns.clear()  # this process forgets it, as another worker never knew it
        again = await _turn(client, click, "k-3")
        assert again.status_code == 200, again.text
        assert again.json()["blocks"] == first.json()["blocks"]
        assert await _events(client) == before + 1
        other = await _turn(client, {"text": "Send the manifest."}, "k-3")
        assert other.json()["code"] == "idempotency_key_reused"


def test_a_key_names_one_turn_per_actor() -> None:
    maria = Actor(account="acme", user="maria")
    assert turn_id_for_key(maria, "k") == turn_id_for_key(maria, "k")
    assert turn_id_for_key(maria, "k") != turn_id_for_key(Actor(account="acme", user="rui"), "k")
    assert turn_id_for_key(maria, "k") != turn_id_for_key(Actor(account="beta", user="maria"), "k")
    assert turn_id_for_key(maria, "k") != turn_id_for_key(maria, "k2")


async def test_an_invalid_key_is_422(tmp_path: Path, serve: Any) -> None:
    async with serve(tmp_path) as client:
        bad = await _turn(client, {"text": "Send the manifest."}, "x" * 201)
        assert bad.status_code == 422 and bad.json()["code"] == "invalid_request"
