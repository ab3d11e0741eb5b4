"""Google Gemini, on the Gemini API (AI Studio) or Vertex AI (extra ``gemini``).

Through the official ``google-genai`` SDK with ``HttpRetryOptions(attempts=1)``, which
also turns off its implicit retry on connection errors (ADR 0010). Genuine structured output
is ``response_mime_type: application/json`` with ``response_json_schema``; the schema is
cut to the SDK's documented allow-list (``const`` is sent as a one-value ``enum``,
length limits and ``uniqueItems`` are left to the full-schema check).

Gemini has no refusal state: a blocked prompt (``promptFeedback.blockReason``, no
candidates) and a blocked answer (``SAFETY``, ``PROHIBITED_CONTENT``...) are both
``CONTENT_FILTER``; ``MAX_TOKENS`` with or without content is ``TRUNCATED``;
``MALFORMED_FUNCTION_CALL`` is ``MALFORMED``. Rate limits carry their hint in the body
(``google.rpc.RetryInfo.retryDelay``), not in a header; a per-day ``QuotaFailure`` is
:class:`QuotaExceeded`; an invalid key is an HTTP 400 (``API_KEY_INVALID``).
Function calls may come without ids; the adapter numbers them and marks them synthetic.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

import anyio

try:
    from google import genai
    from google.genai import errors as genai_errors
    from google.genai import types as genai_types
except ImportError as _e:  # pragma: no cover - exercised without the extra
    raise ImportError(
        'The Gemini adapter needs the google-genai SDK: pip install "turnframe[gemini]"'
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
from turnframe.providers.errors import (
    MissingCredential,
    ProviderError,
    ServerError,
    StreamInterrupted,
)

__all__ = ["GEMINI_SUBSET", "GeminiProvider", "gemini_profile"]

GEMINI_SUBSET = STRUCTURAL_KEYWORDS | {
    "$id",
    "$defs",
    "$ref",
    "$anchor",
    "format",
    "title",
    "description",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "oneOf",
    "propertyOrdering",
}
"""The ``response_json_schema`` allow-list documented in google-genai's ``types.py``."""

OVERFLOW_PATTERNS = (
    re.compile(r"input token count \(\d+\) exceeds the maximum number of tokens allowed"),
)

_FILTERED = {
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "IMAGE_SAFETY",
    "LANGUAGE",
}
_MALFORMED = {"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"}


def gemini_profile(model: str, *, max_context: int = 1_048_576) -> ModelProfile:
    """Return the profile of a Gemini model with ``response_json_schema``."""
    return ModelProfile(
        provider="gemini",
        model=model,
        capabilities=Capabilities(
            structured_output=True,
            prompt_only_json=True,
            streaming=True,
            max_context=max_context,
            structured_mode="response_json_schema",
            schema_subset=GEMINI_SUBSET,
            respelled=frozenset({"const"}),
            seed=True,
            tool_calls=True,
            refusal_state=False,
        ),
    )


def _duration(value: Any) -> float | None:
    if isinstance(value, str) and value.endswith("s"):
        try:
            return float(value[:-1])
        except ValueError:
            return None
    return None


class GeminiProvider(VendorProvider):
    """A Gemini model.

    Args:
        model: the model id (``gemini-2.5-flash``).
        api_key: the key (default: ``$GEMINI_API_KEY`` or ``$GOOGLE_API_KEY``).
        base_url: another endpoint (a proxy, the conformance fake).
        vertexai: use Vertex AI with application default credentials instead of a key
            (``project``/``location`` or ``$GOOGLE_CLOUD_PROJECT``/``$GOOGLE_CLOUD_LOCATION``).
        project: the Vertex project.
        location: the Vertex location.
        profile: declared capabilities (default: :func:`gemini_profile`).
        timeout: seconds for the whole call.

    Raises:
        MissingCredential: no key and neither variable set (AI Studio).
    """

    overflow_patterns = OVERFLOW_PATTERNS

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        vertexai: bool = False,
        project: str | None = None,
        location: str | None = None,
        profile: ModelProfile | None = None,
        timeout: float = 60.0,
    ) -> None:
        key = None
        if not vertexai:
            key = api_key or os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")
            if not key:
                raise MissingCredential("GEMINI_API_KEY (or GOOGLE_API_KEY)", "Gemini")
        super().__init__(profile or gemini_profile(model), secrets=[key])
        self.model = model
        options = genai_types.HttpOptions(
            base_url=base_url,
            timeout=int(timeout * 1000),
            retry_options=genai_types.HttpRetryOptions(attempts=1),
        )
        # The adapter owns the client: a Client nobody references is closed by the GC.
        if vertexai:
            self._client: Any = genai.Client(
                vertexai=True, project=project, location=location, http_options=options
            )
        else:
            self._client = genai.Client(api_key=key, http_options=options)

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        await self._client.aio.aclose()

    def _rewrite(self, node: dict[str, Any]) -> dict[str, Any]:
        if "const" in node:
            node = dict(node)
            node["enum"] = [node.pop("const")]
        return node

    def _config(
        self, request: ModelRequest, schema: JSONObject | None, prompt_only: bool
    ) -> dict[str, Any]:
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        config: dict[str, Any] = {
            "max_output_tokens": request.max_output_tokens,
            **sampling_options(self.profile, request),
        }
        if system:
            config["system_instruction"] = system
        if request.tools:
            config["tools"] = [
                {
                    "function_declarations": [
                        {
                            "name": t.name,
                            "description": t.description,
                            "parameters_json_schema": t.schema,
                        }
                        for t in request.tools
                    ]
                }
            ]
        elif prompt_only:
            config["response_mime_type"] = "application/json"
        elif schema is not None:
            config["response_mime_type"] = "application/json"
            config["response_json_schema"] = schema
        return config

    async def _call(
        self, request: ModelRequest, schema: JSONObject | None, prompt_only: bool
    ) -> Raw:
        contents = [
            {"role": "model" if m.role == "assistant" else "user", "parts": [{"text": m.content}]}
            for m in request.messages
            if m.role != "system"
        ]
        config = self._config(request, schema, prompt_only)
        models = self._client.aio.models
        if not request.stream:
            response = await models.generate_content(
                model=self.model, contents=contents, config=config
            )
            return self._read([response.model_dump(mode="json", exclude_none=True)])
        chunks: list[dict[str, Any]] = []
        stream = await models.generate_content_stream(
            model=self.model, contents=contents, config=config
        )
        try:
            async for chunk in stream:
                chunks.append(chunk.model_dump(mode="json", exclude_none=True))
        except Exception as exc:
            if chunks:
                inner = self._classify(exc)
                raise StreamInterrupted(
                    f"the stream broke after it started: {inner}",
                    inner=inner,
                    provider=self.profile.id,
                ) from None
            raise
        finally:
            closer = getattr(stream, "aclose", None)
            if closer is not None:
                with anyio.CancelScope(shield=True):  # close the response even when cancelled
                    await closer()
        return self._read(chunks)

    def _read(self, chunks: list[dict[str, Any]]) -> Raw:
        """Read one response or a stream's chunks (each a whole ``GenerateContentResponse``)."""
        text: list[str] = []
        buffer = ToolCallBuffer()
        finish: str | None = None
        block: str | None = None
        usage: Mapping[str, Any] = {}
        n_calls = 0
        for chunk in chunks:
            feedback = chunk.get("prompt_feedback") or {}
            block = feedback.get("block_reason") or block
            usage = chunk.get("usage_metadata") or usage
            for candidate in (chunk.get("candidates") or [])[:1]:
                finish = candidate.get("finish_reason") or finish
                for part in (candidate.get("content") or {}).get("parts") or []:
                    if part.get("thought"):
                        continue
                    if "text" in part:
                        text.append(part["text"] or "")
                    call = part.get("function_call")
                    if call:
                        buffer.start(n_calls, call_id=call.get("id"), name=call.get("name"))
                        buffer.set_arguments(n_calls, call.get("args") or {})
                        n_calls += 1
        raw = Raw(
            text="".join(text),
            tool_calls=buffer.calls(),
            usage=Usage(
                prompt_tokens=int(usage.get("prompt_token_count") or 0),
                completion_tokens=int(usage.get("candidates_token_count") or 0),
            ),
            detail=f"finish_reason={finish} block_reason={block}",
        )
        if block:
            raw.stop = StopReason.CONTENT_FILTER
        elif finish in _FILTERED:
            raw.stop = StopReason.CONTENT_FILTER
        elif finish == "MAX_TOKENS":
            raw.stop = StopReason.TRUNCATED
        elif finish in _MALFORMED:
            raw.stop = StopReason.MALFORMED
        elif raw.tool_calls:
            raw.stop = StopReason.TOOL_CALLS
        elif not chunks or finish is None and not raw.text:
            raw.stop = StopReason.EMPTY
        else:
            raw.stop = StopReason.COMPLETE
        return raw

    def _classify(self, exc: Exception) -> ProviderError:
        if isinstance(exc, genai_errors.APIError):
            body: Mapping[str, Any] = exc.details if isinstance(exc.details, Mapping) else {}
            nested = body.get("error")
            error: Mapping[str, Any] = nested if isinstance(nested, Mapping) else body
            status = int(exc.code) if exc.code else None
            state = str(error.get("status") or exc.status or "") or None
            message = self.redact(str(error.get("message") or exc.message or ""))
            retry: float | None = None
            per_day = False
            key_invalid = False
            for detail in error.get("details") or []:
                if not isinstance(detail, Mapping):
                    continue
                kind = str(detail.get("@type") or "")
                if kind.endswith("RetryInfo"):
                    retry = _duration(detail.get("retryDelay"))
                elif kind.endswith("QuotaFailure"):
                    for violation in detail.get("violations") or []:
                        quota_id = str(violation.get("quotaId") or "")
                        if "PerDay" in quota_id or "per_day" in quota_id.lower():
                            per_day = True
                elif kind.endswith("ErrorInfo") and detail.get("reason") == "API_KEY_INVALID":
                    key_invalid = True
            return status_error(
                status,
                f"Gemini answered {status} {state}: {message}",
                provider=self.profile.id,
                code=state,
                retry_after=retry,
                overflow=match_overflow(self.overflow_patterns, message) is not None,
                quota=per_day,
                auth=key_invalid or state in ("UNAUTHENTICATED", "PERMISSION_DENIED"),
            )
        found = transport_error(exc, provider=self.profile.id)
        if found is not None:
            return found
        return ServerError(
            self.redact(f"Gemini call failed: {type(exc).__name__}: {exc}"),
            provider=self.profile.id,
        )
