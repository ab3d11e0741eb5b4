"""What every vendor adapter shares.

See docs/architecture.md "Providers", docs/provider-adapters.md
"What every adapter does the same way".

Capability checks, schema subsets, full validation, error classification helpers and
redaction.

A vendor module subclasses :class:`VendorProvider` and implements two methods:
``_call`` sends one request through the vendor's official SDK (its retries off) and
returns a :class:`Raw` outcome read from the wire shape, and ``_classify`` turns an
SDK exception into a :class:`~turnframe.providers.errors.ProviderError`. The base
class does the rest the same way for every vendor, so no adapter can skip it:

* a missing capability fails loudly before anything is sent (:class:`CapabilityMissing`);
* the schema is cut to the profile's enforced subset; a request that asks for
  ``strict_schema`` fails instead, and the response says which keywords were only
  checked afterwards (``Enforcement.SUBSET``);
* every answer is validated against the *full* schema; one that does not parse or
  breaks it comes back ``MALFORMED``, never ``COMPLETE``;
* SDK exceptions are replaced (``from None``) by classified errors whose messages are
  redacted; the SDK exception, its request and its headers are not kept.
"""

from __future__ import annotations

import email.utils
import errno
import json
import re
import time
from abc import abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import anyio

from turnframe.core.errors import FailureClass, Severity, UsageError
from turnframe.core.ids import JSONObject
from turnframe.providers.base import (
    Enforcement,
    ModelProfile,
    ModelRequest,
    ModelResponse,
    Provider,
    StopReason,
    ToolCall,
    Usage,
)
from turnframe.providers.bounds import AnswerUnreadable, parse_bounded, schema_problems
from turnframe.providers.errors import (
    AuthenticationFailed,
    BadRequest,
    CallDropped,
    CapabilityMissing,
    ConnectionRefused,
    ContextOverflow,
    HostNotFound,
    ModelNotFound,
    Overloaded,
    ProviderCancelled,
    ProviderError,
    ProviderTimeout,
    ProviderUnreachable,
    QuotaExceeded,
    RateLimited,
    ServerError,
    TlsFailed,
)
from turnframe.providers.redact import Redactor

__all__ = [
    "STRUCTURAL_KEYWORDS",
    "Raw",
    "ToolCallBuffer",
    "VendorProvider",
    "chat_completion_raw",
    "compile_schema",
    "extra_hint",
    "full_schema_problems",
    "match_overflow",
    "sdk_dump",
    "retry_after_from_headers",
    "sampling_options",
    "status_error",
    "transport_error",
]

STRUCTURAL_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "enum", "anyOf"}
)
"""Keywords every genuine structured-output mode enforces."""

_ANNOTATIONS = frozenset({"description", "title", "$schema", "$id", "$comment", "examples"})
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_ONE = ("items", "not", "additionalProperties", "contains")


def sdk_dump(obj: Any) -> dict[str, Any]:
    """Return an SDK response object (a pydantic model or a mapping) as a plain dict.

    ``warnings=False``: a member the SDK does not know yet (a new block or item type) is
    kept as it came, which pydantic would otherwise warn about. A non-mapping dump is ``{}``.
    """
    if isinstance(obj, dict):
        return obj
    dumped = obj.model_dump(warnings=False) if hasattr(obj, "model_dump") else dict(obj)
    return dumped if isinstance(dumped, dict) else {}


def sampling_options(profile: ModelProfile, request: ModelRequest) -> dict[str, Any]:
    """Return ``{"temperature": t, "seed": n}`` as far as ``profile`` accepts them.

    A request's temperature or seed the profile does not accept is left out (the
    vendor's default applies); the call record keeps what was asked (docs/adr/0018).
    """
    caps = profile.capabilities
    out: dict[str, Any] = {}
    if request.temperature is not None and caps.temperature:
        out["temperature"] = request.temperature
    if request.seed is not None and caps.seed:
        out["seed"] = request.seed
    return out


def compile_schema(
    schema: JSONObject,
    subset: frozenset[str] | None,
    rewrite: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> tuple[JSONObject, tuple[str, ...]]:
    """Cut ``schema`` to the keywords a vendor enforces.

    Args:
        schema: the full schema.
        subset: the enforced keywords (``None``: send everything).
        rewrite: a per-node rewrite applied first, for equivalent spellings a vendor
            needs (``const`` → one-value ``enum``).

    Returns:
        ``(schema to send, sorted keywords left out)``. Annotations (``description``...)
        are kept when the subset allows them and are never counted as left out.
    """
    dropped: set[str] = set()

    def walk(node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        node = dict(node)
        if rewrite is not None:
            node = rewrite(node)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if subset is not None and key not in subset:
                if key not in _ANNOTATIONS:
                    dropped.add(key)
                continue
            if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
                out[key] = {k: walk(v) for k, v in value.items()}
            elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
                out[key] = [walk(v) for v in value]
            elif key in _SUBSCHEMA_ONE and isinstance(value, dict):
                out[key] = walk(value)
            else:
                out[key] = value
        return out

    return walk(schema), tuple(sorted(dropped))


def full_schema_problems(schema: JSONObject, value: Any) -> list[str]:
    """Return every way ``value`` breaks the full ``schema`` (empty: valid).

    Short lines that quote at most a few dozen characters of the answer
    (:func:`~turnframe.providers.bounds.schema_problems`).
    """
    return schema_problems(schema, value, limit=10)


@dataclass(slots=True, kw_only=True)
class Raw:
    """What an adapter read off the wire, before the shared checks.

    Attributes:
        text: the output text (for a forced-tool mode, the tool's arguments as JSON).
        stop: the vendor's outcome mapped to a :class:`StopReason` (``COMPLETE`` when
            it ended normally; the base class turns empty or invalid output into
            ``EMPTY`` or ``MALFORMED``).
        tool_calls: tool calls in order.
        usage: tokens.
        detail: the vendor's reason, to be redacted.
        model: the model the vendor says served it.
    """

    text: str = ""
    stop: StopReason = StopReason.COMPLETE
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    detail: str = ""
    model: str = ""


def chat_completion_raw(data: Mapping[str, Any], *, detail: str = "") -> Raw:
    """Return the :class:`Raw` of an OpenAI-style chat completion dict (llama.cpp's shape).

    Reads the first choice's message content, ``finish_reason`` (``length`` is
    ``TRUNCATED``, anything else ``COMPLETE``; the base class then judges empty or invalid
    text), token usage and the model name. ``detail`` is appended to the
    ``finish_reason=…`` detail. Used by both in-process llama.cpp adapters
    (docs/provider-adapters.md).
    """
    choice = (data.get("choices") or [{}])[0]
    usage = data.get("usage") or {}
    finish = choice.get("finish_reason")
    return Raw(
        text=(choice.get("message") or {}).get("content") or "",
        stop=StopReason.TRUNCATED if finish == "length" else StopReason.COMPLETE,
        usage=Usage(
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
        ),
        detail=f"finish_reason={finish}{detail}",
        model=str(data.get("model") or ""),
    )


class ToolCallBuffer:
    """Rebuilds streamed tool calls: the id and name arrive once, arguments in pieces."""

    def __init__(self) -> None:
        self._calls: dict[Any, dict[str, Any]] = {}

    def start(self, key: Any, *, call_id: str | None = None, name: str | None = None) -> None:
        """Open (or update) the call at ``key`` with what its first fragment carries."""
        call = self._calls.setdefault(key, {"id": None, "name": None, "args": []})
        if call_id:
            call["id"] = call_id
        if name:
            call["name"] = name

    def add(self, key: Any, piece: str | None) -> None:
        """Append an arguments fragment to the call at ``key``."""
        self.start(key)
        if piece:
            self._calls[key]["args"].append(piece)

    def set_arguments(self, key: Any, arguments: Any) -> None:
        """Replace the call's arguments (a vendor sent them whole)."""
        self.start(key)
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        self._calls[key]["args"] = [text]

    def calls(self) -> list[ToolCall]:
        """Return the calls in the order they were opened, ids synthesised when missing."""
        out: list[ToolCall] = []
        for n, call in enumerate(self._calls.values()):
            args = "".join(call["args"]) or "{}"
            out.append(
                ToolCall(
                    id=call["id"] or f"call_{n}",
                    name=call["name"] or "",
                    arguments=args,
                    synthetic_id=not call["id"],
                )
            )
        return out

    def __bool__(self) -> bool:
        return bool(self._calls)


def retry_after_from_headers(headers: Mapping[str, str] | None) -> float | None:
    """Return the retry hint in seconds from ``retry-after-ms`` or ``retry-after``."""
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    ms = lower.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    value = lower.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        when = email.utils.parsedate_to_datetime(value)
        if when is None:  # pragma: no cover - parsedate raises on garbage in 3.11
            return None
        return max(0.0, when.timestamp() - time.time())


def extra_hint(message: str) -> float | None:
    """Return a delay named in a message (``Please try again in 26.604s``), if any."""
    found = re.search(r"try again in (\d+(?:\.\d+)?)\s*(ms|s)\b", message)
    if not found:
        return None
    value = float(found.group(1))
    return value / 1000 if found.group(2) == "ms" else value


def match_overflow(
    patterns: Sequence[re.Pattern[str]], *texts: str | None
) -> re.Pattern[str] | None:
    """Return the first context-overflow pattern any of ``texts`` matches."""
    for pattern in patterns:
        for text in texts:
            if text and pattern.search(text):
                return pattern
    return None


def status_error(
    status: int | None,
    message: str,
    *,
    provider: str,
    code: str | None = None,
    retry_after: float | None = None,
    overflow: bool = False,
    quota: bool = False,
    auth: bool = False,
) -> ProviderError:
    """Return the classified error for an HTTP failure.

    See docs/provider-adapters.md "What every adapter does the same way".

    The vendor module decides the body-dependent flags (``overflow``, ``quota``,
    ``auth``: classify by body, not status); this maps the rest by status.
    """
    kwargs: dict[str, Any] = {"provider": provider, "status": status, "code": code}
    if auth or status in (401, 403):
        return AuthenticationFailed(message, **kwargs)
    if overflow:
        return ContextOverflow(message, **kwargs)
    if quota or status == 402:
        return QuotaExceeded(message, **kwargs)
    if status == 404:  # a chat endpoint answers 404 for a model it does not have
        return ModelNotFound(message, **kwargs)
    if status == 429:
        return RateLimited(message, retry_after=retry_after, **kwargs)
    if status in (529, 503):
        return Overloaded(message, retry_after=retry_after, **kwargs)
    if status == 499:  # the vendor saw the client close the request
        return ProviderCancelled(message, **kwargs)
    if status == 408 or status == 504:
        return ProviderTimeout(message, sent=True, provider=provider, code=code)
    if status is not None and status >= 500:
        return ServerError(message, retry_after=retry_after, **kwargs)
    return BadRequest(message, **kwargs)


_DROPPED_AFTER_SENDING = FailureClass(
    retryable=True,
    effect_may_have_happened=True,
    message_key="error.provider.dropped",
    severity=Severity.WARNING,
)
_UNREACHABLE_RETRYABLE = FailureClass(
    retryable=True,
    effect_may_have_happened=False,
    message_key="error.provider.unreachable",
    severity=Severity.CRITICAL,
)
_TLS = {"SSLError", "SSLCertVerificationError", "CertificateError", "SSLZeroReturnError"}
_DNS = {"gaierror", "herror"}
_DNS_TEXT = re.compile(
    r"Name or service not known|nodename nor servname|getaddrinfo failed"
    r"|Temporary failure in name resolution|No address associated with hostname",
    re.IGNORECASE,
)
_REFUSED = {"ConnectionRefusedError"}
_CONNECT_TIMEOUT = {"ConnectTimeout", "ConnectTimeoutError", "PoolTimeout"}
_BEFORE_SENDING = {
    "ConnectError",
    "EndpointConnectionError",
    "NewConnectionError",
}
_AFTER_SENDING_TIMEOUT = {
    "ReadTimeout",
    "WriteTimeout",
    "ReadTimeoutError",
    "TimeoutError",
    "APITimeoutError",
    "Timeout",
}
_AFTER_SENDING_DROP = {
    "RemoteProtocolError",
    "ReadError",
    "ProtocolError",
    "IncompleteRead",
    "ResponseStreamingError",
    "ConnectionClosedError",
    "ChunkedEncodingError",
    "LocalProtocolError",
    "WriteError",
}


def transport_error(exc: BaseException, *, provider: str) -> ProviderError | None:
    """Classify a transport failure anywhere in ``exc``'s cause chain, or return ``None``.

    A failure to connect never reached the vendor: a TLS failure (:class:`TlsFailed`),
    a name that does not resolve (:class:`HostNotFound`), a refused connection
    (:class:`ConnectionRefused`, never a timeout), a connect timeout
    (``ProviderTimeout(sent=False)``) or another connect error
    (:class:`ProviderUnreachable`). A read timeout or a connection that broke after
    sending is an unknown outcome (``sent=True``).
    """
    seen: set[int] = set()
    node: BaseException | None = exc
    names: list[str] = []
    texts: list[str] = []
    errnos: set[int] = set()
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        names.extend(cls.__name__ for cls in type(node).__mro__)
        texts.append(str(node)[:300])
        if isinstance(node, OSError) and node.errno is not None:
            errnos.add(node.errno)
        node = node.__cause__ or node.__context__
    if any(n in _TLS for n in names):
        return TlsFailed(
            "the TLS handshake with the provider failed; nothing was sent", provider=provider
        )
    if any(n in _DNS for n in names) or _DNS_TEXT.search(" ".join(texts)):
        return HostNotFound(
            "the provider's host name did not resolve (DNS); nothing was sent", provider=provider
        )
    if any(n in _REFUSED for n in names) or errno.ECONNREFUSED in errnos:
        return ConnectionRefused(
            "the provider refused the connection (is the server running?); nothing was sent",
            provider=provider,
        )
    if any(n in _CONNECT_TIMEOUT for n in names):
        return ProviderTimeout(
            "connecting to the provider timed out before the request was sent",
            sent=False,
            provider=provider,
        )
    if any(n in _BEFORE_SENDING for n in names):
        return ProviderUnreachable(
            "the connection to the provider failed before the request was sent",
            provider=provider,
            failure=_UNREACHABLE_RETRYABLE,
        )
    if any(n in _AFTER_SENDING_TIMEOUT for n in names):
        return ProviderTimeout(
            "the provider did not answer in time after the request was sent (unknown outcome)",
            sent=True,
            provider=provider,
        )
    if any(n in _AFTER_SENDING_DROP for n in names):
        return CallDropped(
            "the connection broke after the request was sent (unknown outcome)",
            provider=provider,
            failure=_DROPPED_AFTER_SENDING,
        )
    return None


class VendorProvider(Provider):
    """Base of every vendor adapter; see the module docstring for what it guarantees.

    Args:
        profile: the (provider, model) pair and its declared capabilities.
        secrets: credentials to redact from every message this adapter produces.
    """

    overflow_patterns: Sequence[re.Pattern[str]] = ()
    """The adapter's context-overflow message table; the conformance suite holds a
    fixture for each pattern."""

    def __init__(self, profile: ModelProfile, *, secrets: Iterable[str | None] = ()) -> None:
        self.profile = profile
        self.redact = Redactor(secrets)

    # ------------------------------------------------------------------ vendor side
    @abstractmethod
    async def _call(
        self, request: ModelRequest, schema: JSONObject | None, prompt_only: bool
    ) -> Raw:
        """Send ``request`` once (no SDK retries) and read the outcome off the wire.

        Args:
            request: the normalized request.
            schema: the schema cut to the enforced subset, or ``None`` for prompt-only.
            prompt_only: ask for JSON without a schema (explicit opt-in only).
        """

    @abstractmethod
    def _classify(self, exc: Exception) -> ProviderError:
        """Return the classified, redacted error for an SDK exception."""

    def _rewrite(self, node: dict[str, Any]) -> dict[str, Any]:
        """Rewrite one schema node into the vendor's spelling (default: unchanged)."""
        return node

    # ------------------------------------------------------------------ shared side
    def prepare(self, request: ModelRequest) -> tuple[JSONObject | None, tuple[str, ...], bool]:
        """Check capabilities and compile the schema; nothing is sent.

        Returns:
            ``(schema to send or None, keywords left out, prompt_only)``.

        Raises:
            CapabilityMissing: the profile cannot do what ``request`` asks.
        """
        caps = self.profile.capabilities
        pid = self.profile.id
        if request.stream and not caps.streaming:
            raise CapabilityMissing(f"{pid} does not stream")
        if request.tools and not caps.tool_calls:
            raise CapabilityMissing(f"{pid} has no tool calls")
        if not caps.structured_output:
            if request.allow_prompt_only_json and caps.prompt_only_json:
                return None, (), True
            raise CapabilityMissing(
                f"{pid} has no genuine structured output and the request does not allow "
                "prompt-only JSON"
            )
        schema, dropped = compile_schema(request.schema, caps.schema_subset, self._rewrite)
        if dropped and request.strict_schema:
            raise CapabilityMissing(
                f"{pid} cannot enforce {', '.join(dropped)} at decode time "
                f"({caps.structured_mode}); the request asked for every keyword enforced"
            )
        return schema, dropped, False

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Return the normalized answer; refusal, filter, truncation and empty are states.

        Raises:
            CapabilityMissing: before sending, when the profile falls short.
            ProviderError: a classified, redacted failure.
        """
        schema, dropped, prompt_only = self.prepare(request)
        started = time.perf_counter()
        try:
            raw = await self._call(request, schema, prompt_only)
        except ProviderError as exc:
            raise self._redacted(exc) from None
        except (anyio.get_cancelled_exc_class(), UsageError):
            raise
        except Exception as exc:  # every SDK failure is translated, never leaked
            error = self._classify(exc)
        else:
            return self._finish(request, raw, dropped, prompt_only, started)
        raise self._redacted(error) from None

    def _redacted(self, exc: ProviderError) -> ProviderError:
        # Every field, not only the message: a vendor's error code or any attribute an
        # adapter set may carry what the vendor echoed (docs/adr/0019).
        exc.args = tuple(self.redact(a) if isinstance(a, str) else a for a in exc.args)
        for name, value in list(vars(exc).items()):
            if isinstance(value, str):
                setattr(exc, name, self.redact(value))
        if not exc.provider:
            exc.provider = self.profile.id
        # Drop the chain: an SDK exception keeps the request and its auth headers.
        exc.__cause__ = None
        exc.__context__ = None
        exc.__suppress_context__ = True
        inner = getattr(exc, "inner", None)
        if isinstance(inner, ProviderError):
            self._redacted(inner)
        return exc

    def _finish(
        self,
        request: ModelRequest,
        raw: Raw,
        dropped: tuple[str, ...],
        prompt_only: bool,
        started: float,
    ) -> ModelResponse:
        stop, problems = raw.stop, []
        # Known secrets go in every JSON spelling from the raw text, then again from the
        # decoded strings (keys included); an answer that changed is re-serialized, so
        # nothing downstream can decode a key back (docs/adr/0019).
        text = self.redact.known(raw.text)
        calls = [
            replace(c, arguments=self.redact.known(c.arguments), name=self.redact.known(c.name))
            for c in raw.tool_calls
        ]
        if stop is StopReason.COMPLETE and calls and not text.strip():
            stop = StopReason.TOOL_CALLS
        if stop is StopReason.TOOL_CALLS:
            for call in calls:
                try:
                    parse_bounded(call.arguments)
                except AnswerUnreadable as exc:
                    problems.append(f"tool call {call.id}: arguments: {exc}")
            if problems:
                stop = StopReason.MALFORMED
        elif stop is StopReason.COMPLETE:
            if not text.strip():
                stop = StopReason.EMPTY
            else:
                try:
                    value = parse_bounded(text)
                except AnswerUnreadable as exc:
                    stop, problems = StopReason.MALFORMED, [str(exc)]
                else:
                    clean = self.redact.value(value)
                    if clean != value:
                        text, value = json.dumps(clean, ensure_ascii=False), clean
                    problems = full_schema_problems(request.schema, value)
                    if problems:
                        stop = StopReason.MALFORMED
        if prompt_only:
            enforcement = Enforcement.PROMPT_ONLY
        elif dropped:
            enforcement = Enforcement.SUBSET
        else:
            enforcement = Enforcement.GENUINE
        return ModelResponse(
            text=text,
            stop=stop,
            usage=raw.usage,
            model=self.profile.id,
            latency_ms=(time.perf_counter() - started) * 1000,
            tool_calls=tuple(calls),
            enforcement=enforcement,
            unenforced=dropped,
            problems=tuple(problems[:10]),
            detail=self.redact(raw.detail)[:500],
        )
