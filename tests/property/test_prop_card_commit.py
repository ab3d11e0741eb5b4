"""I16: a card is resolved only once the command it authorized has committed.

A rule-based run (the rules are drawn by Hypothesis, one per step) over a store whose
``FaultPlan`` can fail the commit before it happens (``commit``) or lose its
acknowledgement after it happened (``commit.ack_lost``):

* ``submission``: validate then submit the manifest listing a minor (a Confirm card whose
  click hands over to a Review card only an agent may approve);
* ``propose``: a text act that needs a confirmation (cancel a trip, book a hotel, delete a
  traveler, validate and submit a manifest) creates a Confirm card;
* ``click_commit_fails``: ``commit`` is armed and an open card's confirming option is
  clicked: the turn is interrupted, and the card must still be OPEN in the store, with no
  event written and no resolution (checked right after the click);
* ``click_ack_lost``: the commit is written, its acknowledgement lost: the card must be
  RESOLVED together with the events (one transaction), never one without the other;
* ``recover``: an interrupted turn resumes (docs/architecture.md "Failures");
* ``click`` / ``decline`` / ``edit`` (a change that makes cards stale).

After every step, over every card in the store: a Confirm or Review card that is RESOLVED
was resolved by a written commit carrying it (whose events the journal holds), or handed
its authority to a Review card (every result ``awaiting_confirmation``); a card a written
commit carried is RESOLVED. The full ``tf_oracle`` checks run on every finished turn too.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import anyio
from hypothesis import given, note, settings
from hypothesis import strategies as st
from tf_hostile import ACME, AGENT, TODAY
from tf_oracle import ObservingStore, Oracle, TurnContext

from turnframe.core import (
    Actor,
    CaseRef,
    InteractionKind,
    InteractionResponse,
    InteractionStatus,
    ProposedTarget,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.runtime import FixedClock, Runtime, SequentialIds, TurnInterrupted, TurnResult
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application
from turnframe.store import FaultPlan
from turnframe.understand import ScriptedUnderstanding

CONVERSATION = "conv-1"
PROPOSALS = (
    ("T1", "trip.cancel", {}),
    ("T2", "trip.cancel", {}),
    ("T3", "trip.book_hotel", {"hotel": "Hotel Avenida", "nights": "2"}),
    ("T2", "trip.book_hotel", {"hotel": "Sheraton", "nights": "3"}),
    ("P4", "traveler.delete", {}),
    ("P2", "traveler.delete", {}),
    ("D1", "manifest.validate", {}),
    ("D1", "manifest.submit", {}),
    ("T3", "trip.rename", {"name": "Porto in spring"}),
)
EDITS = (
    ("T1", "trip.rename", {"name": "Lisbon again"}),
    ("T2", "trip.add_extra", {"kind": "seat"}),
    ("T3", "trip.change_dates", {"start": "2026-06-01", "end": "2026-06-05"}),
    ("P4", "traveler.update_email", {"email": "rui@example.org"}),
    ("D1", "manifest.remove_passenger", {"traveler": "P1"}),
)
RULES = (
    "submission",
    "propose",
    "propose",
    "click_commit_fails",
    "click_commit_fails",
    "click_ack_lost",
    "recover",
    "click",
    "decline",
    "edit",
)


class Machine:
    """The system under test and what the rules need to remember."""

    def __init__(self) -> None:
        self.plan = FaultPlan()
        self.oracle = Oracle(travel_application().registry)
        self.store = ObservingStore(self.oracle, faults=self.plan)
        self.understander = ScriptedUnderstanding()
        self.runtime = Runtime(
            travel_application(),
            self.store,
            self.understander,
            clock=FixedClock(TODAY),
            ids=SequentialIds(),
        )
        self.refs: dict[str, CaseRef] = {}
        self.interrupted: list[tuple[Actor, str, InteractionResponse | None]] = []
        self.acts = 0

    async def seed(self) -> None:
        for key, case, state in seed_all(DEMO_RECORDS):
            self.refs[key] = await self.runtime.seed(
                ACME.account, case.workflow, state, case_id=case.case_id
            )

    # turns ---------------------------------------------------------------------------
    async def text(self, key: str, operation: str, args: dict[str, str]) -> TurnResult:
        self.acts += 1
        act_id = f"a{self.acts}"

        def read(brief: Any) -> Understanding:
            handle = self.runtime.handle_for(brief.turn_id, self.refs[key])
            resolved = {
                k: self.runtime.handle_for(brief.turn_id, self.refs[v]) if v in self.refs else v
                for k, v in args.items()
            }
            return Understanding(
                acts=(
                    SemanticAct(
                        id=act_id,
                        operation=operation,
                        target=ProposedTarget(handles=(handle,)),
                        args=resolved,
                    ),
                )
            )

        self.understander.push(read)
        result = await self._run(ACME, TurnInput(text=f"{operation} {key}"))
        assert result is not None
        return result

    async def _run(self, actor: Actor, turn: TurnInput) -> TurnResult | None:
        response = turn.interaction_response
        before = None
        if response is not None:
            before = await self.store.get_interaction(
                actor.account, CONVERSATION, response.interaction_id
            )
        ctx = self.oracle.begin(
            TurnContext(
                actor=actor, conversation_id=CONVERSATION, click=response, card_before=before
            )
        )
        try:
            result = await self.runtime.run_turn(actor, CONVERSATION, turn)
        except TurnInterrupted as exc:
            self.oracle.current = None
            self.interrupted.append((actor, exc.turn_id, response))
            assert not ctx.violations, ctx.violations
            return None
        found = await self.oracle.finish(self.store, result)
        assert not found, found
        return result

    async def open_cards(self) -> list[Any]:
        cards = await self.store.open_interactions(ACME.account, CONVERSATION)
        return [
            c for c in cards if c.spec.kind in (InteractionKind.CONFIRM, InteractionKind.REVIEW)
        ]

    async def click(self, card: Any, option: str) -> TurnResult | None:
        actor = AGENT if card.spec.required_role else ACME
        response = InteractionResponse(
            interaction_id=card.id, option_id=option, expected_revision=card.spec.bound_revision
        )
        return await self._run(actor, TurnInput(interaction_response=response))

    # invariant -----------------------------------------------------------------------
    def check(self) -> None:
        journal = self.store.journal()
        problems = self.oracle.card_state_violations(self.store)
        for card in self.store.all_interactions():
            if card.spec.kind not in (InteractionKind.CONFIRM, InteractionKind.REVIEW):
                continue
            written = [s for s in self.oracle.card_commits.get(card.id, ()) if s.performed]
            if card.status is InteractionStatus.RESOLVED and not written:
                results = card.resolution.results if card.resolution else {}
                if not results or not all(
                    v.startswith("awaiting_confirmation") for v in results.values()
                ):
                    problems.append(f"I16: {card.id} RESOLVED without a commit: {results}")
            for seen in written:
                keyed = [
                    e for e in journal.values() if e.idempotency_key == seen.request.idempotency_key
                ]
                if not keyed:
                    problems.append(f"I16: {card.id} resolved by a commit with no journaled event")
        assert not problems, problems


async def step(m: Machine, rule: str, data: Any) -> None:
    cards = await m.open_cards()
    if rule == "submission":
        # The chain that ends in a Review card: validate, submit, then the clicks.
        await m.text("D1", "manifest.validate", {})
        await m.text("D1", "manifest.submit", {})
    elif rule == "propose" or (rule != "recover" and rule != "edit" and not cards):
        key, operation, args = data.draw(st.sampled_from(PROPOSALS), label="proposal")
        await m.text(key, operation, args)
    elif rule == "edit":
        key, operation, args = data.draw(st.sampled_from(EDITS), label="edit")
        await m.text(key, operation, args)
    elif rule == "recover":
        if not m.interrupted:
            return
        actor, turn_id, response = m.interrupted.pop(0)
        before = None
        if response is not None:
            before = await m.store.get_interaction(
                actor.account, CONVERSATION, response.interaction_id
            )
        m.oracle.begin(
            TurnContext(
                actor=actor, conversation_id=CONVERSATION, click=response, card_before=before
            )
        )
        result = await m.runtime.recover(actor, turn_id)
        found = await m.oracle.finish(m.store, result)
        assert not found, found
    else:
        reviews = [c for c in cards if c.spec.kind is InteractionKind.REVIEW]
        card = data.draw(st.sampled_from(reviews or cards), label="card")
        confirm = next(o.id for o in card.spec.options if o.meaning.value in ("confirm", "approve"))
        decline = next(o.id for o in card.spec.options if o.id != confirm)
        events_before = len(m.store.journal())
        if rule == "click_commit_fails":
            shots = len(m.plan.fired)
            m.plan.arm("commit")
            await m.click(card, confirm)
            fired = "commit" in m.plan.fired[shots:]
            m.plan.disarm()
            after = await m.store.get_interaction(ACME.account, CONVERSATION, card.id)
            note(f"click {card.id} with the commit failing: fired={fired}, now {after.status}")
            if fired:
                # I16: the commit failed, so the card is still open and nothing was written.
                assert after is not None and after.status is InteractionStatus.OPEN, after
                assert after.resolution is None
                assert len(m.store.journal()) == events_before
        elif rule == "click_ack_lost":
            shots = len(m.plan.fired)
            m.plan.arm("commit.ack_lost")
            await m.click(card, confirm)
            fired = "commit.ack_lost" in m.plan.fired[shots:]
            m.plan.disarm()
            after = await m.store.get_interaction(ACME.account, CONVERSATION, card.id)
            note(f"click {card.id} with the ack lost: fired={fired}, now {after.status}")
            if fired:
                # Written with its card in one transaction: resolved, with its events.
                assert after is not None and after.status is InteractionStatus.RESOLVED, after
                assert len(m.store.journal()) > events_before
        elif rule == "click":
            await m.click(card, confirm)
        else:
            await m.click(card, decline)


STATS: Counter[str] = Counter()


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(data=st.data(), steps=st.integers(8, 20))
def _runs(data: Any, steps: int) -> None:
    machine = Machine()

    async def main() -> None:
        await machine.seed()
        for _ in range(steps):
            rule = data.draw(st.sampled_from(RULES), label="rule")
            note(f"rule {rule}")
            await step(machine, rule, data)
            machine.check()
        while machine.interrupted:
            await step(machine, "recover", data)
            machine.check()

    with machine.oracle.installed():
        try:
            anyio.run(main)
        finally:
            STATS.update(machine.oracle.stats)
            STATS.update(machine.plan.fired)
    assert not machine.oracle.violations, machine.oracle.violations


def test_a_card_is_resolved_only_once_its_command_committed() -> None:
    STATS.clear()
    _runs()
    print(f"\ncard/commit coverage: {dict(sorted(STATS.items()))}")
    # The paths that matter ran: failed and acknowledged-lost commits of clicked cards,
    # and reviews approved by an agent after a confirmation.
    for key, floor in {"commit": 10, "commit.ack_lost": 5, "origin:review": 2}.items():
        assert STATS[key] >= floor, f"coverage {key}: {STATS[key]} < {floor}"
