"""Anthropic's Messages API (extra ``anthropic``).

Through the official ``anthropic`` SDK with ``max_retries=0`` (ADR 0010) and a pinned
``anthropic-version``. Genuine structured output is ``output_config.format``
(``json_schema``, the default mode) or a strict tool forced with ``tool_choice``
(``mode="tool"``). The schema is cut to the subset Anthropic enforces: numeric and
length limits and ``maxItems`` are not enforced by the API (its own SDK moves them into
descriptions), so they are never sent and are checked against the full schema after.

``stop_reason`` decides the outcome before anything is parsed: ``refusal``,
``max_tokens``, ``model_context_window_exceeded`` and empty content are states. A
``529 overloaded_error`` (also as an ``event: error`` mid-stream) is :class:`Overloaded`;
a spend-limit 429 (``enforced_spend_limit_reached``) is :class:`QuotaExceeded`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

try:
    import anthropic
    import httpx2
except ImportError as _e:  # pragma: no cover - exercised without the extra
    raise ImportError(
        'The Anthropic adapter needs the Anthropic SDK: pip install "turnframe[anthropic]"'
    ) from _e

from turnframe.core.ids import JSONObject
from turnframe.providers.adapter import (
    STRUCTURAL_KEYWORDS,
    Raw,
    ToolCallBuffer,
    VendorProvider,
    match_overflow,
    retry_after_from_headers,
    sampling_options,
    status_error,
    transport_error,
)
from turnframe.providers.adapter import (
    sdk_dump as _dump,
)
from turnframe.providers.base import Capabilities, ModelProfile, ModelRequest, StopReason, Usage
from turnframe.providers.errors import (
    MissingCredential,
    ProviderError,
    ServerError,
    StreamInterrupted,
)

__all__ = ["ANTHROPIC_SUBSET", "API_VERSION", "AnthropicProvider", "anthropic_profile"]

API_VERSION = "2023-06-01"
"""The pinned ``anthropic-version`` header (the SDK's own default moves with releases)."""

ANTHROPIC_SUBSET = STRUCTURAL_KEYWORDS | {
    "const",
    "$ref",
    "$defs",
    "format",
    "description",
    "title",
}
"""What ``output_config.format`` and strict tools enforce (``minItems`` only as 0 or 1, so
it is left out too)."""

OVERFLOW_PATTERNS = (
    re.compile(r"prompt is too long: \d+ tokens > \d+"),
    re.compile(r"input length and `max_tokens` exceed context limit"),
)

_STATUS_BY_TYPE = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}


def anthropic_profile(
    model: str, *, mode: str = "output_config", max_context: int = 200_000
) -> ModelProfile:
    """Return the profile of a Claude model (``mode``: ``output_config`` or ``tool``)."""
    return ModelProfile(
        provider="anthropic",
        model=model,
        capabilities=Capabilities(
            structured_output=True,
            prompt_only_json=False,
            streaming=True,
            max_context=max_context,
            structured_mode=(
                "output_config.format json_schema"
                if mode == "output_config"
                else "strict tool, forced"
            ),
            schema_subset=ANTHROPIC_SUBSET,
            tool_calls=True,
            refusal_state=True,
            # The Messages API of the supported SDK (2.x) takes no temperature and no seed.
            temperature=False,
        ),
    )


class AnthropicProvider(VendorProvider):
    """A Claude model.

    Args:
        model: the model id (``claude-sonnet-4-6``).
        api_key: the key (default: ``$ANTHROPIC_API_KEY``).
        base_url: another endpoint (default: ``$ANTHROPIC_BASE_URL`` or Anthropic's).
        mode: ``"output_config"`` (JSON outputs) or ``"tool"`` (a strict tool, forced).
        profile: declared capabilities (default: :func:`anthropic_profile`).
        timeout: seconds to wait for a response and between stream events.
        connect_timeout: seconds to wait for the connection.

    Raises:
        MissingCredential: no key given and ``$ANTHROPIC_API_KEY`` unset.
    """

    overflow_patterns = OVERFLOW_PATTERNS

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        mode: str = "output_config",
        profile: ModelProfile | None = None,
        timeout: float = 60.0,
        connect_timeout: float = 5.0,
    ) -> None:
        if mode not in ("output_config", "tool"):
            raise ValueError(f"mode must be 'output_config' or 'tool', not {mode!r}")
        key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise MissingCredential("ANTHROPIC_API_KEY", "Anthropic")
        super().__init__(profile or anthropic_profile(model, mode=mode), secrets=[key])
        self.model = model
        self.mode = mode
        self._client: Any = anthropic.AsyncAnthropic(
            api_key=key,
            base_url=base_url,
            max_retries=0,
            timeout=httpx2.Timeout(timeout, connect=connect_timeout),
            default_headers={"anthropic-version": API_VERSION},
        )

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        await self._client.close()

    def _kwargs(self, request: ModelRequest, schema: JSONObject | None) -> dict[str, Any]:
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_output_tokens,
            **sampling_options(self.profile, request),
            "messages": [
                {"role": m.role, "content": m.content}
                for m in request.messages
                if m.role != "system"
            ],
        }
        if system:
            kwargs["system"] = system
        tools = [
            {"name": t.name, "description": t.description, "input_schema": t.schema, "strict": True}
            for t in request.tools
        ]
        if schema is not None and not request.tools:
            if self.mode == "tool":
                tools.append(
                    {
                        "name": request.schema_name,
                        "description": "Give the answer.",
                        "input_schema": schema,
                        "strict": True,
                    }
                )
                kwargs["tool_choice"] = {"type": "tool", "name": request.schema_name}
            else:
                kwargs["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
        if tools:
            kwargs["tools"] = tools
        return kwargs

    async def _call(
        self, request: ModelRequest, schema: JSONObject | None, prompt_only: bool
    ) -> Raw:
        del prompt_only  # the profile has no prompt-only JSON; prepare() refuses it
        kwargs = self._kwargs(request, schema)
        forced = request.schema_name if (self.mode == "tool" and not request.tools) else None
        if not request.stream:
            data = _dump(await self._client.messages.create(**kwargs))
            buffer = ToolCallBuffer()
            text: list[str] = []
            for n, block in enumerate(data.get("content") or []):
                if block.get("type") == "text":
                    text.append(block.get("text") or "")
                elif block.get("type") == "tool_use":
                    buffer.start(n, call_id=block.get("id"), name=block.get("name"))
                    buffer.set_arguments(n, block.get("input") or {})
            usage = data.get("usage") or {}
            return self._ending(
                data.get("stop_reason"),
                "".join(text),
                buffer,
                Usage(
                    prompt_tokens=int(usage.get("input_tokens") or 0),
                    completion_tokens=int(usage.get("output_tokens") or 0),
                ),
                forced,
            )
        return await self._stream(kwargs, forced)

    async def _stream(self, kwargs: dict[str, Any], forced: str | None) -> Raw:
        stream = await self._client.messages.create(**kwargs, stream=True)
        text: list[str] = []
        buffer = ToolCallBuffer()
        stop: str | None = None
        prompt_tokens = completion_tokens = 0
        started = False
        try:
            async with stream:
                async for event in stream:
                    started = True
                    data = _dump(event)
                    kind = data.get("type")
                    if kind == "message_start":
                        usage = (data.get("message") or {}).get("usage") or {}
                        prompt_tokens = int(usage.get("input_tokens") or 0)
                    elif kind == "content_block_start":
                        block = data.get("content_block") or {}
                        if block.get("type") == "tool_use":
                            buffer.start(
                                data.get("index"), call_id=block.get("id"), name=block.get("name")
                            )
                        elif block.get("type") == "text" and block.get("text"):
                            text.append(block["text"])
                    elif kind == "content_block_delta":
                        delta = data.get("delta") or {}
                        if delta.get("type") == "text_delta":
                            text.append(delta.get("text") or "")
                        elif delta.get("type") == "input_json_delta":
                            buffer.add(data.get("index"), delta.get("partial_json"))
                    elif kind == "message_delta":
                        stop = (data.get("delta") or {}).get("stop_reason") or stop
                        completion_tokens = int((data.get("usage") or {}).get("output_tokens") or 0)
        except Exception as exc:
            if started:
                inner = self._classify(exc)
                raise StreamInterrupted(
                    f"the stream broke after it started: {inner}",
                    inner=inner,
                    provider=self.profile.id,
                ) from None
            raise
        if not started:
            return Raw(stop=StopReason.EMPTY)
        return self._ending(
            stop,
            "".join(text),
            buffer,
            Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens),
            forced,
        )

    def _ending(
        self, stop: str | None, text: str, buffer: ToolCallBuffer, usage: Usage, forced: str | None
    ) -> Raw:
        calls = buffer.calls()
        raw = Raw(text=text, tool_calls=calls, usage=usage, detail=f"stop_reason={stop}")
        if stop == "refusal":
            raw.stop = StopReason.REFUSAL
        elif stop in ("max_tokens", "model_context_window_exceeded", "pause_turn"):
            raw.stop = StopReason.TRUNCATED
        elif forced and calls and all(c.name == forced for c in calls):
            # The forced tool is the answer; several calls cannot be one answer.
            raw.text = calls[0].arguments if len(calls) == 1 else ""
            raw.tool_calls = [] if len(calls) == 1 else calls
            raw.stop = StopReason.COMPLETE if len(calls) == 1 else StopReason.MALFORMED
        elif calls:
            raw.stop = StopReason.TOOL_CALLS
        else:
            raw.stop = StopReason.COMPLETE
        return raw

    def _classify(self, exc: Exception) -> ProviderError:
        if isinstance(exc, anthropic.APIStatusError):
            body: Mapping[str, Any] = exc.body if isinstance(exc.body, Mapping) else {}
            nested = body.get("error")
            error: Mapping[str, Any] = nested if isinstance(nested, Mapping) else body
            kind = str(error.get("type") or "") or None
            message = self.redact(str(error.get("message") or exc.message))
            found = error.get("details")
            details: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
            status = exc.status_code
            if status == 200 and kind:  # an ``event: error`` inside a stream
                status = _STATUS_BY_TYPE.get(kind, 500)
            headers = dict(exc.response.headers)
            return status_error(
                status,
                f"Anthropic answered {status}: {kind}: {message}",
                provider=self.profile.id,
                code=kind,
                retry_after=retry_after_from_headers(headers),
                overflow=match_overflow(self.overflow_patterns, message) is not None,
                quota=kind == "billing_error"
                or details.get("error_code") == "enforced_spend_limit_reached",
                auth=kind in ("authentication_error", "permission_error"),
            )
        found = transport_error(exc, provider=self.profile.id)
        if found is not None:
            return found
        return ServerError(
            self.redact(f"Anthropic call failed: {type(exc).__name__}: {json.dumps(str(exc))}"),
            provider=self.profile.id,
        )
