"""A planted key appears in no output: replay records, logs, exceptions, the CLI.

See docs/architecture.md "Providers".

The key is sent (the fake server sees it), the fake echoes it back in an answer and in
error messages, and the SDKs log at DEBUG; none of it may carry the key out.
"""

from __future__ import annotations

import io
import json
import logging
from typing import Any

import anyio
import pytest

from turnframe.providers import ProviderError
from turnframe.providers.conformance import LoopbackServer
from turnframe.providers.openai import OpenAIProvider
from turnframe.providers.redact import Redactor
from turnframe.tasks import Task, TaskModels, TaskRunner

KEY = "sk-proj-PLANTED0123456789abcdefXYZ"
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


def _chat(content: str) -> dict[str, Any]:
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


def _error(status: int, code: str) -> dict[str, Any]:
    return {
        "status": status,
        "headers": {"retry-after": "0"},
        "body": {
            "error": {
                "message": f"Incorrect API key provided: {KEY}. Bearer {KEY}",
                "type": code,
                "code": code,
            }
        },
    }


def _leaks(text: str) -> bool:
    return KEY in text or KEY[8:] in text


def test_a_planted_key_is_sent_but_never_comes_out(caplog: pytest.LogCaptureFixture) -> None:
    task = Task(
        name="city",
        instructions="Name the city.",
        prompt_id="city@1",
        data={"text": "Paris"},
        schema=SCHEMA,
    )
    outputs: list[str] = []

    async def go() -> None:
        with LoopbackServer() as server:
            provider = OpenAIProvider(
                "gpt-4.1-mini", api_key=KEY, base_url=f"{server.url}/v1", timeout=2
            )
            # A retryable 429 echoing the key (resent in place), then an answer echoing it.
            server.script([_error(429, "rate_limit_exceeded"), _chat(json.dumps({"city": KEY}))])
            runner = TaskRunner(TaskModels(provider))
            answer = await runner.run(task)
            outputs.append(json.dumps(answer))
            outputs.extend(json.dumps(r.to_json()) for r in runner.records)
            assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in server.requests)
            # A 401 echoing the key surfaces as a classified error.
            server.script([_error(401, "invalid_api_key")])
            with pytest.raises(ProviderError) as caught:
                await TaskRunner(TaskModels(provider)).run(task)
            error = caught.value
            outputs.extend([str(error), repr(error), json.dumps(vars(error), default=str)])
            assert error.__cause__ is None and error.__context__ is None
            await provider.aclose()

    with caplog.at_level(logging.DEBUG):
        anyio.run(go)
    outputs += [r.getMessage() for r in caplog.records]
    assert outputs and not [o for o in outputs if _leaks(o)]


def test_the_conformance_command_prints_no_key() -> None:
    from turnframe.cli import main
    from turnframe.providers.conformance.runner import CANARY_KEY

    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out):
        code = main(
            [
                "providers",
                "conformance",
                "--json",
                "--target",
                "ollama",
                "--case",
                "secret_redaction",
            ]
        )
    assert code == 0
    assert CANARY_KEY not in out.getvalue()
    assert json.loads(out.getvalue())["results"][0]["status"] == "pass"


def test_the_redactor_hides_known_secrets_and_credential_shapes() -> None:
    redact = Redactor([KEY, "short"])
    text = redact(
        f"key {KEY}; Authorization: Bearer abcdefghijklmnop; x-goog-api-key=AIzaSyA1234567890abcdefghijk"
    )
    assert KEY not in text and "abcdefghijklmnop" not in text and "AIzaSy" not in text
    assert redact("a short word") == "a short word"
