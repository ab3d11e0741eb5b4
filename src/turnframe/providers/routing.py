"""Routing and fallback bounded by commit (docs/architecture.md "Providers", I18).

A :class:`FallbackProvider` serves a task from its list of candidate profiles. Before
any command of the turn executes, a classified-retryable failure (rate limit,
overload, server error, timeout, dropped stream) moves the call to the next candidate
that meets the request's needs. After commit starts, only the reply tasks
(``acknowledge``, ``review``, ``answer`` by default) may call at all, and only they may
move to another candidate: understanding and execution never run again once effects
may have committed. A failure that is not retryable (authentication, quota, context
overflow, bad request) and a cancellation are never fallen back from.

:class:`CommitFence` tells the two apart. Subscribe it to the runtime's events
(``runtime.subscribe(fence.observe)``): the turn's ``committing`` phase closes it and
the next turn's ``received`` phase opens it again. Its state lives in a context
variable, so concurrent turns each see their own.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import InvariantBroken
from turnframe.core.turn import TurnEvent, TurnPhase
from turnframe.providers.base import ModelRequest, ModelResponse, Provider
from turnframe.providers.errors import CapabilityMissing, ProviderError

__all__ = ["REPLY_TASKS", "Attempt", "CommitFence", "FallbackProvider"]

REPLY_TASKS = frozenset({"acknowledge", "review", "answer"})
"""The tasks that write the reply: the only ones allowed after commit (I18)."""

_COMMITTED: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "turnframe_turn_committed", default=False
)


class CommitFence:
    """Knows whether the current turn has started committing.

    It is closed by the ``committing`` (or any later) phase and opened by ``received``.
    """

    def observe(self, event: TurnEvent) -> None:
        """A runtime listener: follow the turn's phases."""
        if event.kind != "phase":
            return
        if event.phase is TurnPhase.RECEIVED:
            _COMMITTED.set(False)
        elif event.phase in (TurnPhase.COMMITTING, TurnPhase.COMMITTED, TurnPhase.REPLIED):
            _COMMITTED.set(True)

    @property
    def committed(self) -> bool:
        """Whether commands of the current turn may already have executed."""
        return _COMMITTED.get()

    def close(self) -> None:
        """Mark the current turn as committing (for callers without a runtime)."""
        _COMMITTED.set(True)

    def open(self) -> None:
        """Mark a new turn (for callers without a runtime)."""
        _COMMITTED.set(False)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Attempt:
    """One candidate tried for one call.

    Attributes:
        task: the task's name.
        provider: the candidate's profile id.
        outcome: ``ok``, ``skipped: <why>`` or the error class's name.
        committed: whether the turn had started committing.
    """

    task: str
    provider: str
    outcome: str
    committed: bool


class FallbackProvider(Provider):
    """Tries candidates in order for retryable failures, within the bounds of commit.

    Args:
        candidates: the providers, preferred first; their profiles declare what each can do.
        fence: the turn's commit fence (default: a fresh one, open until closed).
        reply_tasks: the task names allowed after commit.

    Its own profile is the first candidate's.
    """

    def __init__(
        self,
        candidates: Sequence[Provider],
        *,
        fence: CommitFence | None = None,
        reply_tasks: Iterable[str] = REPLY_TASKS,
    ) -> None:
        if not candidates:
            raise ValueError("a FallbackProvider needs at least one candidate")
        self.candidates = tuple(candidates)
        self.profile = self.candidates[0].profile
        self.fence = fence or CommitFence()
        self.reply_tasks = frozenset(reply_tasks)
        self.attempts: list[Attempt] = []

    def _usable(self, provider: Provider, request: ModelRequest) -> str | None:
        caps = provider.profile.capabilities
        if request.stream and not caps.streaming:
            return "does not stream"
        if request.tools and not caps.tool_calls:
            return "has no tool calls"
        if not caps.structured_output and not (
            request.allow_prompt_only_json and caps.prompt_only_json
        ):
            return "has no genuine structured output"
        return None

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Return the first candidate's answer that does not fail retryably.

        Raises:
            InvariantBroken: a task other than a reply task called after commit (I18).
            CapabilityMissing: no candidate can meet the request.
            ProviderError: the last candidate's failure, or the first non-retryable one.
        """
        committed = self.fence.committed
        if committed and request.task not in self.reply_tasks:
            raise InvariantBroken(
                f"I18: task {request.task!r} called a model after commit started; only "
                f"{', '.join(sorted(self.reply_tasks))} may run then"
            )
        last: ProviderError | None = None
        reasons: list[str] = []
        for provider in self.candidates:
            why = self._usable(provider, request)
            if why:
                reasons.append(f"{provider.profile.id} {why}")
                self.attempts.append(
                    Attempt(
                        task=request.task,
                        provider=provider.profile.id,
                        outcome=f"skipped: {why}",
                        committed=committed,
                    )
                )
                continue
            try:
                response = await provider.complete(request)
            except ProviderError as exc:
                self.attempts.append(
                    Attempt(
                        task=request.task,
                        provider=provider.profile.id,
                        outcome=type(exc).__name__,
                        committed=committed,
                    )
                )
                if not exc.failure.retryable:
                    raise
                last = exc
                continue
            self.attempts.append(
                Attempt(
                    task=request.task,
                    provider=provider.profile.id,
                    outcome="ok",
                    committed=committed,
                )
            )
            return response
        if last is not None:
            raise last
        raise CapabilityMissing("no candidate can serve this request: " + "; ".join(reasons))
