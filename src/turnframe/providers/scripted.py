"""Test providers: scripted answers, replayed turns and a fixed-latency fake (I20).

See docs/architecture.md "Providers".

None of them calls a network. They exist so tests, scenarios, replays and benchmarks run
the real task machinery over known answers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

import anyio

from turnframe.core.errors import UsageError
from turnframe.core.ids import JSONObject
from turnframe.providers.base import (
    Capabilities,
    ModelProfile,
    ModelRequest,
    ModelResponse,
    Provider,
    StopReason,
    Usage,
    estimate_tokens,
)
from turnframe.providers.errors import ProviderError

__all__ = [
    "Answer",
    "FixedLatencyProvider",
    "ReplayMismatch",
    "ReplayProvider",
    "ScriptedProvider",
]

Answer: TypeAlias = "JSONObject | str | ModelResponse | BaseException"
"""A scripted answer: a JSON object (sent as its text), raw text, a whole response, or an
exception to raise (a dropped call, a rate limit...)."""


def _response(answer: Any, request: ModelRequest, model: str) -> ModelResponse:
    if isinstance(answer, BaseException):
        raise answer
    if isinstance(answer, ModelResponse):
        return answer
    text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
    stop = StopReason.COMPLETE if text.strip() else StopReason.EMPTY
    return ModelResponse(
        text=text,
        stop=stop,
        usage=Usage(prompt_tokens=request.prompt_tokens(), completion_tokens=estimate_tokens(text)),
        model=model,
    )


class ScriptedProvider(Provider):
    """Answers each task from a table or a function; for tests, scenarios and the oracle.

    Args:
        answers: either a mapping ``task name → answer`` (a list is served in order, one
            answer per call; anything else is served every time), or a function of the
            request returning an answer.
        model: the model name its profile reports.
        capabilities: the profile's declared capabilities (default: genuine structured
            output, and a reasoning setting, temperature and seed it takes and ignores, so
            a scripted verify answer needs no reasoning field; declare
            ``reasoning_effort=False`` to be asked for the field, as the oracle does).

    Raises:
        UsageError: from :meth:`complete` when the table has no answer left for a task.
    """

    def __init__(
        self,
        answers: Mapping[str, Any] | Callable[[ModelRequest], Any],
        *,
        model: str = "scripted",
        capabilities: Capabilities | None = None,
    ) -> None:
        self.profile = ModelProfile(
            provider="scripted",
            model=model,
            capabilities=capabilities or Capabilities(reasoning_effort=True, seed=True),
        )
        self._fn = answers if callable(answers) else None
        self._table: dict[str, Any] = {}
        if not callable(answers):
            for task, value in answers.items():
                self._table[task] = list(value) if isinstance(value, list | tuple) else value
        self.requests: list[ModelRequest] = []

    @property
    def tasks(self) -> frozenset[str] | None:
        """Return the task names the table answers (``None``: a function answers every task)."""
        return None if self._fn is not None else frozenset(self._table)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Return the scripted answer for ``request`` (raise it when it is an exception)."""
        self.requests.append(request)
        if self._fn is not None:
            answer = self._fn(request)
        else:
            if request.task not in self._table:
                raise UsageError(f"the scripted provider has no answer for task {request.task!r}")
            entry = self._table[request.task]
            if isinstance(entry, list):
                if not entry:
                    raise UsageError(
                        f"the scripted provider ran out of answers for {request.task!r}"
                    )
                answer = entry.pop(0)
            else:
                answer = entry
        return _response(answer, request, self.profile.id)


class ReplayMismatch(ProviderError):
    """A replayed turn sent a request that its record does not hold."""


class ReplayProvider(Provider):
    """Serves a recorded turn's calls by request fingerprint, so the turn replays identically.

    Args:
        calls: the call records of a turn's replay record (each has ``fingerprint`` and
            ``response``); several calls with one fingerprint are served in recorded order.

    The profile declares what the recorded calls show the original one took (a reasoning
    setting, a temperature, a seed), so the replayed requests are built the same way.

    Raises:
        ReplayMismatch: from :meth:`complete` for a request the record does not hold.
    """

    def __init__(self, calls: Sequence[Mapping[str, Any]]) -> None:
        recorded = [c for c in calls if isinstance(c, Mapping)]
        self.profile = ModelProfile(
            provider="replay",
            model="recorded",
            capabilities=Capabilities(
                reasoning_effort=any(c.get("reasoning") for c in recorded),
                temperature=any(c.get("temperature") is not None for c in recorded),
                seed=any(c.get("seed") is not None for c in recorded),
            ),
        )
        self._by_print: dict[str, list[Mapping[str, Any]]] = {}
        if isinstance(calls, str | bytes) or not isinstance(calls, Sequence):
            raise UsageError("a replay record's calls are a list of recorded calls")
        for n, call in enumerate(calls):
            _check_call(n, call)
            response = call.get("response")
            if isinstance(response, Mapping):
                self._by_print.setdefault(str(call.get("fingerprint")), []).append(response)
        self.served = 0

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Return the recorded response to an identical request."""
        queue = self._by_print.get(request.fingerprint())
        if not queue:
            raise ReplayMismatch(f"no recorded call for a {request.task!r} request like this one")
        data = queue.pop(0) if len(queue) > 1 else queue[0]
        self.served += 1
        usage = data.get("usage") or {}
        return ModelResponse(
            text=str(data.get("text", "")),
            stop=StopReason(str(data.get("stop", "complete"))),
            usage=Usage(
                prompt_tokens=int(usage.get("prompt_tokens", 0)),
                completion_tokens=int(usage.get("completion_tokens", 0)),
            ),
            model=str(data.get("model", "replay:recorded")),
        )


_STOPS = tuple(s.value for s in StopReason)


def _check_call(n: int, call: Any) -> None:
    """Refuse a recorded call a replay could not serve, naming where it is wrong.

    Raises:
        UsageError: one line, ``calls[N].field: what is wrong``.
    """
    where = f"replay record: calls[{n}]"
    if not isinstance(call, Mapping):
        raise UsageError(f"{where} is not a mapping")
    if not isinstance(call.get("fingerprint"), str):
        raise UsageError(f"{where}.fingerprint is missing or not text")
    response = call.get("response")
    if response is None:
        return
    if not isinstance(response, Mapping):
        raise UsageError(f"{where}.response is neither a mapping nor null")
    if not isinstance(response.get("text", ""), str):
        raise UsageError(f"{where}.response.text is not text")
    if str(response.get("stop", "complete")) not in _STOPS:
        raise UsageError(f"{where}.response.stop is not one of {', '.join(_STOPS)}")
    usage = response.get("usage") or {}
    if not isinstance(usage, Mapping) or not all(
        isinstance(usage.get(k, 0), int) and not isinstance(usage.get(k, 0), bool)
        for k in ("prompt_tokens", "completion_tokens")
    ):
        raise UsageError(f"{where}.response.usage holds no whole token counts")


class FixedLatencyProvider(Provider):
    """Wraps a provider and makes every call take exactly ``latency`` seconds (benchmarks).

    Counts calls and the largest number in flight at once, so a benchmark can read a
    turn's critical path in units of one call's latency.

    Args:
        inner: the provider that answers.
        latency: seconds each call takes.
    """

    def __init__(self, inner: Provider, latency: float = 0.02) -> None:
        self.inner = inner
        self.latency = latency
        self.profile = inner.profile
        self.calls = 0
        self.prompt_tokens = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.spans: list[tuple[float, float]] = []

    def critical_path(self) -> int:
        """Return the longest chain of calls each sent after the previous one came back.

        That is the turn's critical path in units of one call's latency, whatever time
        the code spent between calls: calls sent together count once.
        """
        depth: list[int] = []
        spans = sorted(self.spans)
        for n, (start, _end) in enumerate(spans):
            before = [depth[m] for m in range(n) if spans[m][1] <= start]
            depth.append(1 + max(before, default=0))
        return max(depth, default=0)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Wait ``latency`` seconds, then return the inner provider's answer."""
        self.calls += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        started = time.perf_counter()
        try:
            await anyio.sleep(self.latency)
            response = await self.inner.complete(request)
        finally:
            self.in_flight -= 1
            self.spans.append((started, time.perf_counter()))
        self.prompt_tokens += response.usage.prompt_tokens
        elapsed = (time.perf_counter() - started) * 1000
        return ModelResponse(
            text=response.text,
            stop=response.stop,
            usage=response.usage,
            model=response.model,
            latency_ms=elapsed,
        )
