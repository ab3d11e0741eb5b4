"""Who may see what: another account's records are the same 404 as absent ones; auth; CSRF."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.requests import Request

from turnframe.core.errors import UsageError
from turnframe.core.ids import Actor
from turnframe.serve.auth import (
    DevelopmentAuthenticator,
    is_loopback,
    load_authenticator,
    not_authenticated,
)

pytestmark = pytest.mark.anyio

LISBON = "Add a seat to the Lisbon trip."


async def by_header(request: Request) -> Actor:
    """Test authenticator: ``X-Actor: account/user``; none → 401; ``blocked`` → 403."""
    raw = request.headers.get("x-actor")
    if raw is None:
        raise not_authenticated()
    if raw == "blocked":
        from turnframe.serve.auth import forbidden

        raise forbidden()
    account, _, user = raw.partition("/")
    return Actor(account=account, user=user, roles=frozenset({"customer"}))


MARIA = {"X-Actor": "acme/maria"}
EVE = {"X-Actor": "evil/eve"}


async def _card(client: httpx.AsyncClient) -> tuple[str, dict[str, Any]]:
    response = await client.post("/v1/conversations/c1/turns", json={"text": LISBON}, headers=MARIA)
    view = response.json()
    return view["turn_id"], next(b for b in view["blocks"] if b["kind"] == "interaction")


async def test_foreign_and_absent_are_the_same_404_byte_for_byte(
    tmp_path: Path, serve: Any
) -> None:
    async with serve(tmp_path, authenticate=by_header) as client:
        turn_id, card = await _card(client)
        pairs = [
            ("/v1/conversations/c1", "/v1/conversations/nope"),
            (f"/v1/turns/{turn_id}", "/v1/turns/turn-nope"),
            (f"/v1/turns/{turn_id}/events", "/v1/turns/turn-nope/events"),
            (f"/v1/turns/{turn_id}/inspection", "/v1/turns/turn-nope/inspection"),
            (
                f"/v1/cards/{card['interaction_id']}?conversation_id=c1",
                "/v1/cards/card-nope?conversation_id=c1",
            ),
        ]
        service = client.app.state.turnframe.service  # type: ignore[attr-defined]
        for forget in (False, True):  # the turn in this process's memory, then only stored
            if forget:
                service._turns.clear()
            for foreign, absent in pairs:
                theirs = await client.get(foreign, headers=EVE)
                nothing = await client.get(absent, headers=EVE)
                assert theirs.status_code == nothing.status_code == 404, foreign
                assert theirs.content == nothing.content
                assert theirs.headers == nothing.headers
        assert (await client.get("/v1/conversations/c1/cards", headers=EVE)).json() == {"cards": []}


async def test_a_click_on_a_foreign_card_is_404_and_runs_nothing(
    tmp_path: Path, serve: Any
) -> None:
    async with serve(tmp_path, authenticate=by_header) as client:
        _turn, card = await _card(client)
        click = {"interaction_id": card["interaction_id"], "option_id": card["options"][0]["id"]}
        store = client.app.state.turnframe.service.runtime.store  # type: ignore[attr-defined]
        theirs = await client.post("/v1/conversations/c1/turns", json={"click": click}, headers=EVE)
        absent = await client.post(
            "/v1/conversations/c1/turns",
            json={"click": {**click, "interaction_id": "card-none"}},
            headers=EVE,
        )
        assert theirs.status_code == absent.status_code == 404
        assert theirs.content == absent.content
        assert await store.conversation_replies("evil", "c1") == []
        # maria's card in another of her conversations is not found either
        elsewhere = await client.post(
            "/v1/conversations/c2/turns", json={"click": click}, headers=MARIA
        )
        assert elsewhere.content == absent.content
        still = await client.get("/v1/conversations/c1/cards", headers=MARIA)
        assert [c["status"] for c in still.json()["cards"]] == ["open"]


async def test_refusals_are_401_and_403_problems(tmp_path: Path, serve: Any) -> None:
    async with serve(tmp_path, authenticate=by_header) as client:
        none = await client.get("/v1/session")
        assert none.status_code == 401 and none.json()["code"] == "not_authenticated"
        blocked = await client.post(
            "/v1/conversations/c1/turns", json={"text": LISBON}, headers={"X-Actor": "blocked"}
        )
        assert blocked.status_code == 403 and blocked.json()["code"] == "forbidden"


def test_the_development_authenticator_serves_loopback_only() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("::")
    DevelopmentAuthenticator("127.0.0.1")
    with pytest.raises(UsageError, match="loopback"):
        DevelopmentAuthenticator("0.0.0.0")


def test_auth_specs_load_a_callable_or_a_factory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_auth.py").write_text(
        "async def check(request):\n    return None\n\ndef make():\n    return check\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import my_auth  # type: ignore[import-not-found]

    assert load_authenticator("my_auth:check") is my_auth.check
    assert load_authenticator("my_auth:make") is my_auth.check
    made = load_authenticator("turnframe.serve.auth:DevelopmentAuthenticator")
    assert isinstance(made, DevelopmentAuthenticator)
    for bad in ("nocolon", "no.such.module:x", "turnframe.serve.auth:missing"):
        with pytest.raises(UsageError, match="--auth"):
            load_authenticator(bad)


async def test_csrf_is_required_from_a_browser(tmp_path: Path, serve: Any) -> None:
    async with serve(tmp_path) as client:
        session = await client.get("/v1/session")
        token = session.json()["csrf_token"]
        assert "samesite=strict" in session.headers["set-cookie"].lower()
        assert client.cookies.get("turnframe_csrf") == token
        body = {"text": LISBON}
        url = "/v1/conversations/c1/turns"
        browser = {"Origin": "http://127.0.0.1"}
        missing = await client.post(url, json=body, headers=browser)
        assert missing.status_code == 403 and missing.json()["code"] == "csrf_failed"
        wrong = await client.post(url, json=body, headers={**browser, "X-CSRF-Token": "a.b"})
        assert wrong.json()["code"] == "csrf_failed"
        ok = await client.post(url, json=body, headers={**browser, "X-CSRF-Token": token})
        assert ok.status_code == 201, ok.text
        # the session gives the same token again while the cookie is valid
        assert (await client.get("/v1/session")).json()["csrf_token"] == token
        # a token signed by another server (another secret) is refused
        client.cookies.set("turnframe_csrf", "n.0123456789abcdef0123456789abcdef")
        forged = await client.post(
            url,
            json=body,
            headers={**browser, "X-CSRF-Token": "n.0123456789abcdef0123456789abcdef"},
        )
        assert forged.json()["code"] == "csrf_failed"
        client.cookies.clear()
        # not from a browser (no Origin, Sec-Fetch-Site nor Cookie): no token needed
        plain = await client.post(url, json=body)
        assert plain.status_code == 201


async def test_csrf_tokens_pass_between_workers_sharing_the_secret(
    tmp_path: Path, serve: Any
) -> None:
    secret = b"s" * 32
    async with serve(tmp_path / "a", csrf_secret=secret) as one:
        token = (await one.get("/v1/session")).json()["csrf_token"]
    async with serve(tmp_path / "b", csrf_secret=secret) as two:
        two.cookies.set("turnframe_csrf", token)
        ok = await two.post(
            "/v1/conversations/c1/turns",
            json={"text": LISBON},
            headers={"X-CSRF-Token": token, "Origin": "http://127.0.0.1"},
        )
        assert ok.status_code == 201, ok.text


async def test_every_answer_refuses_framing_and_api_answers_are_not_cached(
    tmp_path: Path, serve: Any
) -> None:
    async with serve(tmp_path) as client:
        for path in ("/v1/session", "/healthz", "/", "/v1/turns/none", "/static/none.css"):
            response = await client.get(path)
            assert response.headers["x-frame-options"] == "DENY", path
            assert response.headers["x-content-type-options"] == "nosniff"
            policy = response.headers["content-security-policy"]
            assert policy == "default-src 'self'; frame-ancestors 'none'"
            cached = response.headers.get("cache-control")
            assert (cached == "no-store") == path.startswith("/v1/"), path
        client.cookies.clear()  # a non-browser client: no CSRF token needed
        stream = await client.post(
            "/v1/conversations/c1/turns",
            json={"text": LISBON},
            headers={"Accept": "text/event-stream"},
        )
        assert stream.headers["x-frame-options"] == "DENY"
        assert "event: finished" in stream.text


async def test_a_plain_function_authenticator_and_a_wrong_answer(
    tmp_path: Path, serve: Any
) -> None:
    def plain(request: Request) -> Actor:
        return Actor(account="acme", user="maria", roles=frozenset({"customer"}))

    async with serve(tmp_path, authenticate=plain) as client:
        assert (await client.get("/v1/session")).json()["actor"]["user"] == "maria"

    async def nobody(request: Request) -> Any:
        return None

    async with serve(tmp_path / "b", authenticate=nobody) as client:
        refused = await client.get("/v1/session")
        assert refused.status_code == 401 and refused.json()["code"] == "not_authenticated"
