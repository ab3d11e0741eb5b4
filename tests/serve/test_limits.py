"""Limits and failures: sizes, encodings, content types, per-actor bound, the store down."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from turnframe.serve.state import ServeConfig
from turnframe.store.errors import StoreUnavailable
from turnframe.understand import ScriptedUnderstanding

pytestmark = pytest.mark.anyio

URL = "/v1/conversations/c1/turns"
LISBON = "Add a seat to the Lisbon trip."


async def test_a_message_over_the_limit_is_413(tmp_path: Path, serve: Any) -> None:
    async with serve(tmp_path, config=ServeConfig(max_message_bytes=10)) as client:
        ok = await client.post(URL, json={"text": "é" * 5})  # 10 bytes of UTF-8
        assert ok.status_code == 201
        over = await client.post(URL, json={"text": "é" * 5 + "x"})
        assert over.status_code == 413 and over.json()["code"] == "message_too_large"


async def test_a_body_over_the_limit_is_413_by_length_or_by_bytes(
    tmp_path: Path, serve: Any
) -> None:
    async with serve(tmp_path, config=ServeConfig(max_body_bytes=100)) as client:
        big = b'{"text": "' + b"x" * 200 + b'"}'
        declared = await client.post(URL, content=big, headers={"Content-Type": "application/json"})
        assert declared.status_code == 413 and declared.json()["code"] == "body_too_large"

        async def chunks() -> AsyncIterator[bytes]:
            for _ in range(10):
                yield b"x" * 20

        streamed = await client.post(
            URL, content=chunks(), headers={"Content-Type": "application/json"}
        )
        assert "content-length" not in streamed.request.headers
        assert streamed.status_code == 413 and streamed.json()["code"] == "body_too_large"


async def test_bad_bodies_get_their_codes(tmp_path: Path, serve: Any) -> None:
    async with serve(tmp_path) as client:
        json_type = {"Content-Type": "application/json"}
        not_utf8 = await client.post(URL, content=b'{"text": "\xff\xfe"}', headers=json_type)
        assert not_utf8.status_code == 400 and not_utf8.json()["code"] == "message_not_utf8"
        latin = await client.post(
            URL,
            content=b'{"text": "hi"}',
            headers={"Content-Type": "application/json; charset=latin-1"},
        )
        assert latin.status_code == 415 and latin.json()["code"] == "unsupported_media_type"
        utf8 = await client.post(
            URL, json={"text": LISBON}, headers={"Content-Type": "application/json; charset=UTF-8"}
        )
        assert utf8.status_code == 201
        form = await client.post(URL, data={"text": "hi"})
        assert form.status_code == 415 and form.json()["code"] == "unsupported_media_type"
        unknown = await client.post(URL, json={"text": LISBON, "sneaky": 1})
        assert unknown.status_code == 422 and unknown.json()["code"] == "invalid_request"
        assert "sneaky" in unknown.json()["detail"]
        broken = await client.post(URL, content=b"{not json", headers=json_type)
        assert broken.status_code == 422 and broken.json()["code"] == "invalid_request"
        empty = await client.post(URL, json={})
        assert empty.status_code == 422 and "text, a click" in empty.json()["detail"]
        locale = await client.post(URL, json={"text": LISBON, "locale": "xx"})
        assert locale.status_code == 422 and "pt-PT" in locale.json()["detail"]
        pt = await client.post(URL, json={"text": LISBON, "locale": "pt-PT"})
        assert pt.status_code == 201


async def test_a_message_the_reader_refuses_is_a_stored_turn_with_a_notice(
    tmp_path: Path, serve: Any
) -> None:
    async with serve(tmp_path) as client:
        response = await client.post(URL, json={"text": "Something else entirely"})
        assert response.status_code == 201
        view = response.json()
        [block] = view["blocks"]
        assert block["kind"] == "notice" and block["code"] == "unreadable_message"
        assert view["model_calls"] == 0
        # a turn like any other: reloaded, inspectable, replayable
        reload = (await client.get("/v1/conversations/c1")).json()
        assert reload["turns"] == [
            {
                "turn_id": view["turn_id"],
                "input": {"text": "Something else entirely", "click": None},
                "blocks": view["blocks"],
            }
        ]
        assert (await client.get(view["inspect"])).status_code == 200
        replayed = await client.post(f"/v1/turns/{view['turn_id']}/replay", json={})
        assert replayed.json()["same"] is True
        # the tour's messages are matched whatever the case, spacing or final stop
        loose = await client.post(URL, json={"text": "  add A SEAT to the   lisbon trip  "})
        assert any(b["kind"] == "interaction" for b in loose.json()["blocks"])
    async with serve(tmp_path / "none", reader=None) as client:
        response = await client.post(URL, json={"text": LISBON})
        [block] = response.json()["blocks"]
        assert block["code"] == "no_model" and "--model" in block["text"]


async def test_what_the_router_refuses_is_a_problem_too(tmp_path: Path, serve: Any) -> None:
    async with serve(tmp_path) as client:
        absent = await client.get("/v1/turns/turn-none")
        unrouted = await client.get("/v1/nope")
        assert unrouted.status_code == 404 and unrouted.content == absent.content
        wrong = await client.delete("/v1/conversations/c1")
        assert wrong.status_code == 405 and wrong.json()["code"] == "method_not_allowed"
        assert wrong.headers["content-type"] == "application/problem+json"
        assert "GET" in wrong.headers["allow"]
        long_id = await client.post(f"/v1/conversations/{'a' * 201}/turns", json={"text": LISBON})
        assert long_id.status_code == 422 and "1–200" in long_id.json()["detail"]


async def test_unencodable_and_deeply_nested_bodies_are_refused_not_500(
    tmp_path: Path, serve: Any
) -> None:
    async with serve(tmp_path) as client:
        json_type = {"Content-Type": "application/json"}
        lone = await client.post(URL, content=b'{"text": "\\ud800"}', headers=json_type)
        assert lone.status_code == 400 and lone.json()["code"] == "message_not_utf8"
        deep = b'{"text": "x", "click": ' + b"[" * 5000 + b"]" * 5000 + b"}"
        nested = await client.post(URL, content=deep, headers=json_type)
        assert nested.status_code == 422 and "nested" in nested.json()["detail"]


async def test_the_default_locale_named_or_not_is_the_same_request(
    tmp_path: Path, serve: Any
) -> None:
    async with serve(tmp_path) as client:
        key = {"Idempotency-Key": "loc"}
        first = await client.post(URL, json={"text": LISBON}, headers=key)
        again = await client.post(URL, json={"text": LISBON, "locale": "en"}, headers=key)
        assert (first.status_code, again.status_code) == (201, 200)


async def test_a_reconnect_after_the_end_is_204(tmp_path: Path, serve: Any) -> None:
    async with serve(tmp_path) as client:
        view = (await client.post(URL, json={"text": LISBON})).json()
        events = f"/v1/turns/{view['turn_id']}/events"
        whole = await client.get(events)
        last = whole.text.count("event: ")
        assert (await client.get(events, headers={"Last-Event-ID": str(last)})).status_code == 204
        assert (await client.get(events, headers={"Last-Event-ID": "999"})).status_code == 204
        rest = await client.get(events, headers={"Last-Event-ID": str(last - 1)})
        assert rest.status_code == 200 and "event: finished" in rest.text


class _Gate:
    """A reader whose understanding waits until the gate opens (turns held running)."""

    def __init__(self) -> None:
        self.opened = anyio.Event()
        self.started = 0

    def __call__(self, text: str) -> tuple[Any, Any]:
        from turnframe.core import Understanding

        gate = self

        class Held(ScriptedUnderstanding):
            async def understand(self, brief: Any) -> Any:
                gate.started += 1
                await gate.opened.wait()
                return await super().understand(brief)

        return Held([Understanding()]), None


async def test_turns_per_actor_are_bounded_with_429(tmp_path: Path, serve: Any) -> None:
    gate = _Gate()
    config = ServeConfig(max_turns_per_actor=2)
    async with serve(tmp_path, config=config, reader=gate) as client:
        streams: list[httpx.Response] = []

        async def hold(n: int) -> None:
            streams.append(await client.post(URL, json={"text": f"hello {n}"}))

        async with anyio.create_task_group() as group:
            group.start_soon(hold, 1)
            group.start_soon(hold, 2)
            with anyio.fail_after(5):
                while gate.started < 2:
                    await anyio.sleep(0.01)
            third = await client.post(URL, json={"text": "hello 3"})
            assert third.status_code == 429 and third.json()["code"] == "too_many_turns"
            assert third.headers["retry-after"] == "1"
            gate.opened.set()
        assert [r.status_code for r in streams] == [201, 201]
        again = await client.post(URL, json={"text": "hello 4"})
        assert again.status_code == 201


async def test_a_client_that_disconnects_never_cancels_its_turn(
    tmp_path: Path, serve: Any, sse: Any
) -> None:
    gate = _Gate()
    async with serve(tmp_path, reader=gate, tcp=True) as client:
        async with client.stream(
            "POST", URL, json={"text": "hi"}, headers={"Accept": "text/event-stream"}
        ) as response:
            turn_id = response.headers["x-turn-id"]
            async for _line in response.aiter_lines():
                break  # the first frame arrived; the client goes away
        gate.opened.set()
        with anyio.fail_after(5):
            while True:
                view = await client.get(f"/v1/turns/{turn_id}")
                if view.status_code == 200:
                    break
                assert view.json()["code"] == "turn_in_progress"
                await anyio.sleep(0.02)
        rest = sse((await client.get(f"/v1/turns/{turn_id}/events")).text)
        assert [f["event"] for f in rest][-2:] == ["blocks", "finished"]


class _Down:
    """A store whose every call fails as unreachable while ``down`` is set."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.down = False
        self.only: set[str] = set()  # fail only these methods (empty: every one)

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.inner, name)
        if not callable(found):
            return found

        async def call(*args: Any, **kwargs: Any) -> Any:
            if self.down and (not self.only or name in self.only):
                raise StoreUnavailable("connection refused (127.0.0.1:9)")
            return await found(*args, **kwargs)

        call.__signature__ = __import__("inspect").signature(found)  # type: ignore[attr-defined]
        return call


async def test_an_unreachable_store_is_503_store_unavailable(tmp_path: Path, serve: Any) -> None:
    held: list[_Down] = []

    def wrap(store: Any) -> Any:
        held.append(_Down(store))
        return held[0]

    async with serve(tmp_path, wrap=wrap) as client:
        held[0].down = True
        answers = [
            await client.post(URL, json={"text": LISBON}),
            await client.post(URL, json={"click": {"interaction_id": "c", "option_id": "o"}}),
            await client.get("/v1/conversations/c1"),
            await client.get("/v1/conversations/c1/cards"),
            await client.get("/v1/turns/turn-x"),
        ]
        for answer in answers:
            assert answer.status_code == 503, answer.text
            assert answer.json()["code"] == "store_unavailable"
            assert answer.headers["retry-after"] == "1"
        keyed = await client.post(URL, json={"text": LISBON}, headers={"Idempotency-Key": "d"})
        assert keyed.json()["code"] == "store_unavailable"
        held[0].down = False
        assert (await client.post(URL, json={"text": LISBON})).status_code == 201
        # the key's failure is not kept: its retry runs the turn now
        retried = await client.post(URL, json={"text": LISBON}, headers={"Idempotency-Key": "d"})
        assert retried.status_code == 201, retried.text
        # the store fails once the turn has started (so the failure is the turn's own)
        held[0].down, held[0].only = True, {"begin_turn"}
        failed = await client.post(URL, json={"text": LISBON}, headers={"Idempotency-Key": "m"})
        assert failed.status_code == 503 and failed.json()["code"] == "store_unavailable"
        held[0].down = False
        again = await client.post(URL, json={"text": LISBON}, headers={"Idempotency-Key": "m"})
        assert again.status_code == 201, again.text
        assert any(b["kind"] == "interaction" for b in again.json()["blocks"])


async def test_an_interrupted_turn_is_503_and_a_retry_finishes_it(
    tmp_path: Path, serve: Any
) -> None:
    from turnframe.store.faults import FaultInjectingStore, FaultPlan

    plan = FaultPlan()
    async with serve(tmp_path, wrap=lambda store: FaultInjectingStore(store, plan)) as client:
        view = (
            await client.post(URL, json={"text": "Book Hotel Avenida for 3 nights in June."})
        ).json()
        card = next(b for b in view["blocks"] if b["kind"] == "interaction")
        click = {"click": {"interaction_id": card["interaction_id"], "option_id": "confirm",
                           "expected_revision": card["expected_revision"]}}  # fmt: skip
        plan.arm("save_reply")
        first = await client.post(URL, json=click, headers={"Idempotency-Key": "crash-1"})
        assert first.status_code == 503 and first.json()["code"] == "turn_interrupted"
        again = await client.post(URL, json=click, headers={"Idempotency-Key": "crash-1"})
        assert again.status_code == 200, again.text
        assert [b["kind"] for b in again.json()["blocks"]].count("receipt") == 1
        store = client.app.state.turnframe.service.runtime.store  # type: ignore[attr-defined]
        from turnframe.core.ids import CaseRef

        booked = [e for e in await store.case_events(CaseRef("trip", "T2"))]
        assert len([e for e in booked if "hotel" in e.type]) == 1


async def test_a_stream_of_a_failing_turn_ends_with_an_error_frame(
    tmp_path: Path, serve: Any, sse: Any
) -> None:
    from turnframe.store.faults import FaultInjectingStore, FaultPlan

    plan = FaultPlan()
    async with serve(tmp_path, wrap=lambda store: FaultInjectingStore(store, plan)) as client:
        plan.arm("save_reply")
        response = await client.post(
            URL,
            json={"text": LISBON},
            headers={"Accept": "text/event-stream", "Idempotency-Key": "e"},
        )
        frames = sse(response.text)
        assert frames[-1]["event"] == "error"
        assert frames[-1]["data"]["code"] == "turn_interrupted"
        assert "blocks" not in [f["event"] for f in frames]  # nothing shown before it is stored
        again = await client.post(
            URL,
            json={"text": LISBON},
            headers={"Accept": "text/event-stream", "Idempotency-Key": "e"},
        )
        assert [f["event"] for f in sse(again.text)][-2:] == ["blocks", "finished"]


async def test_a_text_turn_interrupted_before_its_plan_is_read_again_on_retry(
    tmp_path: Path, serve: Any
) -> None:
    # Stopped in phase ``received``: the retry runs it again from its stored input, so the
    # message is read again with the server's reader (not refused for want of one).
    from turnframe.store.faults import FaultInjectingStore, FaultPlan

    plan = FaultPlan()
    async with serve(tmp_path, wrap=lambda store: FaultInjectingStore(store, plan)) as client:
        plan.arm("set_turn_phase")
        body = {"text": "Book Hotel Avenida for 3 nights in June."}
        first = await client.post(URL, json=body, headers={"Idempotency-Key": "recv-1"})
        assert first.status_code == 503, first.text
        assert first.json()["code"] == "turn_interrupted"
        again = await client.post(URL, json=body, headers={"Idempotency-Key": "recv-1"})
        assert again.status_code in (200, 201), again.text
        assert [b["kind"] for b in again.json()["blocks"]] == ["interaction"]
