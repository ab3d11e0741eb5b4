"""A planted key, in any spelling JSON allows, comes out nowhere (issue 11 item 8).

The key is planted in every field a provider controls: an answer's values and object
keys at any depth, and an error's code, message, body and headers. It is spelled raw,
``\\u``-escaped (lower and upper hex, a surrogate pair above U+FFFF), mixed per
character, escaped twice, or with ``\\/``. Whatever the spelling, it appears neither as
written nor decoded in an answer, a call record (verdict, prompt, response: the replay
record), a repair prompt sent to the model, ``/inspect``'s output or an exception
(docs/adr/0019-local-model-and-answer-bounds.md).
"""

from __future__ import annotations

import json
import random
from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.core.errors import TurnFailure
from turnframe.providers import ModelRequest, ProviderError
from turnframe.providers.conformance import LoopbackServer
from turnframe.providers.openai import OpenAIProvider
from turnframe.providers.redact import encoded_pattern
from turnframe.tasks import Task, TaskModels, TaskRunner
from turnframe.testing.hostile import (
    ENCODINGS,
    HostileVendor,
    VendorFailure,
    encode_json_string,
    hostile_text,
    random_valid,
)

KEYS = (
    "sk-proj-PLANTED0123456789abcdefXYZ",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYPLANTED",  # an AWS secret key's shape: has '/' and '+'
    "tok-\U0001f511-PLANTED+98765",  # above U+FFFF: escaped as a surrogate pair
)
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "maxLength": 400},
        "kind": {"enum": ["a", "b"]},
        "stops": {
            "type": "array",
            "maxItems": 3,
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "note": {"type": ["string", "null"]}},
                "required": ["name", "note"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["city", "kind", "stops"],
    "additionalProperties": False,
}
TASK = Task(name="city", instructions="Name the city.", prompt_id="city@1", data={}, schema=SCHEMA)
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


def _leaks(texts: list[str]) -> list[str]:
    """The outputs that hold any key in any spelling, even once decoded or re-encoded."""
    found = []
    patterns = [encoded_pattern(k) for k in KEYS]
    for text in texts:
        for shown in (text, json.dumps(text), json.dumps(text, ensure_ascii=False)):
            if any(k in shown for k in KEYS) or any(p.search(shown) for p in patterns):
                found.append(text[:200])
                break
    return found


def _exception_texts(exc: BaseException | None) -> list[str]:
    out: list[str] = []
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        out += [str(exc), repr(exc), json.dumps(vars(exc), default=str)]
        out += [str(a) for a in exc.args]
        inner = getattr(exc, "inner", None)
        if isinstance(inner, BaseException):
            out += _exception_texts(inner)
        exc = exc.__cause__ or exc.__context__
    return out


def _run(runner: TaskRunner) -> tuple[Any, BaseException | None]:
    async def go() -> Any:
        return await runner.run(TASK)

    try:
        return anyio.run(go), None
    except (TurnFailure, ProviderError) as exc:
        return None, exc


@SETTINGS
@given(
    key=st.sampled_from(KEYS),
    encoding=st.sampled_from(ENCODINGS),
    seed=st.integers(0, 10_000),
    times=st.integers(1, 2),
)
def test_a_key_planted_in_an_answer_never_comes_out(
    key: str, encoding: str, seed: int, times: int
) -> None:
    rng = random.Random(seed)
    served: list[int] = []

    def answer(request: ModelRequest) -> str:
        served.append(1)
        valid = random_valid(request.schema, rng)
        if len(served) <= times:
            return hostile_text("escaped_key", rng, valid=valid, key=key, encoding=encoding)
        return json.dumps(valid)

    vendor = HostileVendor(answer, secrets=KEYS)
    runner = TaskRunner(TaskModels(vendor))
    result, error = _run(runner)
    outputs = [json.dumps(result, ensure_ascii=False)] + _exception_texts(error)
    outputs += [json.dumps(r.to_json(), ensure_ascii=False) for r in runner.records]
    outputs += [m.content for r in vendor.requests for m in r.messages]
    assert _leaks(outputs) == []
    assert runner.records


@SETTINGS
@given(
    key=st.sampled_from(KEYS),
    encoding=st.sampled_from(ENCODINGS),
    status=st.sampled_from([400, 401, 402, 408, 429, 500, 503, 529]),
    fields=st.sets(st.sampled_from(["code", "message", "body", "headers"]), min_size=1),
)
def test_a_key_planted_in_a_provider_error_never_comes_out(
    key: str, encoding: str, status: int, fields: set[str]
) -> None:
    spelled = encode_json_string(key, encoding, random.Random(status))

    def answer(request: ModelRequest) -> BaseException:
        del request
        return VendorFailure(
            status,
            code=spelled if "code" in fields else "invalid_api_key",
            message=f"Incorrect API key provided: {spelled}" if "message" in fields else "no",
            body='{"error": {"message": "' + spelled + '"}}' if "body" in fields else "{}",
            headers={"x-echo": spelled} if "headers" in fields else {},
        )

    vendor = HostileVendor(answer, secrets=KEYS)
    runner = TaskRunner(TaskModels(vendor))
    result, error = _run(runner)
    assert result is None and error is not None
    outputs = _exception_texts(error)
    outputs += [json.dumps(r.to_json(), ensure_ascii=False) for r in runner.records]
    assert _leaks(outputs) == []


def test_the_openai_adapter_redacts_an_escaped_key_in_a_200_answer_and_an_error_code() -> None:
    key = KEYS[0]
    escaped = encode_json_string(key, "escaped")

    def chat(content: str) -> dict[str, Any]:
        return {
            "status": 200,
            "body": {
                "id": "c",
                "object": "chat.completion",
                "created": 1,
                "model": "gpt-4.1-mini",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": content},
                    }
                ],
                "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
            },
        }

    outputs: list[str] = []

    async def go() -> None:
        with LoopbackServer() as server:
            provider = OpenAIProvider(
                "gpt-4.1-mini", api_key=key, base_url=f"{server.url}/v1", timeout=2
            )
            # A 200 answer whose enum value is the key, \\u-escaped: a repair round quotes
            # the error and the answer back to the model; then a valid answer.
            bad = '{"city": "Paris", "kind": "' + escaped + '", "stops": []}'
            server.script([chat(bad), chat('{"city": "Paris", "kind": "a", "stops": []}')])
            runner = TaskRunner(TaskModels(provider))
            outputs.append(json.dumps(await runner.run(TASK)))
            outputs.extend(json.dumps(r.to_json(), ensure_ascii=False) for r in runner.records)
            outputs.extend(json.dumps(r.body) for r in server.requests[1:])
            assert [r.verdict.split(":")[0] for r in runner.records] == ["invalid", "ok"]
            # An error whose code is the key, escaped.
            server.script([{"status": 400, "body": {"error": {"message": "bad", "code": escaped}}}])
            runner = TaskRunner(TaskModels(provider))
            try:
                await runner.run(TASK)
            except ProviderError as exc:
                outputs.extend(_exception_texts(exc))
                assert exc.code is not None
            await provider.aclose()

    anyio.run(go)
    assert len(outputs) > 4
    assert _leaks(outputs) == []
