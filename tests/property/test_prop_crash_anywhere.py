"""A crash at any write point, then recovery, ends as the uninterrupted turn ends.

docs/adr/0024-four-writes-per-turn.md folds a turn's writes into ``begin_turn``, the plan
with its commits (``commit_plan``), the cards and the reply (``finish_turn``). Hypothesis
draws a turn (a text turn with two commits and a confirmation card, or a click that
confirms a card) and a fault: a boundary of :data:`turnframe.store.BOUNDARIES` and which
of its hits fails. The turn runs into the fault, then resumes the documented way (run
again under its id when nothing was persisted, else ``Runtime.recover``). Everything the
turn leaves (the reply, results, case states and revisions, events, cards, conversation
state, the replay record's keys) must equal what the same turn leaves without a fault,
on a fresh identical world; card ids are compared by order of appearance, since a turn
re-run from ``received`` mints new ones.
"""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

import anyio
from hypothesis import given, settings
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
from turnframe.runtime import FixedClock, Runtime, SequentialIds, TurnInterrupted, TurnResult
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application
from turnframe.store import BOUNDARIES, FaultPlan, InMemoryStore, TurnStore, codec
from turnframe.understand import Brief, UnderstandingResult

ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
CONVERSATION = "c1"
TODAY = date(2026, 5, 1)

# (record key, operation, args): the text turn commits the first two and draws a card for
# the third (a cancellation needs a confirmation).
TEXT_ACTS = (
    ("T1", "trip.add_extra", {"kind": "seat", "payer": "company"}),
    ("T3", "trip.rename", {"name": "Porto in May"}),
    ("T2", "trip.cancel", {}),
)
CRASH_POINTS = tuple(b for b in BOUNDARIES if b != "create_interaction")
"""Every write point but a card's: a card that cannot be stored is no crash, the turn
replies without it and says so (I6, ``card_failed``)."""
SETUP_ACTS = (("T3", "trip.book_hotel", {"hotel": "Avenida", "nights": "3"}),)


class _SameReading:
    """Understanding that reads the same acts however often the turn is read."""

    def __init__(self, world: _World) -> None:
        self.world = world
        self.acts: tuple[tuple[str, str, dict[str, str]], ...] = ()

    async def understand(self, brief: Brief) -> UnderstandingResult:
        rt = self.world.runtime
        acts = tuple(
            SemanticAct(
                id=f"a{n}",
                operation=operation,
                target=ProposedTarget(
                    handles=(rt.handle_for(brief.turn_id, self.world.refs[key]),)
                ),
                args=dict(args),
                evidence=dict(args),
            )
            for n, (key, operation, args) in enumerate(self.acts, 1)
        )
        return UnderstandingResult(understanding=Understanding(acts=acts))


class _World:
    """One store, runtime and seeded account."""

    def __init__(self, store: TurnStore, plan: FaultPlan) -> None:
        self.store = store
        self.plan = plan
        self.refs: dict[str, CaseRef] = {}
        self.reader = _SameReading(self)
        self.runtime = Runtime(
            travel_application(),
            store,
            self.reader,
            clock=FixedClock(TODAY),
            ids=SequentialIds(),
        )

    async def seed(self) -> None:
        for key, case, state in seed_all(DEMO_RECORDS):
            self.refs[key] = await self.runtime.seed(
                ACTOR.account, case.workflow, state, case_id=case.case_id
            )

    async def setup(self, shape: str) -> TurnInput:
        """Run the untimed turns the shape needs; return the turn under test."""
        if shape == "text":
            self.reader.acts = TEXT_ACTS
            return TurnInput(text="a seat on Lisbon, rename Porto, cancel the June trip")
        self.reader.acts = SETUP_ACTS
        setup = await self.runtime.run_turn(ACTOR, CONVERSATION, TurnInput(text="book it"))
        (card,) = setup.interactions_created
        return TurnInput(
            interaction_response=InteractionResponse(
                interaction_id=card.id,
                option_id="confirm",
                expected_revision=card.spec.bound_revision,
            )
        )

    async def run(self, turn: TurnInput) -> TurnResult:
        """Run the turn; after an interruption resume it as documented, until it replies."""
        turn_id = "turn-under-test"
        try:
            return await self.runtime.run_turn(ACTOR, CONVERSATION, turn, turn_id=turn_id)
        except TurnInterrupted:
            pass
        self.plan.disarm()
        if await self.store.get_turn(ACTOR.account, turn_id) is None:
            return await self.runtime.run_turn(ACTOR, CONVERSATION, turn, turn_id=turn_id)
        return await self.runtime.recover(ACTOR, turn_id)

    async def observe(self, result: TurnResult) -> str:
        """Return everything the turn left, as JSON with card ids by first appearance."""
        store = self.store
        cases = {}
        for key, ref in sorted(self.refs.items()):
            row = await store.load_case(ref)
            assert row is not None
            events = [
                [e.revision, e.type, e.operation, e.data, e.turn_id]
                for e in await store.case_events(ref)
            ]
            cases[key] = {"state": row.state, "revision": row.revision, "events": events}
        stored = await store.load_reply(ACTOR.account, result.turn_id)
        assert stored == result.blocks  # the reply persisted exactly as returned
        turn = await store.get_turn(ACTOR.account, result.turn_id)
        assert turn is not None and turn.phase == "replied"
        replay = await store.load_replay(ACTOR.account, result.turn_id) or {}
        cards = [
            [c.id, c.status.value, codec.spec_to_json(c.spec)]
            for c in await store.open_interactions(ACTOR.account, CONVERSATION)
        ]
        seen: dict[str, Any] = {
            "blocks": codec.blocks_to_json(result.blocks),
            "results": {k: [v.status.value, v.code] for k, v in sorted(result.results.items())},
            "cases": cases,
            "cards": cards,
            "conversation": await store.get_conversation_state(ACTOR.account, CONVERSATION),
            "replay_keys": sorted(replay),
            "replay_results": replay.get("results"),
            "replay_commands": replay.get("commands"),
            "turn_data": turn.data,
        }
        text = json.dumps(seen, sort_keys=True)
        names: dict[str, str] = {}
        return re.sub(
            r"card-\d+", lambda m: names.setdefault(m.group(0), f"card#{len(names)}"), text
        )


async def _outcome(shape: str, boundary: str | None, after: int) -> str:
    plan = FaultPlan()
    world = _World(InMemoryStore(faults=plan), plan)
    await world.seed()
    turn = await world.setup(shape)
    if boundary is not None:
        plan.arm(boundary, after=after)
    result = await world.run(turn)
    return await world.observe(result)


@settings(max_examples=40, deadline=None)
@given(
    shape=st.sampled_from(("text", "click")),
    boundary=st.sampled_from(CRASH_POINTS),
    after=st.integers(min_value=0, max_value=2),
)
def test_a_crash_at_any_write_point_recovers_to_the_uninterrupted_outcome(
    shape: str, boundary: str, after: int
) -> None:
    expected = anyio.run(_outcome, shape, None, 0)
    got = anyio.run(_outcome, shape, boundary, after)
    assert got == expected, (shape, boundary, after)
