"""Any request body gets a typed answer, never a 500 (hypothesis; docs/serving.md "Limits")."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from turnframe.runtime import FixedClock
from turnframe.runtime.loading import load_application
from turnframe.serve.app import create_app
from turnframe.serve.state import ServeConfig
from turnframe.serve.tour import tour_reader
from turnframe.store.memory import InMemoryStore

URL = "/v1/conversations/c1/turns"
ANSWERS = {200, 201, 400, 404, 409, 413, 415, 422, 429}

SCALAR = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=40)
)
JSON = st.recursive(
    SCALAR,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "text",
                    "click",
                    "locale",
                    "interaction_id",
                    "option_id",
                    "expected_revision",
                    "value",
                    "x",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=8,
)
BODY = st.one_of(
    st.binary(max_size=200),
    JSON.map(lambda v: json.dumps(v).encode()),
    st.text(max_size=60).map(lambda t: json.dumps({"text": t}).encode()),
)
TYPES = st.sampled_from(
    ["application/json", "application/json; charset=utf-8", "text/plain", "", "application/x+json"]
)


def test_any_body_is_answered_with_a_code_never_a_500() -> None:
    async def opener() -> Any:
        return InMemoryStore()

    travel = load_application("travel")
    app = create_app(
        travel,
        opener,
        reader=tour_reader(travel),
        clock=FixedClock(__import__("datetime").date(2026, 5, 1)),
        config=ServeConfig(max_body_bytes=150, max_message_bytes=40),
    )
    with TestClient(app, base_url="http://127.0.0.1") as client:

        @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(body=BODY, media=TYPES, key=st.none() | st.text(min_size=0, max_size=8))
        def check(body: bytes, media: str, key: str | None) -> None:
            headers = {"Content-Type": media} if media else {}
            if key is not None and key.isascii() and key.isprintable():
                headers["Idempotency-Key"] = key
            response = client.post(URL, content=body, headers=headers)
            assert response.status_code in ANSWERS, (response.status_code, response.text)
            kind = response.headers["content-type"]
            if response.status_code >= 400:
                assert kind == "application/problem+json"
                assert response.json()["code"]
            else:
                assert kind == "application/json"
                assert response.json()["blocks"]

        check()
