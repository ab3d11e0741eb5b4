"""The travel tour on the web: every step by HTTP, clicking cards (docs/serving.md "Tours")."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from turnframe.core.ids import CaseRef
from turnframe.runtime.loading import load_application
from turnframe.samples.travel import DEMO_RECORDS
from turnframe.serve.tour import TRAVEL_TOUR, tour_reader
from turnframe.testing.scenario import run_scenario_file

pytestmark = pytest.mark.anyio

URL = "/v1/conversations/tour/turns"


def _card(view: dict[str, Any]) -> dict[str, Any]:
    return next(b for b in view["blocks"] if b["kind"] == "interaction")


def _click(card: dict[str, Any], option: str) -> dict[str, Any]:
    return {
        "click": {
            "interaction_id": card["interaction_id"],
            "option_id": option,
            "expected_revision": card["expected_revision"],
        }
    }


async def _say(client: httpx.AsyncClient, text: str) -> dict[str, Any]:
    response = await client.post(URL, json={"text": text})
    assert response.status_code == 201, response.text
    return dict(response.json())


def _normal(value: Any) -> Any:
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value


def test_the_tour_file_seeds_the_demo_records_and_passes_as_a_scenario() -> None:
    import yaml

    data = yaml.safe_load(TRAVEL_TOUR.read_text())
    assert _normal(data["records"]) == DEMO_RECORDS
    outcome = run_scenario_file(TRAVEL_TOUR)
    assert outcome.passed, outcome


def test_the_reader_matches_messages_loosely_and_refuses_others() -> None:
    reader = tour_reader(load_application("travel"))
    assert len(reader.says) == 6
    assert not isinstance(reader("  SEND the   manifest. "), str)
    refusal = reader("Cancel everything")
    assert isinstance(refusal, str) and "Send the manifest." in refusal
    assert reader.refs["T2"] == CaseRef("trip", "T2")


async def test_the_whole_tour_by_clicking(tmp_path: Path, serve: Any) -> None:
    async with serve(tmp_path) as client:
        session = (await client.get("/v1/session")).json()
        says = session["suggestions"]
        client.headers["X-CSRF-Token"] = session["csrf_token"]  # the cookie is sent now
        assert len(says) == 6
        store = client.app.state.turnframe.service.runtime.store  # type: ignore[attr-defined]

        first = await _say(client, says[0])
        kinds = [b["kind"] for b in first["blocks"]]
        assert kinds.count("receipt") == 2 and "answer" in kinds
        inspected = (await client.get(first["inspect"])).json()
        spans = {(e["argument"], e["text"]) for e in inspected["message"]["evidence"]}
        assert {("traveler", "Rui"), ("start", "2 to 6 July")} <= spans  # the tour's evidence

        ask = await _say(client, says[1])
        card = _card(ask)
        assert card["interaction_kind"] == "select_target" and len(card["options"]) == 2
        june = next(o for o in card["options"] if "June" in o["label"])
        picked = (await client.post(URL, json=_click(card, june["id"]))).json()
        assert [b["kind"] for b in picked["blocks"]].count("receipt") == 1

        book = await _say(client, says[2])
        confirm = _card(book)
        assert confirm["interaction_kind"] == "confirm"
        before = len(await store.case_events(CaseRef("trip", "T2")))
        clicks: list[dict[str, Any]] = []

        async def click() -> None:  # two tabs: two requests, two keys
            clicks.append((await client.post(URL, json=_click(confirm, "confirm"))).json())

        async with anyio.create_task_group() as group:
            group.start_soon(click)
            group.start_soon(click)
        receipts = [b for c in clicks for b in c["blocks"] if b["kind"] == "receipt"]
        assert len(await store.case_events(CaseRef("trip", "T2"))) == before + 1
        assert len({r["receipt"]["event_ids"][0] for r in receipts}) == 1

        corrected = await _say(client, says[3])
        assert not [b for b in corrected["blocks"] if b["kind"] == "receipt"]

        await _say(client, says[4])
        blocked = await _say(client, says[5])
        assert not [b for b in blocked["blocks"] if b["kind"] == "receipt"]
        assert any(b["kind"] == "notice" for b in blocked["blocks"])

        reload = (await client.get("/v1/conversations/tour")).json()
        assert len(reload["turns"]) == 9
        assert reload["turns"][0]["blocks"] == first["blocks"]
        assert reload["turns"][-1]["blocks"] == blocked["blocks"]
        stale = await client.post(URL, json=_click(card, june["id"]))
        assert stale.status_code == 201
        assert not [b for b in stale.json()["blocks"] if b["kind"] == "receipt"]


async def test_any_app_with_a_tour_is_served_with_it(tmp_path: Path) -> None:
    """``--model tour`` for another application: its tour file's messages, its records."""
    import dataclasses

    import httpx

    from turnframe.cli.chat_seed import seed_chat
    from turnframe.runtime import FixedClock, Runtime
    from turnframe.serve.app import create_app
    from turnframe.serve.auth import DevelopmentAuthenticator
    from turnframe.store.sqlite import SqliteStore

    tour = tmp_path / "tour.yaml"
    tour.write_text(
        "name: expenses tour\nsample: expenses\ntoday: 2026-05-01\n"
        "actor: {account: acme, user: maria, roles: [employee]}\n"
        "records:\n  - {key: R1, workflow: expense_report, title: Lisbon offsite,"
        " submitter: maria, lines: []}\n"
        "turns:\n  - text: Add the taxi, 23.40 euros, to my Lisbon offsite report.\n"
        "    understanding:\n      acts:\n        - {id: a1, operation:"
        " expense_report.add_line, target: {handles: [R1]}, args: {description: Taxi,"
        ' amount: "€23.40"}}\n'
    )
    app = dataclasses.replace(load_application("expenses"), tour=str(tour))
    reader = tour_reader(app)
    assert reader.refs == {"R1": CaseRef("expense_report", "r1")}
    store = await SqliteStore.open(tmp_path / "e.db")
    actor = DevelopmentAuthenticator().actor
    await seed_chat(app, Runtime(app, store), store, actor, seed=True)
    served = create_app(
        app, store, reader=reader, clock=FixedClock(date(2026, 5, 1)), suggestions=reader.says
    )
    try:
        async with served.router.lifespan_context(served):
            transport = httpx.ASGITransport(app=served)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                session = (await client.get("/v1/session")).json()
                assert session["suggestions"] == [reader.says[0]]
                client.headers["X-CSRF-Token"] = session["csrf_token"]
                view = (await client.post(URL, json={"text": reader.says[0]})).json()
                card = _card(view)
                assert card["interaction_kind"] == "confirm"
                done = (await client.post(URL, json=_click(card, "confirm"))).json()
                assert [b["kind"] for b in done["blocks"]].count("receipt") == 1
    finally:
        await store.close()


async def test_a_card_whose_record_moved_is_shown_stale_before_a_click(
    tmp_path: Path, serve: Any
) -> None:
    async with serve(tmp_path) as client:
        says = (await client.get("/v1/session")).json()["suggestions"]
        client.cookies.clear()  # a non-browser client (no CSRF token needed)
        hotel = _card(await _say(client, says[2]))  # a confirm card on the June trip
        cards = (await client.get("/v1/conversations/tour/cards")).json()["cards"]
        assert [c["status"] for c in cards] == ["open"]
        pick = _card(await _say(client, says[1]))
        june = next(o for o in pick["options"] if "June" in o["label"])
        await client.post(URL, json=_click(pick, june["id"]))  # the June trip moves
        cards = (await client.get("/v1/conversations/tour/cards")).json()["cards"]
        assert [(c["interaction_id"], c["status"]) for c in cards] == [
            (hotel["interaction_id"], "stale")
        ]
        one = await client.get(
            f"/v1/cards/{hotel['interaction_id']}", params={"conversation_id": "tour"}
        )
        assert one.json()["status"] == "stale"
        clicked = (await client.post(URL, json=_click(hotel, "confirm"))).json()
        assert any(b.get("code") == "stale" for b in clicked["blocks"] if b["kind"] == "notice")
