"""The built-in adapters and profiles as conformance targets.

Each target builds its adapter through the adapter's public constructor, pointed at
the loopback fake, and says how to recognise the genuine structured-output mode and
the credential in a recorded request. A target whose extra is not installed is
skipped with the install hint, never failed.
"""

from __future__ import annotations

import importlib.util
import json
from typing import Any

from turnframe.providers.base import Provider
from turnframe.providers.conformance.runner import Target
from turnframe.providers.conformance.server import RecordedRequest

__all__ = ["builtin_targets"]


def _body(request: RecordedRequest) -> dict[str, Any]:
    return request.body if isinstance(request.body, dict) else {}


def _bearer(request: RecordedRequest, key: str) -> bool:
    return request.headers.get("authorization") == f"Bearer {key}"


def _missing(module: str, extra: str) -> str:
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        return f'the {extra} extra is not installed: pip install "turnframe[{extra}]"'
    return ""


# ------------------------------------------------------------------------ OpenAI family
def _openai_chat_genuine(request: RecordedRequest) -> str | None:
    fmt = _body(request).get("response_format") or {}
    spec = fmt.get("json_schema") or {}
    if fmt.get("type") != "json_schema" or spec.get("strict") is not True or "schema" not in spec:
        return f"response_format was {json.dumps(fmt)[:120]}"
    if not request.path.endswith("/chat/completions") and "/chat/completions?" not in request.path:
        return f"path {request.path}"
    return None


def _openai_responses_genuine(request: RecordedRequest) -> str | None:
    fmt = (_body(request).get("text") or {}).get("format") or {}
    if fmt.get("type") != "json_schema" or fmt.get("strict") is not True or "schema" not in fmt:
        return f"text.format was {json.dumps(fmt)[:120]}"
    return None


def _make_openai(api: str) -> Any:
    def make(*, base_url: str, api_key: str, timeout: float) -> Provider:
        from turnframe.providers.openai import OpenAIProvider

        return OpenAIProvider(
            "gpt-4.1-mini",
            api_key=api_key,
            base_url=f"{base_url}/v1",
            api=api,
            timeout=timeout,
            connect_timeout=timeout,
        )

    return make


def _make_azure(*, base_url: str, api_key: str, timeout: float) -> Provider:
    from turnframe.providers.openai import AzureOpenAIProvider

    return AzureOpenAIProvider(
        "gpt-4.1-mini",
        endpoint=base_url,
        api_key=api_key,
        api_version="2024-10-21",
        timeout=timeout,
        connect_timeout=timeout,
    )


def _make_llama_server(*, base_url: str, api_key: str, timeout: float) -> Provider:
    from turnframe.providers.openai import OpenAICompatibleProvider

    return OpenAICompatibleProvider(
        "smollm2-135m-instruct",
        base_url=f"{base_url}/v1",
        api_key=api_key,
        timeout=timeout,
        connect_timeout=timeout,
    )


# ------------------------------------------------------------------------- Anthropic
def _anthropic_genuine(request: RecordedRequest) -> str | None:
    fmt = (_body(request).get("output_config") or {}).get("format") or {}
    if fmt.get("type") != "json_schema" or "schema" not in fmt:
        return f"output_config.format was {json.dumps(fmt)[:120]}"
    if request.headers.get("anthropic-version") != "2023-06-01":
        return f"anthropic-version {request.headers.get('anthropic-version')}"
    return None


def _anthropic_key(request: RecordedRequest, key: str) -> bool:
    return _bearer(request, key) or request.headers.get("x-api-key") == key


def _make_anthropic(*, base_url: str, api_key: str, timeout: float) -> Provider:
    from turnframe.providers.anthropic import AnthropicProvider

    return AnthropicProvider(
        "claude-sonnet-4-6",
        api_key=api_key,
        base_url=base_url,
        timeout=timeout,
        connect_timeout=timeout,
    )


# ---------------------------------------------------------------------------- Gemini
def _gemini_genuine(request: RecordedRequest) -> str | None:
    config = _body(request).get("generationConfig") or {}
    if config.get("responseMimeType") != "application/json" or "responseJsonSchema" not in config:
        return f"generationConfig was {json.dumps(config)[:160]}"
    if "alt=sse" not in request.path and "streamGenerateContent" in request.path:
        return "a stream without alt=sse"
    return None


def _make_gemini(*, base_url: str, api_key: str, timeout: float) -> Provider:
    from turnframe.providers.gemini import GeminiProvider

    return GeminiProvider(
        "gemini-2.5-flash", api_key=api_key, base_url=f"{base_url}/", timeout=timeout
    )


# --------------------------------------------------------------------------- Bedrock
_ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"


def _bedrock_genuine(request: RecordedRequest) -> str | None:
    fmt = (_body(request).get("outputConfig") or {}).get("textFormat") or {}
    schema = ((fmt.get("structure") or {}).get("jsonSchema") or {}).get("schema")
    if fmt.get("type") != "json_schema" or not isinstance(schema, str):
        return f"outputConfig.textFormat was {json.dumps(fmt)[:160]}"
    return None


def _bedrock_key(request: RecordedRequest, key: str) -> bool:
    del key  # SigV4 never sends the secret: the signature proves it was used
    auth = request.headers.get("authorization", "")
    return auth.startswith("AWS4-HMAC-SHA256") and _ACCESS_KEY_ID in auth and "Signature=" in auth


def _make_bedrock(*, base_url: str, api_key: str, timeout: float) -> Provider:
    from turnframe.providers.bedrock import BedrockProvider

    return BedrockProvider(
        "anthropic.claude-sonnet-4-6-v1:0",
        region="us-east-1",
        endpoint_url=base_url,
        aws_access_key_id=_ACCESS_KEY_ID,
        aws_secret_access_key=api_key,
        timeout=timeout,
        connect_timeout=timeout,
    )


# ---------------------------------------------------------------------------- Ollama
def _ollama_genuine(request: RecordedRequest) -> str | None:
    body = _body(request)
    if not isinstance(body.get("format"), dict):
        return f"format was {json.dumps(body.get('format'))[:120]}"
    if body.get("truncate") is not False or body.get("shift") is not False:
        return "truncate/shift not turned off: Ollama would drop context silently"
    return None


def _make_ollama(*, base_url: str, api_key: str, timeout: float) -> Provider:
    from turnframe.providers.ollama import OllamaProvider

    return OllamaProvider(
        "qwen3:0.6b", host=base_url, api_key=api_key, timeout=timeout, connect_timeout=timeout
    )


def builtin_targets() -> list[Target]:
    """Return a target for every built-in adapter and profile (skipped without its extra)."""
    openai_skip = _missing("openai", "openai")
    return [
        Target(
            name="openai (chat completions)",
            dialects=("openai_chat",),
            extra="openai",
            make=_make_openai("chat"),
            genuine=_openai_chat_genuine,
            sent_key=_bearer,
            skip=openai_skip,
        ),
        Target(
            name="openai (responses)",
            dialects=("openai_responses", "openai_chat"),
            extra="openai",
            make=_make_openai("responses"),
            genuine=_openai_responses_genuine,
            sent_key=_bearer,
            skip=openai_skip,
        ),
        Target(
            name="azure-openai",
            dialects=("azure_openai", "openai_chat"),
            extra="openai",
            make=_make_azure,
            genuine=_openai_chat_genuine,
            sent_key=lambda request, key: request.headers.get("api-key") == key,
            skip=openai_skip,
        ),
        Target(
            name="openai-compatible (llama-server)",
            dialects=("llama_server", "openai_chat"),
            extra="openai",
            make=_make_llama_server,
            genuine=_openai_chat_genuine,
            sent_key=_bearer,
            skip=openai_skip,
        ),
        Target(
            name="anthropic",
            dialects=("anthropic",),
            extra="anthropic",
            make=_make_anthropic,
            genuine=_anthropic_genuine,
            sent_key=_anthropic_key,
            skip=_missing("anthropic", "anthropic"),
        ),
        Target(
            name="gemini",
            dialects=("gemini",),
            extra="gemini",
            make=_make_gemini,
            genuine=_gemini_genuine,
            sent_key=lambda request, key: request.headers.get("x-goog-api-key") == key,
            skip=_missing("google.genai", "gemini"),
        ),
        Target(
            name="bedrock",
            dialects=("bedrock",),
            extra="bedrock",
            make=_make_bedrock,
            genuine=_bedrock_genuine,
            sent_key=_bedrock_key,
            skip=_missing("boto3", "bedrock"),
        ),
        Target(
            name="ollama",
            dialects=("ollama",),
            extra="ollama",
            make=_make_ollama,
            genuine=_ollama_genuine,
            sent_key=_bearer,
            skip=_missing("ollama", "ollama"),
        ),
    ]
