"""Cross-turn links and second clicks (ADR 0012, I11, I15, I16), generated as a class.

Random conversations of scripted turns (drawn by Hypothesis, one step at a time) where a
later turn links a cancellation or a correction to an act of an earlier turn, drawn from
every place such an act can be: pending on a card on screen, carried as an act waiting
for a record (ADR 0007), already committed by its card, or never proposed at all. Clicks are
drawn over every card ever shown, whatever its status, so second clicks land on cards
resolved every possible way (resolved, declined, withdrawn, stale, superseded).

After every turn:

* every act, question, card answer and linked earlier act has exactly one result (I11);
* a superseded act's card is withdrawn by that turn and can never execute: no commit
  ever carries it, and it stays withdrawn;
* a superseded waiting act is never carried again nor committed;
* no reply says something was or was not done contrary to the store: "that change was
  not made" only when this turn really withdrew or superseded what it names; "already
  carried out" only for an act its card committed; "no longer pending" only for an act
  that is pending nowhere;
* a click on a card no longer open commits nothing, leaves the card as it was and
  returns its original resolution (every stored result, same labels);
* the full ``tf_oracle`` checks (I4, I5, I6, I8, I11, I15, I16).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import anyio
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from tf_hostile import ACME, TODAY
from tf_oracle import ObservingStore, Oracle, TurnContext

from turnframe.core import (
    CaseRef,
    InteractionResponse,
    InteractionStatus,
    ProposedTarget,
    ResultStatus,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.core.acts import Link
from turnframe.core.interactions import Interaction
from turnframe.runtime import FixedClock, Runtime, SequentialIds, TurnResult
from turnframe.runtime.copy import say
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application
from turnframe.understand import ScriptedUnderstanding

CONVERSATION = "conv-links"
CONFIRMED = (
    ("T1", "trip.book_hotel", {"hotel": "Hotel Avenida", "nights": "2"}),
    ("T3", "trip.book_hotel", {"hotel": "Sheraton", "nights": "3"}),
    ("T2", "trip.cancel", {}),
    ("P4", "traveler.delete", {}),
)
DIRECT = (
    ("T1", "trip.rename", {"name": "Lisbon in spring"}),
    ("T3", "trip.rename", {"name": "Porto again"}),
    ("T3", "trip.add_extra", {"kind": "seat"}),
)
NEWCOMERS = ("Zé Neves", "Bo Berg", "Cy Cole")
SEEN: Counter[str] = Counter()
"""What the generated conversations exercised (link outcomes, second clicks by status)."""
RULES = (
    "propose",
    "propose_two",
    "wait",
    "register",
    "wait",
    "cancel",
    "cancel",
    "correct",
    "click",
    "click",
    "double",
)

CANCELLED = "cancelled"
LINK_SENTENCES = ("link.already_committed", "link.no_longer_pending")


class Machine:
    """The runtime under test, its observing store, and what the steps remember."""

    def __init__(self) -> None:
        self.oracle = Oracle(travel_application().registry)
        self.store = ObservingStore(self.oracle)
        self.understander = ScriptedUnderstanding()
        self.runtime = Runtime(
            travel_application(),
            self.store,
            self.understander,
            clock=FixedClock(TODAY),
            ids=SequentialIds(),
        )
        self.refs: dict[str, CaseRef] = {}
        self.shown: list[str] = []  # every card id a reply showed
        self.withdrawn: dict[str, str] = {}  # card id → the turn that withdrew it
        self.dead_waiting: set[str] = set()  # superseded waiting acts
        self.problems: list[str] = []

    async def seed(self) -> None:
        for key, case, state in seed_all(DEMO_RECORDS):
            self.refs[key] = await self.runtime.seed(
                ACME.account, case.workflow, state, case_id=case.case_id
            )

    # what can be linked ----------------------------------------------------------------
    async def on_cards(self) -> list[str]:
        cards = await self.store.open_interactions(ACME.account, CONVERSATION)
        return [f"{c.id}:{p.act.id}" for c in cards for p in c.spec.pending]

    async def waiting(self) -> list[str]:
        state = await self.store.get_conversation_state(ACME.account, CONVERSATION)
        return [str(w["item_id"]) for w in state.get("waiting_for_records", ())]  # type: ignore[union-attr]

    def committed_on_cards(self) -> list[str]:
        out = []
        for card in self.store.all_interactions():
            if card.status is InteractionStatus.RESOLVED and card.resolution is not None:
                out += [
                    f"{card.id}:{k}"
                    for k, v in card.resolution.results.items()
                    if v == ResultStatus.COMMITTED.value and ":" not in k
                ]
        return out

    # turns ---------------------------------------------------------------------------
    def act(
        self, brief: Any, act_id: str, key: str, operation: str, args: dict[str, str]
    ) -> SemanticAct:
        return SemanticAct(
            id=act_id,
            operation=operation,
            target=ProposedTarget(
                handles=(self.runtime.handle_for(brief.turn_id, self.refs[key]),)
            ),
            args=dict(args),
        )

    async def text(self, build: Any) -> TurnResult:
        self.understander.push(build)
        return await self.run(TurnInput(text="message"))

    async def click(self, card_id: str, option: str) -> TurnResult:
        before = await self.store.get_interaction(ACME.account, CONVERSATION, card_id)
        assert before is not None
        events = len(self.store.journal())
        response = InteractionResponse(
            interaction_id=card_id, option_id=option, expected_revision=before.spec.bound_revision
        )
        result = await self.run(TurnInput(interaction_response=response), card_before=before)
        after = await self.store.get_interaction(ACME.account, CONVERSATION, card_id)
        SEEN[f"click:{before.status.value}"] += 1
        if before.status is not InteractionStatus.OPEN:
            # Item 10: a second click returns the original resolution, commits nothing.
            if len(self.store.journal()) != events or result.commands:
                self.problems.append(f"a click on {before.status.value} {card_id} committed")
            if after != before:
                self.problems.append(f"a click on {before.status.value} {card_id} changed it")
            original = before.resolution.results if before.resolution else {}
            for item, label in original.items():
                got = result.results.get(item)
                shown = (
                    f"{got.status.value}:{got.code}"
                    if got and got.code
                    else got and got.status.value
                )
                if shown != label and (got is None or got.label != label):
                    self.problems.append(
                        f"a second click on {before.status.value} {card_id} reported "
                        f"{item}={shown}, its original resolution says {label}"
                    )
            if before.resolution is None and not result.results:
                self.problems.append(f"a click on {before.status.value} {card_id} says nothing")
        return result

    async def run(self, turn: TurnInput, card_before: Interaction | None = None) -> TurnResult:
        ctx = self.oracle.begin(
            TurnContext(
                actor=ACME,
                conversation_id=CONVERSATION,
                click=turn.interaction_response,
                card_before=card_before,
            )
        )
        result = await self.runtime.run_turn(ACME, CONVERSATION, turn)
        self.problems += await self.oracle.finish(self.store, result)
        self.shown += [c.id for c in result.interactions_created]
        understanding = ctx.reductions[0][0].understanding if ctx.reductions else None
        await self.check_links(understanding, result)
        # ADR 0012: a card this turn withdrew closed in the same store transaction as
        # the turn's first commit that was written, when the turn wrote one (carried by
        # the request, or a close of the plan's one write, ADR 0024).
        withdrew = {
            c.interaction_id
            for _, plan in ctx.reductions
            for c in plan.closes
            if c.status is InteractionStatus.WITHDRAWN
        }
        written = [s for s in ctx.commits if s.performed]
        if withdrew and written:
            carried = {w.interaction_id for w in written[0].request.withdraw}
            carried |= written[0].closed_with
            if not withdrew <= carried:
                self.problems.append(
                    f"cards {sorted(withdrew - carried)} were not withdrawn in the first commit"
                )
            SEEN["withdrawn_in_commit"] += 1
        return result

    # the invariants ----------------------------------------------------------------------
    async def check_links(self, understanding: Understanding | None, result: TurnResult) -> None:
        links = understanding.links if understanding else ()
        own = {a.id for a in understanding.acts} if understanding else set()
        text = " ".join(getattr(b, "text", "") or "" for b in result.blocks)
        cancelled_said = say(CANCELLED, "en") in text
        really_cancelled = False
        waiting_now = set(await self.waiting())
        for link in links:
            for ref in (link.cancels, link.corrects):
                if not ref or ref in own:
                    continue
                got = result.results.get(ref) or result.results.get(f"link:{ref}")
                if got is None:
                    self.problems.append(f"I11: the linked earlier act {ref} has no result")
                    continue
                SEEN[f"link:{got.status.value}:{got.code}"] += 1
                card_id, _, act_id = ref.partition(":")
                card = await self.store.get_interaction(ACME.account, CONVERSATION, card_id)
                if got.status is ResultStatus.SUPERSEDED:
                    if link.cancels == ref:
                        really_cancelled = True
                    if card is not None:
                        if card.status is not InteractionStatus.WITHDRAWN or (
                            card.resolution is None or card.resolution.turn_id != result.turn_id
                        ):
                            self.problems.append(
                                f"{ref} superseded, but its card is {card.status.value}"
                            )
                        self.withdrawn[card.id] = result.turn_id
                    else:
                        self.dead_waiting.add(ref)
                        if ref in waiting_now:
                            self.problems.append(f"superseded waiting act {ref} still carried")
                elif got.code == "already_committed":
                    ok = (
                        card is not None
                        and card.status is InteractionStatus.RESOLVED
                        and card.resolution is not None
                        and card.resolution.results.get(act_id) == ResultStatus.COMMITTED.value
                    )
                    if not ok:
                        self.problems.append(f"{ref} said already committed; the store disagrees")
                elif got.code == "no_longer_pending":
                    pending = set(await self.on_cards()) | waiting_now
                    if ref in pending or ref in self.committed_on_cards():
                        self.problems.append(f"{ref} said no longer pending; the store disagrees")
                else:
                    self.problems.append(f"{ref}: unexpected result {got.label}:{got.code}")
        if (
            cancelled_said
            and not really_cancelled
            and not any(link.cancels in own for link in links)
        ):
            self.problems.append(f"the reply says 'not made' but nothing was superseded: {text}")
        # A withdrawn card stays withdrawn and no commit ever carries it.
        for card_id in self.withdrawn:
            card = await self.store.get_interaction(ACME.account, CONVERSATION, card_id)
            if card is None or card.status is not InteractionStatus.WITHDRAWN:
                self.problems.append(f"withdrawn card {card_id} is now {card and card.status}")
            if any(s.performed for s in self.oracle.card_commits.get(card_id, ())):
                self.problems.append(f"withdrawn card {card_id} executed")
        for ref in self.dead_waiting:
            got = result.results.get(ref)
            if got is not None and got.status is ResultStatus.COMMITTED:
                self.problems.append(f"superseded waiting act {ref} committed")


async def step(m: Machine, rule: str, data: Any, n: int) -> None:
    if rule in ("propose", "propose_two"):
        count = 1 if rule == "propose" else 2
        picked = [
            data.draw(st.sampled_from(CONFIRMED + DIRECT), label="proposal") for _ in range(count)
        ]
        note(f"turn {n}: propose {picked}")
        await m.text(
            lambda b: Understanding(
                acts=tuple(m.act(b, f"a{i}", *p) for i, p in enumerate(picked, 1))
            )
        )
    elif rule == "wait":
        name = data.draw(st.sampled_from(NEWCOMERS), label="newcomer")
        note(f"turn {n}: add {name} to Porto (waits for the record)")
        await m.text(
            lambda b: Understanding(
                acts=(m.act(b, "a1", "T3", "trip.add_traveler", {"traveler": name}),)
            )
        )
    elif rule == "register":
        name = data.draw(st.sampled_from(NEWCOMERS), label="registered")
        note(f"turn {n}: register {name}")
        await m.text(
            lambda b: Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="traveler.register",
                        target=ProposedTarget(new=True),
                        args={"full_name": name, "birth_date": "1990-03-02"},
                    ),
                )
            )
        )
    elif rule in ("cancel", "correct"):
        pools = {
            "card": await m.on_cards(),
            "waiting": await m.waiting(),
            "committed": m.committed_on_cards(),
            "nowhere": ["card-999:a1", "turn-999:a1", "a9"],
        }
        # Every place an earlier act can be that exists now; a place nobody is in is
        # drawn rarely (one in five), so the others are exercised.
        places = [k for k, v in pools.items() if v and k != "nowhere"]
        where = data.draw(
            st.sampled_from(places * 4 + ["nowhere"] if places else ["nowhere"]), label="where"
        )
        pool = pools[where]
        SEEN[f"link_to:{where}"] += 1
        refs = data.draw(
            st.lists(st.sampled_from(pool), min_size=1, max_size=2, unique=True), label="refs"
        )
        note(f"turn {n}: {rule} {refs} ({where})")
        if rule == "cancel":
            await m.text(
                lambda b: Understanding(
                    acts=(SemanticAct(id="a1", operation=None),),
                    links=tuple(Link(act="a1", cancels=r) for r in refs),
                )
            )
        else:
            proposal = data.draw(st.sampled_from(CONFIRMED + DIRECT), label="correction")
            await m.text(
                lambda b: Understanding(
                    acts=(m.act(b, "a1", *proposal),),
                    links=tuple(Link(act="a1", corrects=r) for r in refs),
                )
            )
    elif rule == "double":
        # Answer an open card, then click it again with any of its options.
        cards = await m.store.open_interactions(ACME.account, CONVERSATION)
        if not cards:
            return
        card = data.draw(st.sampled_from(list(cards)), label="card")
        first = data.draw(st.sampled_from([o.id for o in card.spec.options]), label="first")
        again = data.draw(st.sampled_from([o.id for o in card.spec.options]), label="again")
        note(f"turn {n}: click {card.id} → {first}, then → {again}")
        await m.click(card.id, first)
        await m.click(card.id, again)
    else:
        if not m.shown:
            return
        # Draw a status first, then a card of it, so cards resolved every way get clicked.
        by_status: dict[str, list[Interaction]] = {}
        for shown in m.shown:
            found = await m.store.get_interaction(ACME.account, CONVERSATION, shown)
            assert found is not None
            by_status.setdefault(found.status.value, []).append(found)
        status = data.draw(st.sampled_from(sorted(by_status)), label="status")
        card = data.draw(st.sampled_from(by_status[status]), label="card")
        card_id = card.id
        option = data.draw(st.sampled_from([o.id for o in card.spec.options]), label="option")
        note(f"turn {n}: click {card_id} ({card.status.value}) → {option}")
        await m.click(card_id, option)


@settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), length=st.integers(4, 10))
def test_cross_turn_links_and_second_clicks_tell_the_truth(data: Any, length: int) -> None:
    m = Machine()

    async def main() -> None:
        await m.seed()
        for n in range(1, length + 1):
            # The first two turns leave something to link to: a card, an act waiting.
            first = {1: ("wait", "propose"), 2: ("propose_two", "wait")}.get(n, RULES)
            rule = data.draw(st.sampled_from(first), label="rule")
            await step(m, rule, data, n)

    with m.oracle.installed():
        anyio.run(main)
    note(f"exercised: {dict(SEEN)}")
    assert not m.problems, "\n".join(m.problems)
    assert not m.oracle.violations, "\n".join(m.oracle.violations)


WAYS = ("confirmed", "declined", "declined_in_words", "withdrawn", "stale", "superseded")


async def resolve_one_way(m: Machine, way: str) -> str:
    """Show a Confirm card on trip T1, close it ``way``; return its id."""
    hotel = ("T1", "trip.book_hotel", {"hotel": "Hotel Avenida", "nights": "2"})
    first = await m.text(lambda b: Understanding(acts=(m.act(b, "a1", *hotel),)))
    card = first.interactions_created[0].id
    if way == "confirmed":
        await m.click(card, "confirm")
    elif way == "declined":
        await m.click(card, "decline")
    elif way == "declined_in_words":
        from turnframe.core.acts import CardAnswer

        await m.text(
            lambda b: Understanding(
                card_answers=(CardAnswer(id="k1", interaction=card, option="decline"),)
            )
        )
    elif way == "withdrawn":
        await m.text(
            lambda b: Understanding(
                acts=(SemanticAct(id="a1", operation=None),),
                links=(Link(act="a1", cancels=f"{card}:a1"),),
            )
        )
    elif way == "stale":
        rename = ("T1", "trip.rename", {"name": "Lisbon in spring"})
        await m.text(lambda b: Understanding(acts=(m.act(b, "a1", *rename),)))
        await m.click(card, "confirm")
    else:
        await m.text(lambda b: Understanding(acts=(m.act(b, "a1", *hotel),)))
    stored = await m.store.get_interaction(ACME.account, CONVERSATION, card)
    assert stored is not None and stored.status.value == {
        "confirmed": "resolved",
        "declined_in_words": "declined",
    }.get(way, way), (way, stored)
    return card


@settings(max_examples=24, deadline=None, derandomize=True, database=None)
@given(way=st.sampled_from(WAYS), option=st.sampled_from(("confirm", "decline")))
def test_a_second_click_returns_the_original_resolution_every_way(way: str, option: str) -> None:
    """Item 10: whichever way a card was closed, clicking it again commits nothing, leaves
    it as it was and reports its original resolution (``Machine.click`` checks all three)."""
    m = Machine()

    async def main() -> None:
        await m.seed()
        card = await resolve_one_way(m, way)
        SEEN[f"second_click:{way}"] += 1
        again = await m.click(card, option)
        if way == "superseded":
            assert again.results["click"].code == "superseded", again.results
        else:
            assert "click" not in again.results or way == "stale", again.results

    with m.oracle.installed():
        anyio.run(main)
    assert not m.problems, "\n".join(m.problems)
    assert not m.oracle.violations, "\n".join(m.oracle.violations)
