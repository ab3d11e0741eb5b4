"""Amazon Bedrock's Converse and ConverseStream (extra ``bedrock``).

Through ``boto3``'s ``bedrock-runtime`` client (SigV4, the credential chain and the
binary event-stream protocol come from botocore) with
``Config(retries={"total_max_attempts": 1, "mode": "standard"})`` (ADR 0010). boto3 is
synchronous: each call, and each stream event, runs in a worker thread, and a
cancelled stream is closed at once.

Genuine structured output is ``outputConfig.textFormat`` (``json_schema``, the schema
sent as a string; model support varies, so it is a per-model profile) or a strict tool
forced with ``toolChoice`` (``mode="tool"``; Anthropic and Nova models only). The
enforced subset is taken as Claude's, the strictest of the served families.

``stopReason`` gives the states: ``guardrail_intervened`` and ``content_filtered`` are
``CONTENT_FILTER`` (Bedrock has no refusal state), ``max_tokens`` and
``model_context_window_exceeded`` are ``TRUNCATED``, ``malformed_model_output`` and
``malformed_tool_use`` are ``MALFORMED``. Errors are classified by their code, not
their status: ``ModelNotReadyException`` is a 429 that means overloaded, and
``ServiceQuotaExceededException`` a 400 that means quota. Bedrock sends no retry hint.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

try:
    import boto3
    from botocore.config import Config
    from botocore.exceptions import ClientError
except ImportError as _e:  # pragma: no cover - exercised without the extra
    raise ImportError('The Bedrock adapter needs boto3: pip install "turnframe[bedrock]"') from _e

import anyio

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
from turnframe.providers.redact import guard_loggers

__all__ = ["BEDROCK_SUBSET", "BedrockProvider", "bedrock_profile"]

BEDROCK_SUBSET = STRUCTURAL_KEYWORDS | {"const", "$ref", "$defs", "format", "description", "title"}

OVERFLOW_PATTERNS = (
    re.compile(r"Input is too long for requested model"),
    re.compile(r"prompt is too long: \d+ tokens > \d+"),
    re.compile(r"maximum context length is \d+"),  # models served through Mantle
)

# code → (status it means, flags); codes in stream exceptions start lower-case.
_CODES: dict[str, tuple[int, str]] = {
    "ThrottlingException": (429, ""),
    "ModelNotReadyException": (503, ""),
    "ServiceUnavailableException": (503, ""),
    "InternalServerException": (500, ""),
    "ModelErrorException": (500, ""),
    "ModelStreamErrorException": (500, ""),
    "ModelTimeoutException": (408, ""),
    "AccessDeniedException": (403, "auth"),
    "UnrecognizedClientException": (403, "auth"),
    "InvalidSignatureException": (403, "auth"),
    "ExpiredTokenException": (403, "auth"),
    "ServiceQuotaExceededException": (400, "quota"),
    "ValidationException": (400, ""),
    "ResourceNotFoundException": (404, ""),
}


def bedrock_profile(
    model: str, *, mode: str = "output_config", max_context: int = 200_000
) -> ModelProfile:
    """Return the profile of a Bedrock model id (``mode``: ``output_config`` or ``tool``)."""
    return ModelProfile(
        provider="bedrock",
        model=model,
        capabilities=Capabilities(
            structured_output=True,
            prompt_only_json=False,
            streaming=True,
            max_context=max_context,
            structured_mode=(
                "outputConfig.textFormat json_schema"
                if mode == "output_config"
                else "strict toolSpec, forced"
            ),
            schema_subset=BEDROCK_SUBSET,
            tool_calls=True,
            refusal_state=False,
        ),
    )


class BedrockProvider(VendorProvider):
    """A model on Amazon Bedrock.

    Args:
        model: the model or inference-profile id (``anthropic.claude-sonnet-4-6-v1:0``).
        region: the region (default: ``$AWS_REGION`` or ``$AWS_DEFAULT_REGION``).
        endpoint_url: another endpoint (a VPC endpoint, the conformance fake).
        aws_access_key_id: explicit credentials (default: boto3's credential chain).
        aws_secret_access_key: explicit credentials.
        aws_session_token: explicit credentials.
        mode: ``"output_config"`` or ``"tool"``.
        profile: declared capabilities (default: :func:`bedrock_profile`).
        timeout: read timeout in seconds (also between stream events).
        connect_timeout: seconds to wait for the connection.

    Raises:
        MissingCredential: no region, or no credentials anywhere in the chain.
    """

    overflow_patterns = OVERFLOW_PATTERNS

    def __init__(
        self,
        model: str,
        *,
        region: str | None = None,
        endpoint_url: str | None = None,
        aws_access_key_id: str | None = None,
        aws_secret_access_key: str | None = None,
        aws_session_token: str | None = None,
        mode: str = "output_config",
        profile: ModelProfile | None = None,
        timeout: float = 60.0,
        connect_timeout: float = 5.0,
    ) -> None:
        if mode not in ("output_config", "tool"):
            raise ValueError(f"mode must be 'output_config' or 'tool', not {mode!r}")
        region = region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
        if not region:
            raise MissingCredential("AWS_REGION", "Bedrock")
        session = boto3.Session(
            aws_access_key_id=aws_access_key_id,
            aws_secret_access_key=aws_secret_access_key,
            aws_session_token=aws_session_token,
            region_name=region,
        )
        bearer = os.environ.get("AWS_BEARER_TOKEN_BEDROCK")
        if not bearer and session.get_credentials() is None:
            raise MissingCredential(
                "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE, AWS_BEARER_TOKEN_BEDROCK)",
                "Bedrock",
            )
        super().__init__(
            profile or bedrock_profile(model, mode=mode),
            secrets=[aws_secret_access_key, aws_session_token, bearer],
        )
        self.model = model
        self.mode = mode
        # botocore logs raw response bodies at DEBUG; an echoed credential stays out.
        guard_loggers(
            ("botocore.parsers", "botocore.endpoint", "botocore.auth", "botocore.hooks"),
            [aws_secret_access_key, aws_session_token, bearer],
        )
        self._client: Any = session.client(
            "bedrock-runtime",
            endpoint_url=endpoint_url,
            config=Config(
                retries={"total_max_attempts": 1, "mode": "standard"},
                connect_timeout=connect_timeout,
                read_timeout=timeout,
            ),
        )

    async def aclose(self) -> None:
        """Close the client's connections."""
        await anyio.to_thread.run_sync(self._client.close)

    def _kwargs(self, request: ModelRequest, schema: JSONObject | None) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "modelId": self.model,
            "messages": [
                {"role": m.role, "content": [{"text": m.content}]}
                for m in request.messages
                if m.role != "system"
            ],
            "inferenceConfig": {
                "maxTokens": request.max_output_tokens,
                **sampling_options(self.profile, request),
            },
        }
        system = [{"text": m.content} for m in request.messages if m.role == "system"]
        if system:
            kwargs["system"] = system
        tools = [
            {
                "toolSpec": {
                    "name": t.name,
                    "description": t.description,
                    "inputSchema": {"json": t.schema},
                    "strict": True,
                }
            }
            for t in request.tools
        ]
        if schema is not None and not request.tools:
            if self.mode == "tool":
                tools.append(
                    {
                        "toolSpec": {
                            "name": request.schema_name,
                            "description": "Give the answer.",
                            "inputSchema": {"json": schema},
                            "strict": True,
                        }
                    }
                )
            else:
                kwargs["outputConfig"] = {
                    "textFormat": {
                        "type": "json_schema",
                        "structure": {
                            "jsonSchema": {
                                "name": request.schema_name,
                                "schema": json.dumps(schema),
                            }
                        },
                    }
                }
        if tools:
            kwargs["toolConfig"] = {"tools": tools}
            if self.mode == "tool" and not request.tools:
                kwargs["toolConfig"]["toolChoice"] = {"tool": {"name": request.schema_name}}
        return kwargs

    async def _call(
        self, request: ModelRequest, schema: JSONObject | None, prompt_only: bool
    ) -> Raw:
        del prompt_only
        kwargs = self._kwargs(request, schema)
        forced = request.schema_name if (self.mode == "tool" and not request.tools) else None
        if not request.stream:
            data = await anyio.to_thread.run_sync(
                lambda: self._client.converse(**kwargs), abandon_on_cancel=True
            )
            buffer = ToolCallBuffer()
            text: list[str] = []
            content = ((data.get("output") or {}).get("message") or {}).get("content") or []
            for n, block in enumerate(content):
                if "text" in block:
                    text.append(block["text"] or "")
                elif "toolUse" in block:
                    use = block["toolUse"]
                    buffer.start(n, call_id=use.get("toolUseId"), name=use.get("name"))
                    buffer.set_arguments(n, use.get("input") or {})
            return self._ending(
                data.get("stopReason"), "".join(text), buffer, data.get("usage") or {}, forced
            )
        return await self._stream(kwargs, forced)

    async def _stream(self, kwargs: dict[str, Any], forced: str | None) -> Raw:
        response = await anyio.to_thread.run_sync(
            lambda: self._client.converse_stream(**kwargs), abandon_on_cancel=True
        )
        stream = response["stream"]
        events = iter(stream)
        text: list[str] = []
        buffer = ToolCallBuffer()
        stop: str | None = None
        usage: dict[str, Any] = {}
        started = False
        done = object()
        try:
            while True:
                event: Any = await anyio.to_thread.run_sync(
                    lambda: next(events, done), abandon_on_cancel=True
                )
                if event is done:
                    break
                started = True
                if "contentBlockStart" in event:
                    start = event["contentBlockStart"]
                    use = (start.get("start") or {}).get("toolUse")
                    if use:
                        buffer.start(
                            start.get("contentBlockIndex"),
                            call_id=use.get("toolUseId"),
                            name=use.get("name"),
                        )
                elif "contentBlockDelta" in event:
                    delta = event["contentBlockDelta"]
                    piece = delta.get("delta") or {}
                    if "text" in piece:
                        text.append(piece["text"] or "")
                    elif "toolUse" in piece:
                        buffer.add(
                            delta.get("contentBlockIndex"), (piece["toolUse"] or {}).get("input")
                        )
                elif "messageStop" in event:
                    stop = event["messageStop"].get("stopReason")
                elif "metadata" in event:
                    usage = event["metadata"].get("usage") or {}
        except Exception as exc:
            if started:
                inner = self._classify(exc)
                raise StreamInterrupted(
                    f"the stream broke after it started: {inner}",
                    inner=inner,
                    provider=self.profile.id,
                ) from None
            raise
        finally:
            stream.close()
        if not started:
            return Raw(stop=StopReason.EMPTY)
        return self._ending(stop, "".join(text), buffer, usage, forced)

    def _ending(
        self,
        stop: str | None,
        text: str,
        buffer: ToolCallBuffer,
        usage: dict[str, Any],
        forced: str | None,
    ) -> Raw:
        calls = buffer.calls()
        raw = Raw(
            text=text,
            tool_calls=calls,
            usage=Usage(
                prompt_tokens=int(usage.get("inputTokens") or 0),
                completion_tokens=int(usage.get("outputTokens") or 0),
            ),
            detail=f"stopReason={stop}",
        )
        if stop in ("guardrail_intervened", "content_filtered"):
            raw.stop = StopReason.CONTENT_FILTER
        elif stop in ("max_tokens", "model_context_window_exceeded"):
            raw.stop = StopReason.TRUNCATED
        elif stop in ("malformed_model_output", "malformed_tool_use"):
            raw.stop = StopReason.MALFORMED
        elif forced and calls and all(c.name == forced for c in calls):
            raw.text = calls[0].arguments if len(calls) == 1 else ""
            raw.tool_calls = [] if len(calls) == 1 else calls
            raw.stop = StopReason.COMPLETE if len(calls) == 1 else StopReason.MALFORMED
        elif calls:
            raw.stop = StopReason.TOOL_CALLS
        else:
            raw.stop = StopReason.COMPLETE
        return raw

    def _classify(self, exc: Exception) -> ProviderError:
        if isinstance(exc, ClientError):
            error = exc.response.get("Error") or {}
            code = str(error.get("Code") or "")
            code = code[:1].upper() + code[1:]
            message = self.redact(str(error.get("Message") or ""))
            status, flag = _CODES.get(code, (0, ""))
            if not status:
                status = int(
                    (exc.response.get("ResponseMetadata") or {}).get("HTTPStatusCode") or 500
                )
            return status_error(
                status,
                f"Bedrock answered {code}: {message}",
                provider=self.profile.id,
                code=code,
                overflow=code == "ValidationException"
                and match_overflow(self.overflow_patterns, message) is not None,
                quota=flag == "quota",
                auth=flag == "auth",
            )
        found = transport_error(exc, provider=self.profile.id)
        if found is not None:
            return found
        return ServerError(
            self.redact(f"Bedrock call failed: {type(exc).__name__}: {exc}"),
            provider=self.profile.id,
        )
