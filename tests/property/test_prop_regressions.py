"""Regressions for runtime bugs the property tests found, each minimized to a few turns."""

from __future__ import annotations

from typing import Any

import anyio
from tf_hostile import ACME, TODAY
from tf_oracle import ObservingStore, Oracle, TurnContext

from turnframe.core import (
    CardAnswer,
    InteractionResponse,
    ProposedTarget,
    ResultStatus,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.runtime import FixedClock, Runtime, SequentialIds, TurnResult
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application
from turnframe.understand import ScriptedUnderstanding


class _Run:
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
        self.refs: dict[str, Any] = {}

    async def seed(self) -> None:
        for key, case, state in seed_all(DEMO_RECORDS):
            self.refs[key] = await self.runtime.seed("acme", case.workflow, state, case_id=key)

    async def turn(
        self, act: tuple[str, str, str, dict[str, str]] | None, click: Any = None
    ) -> TurnResult:
        """Run a turn with one act ``(id, operation, record key, args)`` and/or a click."""
        if act is None:
            return await self.turn_with(None, click)
        act_id, operation, key, args = act

        def read(brief: Any) -> Understanding:
            handle = self.runtime.handle_for(brief.turn_id, self.refs[key])
            target = ProposedTarget(handles=(handle,))
            return Understanding(
                acts=(SemanticAct(id=act_id, operation=operation, target=target, args=args),)
            )

        return await self.turn_with(read, click)

    async def turn_with(self, read: Any, click: Any = None) -> TurnResult:
        """Run a turn whose understanding ``read`` builds from the brief (or a click only)."""
        ctx = self.oracle.begin(
            TurnContext(
                actor=ACME,
                conversation_id="c",
                click=click,
                card_before=await self.store.get_interaction("acme", "c", click.interaction_id)
                if click
                else None,
            )
        )
        if read is not None:

            def record(brief: Any) -> Understanding:
                ctx.understanding = read(brief)
                return ctx.understanding

            self.understander.push(record)
        turn = TurnInput(text="words" if read else None, interaction_response=click)
        result = await self.runtime.run_turn(ACME, "c", turn)
        found = await self.oracle.finish(self.store, result)
        assert found == [], found
        return result


def test_a_resumed_act_never_takes_the_result_of_a_text_act_with_the_same_id() -> None:
    """Found by test_prop_hostile (I11, I15), minimized to two turns.

    Turn 1 parks ``a1`` (delete traveler Rui) on a Confirm card. Turn 2 clicks Confirm and,
    in the same message, proposes its own ``a1`` (add a traveler to Porto, without saying
    who). Before the fix both reported under ``a1``: the text act's result was dropped, the
    deletion committed under it, and the turn said "a1: trip.add_traveler on Porto:
    committed" while Porto was untouched and the question "Which traveler?" vanished.
    """

    run = _Run()

    async def main() -> None:
        await run.seed()
        first = await run.turn(("a1", "traveler.delete", "P4", {}))
        card = first.interactions_created[0]
        click = InteractionResponse(
            interaction_id=card.id, option_id="confirm", expected_revision=card.spec.bound_revision
        )
        result = await run.turn(("a1", "trip.add_traveler", "T3", {}), click)
        mine = result.results["a1"]
        assert (mine.status, mine.operation, mine.case) == (
            ResultStatus.NEEDS_CLARIFICATION,
            "trip.add_traveler",
            run.refs["T3"],
        )
        resumed = result.results[f"{card.id}:a1"]
        assert (resumed.status, resumed.operation, resumed.case) == (
            ResultStatus.COMMITTED,
            "traveler.delete",
            run.refs["P4"],
        )
        assert result.commands == (("traveler.delete", run.refs["P4"]),)
        stored = await run.store.get_interaction("acme", "c", card.id)
        assert stored is not None and stored.resolution is not None
        assert dict(stored.resolution.results) == {f"{card.id}:a1": "committed"}

    with run.oracle.installed():
        anyio.run(main)


def test_a_decline_and_a_text_act_with_the_same_id_both_keep_their_result() -> None:
    run = _Run()

    async def main() -> None:
        await run.seed()
        first = await run.turn(("a1", "trip.cancel", "T1", {}))
        card = first.interactions_created[0]
        click = InteractionResponse(
            interaction_id=card.id, option_id="decline", expected_revision=card.spec.bound_revision
        )
        result = await run.turn(("a1", "trip.rename", "T2", {"name": "June"}), click)
        assert result.results["a1"].status is ResultStatus.COMMITTED
        assert result.results["a1"].operation == "trip.rename"
        assert result.results[f"{card.id}:a1"].status is ResultStatus.NO_CHANGE
        assert result.results[f"{card.id}:a1"].code == "declined"

    with run.oracle.installed():
        anyio.run(main)


def test_a_second_click_never_replaces_the_result_of_a_text_act_with_the_same_id() -> None:
    """Found by test_prop_hostile on the runtime as it stood (a replayed click overwrote the
    turn's own ``a1`` with the card's original ``a1: committed``); the fix in
    ``finish.py`` (now ``runtime/steps/reproject.py``) landed concurrently, this keeps it."""
    run = _Run()

    async def main() -> None:
        await run.seed()
        first = await run.turn(("a1", "trip.cancel", "T1", {}))
        card = first.interactions_created[0]
        click = InteractionResponse(
            interaction_id=card.id, option_id="confirm", expected_revision=card.spec.bound_revision
        )
        await run.turn(None, click)
        again = await run.turn(("a1", "trip.rename", "T2", {"name": "x"}), click)
        mine = again.results["a1"]
        assert (mine.status, mine.operation) == (ResultStatus.COMMITTED, "trip.rename")
        assert again.commands == (("trip.rename", run.refs["T2"]),)

    with run.oracle.installed():
        anyio.run(main)


def _card_answers(*answers: tuple[str, str, str]) -> Understanding:
    return Understanding(
        card_answers=tuple(CardAnswer(id=i, interaction=c, option=o) for i, c, o in answers)
    )


def test_a_selection_answered_beside_another_cards_commit_stays_open_and_runs_once() -> None:
    """Found by test_prop_hostile (a commit refused as "already resolved"), minimized.

    Card A confirms a hotel on Porto; card B asks which trip gets a seat. One message
    clicks A and answers "Porto" to B. Before the fix both cards' acts went into one commit
    on Porto, which can resolve one card only: B stayed open although its seat was
    added, and answering B again added a second seat (I13, I16).
    """
    run = _Run()

    async def main() -> None:
        await run.seed()

        def read(brief: Any) -> Understanding:
            def h(k: str) -> str:
                return run.runtime.handle_for(brief.turn_id, run.refs[k])

            return Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="trip.book_hotel",
                        target=ProposedTarget(handles=(h("T3"),)),
                        args={"hotel": "Avenida", "nights": "2"},
                    ),
                    SemanticAct(
                        id="a2",
                        operation="trip.add_extra",
                        target=ProposedTarget(handles=(h("T2"), h("T3"))),
                        args={"kind": "seat"},
                    ),
                )
            )

        first = await run.turn_with(read)
        a = next(c for c in first.interactions_created if c.spec.kind.value == "confirm")
        b = next(c for c in first.interactions_created if c.spec.kind.value == "select_target")
        porto = next(o.id for o in b.spec.options if o.case == run.refs["T3"])
        click = InteractionResponse(
            interaction_id=a.id, option_id="confirm", expected_revision=a.spec.bound_revision
        )
        both = await run.turn_with(lambda brief: _card_answers(("k1", b.id, porto)), click)
        assert both.commands == (("trip.book_hotel", run.refs["T3"]),)
        assert both.results["k1"].label == "rejected:card_busy"
        stored = await run.store.get_interaction("acme", "c", b.id)
        assert stored is not None and stored.status.value == "open"
        again = await run.turn_with(None, InteractionResponse(interaction_id=b.id, option_id=porto))
        assert again.commands == (("trip.add_extra", run.refs["T3"]),)
        twice = await run.turn_with(None, InteractionResponse(interaction_id=b.id, option_id=porto))
        assert twice.commands == ()
        row = await run.store.load_case(run.refs["T3"])
        assert row is not None
        assert [e["kind"] for e in row.state["extras"]] == ["hotel", "seat"]

    with run.oracle.installed():
        anyio.run(main)


def test_two_different_text_answers_to_one_card_apply_neither() -> None:
    """Found by test_prop_hostile, minimized: "the first one… no, the second" read as two
    answers to one selection card. Before the fix the first (by list order) committed and
    the second claimed "committed" too while its choice was refused (I8, I11, I15)."""
    run = _Run()

    async def main() -> None:
        await run.seed()

        def read(brief: Any) -> Understanding:
            handles = tuple(
                run.runtime.handle_for(brief.turn_id, run.refs[k]) for k in ("P1", "P2")
            )
            return Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="traveler.update_email",
                        target=ProposedTarget(handles=handles, mention="Ana"),
                        args={"email": "ana@new.example"},
                    ),
                )
            )

        first = await run.turn_with(read)
        card = first.interactions_created[0]
        answered = await run.turn_with(
            lambda brief: _card_answers(("k1", card.id, "o1"), ("k2", card.id, "o2"))
        )
        assert answered.commands == ()
        assert {k: r.label for k, r in answered.results.items()} == {
            "k1": "needs_clarification",
            "k2": "needs_clarification",
        }
        same = await run.turn_with(
            lambda brief: _card_answers(("k1", card.id, "o2"), ("k2", card.id, "o2"))
        )
        assert same.commands == (("traveler.update_email", run.refs["P2"]),)
        assert same.results["k2"].label == "no_change"

    with run.oracle.installed():
        anyio.run(main)
