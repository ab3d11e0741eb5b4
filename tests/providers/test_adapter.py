"""The shared adapter machinery: schema subsets, hints, transport classification, validation."""

from __future__ import annotations

import anyio
import pytest

from turnframe.providers.adapter import (
    Raw,
    VendorProvider,
    compile_schema,
    extra_hint,
    retry_after_from_headers,
    transport_error,
)
from turnframe.providers.base import (
    Capabilities,
    Enforcement,
    Message,
    ModelProfile,
    ModelRequest,
    ModelResponse,
    StopReason,
)
from turnframe.providers.errors import (
    CallDropped,
    CapabilityMissing,
    ProviderError,
    ProviderTimeout,
    ServerError,
)

SCHEMA = {
    "type": "object",
    "properties": {
        "n": {"type": "integer", "minimum": 1, "const": 2},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 5}, "uniqueItems": True},
    },
    "required": ["n", "tags"],
    "additionalProperties": False,
    "description": "kept",
}


def test_compile_schema_cuts_to_the_subset_and_reports_what_it_cut() -> None:
    subset = frozenset(
        {"type", "properties", "required", "additionalProperties", "items", "enum", "description"}
    )

    def rewrite(node: dict[str, object]) -> dict[str, object]:
        if "const" not in node:
            return node
        return {**{k: v for k, v in node.items() if k != "const"}, "enum": [node["const"]]}

    compiled, dropped = compile_schema(SCHEMA, subset, rewrite)
    assert dropped == ("maxLength", "minimum", "uniqueItems")
    assert compiled["properties"]["n"] == {"type": "integer", "enum": [2]}
    assert compiled["description"] == "kept"
    assert compile_schema(SCHEMA, None) == (SCHEMA, ())


def test_retry_hints() -> None:
    assert retry_after_from_headers({"Retry-After-Ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_from_headers({"retry-after": "3"}) == 3.0
    assert retry_after_from_headers({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert retry_after_from_headers({}) is None
    assert extra_hint("Please try again in 26.604s.") == 26.604
    assert extra_hint("try again in 120ms") == 0.12


def test_transport_errors_tell_before_from_after_sending() -> None:
    class ConnectError(Exception):
        pass

    class ReadTimeout(Exception):
        pass

    class RemoteProtocolError(Exception):
        pass

    def chained(inner: Exception) -> Exception:
        try:
            raise inner
        except Exception as exc:
            outer = RuntimeError("sdk wrapper")
            outer.__cause__ = exc
            return outer

    class ConnectTimeout(Exception):
        pass

    from turnframe.providers import ConnectionRefused, ProviderUnreachable

    # A failed connection is not a timeout (issue 11 item 4): nothing was sent.
    before = transport_error(chained(ConnectError()), provider="p")
    assert (
        isinstance(before, ProviderUnreachable)
        and not isinstance(before, ProviderTimeout)
        and not before.failure.effect_may_have_happened
    )
    refused = transport_error(chained(ConnectionRefusedError(111, "refused")), provider="p")
    assert isinstance(refused, ConnectionRefused) and refused.failure.retryable
    slow = transport_error(chained(ConnectTimeout()), provider="p")
    assert isinstance(slow, ProviderTimeout) and not slow.sent
    after = transport_error(chained(ReadTimeout()), provider="p")
    assert (
        isinstance(after, ProviderTimeout) and after.sent and after.failure.effect_may_have_happened
    )
    dropped = transport_error(RemoteProtocolError(), provider="p")
    assert isinstance(dropped, CallDropped) and dropped.failure.effect_may_have_happened
    assert transport_error(ValueError("x"), provider="p") is None


class _Fake(VendorProvider):
    def __init__(self, raw: Raw | Exception, caps: Capabilities) -> None:
        super().__init__(
            ModelProfile(provider="fake", model="m", capabilities=caps),
            secrets=["sk-secret-123456"],
        )
        self.raw = raw
        self.sent = 0

    async def _call(self, request: ModelRequest, schema: object, prompt_only: bool) -> Raw:
        self.sent += 1
        if isinstance(self.raw, Exception):
            raise self.raw
        return self.raw

    def _classify(self, exc: Exception) -> ProviderError:
        return ServerError(f"failed with key sk-secret-123456: {exc}")


CAPS = Capabilities(
    structured_output=True,
    schema_subset=frozenset({"type", "properties", "required", "additionalProperties", "items"}),
)
REQUEST = ModelRequest(task="t", messages=(Message(role="user", content="x"),), schema=SCHEMA)


def _complete(provider: _Fake, request: ModelRequest = REQUEST) -> ModelResponse:
    return anyio.run(provider.complete, request)


def test_full_schema_validation_turns_a_subset_violation_into_malformed() -> None:
    response = _complete(_Fake(Raw(text='{"n": 2, "tags": ["toolong", "toolong"]}'), CAPS))
    assert response.stop is StopReason.MALFORMED
    assert response.enforcement is Enforcement.SUBSET
    assert {"const", "maxLength", "minimum", "uniqueItems"} == set(response.unenforced)
    ok = _complete(_Fake(Raw(text='{"n": 2, "tags": ["a"]}'), CAPS))
    assert ok.stop is StopReason.COMPLETE


def test_strict_schema_and_missing_capabilities_fail_before_sending() -> None:
    from dataclasses import replace

    fake = _Fake(Raw(text="{}"), CAPS)
    with pytest.raises(CapabilityMissing, match="uniqueItems"):
        _complete(fake, replace(REQUEST, strict_schema=True))
    with pytest.raises(CapabilityMissing, match="stream"):
        _complete(fake, replace(REQUEST, stream=True))
    weak = _Fake(Raw(text="{}"), Capabilities(structured_output=False, prompt_only_json=True))
    with pytest.raises(CapabilityMissing, match="prompt-only"):
        _complete(weak)
    assert fake.sent == 0 and weak.sent == 0
    response = _complete(weak, replace(REQUEST, allow_prompt_only_json=True))
    assert response.enforcement is Enforcement.PROMPT_ONLY


def test_sdk_failures_are_classified_redacted_and_unchained() -> None:
    with pytest.raises(ServerError) as caught:
        _complete(_Fake(RuntimeError("boom sk-secret-123456"), CAPS))
    assert "sk-secret-123456" not in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__context__ is None
    assert caught.value.provider == "fake:m"


def test_the_facade_and_the_conformance_runner_load_no_sdk_and_no_pytest() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, turnframe.providers, turnframe.providers.registry, turnframe.providers.conformance.runner\n"
        "print(','.join(m for m in ('openai', 'anthropic', 'google.genai', 'boto3', 'ollama', 'llama_cpp', 'pytest') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == ""


def test_each_import_guard_names_its_extra() -> None:
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "for sdk, module, extra in [('openai', 'openai', 'openai'), ('anthropic', 'anthropic', 'anthropic'),\n"
        "        ('google', 'gemini', 'gemini'), ('boto3', 'bedrock', 'bedrock'), ('ollama', 'ollama', 'ollama'),\n"
        "        ('llama_cpp', 'local', 'local')]:\n"
        "    sys.modules[sdk] = None\n"
        "    try:\n"
        "        __import__(f'turnframe.providers.{module}')\n"
        "    except ImportError as exc:\n"
        "        assert f'turnframe[{extra}]' in str(exc), exc\n"
        "    else:\n"
        "        raise SystemExit(f'{module} imported without {sdk}')\n"
        "print('ok')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False
    )
    assert proc.stdout.strip() == "ok", proc.stderr


@pytest.mark.parametrize(
    ("status", "kind", "retryable"),
    [
        (401, "AuthenticationFailed", False),
        (403, "AuthenticationFailed", False),
        (402, "QuotaExceeded", False),
        (429, "RateLimited", True),
        (499, "ProviderCancelled", False),
        (503, "Overloaded", True),
        (529, "Overloaded", True),
        (500, "ServerError", True),
        (408, "ProviderTimeout", True),
        (400, "BadRequest", False),
    ],
)
def test_status_classification_carries_a_full_failure_class(
    status: int, kind: str, retryable: bool
) -> None:
    from turnframe.providers.adapter import status_error

    error = status_error(status, "m", provider="p", retry_after=2.0)
    assert type(error).__name__ == kind
    assert error.failure.retryable is retryable
    assert error.failure.message_key.startswith("error.provider")
    assert error.failure.severity
    if kind == "RateLimited":
        assert error.retry_after == 2.0
