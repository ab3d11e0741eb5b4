"""A hostile understanding runs ≥ 10,000 turns with zero invariant violations.

Each Hypothesis example is one conversation of 20–40 turns over ``DEMO_RECORDS`` on an
observed ``InMemoryStore``: hostile text turns (``tf_hostile.hostile_understanding``),
random clicks on any card created so far (stale, resolved, superseded, double clicks,
another user, another account, another conversation) and text plus click together. The
oracle (``tf_oracle``) checks every turn from outside the runtime:

* I4/I9/I17: every envelope the executor receives has one of the four server-issued
  origins, the workflow's own policy, and an origin the policy accepts; a confirmation
  origin exists only for the card clicked in that turn, as it was stored, open, before it;
  every ``CommitRequest`` reaching the store matches envelopes the executor saw;
* I8: every planned batch comes from an act (or a clicked card's pending act) whose
  resolution was Exact on that very case;
* I11: every act, question and card answer has exactly one result, attributable to it;
* I15: every receipt cites journaled events of its case and operation; no result claims a
  commit that did not happen; the claim guard never has to refuse a block;
* I5, I6, I16: one open card per case, cards in the reply are persisted, a card resolved
  as committed was resolved by the commit that carried it.

Deterministic: ``derandomize=True`` and no example database. The turn count and wall time
are printed (``pytest -s``) and recorded as test properties.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import anyio
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from tf_hostile import Conversation
from tf_oracle import Oracle

from turnframe.samples.travel import travel_application

MIN_TURNS = 10_000
EXAMPLES = 356
TALLY = {"turns": 0, "conversations": 0}
STATS: Counter[str] = Counter()
COVERAGE_FLOORS = {
    "origin:direct_user_act": 500,
    "origin:confirmed_interaction": 100,
    "commit:written": 500,
    "block:receipt": 500,
    "card:confirm": 300,
    "card:select_target": 100,
    "card:review": 1,
    "click:open": 500,
    "click:resolved": 100,
    "click:stale": 5,
    "click:superseded": 5,
    "click:unseen": 100,
}


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), length=st.integers(20, 40))
def _hostile_conversation(data: Any, length: int) -> None:
    oracle = Oracle(travel_application().registry)

    async def main() -> None:
        conversation = Conversation(data, oracle)
        await conversation.seed()
        try:
            for _ in range(length):
                await conversation.turn()
        finally:
            TALLY["turns"] += conversation.turns
            STATS.update(oracle.stats)
        TALLY["conversations"] += 1

    with oracle.installed():
        anyio.run(main)
    assert not oracle.violations, "\n".join(oracle.violations)


def test_hostile_understanding_runs_10000_turns_with_zero_violations(
    record_property: Callable[[str, object], None],
) -> None:
    before = TALLY["turns"]
    STATS.clear()
    started = time.perf_counter()
    cpu = time.process_time()
    _hostile_conversation()
    cpu = time.process_time() - cpu
    elapsed = time.perf_counter() - started
    turns = TALLY["turns"] - before
    record_property("hostile_turns", turns)
    record_property("hostile_seconds", round(elapsed, 2))
    record_property("hostile_cpu_seconds", round(cpu, 2))
    print(
        f"\nhostile understanding: {turns} turns in {TALLY['conversations']} conversations, "
        f"{elapsed:.1f} s wall, {cpu:.1f} s CPU ({1000 * cpu / max(turns, 1):.2f} ms/turn), "
        f"0 violations\ncoverage: {dict(sorted(STATS.items()))}"
    )
    assert turns >= MIN_TURNS, f"only {turns} hostile turns ran; the floor is {MIN_TURNS}"
    # The run must exercise what it guards, or zero violations would mean nothing.
    for key, floor in COVERAGE_FLOORS.items():
        assert STATS[key] >= floor, f"coverage {key}: {STATS[key]} < {floor}"
