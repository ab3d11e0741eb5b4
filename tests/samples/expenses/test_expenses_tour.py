"""The expenses tour: played by ``turnframe demo --app expenses``, as a scenario, and on the web.

The tour (``turnframe/samples/expenses/tour.yaml``, ``Application.tour``) opens a report,
adds a line on a confirmation card, has a line in another currency refused, asks about
an ambiguous report on a selection card, submits for review and has the submitter's own
approval refused and a manager's committed. On the web (docs/serving.md "Tours") every
text turn of it is a suggestion the tour reader understands; the development actor is
not a manager, so there the review ends in the refusal.
"""

from __future__ import annotations

import io
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import yaml

from turnframe.cli.demo import run_demo
from turnframe.core.ids import CaseRef
from turnframe.runtime.loading import load_application
from turnframe.samples.expenses import TOUR, expenses_application
from turnframe.testing import run_scenario_file

SPEC = "turnframe.samples.expenses:expenses_application"
URL = "/v1/conversations/tour/turns"


def test_the_application_names_its_tour_and_the_file_ships_with_the_package() -> None:
    assert expenses_application().tour == str(TOUR)
    assert TOUR.is_file() and TOUR.parent.name == "expenses"
    pyproject = (Path(__file__).parents[3] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"turnframe.samples.expenses" = ["tour.yaml"]' in pyproject


def test_every_text_turn_has_a_scripted_understanding() -> None:
    turns = yaml.safe_load(TOUR.read_text(encoding="utf-8"))["turns"]
    texts = [t for t in turns if "text" in t]
    assert len(texts) >= 5
    assert all(isinstance(t.get("understanding"), dict) for t in texts)


def test_the_tour_passes_as_a_scenario(store_kind: str) -> None:
    outcome = run_scenario_file(TOUR, store=store_kind, app=SPEC)
    assert outcome.passed, "\n".join(f.line() for f in outcome.failures)


def test_demo_plays_the_tour(tmp_path: Path) -> None:
    out = io.StringIO()
    db = tmp_path / "tour.db"
    assert run_demo(db=str(db), locale=None, out=out, app="expenses") == 0
    text = out.getvalue()
    assert "the expenses application's tour" in text
    assert "Opened expense report Boston fair in USD." in text
    assert "[card confirm" in text and "[card select_target" in text and "[card review" in text
    assert "→ rejected:other_currency" in text
    assert "click: → rejected:not_authorized" in text
    assert "Expense report Boston fair was approved by m1: USD 35.00." in text
    assert db.exists()


def test_demo_plays_the_tour_in_portuguese(tmp_path: Path) -> None:
    out = io.StringIO()
    assert run_demo(db=str(tmp_path / "pt.db"), locale="pt-PT", out=out, app="expenses") == 0
    text = out.getvalue()
    assert "Aberto o relatório de despesas Boston fair em USD." in text
    assert "O relatório de despesas Boston fair foi aprovado por m1: 35,00 USD." in text
    assert "Please confirm" not in text and "Added line" not in text


def _card(view: dict[str, Any]) -> dict[str, Any]:
    return next(b for b in view["blocks"] if b["kind"] == "interaction")


def _kinds(view: dict[str, Any]) -> list[str]:
    return [b["kind"] for b in view["blocks"]]


def _click(card: dict[str, Any], option: str) -> dict[str, Any]:
    return {
        "click": {
            "interaction_id": card["interaction_id"],
            "option_id": option,
            "expected_revision": card["expected_revision"],
        }
    }


async def _web_tour(tmp_path: Path) -> None:
    from turnframe.cli.chat_seed import seed_chat
    from turnframe.runtime import FixedClock, Runtime
    from turnframe.serve.app import create_app
    from turnframe.serve.auth import DevelopmentAuthenticator
    from turnframe.serve.tour import tour_reader
    from turnframe.store.sqlite import SqliteStore

    app = load_application("expenses")
    reader = tour_reader(app)
    assert reader.refs == {
        "R1": CaseRef("expense_report", "r1"),
        "R2": CaseRef("expense_report", "r2"),
    }
    store = await SqliteStore.open(tmp_path / "web.db")
    actor = DevelopmentAuthenticator().actor
    line = await seed_chat(app, Runtime(app, store), store, actor, seed=True)
    assert "seeded 2" in line
    served = create_app(
        app, store, reader=reader, clock=FixedClock(date(2026, 5, 1)), suggestions=reader.says
    )
    try:
        async with served.router.lifespan_context(served):
            transport = httpx.ASGITransport(app=served)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                session = (await client.get("/v1/session")).json()
                says = session["suggestions"]
                assert says == list(reader.says) and len(says) == 5
                client.headers["X-CSRF-Token"] = session["csrf_token"]

                async def post(body: dict[str, Any]) -> dict[str, Any]:
                    response = await client.post(URL, json=body)
                    assert response.status_code == 201, response.text
                    return dict(response.json())

                assert _kinds(await post({"text": says[0]})) == ["receipt"]
                confirm = _card(await post({"text": says[1]}))
                assert confirm["interaction_kind"] == "confirm"
                assert _kinds(await post(_click(confirm, "confirm"))) == ["receipt"]
                refused = await post({"text": says[2]})
                assert _kinds(refused) == ["notice"] and "USD" in str(refused["blocks"])
                which = _card(await post({"text": says[3]}))
                assert which["interaction_kind"] == "select_target"
                second = next(o for o in which["options"] if "45.50" in o["label"])
                parking = _card(await post(_click(which, second["id"])))
                assert parking["interaction_kind"] == "confirm"
                assert _kinds(await post(_click(parking, "confirm"))) == ["receipt"]
                submit = _card(await post({"text": says[4]}))
                review = _card(await post(_click(submit, "confirm")))
                assert review["interaction_kind"] == "review"
                own = await post(_click(review, "approve"))
                assert _kinds(own) == ["notice"] and "manager" in str(own["blocks"])
                left = (await client.get("/v1/conversations/tour/cards")).json()
                assert review["interaction_id"] in str(left)
    finally:
        await store.close()


def test_the_tour_is_served_on_the_web(tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    anyio.run(_web_tour, tmp_path)
