"""A click reads its card once: the load step's open card is the one the store would return (I16).

``resolve_click`` takes the clicked card from the turn's cards on screen (the open cards
of the turn's own account and conversation, read by the load step) and asks the store
(``TurnStore.get_interaction``) only for an id not among them. Hypothesis interleaves
cards asked for in two accounts and two conversations, renames of the carded trips (the
card's record changes: the click is refused), and clicks from either account on open,
answered, foreign and unknown cards, with the bound revision or a stale one. Two
runtimes run the same steps, one reading every clicked card from the store: every reply,
result, event and card created is the same, byte for byte. Serving a card on screen by
anything but its id (another card of the conversation) fails the comparison.
"""

from __future__ import annotations

from datetime import date
from typing import Any
from unittest.mock import patch

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.core import (
    Actor,
    CaseRef,
    InteractionResponse,
    ProposedTarget,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.core.canonical import to_json_value
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.runtime.steps import resolve
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import ScriptedUnderstanding

TODAY = date(2026, 5, 1)
ACTORS = (Actor(account="acme", user="ana"), Actor(account="globex", user="bo"))
CONVERSATIONS = ("c1", "c2")
TRIPS = ("T1", "T2", "T3")

ASK = st.tuples(st.just("ask"), st.integers(0, 1), st.integers(0, 1), st.sampled_from(TRIPS))
RENAME = st.tuples(st.just("rename"), st.integers(0, 1), st.integers(0, 1), st.sampled_from(TRIPS))
CLICK = st.tuples(
    st.just("click"),
    st.integers(0, 1),
    st.integers(0, 1),
    st.integers(-1, 5),  # which card asked so far (-1: an id no card has)
    st.sampled_from(["confirm", "decline"]),
    st.booleans(),  # a stale expected revision
)
STEPS = st.lists(st.one_of(ASK, RENAME, CLICK), min_size=1, max_size=12)


def _act(runtime: Runtime, brief: Any, operation: str, trip: CaseRef, **args: str) -> Any:
    return Understanding(
        acts=(
            SemanticAct(
                id="a1",
                operation=operation,
                target=ProposedTarget(handles=(runtime.handle_for(brief.turn_id, trip),)),
                args=args,
                evidence=dict(args),
            ),
        )
    )


async def _run(steps: list[tuple[Any, ...]]) -> list[str]:
    """Run ``steps`` on a fresh runtime; return every turn's outcome as text."""
    script = ScriptedUnderstanding()
    runtime = Runtime(
        travel_application(),
        InMemoryStore(),
        script,
        clock=FixedClock(TODAY),
        ids=SequentialIds(),
    )
    refs: dict[tuple[int, str], CaseRef] = {}
    for n, actor in enumerate(ACTORS):
        for key, case, state in seed_all(
            DEMO_RECORDS, lambda workflow, key, n=n: CaseRef(workflow, f"{key.lower()}-{n}")
        ):
            await runtime.seed(actor.account, case.workflow, state, case.case_id)
            refs[(n, key)] = case
    cards: list[tuple[str, int | None]] = []
    log: list[str] = []
    for number, item in enumerate(steps):
        kind, who, conversation = item[0], item[1], CONVERSATIONS[item[2]]
        actor = ACTORS[who]
        if kind == "click":
            pick, option, stale = item[3], item[4], item[5]
            card_id, bound = cards[pick] if 0 <= pick < len(cards) else ("card-none", 1)
            turn = TurnInput(
                interaction_response=InteractionResponse(
                    interaction_id=card_id,
                    option_id=option,
                    expected_revision=(bound or 0) + (1 if stale else 0),
                )
            )
        else:
            trip = refs[(who, item[3])]
            if kind == "ask":
                script.push(
                    lambda b, t=trip: _act(
                        runtime, b, "trip.book_hotel", t, hotel="Avenida", nights="3"
                    )
                )
                turn = TurnInput(text="book the Avenida for three nights")
            else:
                script.push(
                    lambda b, t=trip, n=number: _act(runtime, b, "trip.rename", t, name=f"R{n}")
                )
                turn = TurnInput(text="rename it")
        result = await runtime.run_turn(actor, conversation, turn)
        for card in result.interactions_created:
            cards.append((card.id, card.spec.bound_revision))
        log.append(
            repr(
                (
                    to_json_value(list(result.blocks)),
                    sorted(result.results.items()),
                    [(e.operation, e.case, e.revision) for e in result.events],
                    [to_json_value(c) for c in result.interactions_created],
                )
            )
        )
    return log


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STEPS)
def test_a_click_answers_the_same_with_the_card_on_screen_and_with_the_stores(
    steps: list[tuple[Any, ...]],
) -> None:
    """Every turn's outcome equals the one of a runtime that reads each clicked card again."""
    reused = anyio.run(_run, steps)
    with patch.object(resolve, "on_screen", lambda cards, interaction_id: None):
        fresh = anyio.run(_run, steps)
    assert reused == fresh


def test_the_comparison_fails_when_a_card_on_screen_is_served_by_anything_but_its_id() -> None:
    """The property's own check: a click on an answered card, with another card open on screen.

    Serving the open card for it (the id check dropped) commits the open card's booking
    where the store's card says "already answered": the outcomes differ.
    """
    steps: list[tuple[Any, ...]] = [
        ("ask", 0, 0, "T1"),
        ("click", 0, 0, 0, "decline", False),
        ("ask", 0, 0, "T2"),
        ("click", 0, 0, 0, "confirm", False),
    ]
    reused = anyio.run(_run, steps)
    with patch.object(resolve, "on_screen", lambda cards, interaction_id: None):
        fresh = anyio.run(_run, steps)
    assert reused == fresh
    with patch.object(
        resolve, "on_screen", lambda cards, interaction_id: cards[0] if cards else None
    ):
        careless = anyio.run(_run, steps)
    assert careless != fresh
