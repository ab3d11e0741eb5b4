"""The conformance cases and a runner that needs no pytest (docs/architecture.md "Providers").

Every case is a coroutine that runs one adapter through its real SDK and HTTP stack
against the :class:`~turnframe.providers.conformance.server.LoopbackServer`, scripted
from the adapter's fixture files, and raises :class:`CaseFailed` when the adapter's
normalized outcome is wrong. What each case expects is written here, once, for every
vendor; a fixture file only holds the vendor's wire data (and the few vendor values to
compare, such as tool-call ids or a retry hint). A fixture may declare a case not
applicable (``{"not_applicable": "why"}``), which the table shows as such.

:func:`run_target` runs every case for one :class:`Target` and returns
:class:`CaseResult` rows; the pytest classes in :mod:`.suite` and the
``turnframe providers conformance`` command both use it.
"""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio

from turnframe.core.dataclass_init import fast_init
from turnframe.providers.base import (
    Enforcement,
    Message,
    ModelRequest,
    ModelResponse,
    Provider,
    StopReason,
    ToolSpec,
)
from turnframe.providers.conformance.server import LoopbackServer, RecordedRequest
from turnframe.providers.errors import (
    AuthenticationFailed,
    BadRequest,
    CapabilityMissing,
    ConnectionRefused,
    ContextOverflow,
    HostNotFound,
    ModelNotFound,
    Overloaded,
    ProviderError,
    ProviderTimeout,
    QuotaExceeded,
    RateLimited,
    ServerError,
    StreamInterrupted,
    TlsFailed,
)

__all__ = [
    "ACTS_SCHEMA",
    "CASES",
    "FIXTURES",
    "CaseFailed",
    "CaseResult",
    "Target",
    "run_case",
    "run_target",
]

FIXTURES = Path(__file__).with_name("fixtures")
"""The shipped wire fixtures, one directory per dialect."""

CANARY_KEY = "sk-CANARY-7f3a9c1e5b2d4f6a8c0e"
"""The planted credential of the secret-redaction case (any adapter's key slot)."""

_ACT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "op": {"enum": ["book", "cancel"]},
        "destination": {"type": ["string", "null"], "maxLength": 80},
        "passengers": {"type": ["integer", "null"], "minimum": 1},
    },
    "required": ["op", "destination", "passengers"],
    "additionalProperties": False,
}
ACTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"acts": {"type": "array", "items": _ACT}},
    "required": ["acts"],
    "additionalProperties": False,
}
"""The schema every structured case asks for."""

VALID_ANSWER = {"acts": [{"op": "book", "destination": "Paris", "passengers": 2}]}
MULTI_ANSWER = {
    "acts": [
        {"op": "book", "destination": "Paris", "passengers": 2},
        {"op": "cancel", "destination": "Rome", "passengers": None},
        {"op": "book", "destination": "Zürich", "passengers": 1},
    ]
}
TOOLS = (ToolSpec(name="emit_act", description="Record one act.", schema=_ACT),)


class CaseFailed(AssertionError):
    """The adapter's outcome broke the case's expectation."""


class NotApplicable(Exception):
    """The vendor has no such state (declared by the fixture)."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """One adapter or profile under test.

    Attributes:
        name: the row's name in the table (``openai (chat)``).
        dialects: the fixture directories, searched in order (a profile's own
            directory first, then its wire format's: ``("llama_server", "openai_chat")``).
        extra: the extra that installs its SDK.
        make: builds the provider pointed at the fake (``base_url``, ``api_key``,
            ``timeout``); ``api_key`` is the credential the redaction case plants.
        genuine: checks a recorded request used the genuine structured-output mode;
            returns a problem or ``None``.
        sent_key: whether a recorded request carried the credential (a header with the
            key, or for SigV4 a signature: the secret itself is never sent).
        fixtures: the fixture root (default: the shipped one).
        skip: why the target cannot run here (its extra is missing), or ``""``.
    """

    name: str
    dialects: tuple[str, ...]
    extra: str
    make: Callable[..., Provider]
    genuine: Callable[[RecordedRequest], str | None]
    sent_key: Callable[[RecordedRequest, str], bool]
    fixtures: Path = FIXTURES
    skip: str = ""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CaseResult:
    """One case's result for one target: ``pass``, ``fail`` or ``n/a``, with why."""

    target: str
    case: str
    status: str
    detail: str = ""
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """Return the result as JSON."""
        return {
            "target": self.target,
            "case": self.case,
            "status": self.status,
            "detail": self.detail,
            "seconds": round(self.seconds, 3),
        }


@dataclass(slots=True)
class Context:
    """What a case works with."""

    target: Target
    server: LoopbackServer
    timeout: float = 5.0
    short_timeout: float = 0.25
    providers: list[Provider] = field(default_factory=list)
    shared: dict[str, Provider] = field(default_factory=dict)

    def _path(self, name: str) -> Path | None:
        for dialect in self.target.dialects:
            path = self.target.fixtures / dialect / f"{name}.json"
            if path.exists():
                return path
        return None

    def fixture(self, name: str) -> dict[str, Any]:
        path = self._path(name)
        if path is None:
            raise CaseFailed(f"no fixture {'|'.join(self.target.dialects)}/{name}.json")
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        if "not_applicable" in data:
            raise NotApplicable(str(data["not_applicable"]))
        return data

    def fixtures_like(self, prefix: str) -> list[str]:
        names: set[str] = set()
        for dialect in self.target.dialects:
            names.update(p.stem for p in (self.target.fixtures / dialect).glob(f"{prefix}*.json"))
        return sorted(names)

    def provider(
        self,
        *,
        base_url: str | None = None,
        key: str = CANARY_KEY,
        timeout: float | None = None,
        **caps: Any,
    ) -> Provider:
        default = base_url is None and key == CANARY_KEY and timeout is None and not caps
        if default and "default" in self.shared:
            return self.shared["default"]
        provider = self.target.make(
            base_url=base_url or self.server.url, api_key=key, timeout=timeout or self.timeout
        )
        if default:
            self.shared["default"] = provider
            return provider
        if caps:
            profile = provider.profile
            provider.profile = replace(profile, capabilities=replace(profile.capabilities, **caps))
        self.providers.append(provider)
        return provider

    def script(self, data: Mapping[str, Any], key: str = CANARY_KEY) -> None:
        self.server.script(data["responses"], {"{{API_KEY}}": key})

    async def call(
        self, name: str, request: ModelRequest | None = None
    ) -> tuple[ModelResponse, dict[str, Any]]:
        data = self.fixture(name)
        self.script(data)
        response = await self.provider().complete(request or plain_request())
        return response, data.get("expect") or {}

    async def error(
        self, name: str, request: ModelRequest | None = None
    ) -> tuple[ProviderError, dict[str, Any]]:
        data = self.fixture(name)
        self.script(data)
        try:
            response = await self.provider().complete(request or plain_request())
        except ProviderError as exc:
            return exc, data.get("expect") or {}
        raise CaseFailed(
            f"{name}: expected an error, got {response.stop.value}: {response.text[:80]!r}"
        )


def plain_request(**changes: Any) -> ModelRequest:
    """Return the structured request every case starts from."""
    request = ModelRequest(
        task="conformance",
        messages=(
            Message(role="system", content="Extract the travel acts."),
            Message(role="user", content="Book Paris for 2."),
        ),
        schema=ACTS_SCHEMA,
        schema_name="acts",
        max_output_tokens=256,
    )
    return replace(request, **changes)


def check(condition: bool, message: str) -> None:
    """Raise :class:`CaseFailed` with ``message`` unless ``condition``."""
    if not condition:
        raise CaseFailed(message)


def _answer(response: ModelResponse) -> Any:
    try:
        return json.loads(response.text)
    except ValueError as exc:
        raise CaseFailed(f"the answer is not JSON: {response.text[:80]!r}") from exc


def _one_request(ctx: Context) -> RecordedRequest:
    check(
        len(ctx.server.requests) == 1,
        f"expected exactly 1 request (SDK retries off), got {len(ctx.server.requests)}",
    )
    return ctx.server.requests[0]


def _stop(response: ModelResponse, stop: StopReason) -> None:
    check(
        response.stop is stop,
        f"expected {stop.value}, got {response.stop.value} ({response.detail}; {response.problems[:1]})",
    )


# ------------------------------------------------------------------------- the cases
async def case_structured_valid(ctx: Context) -> None:
    response, expect = await ctx.call("structured_valid")
    _stop(response, StopReason.COMPLETE)
    check(
        _answer(response) == expect.get("answer", VALID_ANSWER), f"wrong answer {response.text!r}"
    )
    check(
        response.enforcement in (Enforcement.GENUINE, Enforcement.SUBSET),
        f"enforcement {response.enforcement}",
    )
    sent = _one_request(ctx)
    problem = ctx.target.genuine(sent)
    check(problem is None, f"not the genuine structured-output mode: {problem}")
    check(ctx.target.sent_key(sent, CANARY_KEY), "the credential was not sent")
    check(response.usage.prompt_tokens > 0, "usage was not read")


def _found(body: Any, key: str) -> list[Any]:
    """Every value of ``key`` anywhere in a JSON body."""
    if isinstance(body, dict):
        return [v for k, v in body.items() if k == key] + [
            x for v in body.values() for x in _found(v, key)
        ]
    if isinstance(body, list):
        return [x for v in body for x in _found(v, key)]
    return []


async def case_sampling(ctx: Context) -> None:
    """Temperature 0 and a seed are sent where the profile accepts them, never elsewhere."""
    response, _ = await ctx.call("structured_valid", plain_request(temperature=0.0, seed=7))
    _stop(response, StopReason.COMPLETE)
    request = _one_request(ctx)
    sent = request.body if isinstance(request.body, dict) else {}
    caps = ctx.provider().profile.capabilities
    temperatures, seeds = _found(sent, "temperature"), _found(sent, "seed")
    if caps.temperature:
        check(temperatures == [0.0], f"temperature 0 was not sent: {temperatures}")
    else:
        check(
            not temperatures, f"a temperature was sent to a profile that takes none: {temperatures}"
        )
    if caps.seed and ctx.target.name != "openai (responses)":
        check(seeds == [7], f"the seed was not sent: {seeds}")
    else:
        check(not seeds, f"a seed was sent to a profile that takes none: {seeds}")


async def case_malformed_json(ctx: Context) -> None:
    response, _ = await ctx.call("malformed_json")
    _stop(response, StopReason.MALFORMED)
    check(bool(response.problems), "a malformed answer must say why")


async def case_unknown_envelope_fields(ctx: Context) -> None:
    response, expect = await ctx.call("unknown_envelope_fields")
    _stop(response, StopReason.COMPLETE)
    check(
        _answer(response) == expect.get("answer", VALID_ANSWER),
        "unknown envelope fields changed the answer",
    )


async def case_unknown_answer_field(ctx: Context) -> None:
    response, _ = await ctx.call("unknown_answer_field")
    _stop(response, StopReason.MALFORMED)
    check(
        any("additional" in p.lower() for p in response.problems), f"problems {response.problems}"
    )


async def case_missing_answer_field(ctx: Context) -> None:
    response, _ = await ctx.call("missing_answer_field")
    _stop(response, StopReason.MALFORMED)
    check(any("required" in p for p in response.problems), f"problems {response.problems}")


async def case_multiple_acts(ctx: Context) -> None:
    response, _ = await ctx.call("multiple_acts")
    _stop(response, StopReason.COMPLETE)
    check(_answer(response) == MULTI_ANSWER, f"acts lost or reordered: {response.text!r}")


def _check_calls(response: ModelResponse, expect: Mapping[str, Any]) -> None:
    _stop(response, StopReason.TOOL_CALLS)
    ids = [c.id for c in response.tool_calls]
    check(ids == list(expect["ids"]), f"tool call ids {ids} != {expect['ids']}")
    synthetic = [c.synthetic_id for c in response.tool_calls]
    check(synthetic == [bool(expect.get("synthetic"))] * len(ids), f"synthetic flags {synthetic}")
    check(all(c.name == "emit_act" for c in response.tool_calls), "tool names")
    args = [json.loads(c.arguments) for c in response.tool_calls]
    check(args == expect["arguments"], f"tool arguments {args}")


async def case_tool_call_ids(ctx: Context) -> None:
    response, expect = await ctx.call("tool_call_ids", plain_request(tools=TOOLS))
    _check_calls(response, expect)


async def case_streaming(ctx: Context) -> None:
    whole, _ = await ctx.call("structured_valid")
    response, expect = await ctx.call("streaming", plain_request(stream=True))
    _stop(response, StopReason.COMPLETE)
    check(
        _answer(response) == expect.get("answer", VALID_ANSWER),
        f"rebuilt answer {response.text!r}",
    )
    sent = _one_request(ctx)
    check(
        ctx.target.genuine(sent) is None, f"stream request not genuine: {ctx.target.genuine(sent)}"
    )
    # The same normalized response as a call that was not streamed.
    same = (response.enforcement, response.unenforced, response.model, response.tool_calls)
    check(
        same == (whole.enforcement, whole.unenforced, whole.model, whole.tool_calls),
        f"streamed {same} differs from not streamed",
    )
    if "completion_tokens" in expect:
        check(
            response.usage.completion_tokens == expect["completion_tokens"],
            f"usage {response.usage}",
        )


async def case_streaming_tool_calls(ctx: Context) -> None:
    response, expect = await ctx.call(
        "streaming_tool_calls", plain_request(stream=True, tools=TOOLS)
    )
    _check_calls(response, expect)


async def case_empty(ctx: Context) -> None:
    response, _ = await ctx.call("empty")
    _stop(response, StopReason.EMPTY)


async def case_refusal(ctx: Context) -> None:
    response, _ = await ctx.call("refusal")
    _stop(response, StopReason.REFUSAL)


async def case_content_filter(ctx: Context) -> None:
    response, _ = await ctx.call("content_filter")
    _stop(response, StopReason.CONTENT_FILTER)


async def case_truncated(ctx: Context) -> None:
    response, _ = await ctx.call("truncated")
    _stop(response, StopReason.TRUNCATED)


async def case_timeout(ctx: Context) -> None:
    started = time.monotonic()
    data = ctx.fixture("timeout")
    ctx.script(data)
    try:
        response = await ctx.provider(timeout=ctx.short_timeout).complete(plain_request())
    except ProviderError as exc:
        error = exc
    else:
        raise CaseFailed(f"a server that never answers gave {response.stop.value}")
    check(
        isinstance(error, ProviderTimeout),
        f"expected ProviderTimeout, got {type(error).__name__}: {error}",
    )
    assert isinstance(error, ProviderTimeout)
    check(
        error.sent and error.failure.effect_may_have_happened,
        "a timeout after sending is an unknown outcome",
    )
    check(error.failure.retryable, "a timeout is retryable before commit")
    check(time.monotonic() - started < 5, "the adapter's timeout did not fire")
    _one_request(ctx)


def _closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    sock.close()  # nothing listens here: a connection is refused before anything is sent
    return port


def _unreachable(error: ProviderError, kind: type[ProviderError], what: str) -> None:
    check(
        isinstance(error, kind),
        f"{what}: expected {kind.__name__}, got {type(error).__name__}: {error}",
    )
    check(not isinstance(error, ProviderTimeout), f"{what} is not a timeout")
    check(not error.failure.effect_may_have_happened, f"{what}: nothing was sent")
    check(error.failure.message_key == "error.provider.unreachable", f"{what}: message key")


async def _fails(provider: Provider, what: str) -> ProviderError:
    try:
        response = await provider.complete(plain_request())
    except ProviderError as exc:
        return exc
    raise CaseFailed(f"{what} returned an answer: {response.stop.value}")


async def case_connection_refused(ctx: Context) -> None:
    ctx.fixture("structured_valid")  # the dialect exists
    provider = ctx.provider(
        base_url=f"http://127.0.0.1:{_closed_port()}", timeout=ctx.short_timeout
    )
    error = await _fails(provider, "a refused connection")
    _unreachable(error, ConnectionRefused, "a refused connection")
    check(error.failure.retryable, "a refused connection may be tried once more (a restart)")


async def case_tls_failure(ctx: Context) -> None:
    ctx.fixture("structured_valid")
    # The loopback server speaks plain HTTP: an https URL fails in the TLS handshake.
    url = ctx.server.url.replace("http://", "https://", 1)
    provider = ctx.provider(base_url=url, timeout=ctx.timeout)
    error = await _fails(provider, "a TLS handshake with a plain-TCP server")
    _unreachable(error, TlsFailed, "a failed TLS handshake")
    check(not error.failure.retryable, "a TLS failure is not retryable")


async def case_dns_failure(ctx: Context) -> None:
    ctx.fixture("structured_valid")
    real = socket.getaddrinfo
    loopback = {"127.0.0.1", "::1", "localhost"}

    def resolve(host: Any, *args: Any, **kwargs: Any) -> Any:
        # The resolver is patched, so no DNS query leaves this machine: every name but
        # loopback fails as an unknown host would.
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name not in loopback:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    provider = ctx.provider(
        base_url=f"http://model.invalid:{_closed_port()}", timeout=ctx.short_timeout
    )
    socket.getaddrinfo = resolve
    try:
        error = await _fails(provider, "a host name that does not resolve")
    finally:
        socket.getaddrinfo = real
    _unreachable(error, HostNotFound, "a name that does not resolve")
    check(not error.failure.retryable, "a DNS failure is not retryable")


async def case_model_not_found(ctx: Context) -> None:
    await _expect_error(ctx, "model_not_found", ModelNotFound, False)


async def _expect_error(
    ctx: Context, name: str, kind: type[ProviderError], retryable: bool
) -> ProviderError:
    error, expect = await ctx.error(name)
    check(
        isinstance(error, kind),
        f"{name}: expected {kind.__name__}, got {type(error).__name__}: {error}",
    )
    check(error.failure.retryable is retryable, f"{name}: retryable should be {retryable}")
    check(not error.failure.effect_may_have_happened, f"{name}: a rejected call had no effect")
    check(bool(error.failure.message_key), f"{name}: no message key")
    _one_request(ctx)
    if "retry_after" in expect:
        check(
            error.retry_after is not None
            and abs(error.retry_after - float(expect["retry_after"])) < 0.01,
            f"{name}: retry_after {error.retry_after} != {expect['retry_after']}",
        )
    return error


async def case_rate_limited(ctx: Context) -> None:
    await _expect_error(ctx, "rate_limited", RateLimited, True)


async def case_quota(ctx: Context) -> None:
    await _expect_error(ctx, "quota", QuotaExceeded, False)


async def case_overloaded(ctx: Context) -> None:
    await _expect_error(ctx, "overloaded", Overloaded, True)


async def case_server_error(ctx: Context) -> None:
    await _expect_error(ctx, "server_error", ServerError, True)


async def case_auth(ctx: Context) -> None:
    await _expect_error(ctx, "auth", AuthenticationFailed, False)


async def case_bad_request(ctx: Context) -> None:
    await _expect_error(ctx, "bad_request", BadRequest, False)


async def case_context_overflow(ctx: Context) -> None:
    names = ctx.fixtures_like("context_overflow")
    check(bool(names), "no context_overflow fixtures")
    patterns = list(getattr(ctx.provider(), "overflow_patterns", ()))
    covered: set[int] = set()
    for name in names:
        data = ctx.fixture(name)
        text = json.dumps(data["responses"])
        for n, pattern in enumerate(patterns):
            if pattern.search(text):
                covered.add(n)
        await _expect_error(ctx, name, ContextOverflow, False)
    missing = [patterns[n].pattern for n in range(len(patterns)) if n not in covered]
    check(not missing, f"overflow patterns without a fixture: {missing}")


async def case_retry_classification(ctx: Context) -> None:
    table = {
        "rate_limited": True,
        "overloaded": True,
        "server_error": True,
        "quota": False,
        "auth": False,
        "bad_request": False,
    }
    for name, retryable in table.items():
        try:
            error, _ = await ctx.error(name)
        except NotApplicable:
            continue
        check(
            error.failure.retryable is retryable,
            f"{name}: {type(error).__name__} retryable={error.failure.retryable}",
        )
        _one_request(ctx)


async def case_cancellation(ctx: Context) -> None:
    data = ctx.fixture("cancellation")
    ctx.script(data)
    provider = ctx.provider()
    finished = False
    with anyio.move_on_after(0.5) as scope:
        await provider.complete(plain_request(stream=True))
        finished = True
    check(not finished and scope.cancelled_caught, "the slow stream finished before the cancel")
    deadline = time.monotonic() + 3
    while not ctx.server.disconnected.is_set() and time.monotonic() < deadline:
        await anyio.sleep(0.02)
    check(
        ctx.server.disconnected.is_set(),
        "the cancelled stream was not closed (the server never saw a disconnect)",
    )
    _one_request(ctx)


async def case_mid_stream_error(ctx: Context) -> None:
    error, expect = await ctx.error("mid_stream_error", plain_request(stream=True))
    check(
        isinstance(error, StreamInterrupted),
        f"expected StreamInterrupted, got {type(error).__name__}: {error}",
    )
    assert isinstance(error, StreamInterrupted)
    check(
        type(error.inner).__name__ == expect.get("inner", type(error.inner).__name__),
        f"inner {type(error.inner).__name__}",
    )
    check(error.failure.effect_may_have_happened, "output was already flowing")
    check(error.failure.retryable is bool(expect.get("retryable", True)), "retryable")


async def case_stream_stalled(ctx: Context) -> None:
    data = ctx.fixture("stream_stalled")
    ctx.script(data)
    provider = ctx.provider(timeout=ctx.short_timeout)
    started = time.monotonic()
    try:
        response = await provider.complete(plain_request(stream=True))
    except ProviderError as exc:
        check(
            exc.failure.retryable and exc.failure.effect_may_have_happened,
            f"a stalled stream is a retryable unknown outcome: {type(exc).__name__} {exc.failure}",
        )
    else:
        raise CaseFailed(f"a stream that stalled mid-way gave {response.stop.value}")
    check(time.monotonic() - started < 4, "the idle timeout between chunks did not fire")
    _one_request(ctx)


async def case_stream_dropped(ctx: Context) -> None:
    error, _ = await ctx.error("stream_dropped", plain_request(stream=True))
    check(
        error.failure.retryable and error.failure.effect_may_have_happened,
        f"{type(error).__name__}: {error.failure}",
    )


@contextmanager
def _captured_logs() -> Iterator[list[str]]:
    lines: list[str] = []

    class _Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(self.format(record))

    root = logging.getLogger()
    handler = _Keep(level=logging.DEBUG)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    old = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield lines
    finally:
        root.removeHandler(handler)
        root.setLevel(old)


def _leaks(value: Any, key: str, seen: set[int] | None = None, depth: int = 0) -> list[str]:
    """Return where ``key`` appears in ``value`` (an exception graph, a record...)."""
    seen = seen if seen is not None else set()
    if id(value) in seen or depth > 6:
        return []
    seen.add(id(value))
    found: list[str] = []
    if isinstance(value, str | bytes):
        text = value.decode(errors="replace") if isinstance(value, bytes) else value
        return ["text"] if key in text else []
    if isinstance(value, BaseException):
        for text in (str(value), repr(value)):
            if key in text:
                found.append(f"{type(value).__name__} message")
        for attr in ("__cause__", "__context__"):
            found += _leaks(getattr(value, attr), key, seen, depth + 1)
        found += _leaks(getattr(value, "__dict__", {}), key, seen, depth + 1)
        found += _leaks(list(value.args), key, seen, depth + 1)
        return found
    if isinstance(value, Mapping):
        for k, v in value.items():
            found += [f"{k}: {w}" for w in _leaks(v, key, seen, depth + 1)]
        return found
    if isinstance(value, list | tuple | set):
        for v in value:
            found += _leaks(v, key, seen, depth + 1)
        return found
    if hasattr(value, "__dict__") and type(value).__module__.startswith("turnframe"):
        found += _leaks(vars(value), key, seen, depth + 1)
    elif key in repr(value):
        found.append(type(value).__name__)
    return found


async def case_secret_redaction(ctx: Context) -> None:
    data = ctx.fixture("secret_redaction")
    ctx.script(data)
    provider = ctx.provider()
    leaks: list[str] = []
    with _captured_logs() as logs:
        response = await provider.complete(plain_request())
        # Everything a replay record keeps of a response.
        kept = json.dumps(asdict(response), default=str)
        leaks += [f"response {w}" for w in _leaks(kept, CANARY_KEY)]
        try:
            await provider.complete(plain_request())
        except ProviderError as exc:
            leaks += [f"exception {w}" for w in _leaks(exc, CANARY_KEY)]
        else:
            raise CaseFailed("the second response should have been a 401")
    leaks += [f"log line {n}" for n, line in enumerate(logs) if CANARY_KEY in line]
    check(not leaks, f"the planted key leaked: {leaks[:5]}")
    check(len(ctx.server.requests) == 2, "two calls")
    check(
        all(ctx.target.sent_key(r, CANARY_KEY) for r in ctx.server.requests), "the key was not sent"
    )


async def case_no_silent_downgrade(ctx: Context) -> None:
    # 1. A profile without genuine structured output refuses a schema request, unsent.
    ctx.script({"responses": []})
    provider = ctx.provider()
    declared = provider.profile
    provider.profile = replace(
        declared,
        capabilities=replace(declared.capabilities, structured_output=False, prompt_only_json=True),
    )
    try:
        await provider.complete(plain_request())
    except CapabilityMissing:
        pass
    else:
        raise CaseFailed("a prompt-only profile answered a genuine-structured-output request")
    finally:
        provider.profile = declared
    check(not ctx.server.requests, "a request was sent before failing")
    # 2. A keyword outside the enforced subset fails loudly when every keyword must hold.
    strict = plain_request(
        strict_schema=True,
        schema={
            **ACTS_SCHEMA,
            "properties": {"acts": {"type": "array", "items": _ACT, "uniqueItems": True}},
        },
    )
    try:
        await ctx.provider().complete(strict)
    except CapabilityMissing:
        pass
    else:
        raise CaseFailed("an unenforceable keyword was silently dropped")
    check(not ctx.server.requests, "a request was sent before failing")
    # 3. Otherwise the cut keywords are reported, never passed off as genuine.
    response, _ = await ctx.call("structured_valid")
    if response.unenforced:
        check(response.enforcement is Enforcement.SUBSET, "a subset was reported as genuine")
    # 4. Prose back for a schema request is malformed, never complete or an empty list.
    response, _ = await ctx.call("no_silent_downgrade")
    _stop(response, StopReason.MALFORMED)


CaseFn = Callable[[Context], Awaitable[None]]

CASES: dict[str, CaseFn] = {
    "structured_valid": case_structured_valid,
    "sampling": case_sampling,
    "malformed_json": case_malformed_json,
    "unknown_envelope_fields": case_unknown_envelope_fields,
    "unknown_answer_field": case_unknown_answer_field,
    "missing_answer_field": case_missing_answer_field,
    "multiple_acts": case_multiple_acts,
    "tool_call_ids": case_tool_call_ids,
    "streaming": case_streaming,
    "streaming_tool_calls": case_streaming_tool_calls,
    "empty": case_empty,
    "refusal": case_refusal,
    "content_filter": case_content_filter,
    "truncated": case_truncated,
    "timeout": case_timeout,
    "connection_refused": case_connection_refused,
    "tls_failure": case_tls_failure,
    "dns_failure": case_dns_failure,
    "model_not_found": case_model_not_found,
    "rate_limited": case_rate_limited,
    "quota": case_quota,
    "overloaded": case_overloaded,
    "server_error": case_server_error,
    "auth": case_auth,
    "bad_request": case_bad_request,
    "context_overflow": case_context_overflow,
    "retry_classification": case_retry_classification,
    "cancellation": case_cancellation,
    "mid_stream_error": case_mid_stream_error,
    "stream_stalled": case_stream_stalled,
    "stream_dropped": case_stream_dropped,
    "secret_redaction": case_secret_redaction,
    "no_silent_downgrade": case_no_silent_downgrade,
}
"""Every case, in table order."""


async def _close(providers: list[Provider]) -> None:
    for provider in providers:
        closer = getattr(provider, "aclose", None)
        if closer is None:
            continue
        with anyio.CancelScope(shield=True), anyio.move_on_after(2):
            try:
                await closer()
            except Exception:  # closing a client after a broken case
                pass


async def run_case(
    target: Target, name: str, server: LoopbackServer, shared: dict[str, Provider] | None = None
) -> CaseResult:
    """Run case ``name`` for ``target`` against ``server``; never raises for a failed case.

    ``shared`` keeps one default provider across cases (the caller closes it).
    """
    if target.skip:
        return CaseResult(target=target.name, case=name, status="skip", detail=target.skip)
    ctx = Context(target=target, server=server, shared=shared if shared is not None else {})
    started = time.perf_counter()
    try:
        await CASES[name](ctx)
    except NotApplicable as exc:
        return CaseResult(target=target.name, case=name, status="n/a", detail=str(exc))
    except CaseFailed as exc:
        status, detail = "fail", str(exc)
    except Exception as exc:
        status, detail = "fail", f"{type(exc).__name__}: {exc}"
    else:
        status, detail = "pass", ""
    finally:
        await _close([p for p in ctx.providers if p not in ctx.shared.values()])
        if shared is None:
            await _close(list(ctx.shared.values()))
    return CaseResult(
        target=target.name,
        case=name,
        status=status,
        detail=detail[:300],
        seconds=time.perf_counter() - started,
    )


async def run_target(
    target: Target, server: LoopbackServer, cases: list[str] | None = None
) -> list[CaseResult]:
    """Run ``cases`` (default: all) for ``target``, one after another, in one event loop."""
    shared: dict[str, Provider] = {}
    try:
        return [await run_case(target, name, server, shared) for name in (cases or list(CASES))]
    finally:
        await _close(list(shared.values()))
