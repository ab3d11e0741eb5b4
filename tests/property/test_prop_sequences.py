"""Arbitrary sequences of scripted proposals and clicks, shrinkable choice by choice.

The same hostile conversations as ``test_prop_hostile``, but every choice (turn kind,
actor, click, each field of the understanding, the order of its arguments and items) is
its own Hypothesis draw through the ``hostile_understanding`` strategy, so a failure
shrinks to a short, readable sequence. Every turn is checked by ``tf_oracle``: no command
from a non-Exact resolution (I8), no commit whose origin is not one of the four
server-issued variants or that no executor saw (I4), exactly one result per act, question
and card answer (I11), no receipt without its committed events (I15), and the card
invariants (I5, I6, I16).
"""

from __future__ import annotations

from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tf_hostile import Conversation
from tf_oracle import Oracle

from turnframe.samples.travel import travel_application


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), length=st.integers(3, 8))
def test_proposal_and_click_sequences_keep_the_invariants(data: Any, length: int) -> None:
    oracle = Oracle(travel_application().registry)

    async def main() -> None:
        conversation = Conversation(data, oracle, seeded=False)
        await conversation.seed()
        for _ in range(length):
            await conversation.turn()

    with oracle.installed():
        anyio.run(main)
    assert not oracle.violations, "\n".join(oracle.violations)
