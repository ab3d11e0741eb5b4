"""OpenAI, Azure OpenAI and OpenAI-compatible servers (extra ``openai``).

Chat Completions (``api="chat"``) and the Responses API (``api="responses"``) through the
official ``openai`` SDK with ``max_retries=0`` (ADR 0010). Genuine structured output is
``response_format`` / ``text.format`` ``json_schema`` with ``strict: true``; JSON mode
(``json_object``) is prompt-only JSON and is only sent on an explicit opt-in.

Calls go to ``create`` (never ``.parse()``), so refusal (``message.refusal`` or a
``refusal`` part), content filter (``finish_reason: content_filter``, Azure's 400
``content_filter``), truncation (``length``, ``incomplete``) and empty output are
states. llama.cpp's ``llama-server``, vLLM, LM Studio and Ollama's ``/v1`` are profiles
of :class:`OpenAICompatibleProvider`; each declares what its server enforces.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

try:
    import httpx2
    import openai
except ImportError as _e:  # pragma: no cover - exercised without the extra
    raise ImportError(
        'The OpenAI adapter needs the OpenAI SDK: pip install "turnframe[openai]"'
    ) from _e

from turnframe.core.ids import JSONObject
from turnframe.providers.adapter import (
    STRUCTURAL_KEYWORDS,
    Raw,
    ToolCallBuffer,
    VendorProvider,
    extra_hint,
    match_overflow,
    retry_after_from_headers,
    sampling_options,
    status_error,
    transport_error,
)
from turnframe.providers.adapter import (
    sdk_dump as _dump,
)
from turnframe.providers.base import (
    Capabilities,
    ModelProfile,
    ModelRequest,
    StopReason,
    ToolCall,
    Usage,
)
from turnframe.providers.errors import (
    MissingCredential,
    ProviderError,
    ServerError,
    StreamInterrupted,
)

__all__ = [
    "LLAMA_SERVER_SUBSET",
    "OPENAI_STRICT_SUBSET",
    "AzureOpenAIProvider",
    "OpenAICompatibleProvider",
    "OpenAIProvider",
    "llama_server_profile",
    "openai_profile",
]

OPENAI_STRICT_SUBSET = STRUCTURAL_KEYWORDS | {
    "const",
    "$ref",
    "$defs",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "description",
    "title",
}
"""What ``strict: true`` enforces: string length limits, ``uniqueItems``, ``not`` and
conditionals are outside it (the API rejects some with a 400, so they are never sent)."""

LLAMA_SERVER_SUBSET = STRUCTURAL_KEYWORDS | {
    "const",
    "oneOf",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "description",
    "title",
}
"""What llama.cpp's schema-to-grammar converter is trusted to enforce. It skips
unsupported keywords silently, handles ``pattern`` only anchored and ``minimum`` only on
plain integers, so those are left to the full-schema check."""

OVERFLOW_PATTERNS = (
    re.compile(r"maximum context length is \d+"),  # OpenAI, Azure, vLLM
    re.compile(r"exceeds the available context size"),  # llama-server
    re.compile(r"context_length_exceeded|exceed_context_size_error"),  # codes alone
)


def openai_profile(
    model: str, *, provider: str = "openai", max_context: int = 128_000
) -> ModelProfile:
    """Return the profile of an OpenAI model with strict structured outputs."""
    return ModelProfile(
        provider=provider,
        model=model,
        capabilities=Capabilities(
            structured_output=True,
            prompt_only_json=True,
            streaming=True,
            reasoning_effort=model.startswith(("o1", "o3", "o4", "gpt-5")),
            max_context=max_context,
            structured_mode="json_schema strict",
            schema_subset=OPENAI_STRICT_SUBSET,
            tool_calls=True,
            refusal_state=True,
            # Reasoning models take no temperature; chat completions take a seed.
            temperature=not model.startswith(("o1", "o3", "o4", "gpt-5")),
            seed=True,
        ),
    )


def llama_server_profile(model: str = "local", *, max_context: int = 8192) -> ModelProfile:
    """Return the profile of llama.cpp's ``llama-server`` (grammar-constrained ``json_schema``)."""
    return ModelProfile(
        provider="llama-server",
        model=model,
        capabilities=Capabilities(
            structured_output=True,
            prompt_only_json=True,
            streaming=True,
            max_context=max_context,
            structured_mode="json_schema → GBNF grammar",
            schema_subset=LLAMA_SERVER_SUBSET,
            tool_calls=True,
            refusal_state=False,
            temperature=True,
            seed=True,
        ),
    )


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


class OpenAIProvider(VendorProvider):
    """An OpenAI model through Chat Completions or the Responses API.

    Args:
        model: the model id (``gpt-4.1-mini``).
        api_key: the key (default: ``$OPENAI_API_KEY``).
        base_url: another endpoint (default: ``$OPENAI_BASE_URL`` or OpenAI's).
        api: ``"chat"`` or ``"responses"``.
        profile: the declared capabilities (default: :func:`openai_profile`).
        timeout: seconds to wait for a response and between stream chunks.
        connect_timeout: seconds to wait for the connection.

    Raises:
        MissingCredential: no key given and ``$OPENAI_API_KEY`` unset.
    """

    overflow_patterns = OVERFLOW_PATTERNS
    key_variable = "OPENAI_API_KEY"
    vendor = "OpenAI"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        api: str = "chat",
        profile: ModelProfile | None = None,
        timeout: float = 60.0,
        connect_timeout: float = 5.0,
    ) -> None:
        if api not in ("chat", "responses"):
            raise ValueError(f"api must be 'chat' or 'responses', not {api!r}")
        key = api_key or os.environ.get(self.key_variable) or self._default_key(base_url)
        if not key:
            raise MissingCredential(self.key_variable, self.vendor)
        super().__init__(profile or openai_profile(model), secrets=[key])
        self.model = model
        self.api = api
        self._client: Any = self._make_client(
            key, base_url, httpx2.Timeout(timeout, connect=connect_timeout)
        )

    def _default_key(self, base_url: str | None) -> str | None:
        del base_url
        return None

    def _make_client(self, key: str, base_url: str | None, timeout: Any) -> Any:
        return openai.AsyncOpenAI(api_key=key, base_url=base_url, max_retries=0, timeout=timeout)

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        await self._client.close()

    def _max_tokens(self, request: ModelRequest) -> dict[str, Any]:
        return {"max_completion_tokens": request.max_output_tokens}

    # ------------------------------------------------------------------- sending
    async def _call(
        self, request: ModelRequest, schema: JSONObject | None, prompt_only: bool
    ) -> Raw:
        if self.api == "responses":
            return await self._responses(request, schema, prompt_only)
        return await self._chat(request, schema, prompt_only)

    async def _chat(
        self, request: ModelRequest, schema: JSONObject | None, prompt_only: bool
    ) -> Raw:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            **self._max_tokens(request),
        }
        if prompt_only:
            kwargs["response_format"] = {"type": "json_object"}
        elif schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "strict": True, "schema": schema},
            }
        if request.tools:
            kwargs["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.schema,
                        "strict": True,
                    },
                }
                for t in request.tools
            ]
        if request.reasoning and self.profile.capabilities.reasoning_effort:
            kwargs["reasoning_effort"] = request.reasoning
        kwargs.update(sampling_options(self.profile, request))
        try:
            if not request.stream:
                return self._read_chat(_dump(await self._client.chat.completions.create(**kwargs)))
            kwargs["stream"] = True
            kwargs["stream_options"] = {"include_usage": True}
            return await self._stream_chat(kwargs)
        except openai.BadRequestError as exc:
            if _get(exc.body, "code") == "content_filter":  # Azure's prompt filter
                return Raw(stop=StopReason.CONTENT_FILTER, detail=f"prompt filtered: {exc.message}")
            raise

    def _read_chat(self, data: dict[str, Any]) -> Raw:
        usage = data.get("usage") or {}
        raw = Raw(
            usage=Usage(
                prompt_tokens=int(usage.get("prompt_tokens") or 0),
                completion_tokens=int(usage.get("completion_tokens") or 0),
            ),
            model=str(data.get("model") or ""),
        )
        choices = data.get("choices") or []
        if not choices:
            raw.stop = StopReason.EMPTY
            return raw
        choice = choices[0]
        message = choice.get("message") or {}
        buffer = ToolCallBuffer()
        for n, call in enumerate(message.get("tool_calls") or []):
            fn = call.get("function") or {}
            buffer.start(n, call_id=call.get("id"), name=fn.get("name"))
            buffer.set_arguments(n, fn.get("arguments") or "")
        return self._ending(
            raw,
            finish=choice.get("finish_reason"),
            text=message.get("content") or "",
            refusal=message.get("refusal"),
            calls=buffer.calls(),
        )

    def _ending(
        self, raw: Raw, *, finish: str | None, text: str, refusal: str | None, calls: list[ToolCall]
    ) -> Raw:
        raw.text, raw.tool_calls, raw.detail = text, calls, f"finish_reason={finish}"
        if refusal:
            raw.stop, raw.detail = StopReason.REFUSAL, refusal
        elif finish == "content_filter":
            raw.stop = StopReason.CONTENT_FILTER
        elif finish == "length":
            raw.stop = StopReason.TRUNCATED
        elif calls:
            raw.stop = StopReason.TOOL_CALLS
        else:
            raw.stop = StopReason.COMPLETE
        return raw

    async def _stream_chat(self, kwargs: dict[str, Any]) -> Raw:
        stream = await self._client.chat.completions.create(**kwargs)
        text: list[str] = []
        refusal: list[str] = []
        buffer = ToolCallBuffer()
        finish: str | None = None
        raw = Raw()
        started = False
        try:
            async with stream:
                async for chunk in stream:
                    started = True
                    data = _dump(chunk)
                    raw.model = raw.model or str(data.get("model") or "")
                    if data.get("usage"):
                        usage = data["usage"]
                        raw.usage = Usage(
                            prompt_tokens=int(usage.get("prompt_tokens") or 0),
                            completion_tokens=int(usage.get("completion_tokens") or 0),
                        )
                    for choice in data.get("choices") or []:
                        if choice.get("index", 0) != 0:
                            continue
                        delta = choice.get("delta") or {}
                        if delta.get("content"):
                            text.append(delta["content"])
                        if delta.get("refusal"):
                            refusal.append(delta["refusal"])
                        for call in delta.get("tool_calls") or []:
                            fn = call.get("function") or {}
                            key = call.get("index", 0)
                            buffer.start(key, call_id=call.get("id"), name=fn.get("name"))
                            buffer.add(key, fn.get("arguments"))
                        finish = choice.get("finish_reason") or finish
        except Exception as exc:
            if started:
                raise self._interrupted(exc) from None
            raise
        if not started:
            raw.stop = StopReason.EMPTY
            return raw
        return self._ending(
            raw,
            finish=finish,
            text="".join(text),
            refusal="".join(refusal) or None,
            calls=buffer.calls(),
        )

    async def _responses(
        self, request: ModelRequest, schema: JSONObject | None, prompt_only: bool
    ) -> Raw:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "input": [{"role": m.role, "content": m.content} for m in request.messages],
            "max_output_tokens": request.max_output_tokens,
        }
        if prompt_only:
            kwargs["text"] = {"format": {"type": "json_object"}}
        elif schema is not None:
            kwargs["text"] = {
                "format": {
                    "type": "json_schema",
                    "name": request.schema_name,
                    "strict": True,
                    "schema": schema,
                }
            }
        if request.tools:
            kwargs["tools"] = [
                {
                    "type": "function",
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.schema,
                    "strict": True,
                }
                for t in request.tools
            ]
        if request.reasoning and self.profile.capabilities.reasoning_effort:
            kwargs["reasoning"] = {"effort": request.reasoning}
        # The Responses API takes no seed.
        kwargs.update(
            {k: v for k, v in sampling_options(self.profile, request).items() if k != "seed"}
        )
        if not request.stream:
            return self._read_response(_dump(await self._client.responses.create(**kwargs)))
        kwargs["stream"] = True
        return await self._stream_responses(kwargs)

    def _read_response(self, data: dict[str, Any]) -> Raw:
        usage = data.get("usage") or {}
        raw = Raw(
            usage=Usage(
                prompt_tokens=int(usage.get("input_tokens") or 0),
                completion_tokens=int(usage.get("output_tokens") or 0),
            ),
            model=str(data.get("model") or ""),
        )
        text: list[str] = []
        refusal: list[str] = []
        buffer = ToolCallBuffer()
        for n, item in enumerate(data.get("output") or []):
            kind = item.get("type")
            if kind == "message":
                for part in item.get("content") or []:
                    if part.get("type") == "output_text":
                        text.append(part.get("text") or "")
                    elif part.get("type") == "refusal":
                        refusal.append(part.get("refusal") or "")
            elif kind == "function_call":
                buffer.start(n, call_id=item.get("call_id"), name=item.get("name"))
                buffer.set_arguments(n, item.get("arguments") or "")
        return self._response_ending(raw, data, "".join(text), "".join(refusal), buffer.calls())

    def _response_ending(
        self, raw: Raw, data: dict[str, Any], text: str, refusal: str, calls: list[ToolCall]
    ) -> Raw:
        status = data.get("status")
        reason = (data.get("incomplete_details") or {}).get("reason")
        raw.text, raw.tool_calls, raw.detail = text, calls, f"status={status} reason={reason}"
        if status == "failed":
            error = data.get("error") or {}
            raise ServerError(
                f"the response failed: {error.get('code')}: {error.get('message')}",
                provider=self.profile.id,
                code=error.get("code"),
            )
        if refusal:
            raw.stop, raw.detail = StopReason.REFUSAL, refusal
        elif status == "incomplete" and reason == "content_filter":
            raw.stop = StopReason.CONTENT_FILTER
        elif status == "incomplete":
            raw.stop = StopReason.TRUNCATED
        elif calls:
            raw.stop = StopReason.TOOL_CALLS
        else:
            raw.stop = StopReason.COMPLETE
        return raw

    async def _stream_responses(self, kwargs: dict[str, Any]) -> Raw:
        stream = await self._client.responses.create(**kwargs)
        text: list[str] = []
        refusal: list[str] = []
        buffer = ToolCallBuffer()
        final: dict[str, Any] | None = None
        started = False
        try:
            async with stream:
                async for event in stream:
                    started = True
                    data = _dump(event)
                    kind = data.get("type")
                    if kind == "response.output_text.delta":
                        text.append(data.get("delta") or "")
                    elif kind == "response.refusal.delta":
                        refusal.append(data.get("delta") or "")
                    elif kind == "response.output_item.added":
                        item = data.get("item") or {}
                        if item.get("type") == "function_call":
                            buffer.start(
                                item.get("id"), call_id=item.get("call_id"), name=item.get("name")
                            )
                    elif kind == "response.function_call_arguments.delta":
                        buffer.add(data.get("item_id"), data.get("delta"))
                    elif kind in ("response.completed", "response.incomplete", "response.failed"):
                        final = data.get("response") or {}
                    elif kind == "error":
                        inner = self._body_error(None, data, {}, str(data.get("message") or ""))
                        raise StreamInterrupted(
                            f"the stream broke: {data.get('code')}",
                            inner=inner,
                            provider=self.profile.id,
                        )
        except StreamInterrupted:
            raise
        except Exception as exc:
            if started:
                raise self._interrupted(exc) from None
            raise
        if final is None:
            if not started:
                return Raw(stop=StopReason.EMPTY)
            raise StreamInterrupted(
                "the stream ended without a final event",
                inner=ServerError("no final event", provider=self.profile.id),
                provider=self.profile.id,
            )
        usage = final.get("usage") or {}
        raw = Raw(
            usage=Usage(
                prompt_tokens=int(usage.get("input_tokens") or 0),
                completion_tokens=int(usage.get("output_tokens") or 0),
            ),
            model=str(final.get("model") or ""),
        )
        return self._response_ending(raw, final, "".join(text), "".join(refusal), buffer.calls())

    # ---------------------------------------------------------------- classifying
    def _interrupted(self, exc: Exception) -> ProviderError:
        inner = self._classify(exc)
        return StreamInterrupted(
            f"the stream broke after it started: {inner}", inner=inner, provider=self.profile.id
        )

    def _body_error(
        self, status: int | None, body: Any, headers: Mapping[str, str], message: str
    ) -> ProviderError:
        body = body if isinstance(body, Mapping) else {}
        code = str(body.get("code") or "") or None
        kind = str(body.get("type") or "") or None
        message = self.redact(str(body.get("message") or message))
        retry = retry_after_from_headers(headers) or extra_hint(message)
        overflow = match_overflow(self.overflow_patterns, message, code, kind) is not None
        quota = "insufficient_quota" in (code or "", kind or "")
        if status is None:  # an error inside a stream: classify by its type or code
            status = {
                "rate_limit_exceeded": 429,
                "rate_limit_error": 429,
                "overloaded_error": 503,
                "server_error": 500,
                "insufficient_quota": 429,
            }.get(code or kind or "", 500)
        if status == 503 and kind == "unavailable_error":  # llama-server "Loading model"
            status = 503
        return status_error(
            status,
            f"{self.vendor} answered {status}: {code or kind}: {message}",
            provider=self.profile.id,
            code=code or kind,
            retry_after=retry,
            overflow=overflow,
            quota=quota,
        )

    def _classify(self, exc: Exception) -> ProviderError:
        if isinstance(exc, openai.APIStatusError):
            headers = dict(exc.response.headers)
            return self._body_error(exc.status_code, exc.body, headers, exc.message)
        if isinstance(exc, openai.APIError) and not isinstance(exc, openai.APIConnectionError):
            return self._body_error(None, exc.body, {}, exc.message)
        found = transport_error(exc, provider=self.profile.id)
        if found is not None:
            return found
        return ServerError(
            self.redact(f"{self.vendor} call failed: {type(exc).__name__}: {exc}"),
            provider=self.profile.id,
        )


class AzureOpenAIProvider(OpenAIProvider):
    """A deployment on Azure OpenAI (``AzureOpenAI`` client of the same SDK).

    Args:
        deployment: the deployment name (sent as the model).
        endpoint: ``https://NAME.openai.azure.com`` (default: ``$AZURE_OPENAI_ENDPOINT``).
        api_key: the key (default: ``$AZURE_OPENAI_API_KEY``).
        api_version: the API version (default: ``$OPENAI_API_VERSION`` or ``2024-10-21``).
        profile: declared capabilities (default: an OpenAI profile named ``azure-openai``).
        timeout: seconds to wait for a response and between stream chunks.
        connect_timeout: seconds to wait for the connection.
    """

    key_variable = "AZURE_OPENAI_API_KEY"
    vendor = "Azure OpenAI"

    def __init__(
        self,
        deployment: str,
        *,
        endpoint: str | None = None,
        api_key: str | None = None,
        api_version: str | None = None,
        profile: ModelProfile | None = None,
        timeout: float = 60.0,
        connect_timeout: float = 5.0,
    ) -> None:
        found = endpoint or os.environ.get("AZURE_OPENAI_ENDPOINT")
        if not found:
            raise MissingCredential("AZURE_OPENAI_ENDPOINT", self.vendor)
        self._endpoint: str = found
        self._api_version = api_version or os.environ.get("OPENAI_API_VERSION") or "2024-10-21"
        super().__init__(
            deployment,
            api_key=api_key,
            profile=profile or openai_profile(deployment, provider="azure-openai"),
            timeout=timeout,
            connect_timeout=connect_timeout,
        )

    def _make_client(self, key: str, base_url: str | None, timeout: Any) -> Any:
        del base_url
        return openai.AsyncAzureOpenAI(
            api_key=key,
            azure_endpoint=self._endpoint,
            azure_deployment=self.model,
            api_version=self._api_version,
            max_retries=0,
            timeout=timeout,
        )


class OpenAICompatibleProvider(OpenAIProvider):
    """Any server speaking OpenAI Chat Completions: llama-server, vLLM, LM Studio, Ollama ``/v1``.

    Each server is its own profile: what it enforces differs (llama-server skips
    unsupported keywords silently; Ollama ``/v1`` has no ``tool_choice``), and a profile
    without ``structured_output`` makes a schema request fail loudly unless the request
    opts into prompt-only JSON.

    Args:
        model: the model name the server expects.
        base_url: the server's ``/v1`` URL.
        api_key: a key if the server wants one (default: ``$OPENAI_API_KEY`` or none).
        profile: declared capabilities (default: :func:`llama_server_profile`).
        timeout: seconds to wait for a response and between stream chunks.
        connect_timeout: seconds to wait for the connection.
    """

    vendor = "OpenAI-compatible server"

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        api_key: str | None = None,
        profile: ModelProfile | None = None,
        timeout: float = 120.0,
        connect_timeout: float = 5.0,
    ) -> None:
        super().__init__(
            model,
            api_key=api_key,
            base_url=base_url,
            profile=profile or llama_server_profile(model),
            timeout=timeout,
            connect_timeout=connect_timeout,
        )

    def _default_key(self, base_url: str | None) -> str | None:
        return "no-key" if base_url else None

    def _max_tokens(self, request: ModelRequest) -> dict[str, Any]:
        return {"max_tokens": request.max_output_tokens}
