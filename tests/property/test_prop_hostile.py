"""A hostile understanding runs ≥ 10,000 turns with zero invariant violations.

Each Hypothesis example is one conversation of 25–50 turns over ``DEMO_RECORDS`` on an
observed ``InMemoryStore``: hostile text turns (``tf_hostile.make_hostile_understanding``),
random clicks on any card created so far (stale, resolved, superseded, double clicks,
another user, another account, another conversation) and text plus click together. The
oracle (``tf_oracle``) checks every turn from outside the runtime:

* I4/I9/I17: every envelope the executor receives has one of the four server-issued
  origins, the workflow's own policy, and an origin the policy accepts; a confirmation
  origin exists only for the card clicked in that turn, as it was stored, open, before it,
  on the revision it was bound to; a review follows a given confirmation; every
  ``CommitRequest`` reaching the store matches envelopes the executor saw;
* I8: every planned batch comes from an act (a clicked or answered card's pending act, a
  carried act) whose resolution was Exact on that very case;
* I11: every act, question and card answer has exactly one result, attributable to it;
  every question exactly one answer;
* I15: every receipt cites journaled events of its case and operation; no result claims a
  commit that did not happen; the claim guard never has to refuse a block;
* I1: a brief holds only handles of the actor's own records, never a case reference;
* I5, I6, I16: one open card per case, cards in the reply are persisted, one card per
  commit, a card resolved as committed was resolved by the commit that carried it;
* ADR 0002: no submission commits in a turn that says "do not submit", nor under a standing one
  unless lifted in words or by the card's click.

Deterministic and bounded: batches of ``BATCH`` conversations run under the fixed seeds
0, 1, 2, … (no example database) until at least ``MIN_TURNS`` turns have run, so the floor
holds whatever lengths Hypothesis draws. Shrinking is off here (a failure names the turn,
its click, its understanding and its results; ``test_prop_sequences`` is the shrinkable
twin). The turn count, wall and CPU time and a coverage tally are printed (``pytest -s``)
and recorded as test properties; coverage floors keep the run honest.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import anyio
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from tf_hostile import Conversation
from tf_oracle import Oracle

from turnframe.samples.travel import travel_application

MIN_TURNS = 10_000
BATCH = 20
TALLY = {"turns": 0, "conversations": 0}
STATS: Counter[str] = Counter()
COVERAGE_FLOORS = {  # about a quarter of what the run shows; reviews: test_prop_card_commit
    "origin:direct_user_act": 300,
    "origin:confirmed_interaction": 50,
    "commit:written": 300,
    "block:receipt": 300,
    "card:confirm": 200,
    "card:select_target": 100,
    "click:open": 250,
    "click:resolved": 100,
    "click:stale": 10,
    "click:superseded": 4,
    "click:unseen": 500,
}


def _hostile_batch(batch: int) -> None:
    """Run one batch of ``BATCH`` conversations under the fixed seed ``batch``."""

    @seed(batch)
    @settings(
        max_examples=BATCH,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data(), length=st.integers(25, 50))
    def conversation(data: Any, length: int) -> None:
        oracle = Oracle(travel_application().registry)

        async def main() -> None:
            talk = Conversation(data, oracle)
            await talk.seed()
            try:
                for _ in range(length):
                    await talk.turn()
            finally:
                TALLY["turns"] += talk.turns
                STATS.update(oracle.stats)
            TALLY["conversations"] += 1

        with oracle.installed():
            anyio.run(main)
        assert not oracle.violations, "\n".join(oracle.violations)

    conversation()


def test_hostile_understanding_runs_10000_turns_with_zero_violations(
    record_property: Callable[[str, object], None],
) -> None:
    before, talks = TALLY["turns"], TALLY["conversations"]
    STATS.clear()
    started = time.perf_counter()
    cpu = time.process_time()
    batch = 0
    while TALLY["turns"] - before < MIN_TURNS:
        _hostile_batch(batch)
        batch += 1
    cpu = time.process_time() - cpu
    elapsed = time.perf_counter() - started
    turns = TALLY["turns"] - before
    record_property("hostile_turns", turns)
    record_property("hostile_seconds", round(elapsed, 2))
    record_property("hostile_cpu_seconds", round(cpu, 2))
    print(
        f"\nhostile understanding: {turns} turns in {TALLY['conversations'] - talks} "
        f"conversations ({batch} seeded batches), "
        f"{elapsed:.1f} s wall, {cpu:.1f} s CPU ({1000 * cpu / max(turns, 1):.2f} ms/turn), "
        f"0 violations\ncoverage: {dict(sorted(STATS.items()))}"
    )
    assert turns >= MIN_TURNS, f"only {turns} hostile turns ran; the floor is {MIN_TURNS}"
    # The run must exercise what it guards, or zero violations would mean nothing.
    for key, floor in COVERAGE_FLOORS.items():
        assert STATS[key] >= floor, f"coverage {key}: {STATS[key]} < {floor}"
