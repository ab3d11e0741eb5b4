"""Running a task: full validation, one repair round, in-place resend, votes, escalation.

Only an answer that passes the full schema and the task's own check is ever returned.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import anyio
from anyio.abc import TaskGroup

from turnframe.core.canonical import canonical_json
from turnframe.providers.base import (
    Message,
    ModelRequest,
    ModelResponse,
    Provider,
    StopReason,
    require,
)
from turnframe.providers.bounds import (
    DEFAULT_BOUNDS,
    AnswerBounds,
    AnswerUnreadable,
    clip,
    parse_bounded,
    schema_problems,
)
from turnframe.providers.errors import ProviderError
from turnframe.tasks.budget import BudgetMeter, TurnBudget
from turnframe.tasks.errors import BudgetExceeded, TaskFailed
from turnframe.tasks.record import CallRecord, VoteRound
from turnframe.tasks.sampling import Sampling, VoteVariant, rotate_data, rotate_enums
from turnframe.tasks.task import Task
from turnframe.tasks.traced import traced_complete
from turnframe.telemetry import current

__all__ = ["TaskModels", "TaskRunner", "answer_problem", "concurrently", "read_answer"]

_RESEND = (StopReason.REFUSAL, StopReason.CONTENT_FILTER, StopReason.EMPTY)

REPAIR_MESSAGE = (
    "Your answer broke its contract and was not used. The exact error:\n{error}\n"
    "Answer the same question again with one JSON object that follows the schema."
)
TIEBREAK_MESSAGE = (
    "Independent readings of this same input disagreed. They were:\n{answers}\n"
    "Read the input once more and give the one answer you judge right."
)


@asynccontextmanager
async def concurrently() -> AsyncIterator[TaskGroup]:
    """Run calls concurrently in a task group that raises a failure as itself.

    A task group reports a failure wrapped in an ``ExceptionGroup``; callers of a task
    expect the typed error (:class:`~turnframe.tasks.errors.BudgetExceeded`, a provider
    error...), so the first one is raised as it is. The others were cancelled with it.
    """
    try:
        async with anyio.create_task_group() as group:
            yield group
    except ExceptionGroup as exc:
        first: BaseException = exc
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None


class TaskModels:
    """Which provider serves each task, and the stronger one a failing task escalates to.

    Args:
        default: serves every task not named in ``per_task``.
        stronger: a stronger model for escalation, or ``None``.
        per_task: task name → provider.
    """

    def __init__(
        self,
        default: Provider,
        *,
        stronger: Provider | None = None,
        per_task: Mapping[str, Provider] | None = None,
    ) -> None:
        self.default = default
        self.stronger = stronger
        self.per_task = dict(per_task or {})

    def for_task(self, name: str) -> Provider:
        """Return the provider that serves task ``name``."""
        return self.per_task.get(name, self.default)


def read_answer(
    task: Task, text: str, bounds: AnswerBounds = DEFAULT_BOUNDS
) -> tuple[Any, str | None]:
    """Parse ``text`` within ``bounds`` and check it against the full schema and the task's check.

    The size is checked before parsing and the depth by a linear scan, so a huge or
    deeply nested answer is an ordinary invalid answer (a repair round, then a notice),
    never a ``RecursionError`` or a validator walking 200,000 items (docs/adr/0019).

    Returns:
        ``(answer, None)`` when it passes, else ``(None or the parsed value, error)``; the
        error is at most five short problems, each quoting at most a few dozen
        characters of the answer.
    """
    try:
        answer = parse_bounded(text, bounds)
    except AnswerUnreadable as exc:
        return None, str(exc)
    return answer, answer_problem(task, answer, bounds)


def answer_problem(task: Task, answer: Any, bounds: AnswerBounds = DEFAULT_BOUNDS) -> str | None:
    """Return why a parsed ``answer`` fails ``task`` (its full schema, then its check), or ``None``.

    The one check every answer passes before anything uses it: a task's own answer, or
    the part of a merged answer that stands for that task (docs/architecture.md "Effort").
    The error is at most five short problems, each quoting a few dozen characters.
    """
    errors = schema_problems(task.schema, answer, bounds=bounds, limit=5)
    if errors:
        return "; ".join(errors)
    problem = task.check(answer)
    if problem:
        return clip(problem, 4 * bounds.max_problem)
    return None


class TaskRunner:
    """Runs a turn's tasks under one budget and records every call (I20).

    Args:
        models: the providers.
        budget: the turn's budget.
        meter: an existing meter to share (default: a new one for ``budget``).
        bounds: the size and depth every answer is held to before parsing (docs/adr/0019).
        sampling: temperatures and how votes differ (default: temperature 0, votes
            seeded at 0.7 and rotated; docs/adr/0018-decoder-enforceable-schemas.md).

    Attributes:
        records: every call, in order.
        vote_rounds: every voted decision: how many reads, how many distinct readings.
    """

    def __init__(
        self,
        models: TaskModels,
        budget: TurnBudget | None = None,
        *,
        meter: BudgetMeter | None = None,
        sampling: Sampling | None = None,
        bounds: AnswerBounds = DEFAULT_BOUNDS,
    ) -> None:
        self.models = models
        self.bounds = bounds
        self.meter = meter or BudgetMeter(budget or TurnBudget())
        self.sampling = sampling or Sampling()
        self.records: list[CallRecord] = []
        self._started = time.perf_counter()
        self.vote_rounds: list[VoteRound] = []
        self._sampled: dict[int, VoteVariant] = {}

    # ------------------------------------------------------------------- public
    async def run(self, task: Task, *, depth: int = 1, vote: int | None = None) -> Any:
        """Return the task's answer, read as many times as its profile says.

        Vote ``n`` of a voted task is sampled as :meth:`Sampling.variant` says, so no two
        votes are the same request; a vote whose request would still equal an earlier
        vote's is not sent (``collapsed`` in :attr:`vote_rounds`). ``vote`` reads a
        one-read task as vote ``n`` of a caller's own round (extra reads of a fault).

        Raises:
            TaskFailed: when no answer passed (after the repair round and escalation).
            BudgetExceeded: when the turn's budget ran out.
            CapabilityMissing: when the provider cannot meet the task's needs.
            ProviderError: a non-retryable provider failure (authentication, bad request),
                or a retryable one that failed again when sent a second time.
        """
        with current().span(f"task.{task.name}", {"turnframe.task": task.name}):
            return await self._run(task, depth, vote)

    async def _run(self, task: Task, depth: int, vote: int | None) -> Any:
        provider = self.models.for_task(task.name)
        require(provider.profile, task.needs)
        if task.votes <= 1:
            if vote is not None:
                variant = self.sampling.variant(task.name, vote)
                return await self._read(task, provider, depth, attempt="vote", variant=variant)
            return await self._read_or_escalate(task, provider, depth)
        results: list[tuple[int, Any]] = []
        failures: list[str] = []
        variants: list[VoteVariant] = []
        prints: set[str] = set()
        for n in range(task.votes):
            variant = self.sampling.variant(task.name, n)
            printed = self._request(task, provider, self._messages(task, variant), variant)
            if printed.fingerprint() in prints:
                continue  # the same request again could only repeat that reading
            prints.add(printed.fingerprint())
            variants.append(variant)

        async def cast(n: int, variant: VoteVariant) -> None:
            try:
                answer = await self._read(task, provider, depth, attempt="vote", variant=variant)
                results.append((n, answer))
            except TaskFailed as exc:
                failures.append(exc.error)

        async with concurrently() as group:
            for n, variant in enumerate(variants):
                group.start_soon(cast, n, variant)
        if not results:
            return await self._escalate(task, depth, failures[-1] if failures else "no answer")
        results.sort(key=lambda r: r[0])
        answers = [a for _, a in results]
        return await self.decide(
            task, answers, depth, collapsed=task.votes - len(variants), failed=len(failures)
        )

    async def decide(
        self, task: Task, answers: list[Any], depth: int, *, collapsed: int = 0, failed: int = 0
    ) -> Any:
        """Return the majority answer of ``answers``; a split is read once more if allowed.

        The round is kept in :attr:`vote_rounds` (reads, distinct readings), for the
        eval's disagreement rate.
        """
        key = task.vote_key or (lambda a: a)
        counts = Counter(canonical_json(key(a)) for a in answers)
        self.vote_rounds.append(
            VoteRound(
                task=task.name,
                reads=len(answers),
                distinct=len(counts),
                collapsed=collapsed,
                failed=failed,
            )
        )
        best, count = counts.most_common(1)[0]
        if count * 2 > len(answers) or len(counts) == 1:
            return next(a for a in answers if canonical_json(key(a)) == best)
        if task.tiebreak:
            shown = "\n".join(json.dumps(a, ensure_ascii=False) for a in answers)
            extra = (Message(role="user", content=TIEBREAK_MESSAGE.format(answers=shown)),)
            provider = self.models.for_task(task.name)
            try:
                return await self._read(task, provider, depth + 1, attempt="tiebreak", extra=extra)
            except TaskFailed:
                pass
        # No majority and no tiebreak: the earliest of the most common readings.
        return next(a for a in answers if canonical_json(key(a)) == best)

    # ----------------------------------------------------------------- internals
    async def _read_or_escalate(self, task: Task, provider: Provider, depth: int) -> Any:
        try:
            return await self._read(task, provider, depth, attempt="first")
        except TaskFailed as exc:
            return await self._escalate(task, depth, exc.error)

    async def _escalate(self, task: Task, depth: int, error: str) -> Any:
        stronger = self.models.stronger
        if stronger is None or not task.escalate:
            raise TaskFailed(task.name, error)
        require(stronger.profile, task.needs)
        return await self._read(task, stronger, depth + 1, attempt="escalate")

    def _messages(self, task: Task, variant: VoteVariant) -> tuple[Message, ...]:
        data = rotate_data(task.data, variant.rotation)
        return (
            Message(role="system", content=task.instructions),
            Message(role="user", content=json.dumps(data, ensure_ascii=False, indent=1)),
        )

    def _request(
        self,
        task: Task,
        provider: Provider,
        messages: tuple[Message, ...],
        variant: VoteVariant,
    ) -> ModelRequest:
        caps = provider.profile.capabilities
        reasoning = task.reasoning if caps.reasoning_effort else None
        request = ModelRequest(
            task=task.name,
            messages=messages,
            schema=rotate_enums(task.schema, variant.rotation),
            schema_name=task.name,
            reasoning=reasoning,
            prompt_id=task.prompt_id,
            allow_prompt_only_json=task.needs.allow_prompt_only_json,
            # Only what the profile accepts is asked for, so the record says what was sent.
            temperature=variant.temperature if caps.temperature else None,
            seed=variant.seed if caps.seed else None,
        )
        self._sampled[id(request)] = variant
        return request

    async def _read(
        self,
        task: Task,
        provider: Provider,
        depth: int,
        *,
        attempt: str,
        extra: tuple[Message, ...] = (),
        variant: VoteVariant | None = None,
    ) -> Any:
        """One read with at most one repair round; raises TaskFailed with the exact error."""
        variant = variant or self.sampling.variant(task.name, None)
        messages = (*self._messages(task, variant), *extra)
        request = self._request(task, provider, messages, variant)
        response = await self._call(task, provider, request, depth, attempt)
        answer, error = read_answer(task, response.text, self.bounds)
        self._record(
            task, attempt, depth, request, response, "ok" if error is None else f"invalid: {error}"
        )
        if error is None:
            return answer
        repair = (
            *messages,
            # An answer refused for its size goes back cut to the bound, not whole.
            Message(role="assistant", content=clip(response.text, self.bounds.max_chars)),
            Message(role="user", content=REPAIR_MESSAGE.format(error=error)),
        )
        request = self._request(task, provider, repair, variant)
        response = await self._call(task, provider, request, depth + 1, "repair")
        answer, error = read_answer(task, response.text, self.bounds)
        self._record(
            task,
            "repair",
            depth + 1,
            request,
            response,
            "ok" if error is None else f"invalid: {error}",
        )
        if error is None:
            return answer
        raise TaskFailed(task.name, error)

    async def _call(
        self, task: Task, provider: Provider, request: ModelRequest, depth: int, attempt: str
    ) -> ModelResponse:
        """Send ``request``; a refused, filtered, empty or dropped call is sent again in place once.

        Raises:
            ProviderError: a non-retryable failure, or a retryable one that failed twice.
            TaskFailed: the answer was refused, filtered or empty twice, or truncated.
        """
        for round_ in (0, 1):
            self.meter.before_call(depth)
            started = time.perf_counter()
            try:
                response = await traced_complete(
                    provider, request, attempt if round_ == 0 else "resend"
                )
            except ProviderError as exc:
                if not exc.failure.retryable:
                    self._record(
                        task, attempt, depth, request, None, f"error: {type(exc).__name__}"
                    )
                    raise
                self._record(task, attempt, depth, request, None, f"resend: {type(exc).__name__}")
                if round_ == 1:
                    # Sent twice and failed twice: the provider's failure, not the answer's
                    # (it is never read as an unreadable message).
                    raise
                continue
            if not response.latency_ms:
                response = replace(response, latency_ms=(time.perf_counter() - started) * 1000)
            try:
                self.meter.after_call(
                    response.usage.prompt_tokens + response.usage.completion_tokens
                )
            except BudgetExceeded:
                # The call was made and paid for: it is recorded like any other (I20).
                self._record(task, attempt, depth, request, response, "error: BudgetExceeded")
                raise
            if response.stop in _RESEND:
                self._record(
                    task, attempt, depth, request, response, f"resend: {response.stop.value}"
                )
                if round_ == 1:
                    raise TaskFailed(
                        task.name, f"the provider answered {response.stop.value} twice"
                    )
                continue
            if response.stop is StopReason.TRUNCATED:
                self._record(task, attempt, depth, request, response, "invalid: truncated")
                raise TaskFailed(task.name, "the answer was truncated")
            return response
        raise AssertionError("unreachable")  # pragma: no cover

    def _record(
        self,
        task: Task,
        attempt: str,
        depth: int,
        request: ModelRequest,
        response: ModelResponse | None,
        verdict: str,
    ) -> None:
        self.records.append(
            CallRecord(
                task=task.name,
                attempt=attempt,
                depth=depth,
                request=request,
                response=response,
                verdict=verdict,
                ended_ms=(time.perf_counter() - self._started) * 1000,
                sampling=(v.to_json() if (v := self._sampled.get(id(request))) else None),
            )
        )
