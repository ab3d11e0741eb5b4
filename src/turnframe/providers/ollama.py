"""Ollama's native ``/api/chat`` (extra ``ollama``).

The official ``ollama`` client sets up the connection (host parsing, ``$OLLAMA_HOST``,
``$OLLAMA_API_KEY`` for ollama.com) with an explicit timeout: its own default is none
at all. The request goes through that client's HTTP connection as a plain
``/api/chat`` body, because the SDK's ``chat()`` cannot send two fields the adapter
needs: ``"truncate": false`` and ``"shift": false``. Without them Ollama silently drops
the oldest messages to fit ``num_ctx``; with them an overflow is an error. The client
has no retries to turn off (ADR 0010).

Genuine structured output is ``format`` with a JSON schema. Ollama forwards it to
llama.cpp's grammar converter, which skips unsupported keywords silently, so the
profile declares the same subset as llama-server. ``format: "json"`` is prompt-only
JSON. Ollama has no refusal or filter states; ``done_reason: length`` is
``TRUNCATED``; an ``{"error": ...}`` line under HTTP 200 is a mid-stream error.
Tool calls may come without ids; the adapter numbers them and marks them synthetic.
Ollama's cloud models do not support structured output: give them a profile without it.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

try:
    import httpx
    import ollama
except ImportError as _e:  # pragma: no cover - exercised without the extra
    raise ImportError(
        'The Ollama adapter needs the ollama client: pip install "turnframe[ollama]"'
    ) from _e

from turnframe.core.ids import JSONObject
from turnframe.providers.adapter import (
    STRUCTURAL_KEYWORDS,
    Raw,
    ToolCallBuffer,
    VendorProvider,
    match_overflow,
    sampling_options,
    status_error,
    transport_error,
)
from turnframe.providers.base import Capabilities, ModelProfile, ModelRequest, StopReason, Usage
from turnframe.providers.errors import ProviderError, ServerError, StreamInterrupted

__all__ = ["OLLAMA_SUBSET", "OllamaProvider", "ollama_profile"]

OLLAMA_SUBSET = STRUCTURAL_KEYWORDS | {
    "const",
    "oneOf",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "description",
    "title",
}

OVERFLOW_PATTERNS = (
    re.compile(r"the input length exceeds the context length"),
    re.compile(r"prompt is longer than the context length"),
    re.compile(r"exceeds the available context size"),
)


def ollama_profile(model: str, *, max_context: int = 8192) -> ModelProfile:
    """Return the profile of a local Ollama model with ``format`` schemas."""
    return ModelProfile(
        provider="ollama",
        model=model,
        capabilities=Capabilities(
            structured_output=True,
            prompt_only_json=True,
            streaming=True,
            max_context=max_context,
            structured_mode="format json schema → GBNF grammar",
            schema_subset=OLLAMA_SUBSET,
            seed=True,
            tool_calls=True,
            refusal_state=False,
        ),
    )


class _MidStream(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class OllamaProvider(VendorProvider):
    """A model served by Ollama.

    Args:
        model: the model name (``qwen3:0.6b``).
        host: the server (default: ``$OLLAMA_HOST`` or ``http://127.0.0.1:11434``).
        api_key: a key for ollama.com (default: ``$OLLAMA_API_KEY``; none locally).
        profile: declared capabilities (default: :func:`ollama_profile`).
        num_ctx: the context size to ask for (default: the profile's ``max_context``).
        timeout: seconds to wait for a response and between stream lines.
        connect_timeout: seconds to wait for the connection.
    """

    overflow_patterns = OVERFLOW_PATTERNS

    def __init__(
        self,
        model: str,
        *,
        host: str | None = None,
        api_key: str | None = None,
        profile: ModelProfile | None = None,
        num_ctx: int | None = None,
        timeout: float = 120.0,
        connect_timeout: float = 5.0,
    ) -> None:
        key = api_key or os.environ.get("OLLAMA_API_KEY")
        super().__init__(profile or ollama_profile(model), secrets=[key])
        self.model = model
        self.num_ctx = num_ctx or self.profile.capabilities.max_context
        self._sdk = ollama.AsyncClient(
            host=host,
            timeout=httpx.Timeout(timeout, connect=connect_timeout),
            headers={"Authorization": f"Bearer {key}"} if key else None,
        )
        # The SDK's configured HTTP client (base URL, auth header, timeouts).
        self._http: httpx.AsyncClient = self._sdk._client

    async def aclose(self) -> None:
        """Close the client's connections."""
        await self._http.aclose()

    def _body(
        self, request: ModelRequest, schema: JSONObject | None, prompt_only: bool
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "stream": request.stream,
            "truncate": False,
            "shift": False,
            "options": {
                "num_ctx": self.num_ctx,
                "num_predict": request.max_output_tokens,
                **sampling_options(self.profile, request),
            },
        }
        if prompt_only:
            body["format"] = "json"
        elif schema is not None and not request.tools:
            body["format"] = schema
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.schema,
                    },
                }
                for t in request.tools
            ]
        if request.reasoning is None:
            body["think"] = False
        return body

    async def _call(
        self, request: ModelRequest, schema: JSONObject | None, prompt_only: bool
    ) -> Raw:
        body = self._body(request, schema, prompt_only)
        if not request.stream:
            response = await self._http.post("/api/chat", json=body)
            if response.status_code >= 400:
                raise self._status(response.status_code, response.text)
            data = response.json()
            if data.get("error"):
                raise self._status(500, json.dumps(data))
            return self._read([data])
        lines: list[dict[str, Any]] = []
        async with self._http.stream("POST", "/api/chat", json=body) as response:
            if response.status_code >= 400:
                raise self._status(
                    response.status_code, (await response.aread()).decode(errors="replace")
                )
            try:
                async for line in response.aiter_lines():
                    if not line.strip():
                        continue
                    data = json.loads(line)
                    if data.get("error"):
                        raise _MidStream(str(data["error"]))
                    lines.append(data)
            except _MidStream as exc:
                inner = ServerError(
                    self.redact(f"Ollama failed mid-stream: {exc.message}"),
                    provider=self.profile.id,
                )
                raise StreamInterrupted(
                    f"the stream broke after it started: {inner}",
                    inner=inner,
                    provider=self.profile.id,
                ) from None
            except Exception as exc:
                if lines:
                    cause = self._classify(exc)
                    raise StreamInterrupted(
                        f"the stream broke after it started: {cause}",
                        inner=cause,
                        provider=self.profile.id,
                    ) from None
                raise
        if lines and not lines[-1].get("done"):
            inner = ServerError("the stream ended before done", provider=self.profile.id)
            raise StreamInterrupted(
                "the stream ended before its last line", inner=inner, provider=self.profile.id
            )
        return self._read(lines)

    def _read(self, lines: list[dict[str, Any]]) -> Raw:
        text: list[str] = []
        buffer = ToolCallBuffer()
        n_calls = 0
        for data in lines:
            message = data.get("message") or {}
            text.append(message.get("content") or "")
            for call in message.get("tool_calls") or []:
                fn = call.get("function") or {}
                buffer.start(n_calls, call_id=call.get("id"), name=fn.get("name"))
                buffer.set_arguments(n_calls, fn.get("arguments") or {})
                n_calls += 1
        last = lines[-1] if lines else {}
        reason = last.get("done_reason")
        raw = Raw(
            text="".join(text),
            tool_calls=buffer.calls(),
            usage=Usage(
                prompt_tokens=int(last.get("prompt_eval_count") or 0),
                completion_tokens=int(last.get("eval_count") or 0),
            ),
            detail=f"done_reason={reason}",
        )
        if not lines:
            raw.stop = StopReason.EMPTY
        elif reason == "length":
            raw.stop = StopReason.TRUNCATED
        elif raw.tool_calls:
            raw.stop = StopReason.TOOL_CALLS
        else:
            raw.stop = StopReason.COMPLETE
        return raw

    def _status(self, status: int, text: str) -> ProviderError:
        try:
            message = str(json.loads(text).get("error") or text)
        except (ValueError, AttributeError):
            message = text
        message = self.redact(message)[:500]
        return status_error(
            status,
            f"Ollama answered {status}: {message}",
            provider=self.profile.id,
            overflow=match_overflow(self.overflow_patterns, message) is not None,
        )

    def _classify(self, exc: Exception) -> ProviderError:
        if isinstance(exc, ollama.ResponseError):
            return self._status(exc.status_code, str(exc.error))
        found = transport_error(exc, provider=self.profile.id)
        if found is not None:
            return found
        return ServerError(
            self.redact(f"Ollama call failed: {type(exc).__name__}: {exc}"),
            provider=self.profile.id,
        )
