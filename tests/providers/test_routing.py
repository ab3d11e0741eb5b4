"""Fallback bounded by commit (I18): a turn whose first provider fails at each point.

Before commit a classified-retryable failure moves the call to the next candidate and
the turn ends exactly as with a healthy provider; a non-retryable one stops the turn
with nothing executed. After commit only the reply tasks may call a model, and only
they may move to another candidate; understanding never runs again.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import anyio
import pytest

from turnframe.core import Actor, TurnInput
from turnframe.core.errors import InvariantBroken
from turnframe.providers import (
    AuthenticationFailed,
    Message,
    ModelRequest,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
    ScriptedProvider,
)
from turnframe.providers.errors import CapabilityMissing, ProviderTimeout, QuotaExceeded
from turnframe.providers.routing import CommitFence, FallbackProvider
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import ModelUnderstanding

ACTOR = Actor(account="acme", user="maria", roles=frozenset({"customer"}))
TEXT = "Start a trip called Oslo Summit"
ANSWERS: dict[str, Any] = {
    # Low effort reads the message in one merged call, then verifies (docs/architecture.md
    # "Effort"); a new record's target is known to code.
    "read": {
        "units": [
            {
                "id": "u1",
                "kind": "request",
                "from": 0,
                "to": 5,
                "hypothetical": False,
                "continues": None,
                "acts": [
                    {
                        "operation": "trip.start",
                        "target": None,
                        "values": [{"argument": "name", "from": 4, "to": 5, "copy": "Oslo Summit"}],
                    }
                ],
                "topic": None,
                "constraint": None,
                "card": None,
                "corrects": None,
                "cancels": None,
            }
        ]
    },
    "verify": {"verdict": "ok", "grounding": "user", "findings": []},
    "acknowledge": {"text": "Done."},
}
CALLS_IN_A_TURN = 2  # read, verify at low effort
BASELINE = ["Started trip Oslo Summit (no dates)."]  # what a healthy provider's turn commits


def _failing_at(n: int, error: Callable[[], ProviderError]) -> ScriptedProvider:
    count = {"calls": 0}

    def answer(request: ModelRequest) -> Any:
        count["calls"] += 1
        if count["calls"] == n:
            return error()
        return ANSWERS[request.task]

    return ScriptedProvider(answer, model="primary")


async def _turn(provider: FallbackProvider) -> tuple[Any, InMemoryStore]:
    store = InMemoryStore()
    runtime = Runtime(
        travel_application(),
        store,
        ModelUnderstanding(provider, effort="low"),
        clock=FixedClock(date(2026, 5, 1)),
        ids=SequentialIds(),
    )
    runtime.subscribe(provider.fence.observe)
    result = await runtime.run_turn(ACTOR, "c1", TurnInput(text=TEXT))
    return result, store


def _receipts(result: Any) -> list[str]:
    return [b.receipt.text for b in result.blocks if b.kind == "receipt"]


RETRYABLE: list[Callable[[], ProviderError]] = [
    lambda: ProviderUnavailable("overloaded"),
    lambda: RateLimited("slow down", retry_after=0.0),
    lambda: ProviderTimeout("no answer", sent=True),
]


@pytest.mark.parametrize(
    "error", RETRYABLE, ids=["overloaded", "rate_limited", "timeout_after_sending"]
)
@pytest.mark.parametrize("failing_call", range(1, CALLS_IN_A_TURN + 1))
def test_a_retryable_failure_before_commit_falls_back_and_the_turn_is_unchanged(
    failing_call: int, error: Callable[[], ProviderError]
) -> None:
    secondary = ScriptedProvider(ANSWERS, model="secondary")
    fallback = FallbackProvider([_failing_at(failing_call, error), secondary])
    result, _ = anyio.run(_turn, fallback)
    assert _receipts(result) == BASELINE
    failed = [a for a in fallback.attempts if a.outcome not in ("ok",)]
    assert len(failed) == 1 and not failed[0].committed
    assert [r.task for r in secondary.requests] == [failed[0].task]


@pytest.mark.parametrize("failing_call", range(1, CALLS_IN_A_TURN + 1))
@pytest.mark.parametrize(
    "error",
    [lambda: AuthenticationFailed("bad key"), lambda: QuotaExceeded("spent")],
    ids=["auth", "quota"],
)
def test_a_non_retryable_failure_never_falls_back_and_nothing_executes(
    failing_call: int, error: Callable[[], ProviderError]
) -> None:
    secondary = ScriptedProvider(ANSWERS, model="secondary")
    fallback = FallbackProvider([_failing_at(failing_call, error), secondary])
    result, _ = anyio.run(_turn, fallback)
    # The turn ends with the provider's failure told as such (ADR 0017), and nothing runs.
    assert [b.kind for b in result.blocks] == ["notice"]
    assert result.blocks[0].code.startswith("model_unreachable:")
    assert result.commands == () and _receipts(result) == []
    assert secondary.requests == []
    assert [a.outcome for a in fallback.attempts][-1] == type(error()).__name__


def _request(task: str) -> ModelRequest:
    return ModelRequest(
        task=task,
        messages=(Message(role="user", content="x"),),
        schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    )


def test_after_commit_only_reply_tasks_call_and_only_they_fall_back() -> None:
    async def go() -> None:
        primary = _failing_at(CALLS_IN_A_TURN + 1, lambda: ProviderUnavailable("down"))
        secondary = ScriptedProvider(ANSWERS, model="secondary")
        fallback = FallbackProvider([primary, secondary])
        result, _ = await _turn(fallback)  # commits; the fence saw `committing`
        assert _receipts(result)
        assert fallback.fence.committed
        # The reply task's first call fails at the primary and moves to the secondary.
        response = await fallback.complete(_request("acknowledge"))
        assert response.model == "scripted:secondary"
        assert fallback.attempts[-2].outcome == "ProviderUnavailable"
        assert fallback.attempts[-1].committed
        # Understanding never runs again after commit, on any candidate.
        calls = len(primary.requests), len(secondary.requests)
        for task in ("read", "segment", "route", "extract", "verify"):
            with pytest.raises(InvariantBroken, match="I18"):
                await fallback.complete(_request(task))
        assert (len(primary.requests), len(secondary.requests)) == calls

    anyio.run(go)


def test_a_non_retryable_reply_failure_does_not_fall_back() -> None:
    async def go() -> None:
        fence = CommitFence()
        fence.close()
        secondary = ScriptedProvider(ANSWERS, model="secondary")
        fallback = FallbackProvider(
            [_failing_at(1, lambda: AuthenticationFailed("bad key")), secondary], fence=fence
        )
        with pytest.raises(AuthenticationFailed):
            await fallback.complete(_request("acknowledge"))
        assert secondary.requests == []

    anyio.run(go)


def test_the_next_turn_opens_the_fence_again() -> None:
    async def go() -> None:
        fallback = FallbackProvider([ScriptedProvider(ANSWERS, model="only")])
        await _turn(fallback)
        assert fallback.fence.committed
        result, _ = await _turn(fallback)  # `received` reopened it; understanding ran
        assert _receipts(result)

    anyio.run(go)


def test_a_candidate_without_the_capability_is_skipped_and_none_fails_loudly() -> None:
    from turnframe.providers import Capabilities

    async def go() -> None:
        weak = ScriptedProvider(
            ANSWERS,
            model="weak",
            capabilities=Capabilities(structured_output=False, prompt_only_json=True),
        )
        strong = ScriptedProvider(ANSWERS, model="strong")
        fallback = FallbackProvider([weak, strong])
        response = await fallback.complete(_request("acknowledge"))
        assert response.model == "scripted:strong" and weak.requests == []
        with pytest.raises(CapabilityMissing):
            await FallbackProvider([weak]).complete(_request("acknowledge"))

    anyio.run(go)
