"""The turn inspector reads real records whole and survives partial ones (docs/inspector.md).

Every record here is produced by running turns through :class:`Runtime`: scripted
understanding (multi-act, an ambiguity card and its click, a confirmation card and its
click) and the model-chain understanding over a :class:`ScriptedProvider` (calls with
prompts, verdicts, votes and word pointers). The defect classes: a chain link that is
lost (an act without its resolution, result, envelope, events or receipt), evidence
placed on the wrong words, another account's turn shown, and a crash on an old record.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import anyio
import pytest

from turnframe.cli.chat_script import load_script
from turnframe.core import (
    Actor,
    CaseRef,
    Constraint,
    ConstraintKind,
    ConstraintScope,
    InteractionResponse,
    Link,
    ProposedTarget,
    Question,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.providers import ScriptedProvider
from turnframe.runtime import FixedClock, Runtime, SequentialIds, TurnResult
from turnframe.runtime.errors import TurnInterrupted
from turnframe.runtime.inspection import (
    InspectionView,
    ReplayView,
    inspection_for,
    replay_for,
    replay_view,
)
from turnframe.runtime.inspection_models import EvidenceSpan
from turnframe.runtime.steps.accept import alias
from turnframe.samples.travel import (
    DEMO_RECORDS,
    complete_records,
    seed_order,
    seed_state,
    travel_application,
)
from turnframe.store import BOUNDARIES, FaultInjectingStore, FaultPlan, InMemoryStore
from turnframe.store.base import TurnRecord
from turnframe.understand import Brief, ModelUnderstanding, ScriptedUnderstanding
from turnframe.understand.merged import script_merge

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="maria", roles=frozenset({"customer"}))
OTHER = Actor(account="globex", user="bob", roles=frozenset({"customer"}))

MULTI = "Put Rui on the Porto trip, 2 to 6 July. And what's the bag allowance on the TP manifest?"
AMBIGUOUS = "Add a seat to the Lisbon trip."
HOTEL = "Book Hotel Avenida for 3 nights in June."
RENAME = "Rename the Porto trip to Summer Offsite"


class Travel:
    """A travel runtime over the demo records in memory, and the turns it ran."""

    def __init__(self, store: Any = None) -> None:
        self.understanding = ScriptedUnderstanding()
        self.store = store if store is not None else InMemoryStore()
        self.runtime = Runtime(
            travel_application(),
            self.store,
            self.understanding,
            clock=FixedClock(TODAY),
            ids=SequentialIds(),
        )
        self.refs: dict[str, CaseRef] = {}

    async def seed(self, account: str = "acme") -> None:
        refs: dict[str, CaseRef] = {}
        for record in seed_order(complete_records(DEMO_RECORDS)):
            workflow, state = seed_state(record, refs)
            key = str(record["key"])
            refs[key] = await self.runtime.seed(account, workflow, state, case_id=key.lower())
        if account == "acme":
            self.refs = refs

    def h(self, brief: Brief, key: str) -> str:
        return self.runtime.handle_for(brief.turn_id, self.refs[key])

    async def text(
        self,
        text: str,
        turn_id: str,
        script: Any = None,
        *,
        actor: Actor = ACTOR,
        model: Any = None,
    ) -> TurnResult:
        if script is not None:
            self.understanding.push(script)
        return await self.runtime.run_turn(
            actor, "c1", TurnInput(text=text), turn_id=turn_id, understander=model
        )

    async def click(self, card: Any, option: str, turn_id: str) -> TurnResult:
        response = InteractionResponse(
            interaction_id=card.id, option_id=option, expected_revision=card.spec.bound_revision
        )
        return await self.runtime.run_turn(
            ACTOR, "c1", TurnInput(interaction_response=response), turn_id=turn_id
        )

    async def inspect(self, turn_id: str, account: str = "acme") -> InspectionView:
        view = await inspection_for(self.store, self.runtime.registry, account, turn_id)
        assert view is not None
        # Every view is JSON as the API serves it, and reads back as itself.
        again = InspectionView.model_validate_json(view.model_dump_json())
        assert again == view
        return view


def multi_act(t: Travel) -> Any:
    def script(b: Brief) -> Understanding:
        return Understanding(
            acts=(
                SemanticAct(
                    id="a1",
                    operation="trip.add_traveler",
                    target=ProposedTarget(handles=(t.h(b, "T3"),), mention="the Porto trip"),
                    args={"traveler": t.h(b, "P4")},
                    evidence={"traveler": "Rui"},
                ),
                SemanticAct(
                    id="a2",
                    operation="trip.change_dates",
                    target=ProposedTarget(handles=(t.h(b, "T3"),)),
                    args={"start": "2026-07-02", "end": "2026-07-06"},
                    evidence={"start": "2", "end": "6 July"},
                ),
            ),
            questions=(
                Question(
                    id="q1",
                    topic="baggage_allowance",
                    target=ProposedTarget(handles=(t.h(b, "D1"),)),
                ),
            ),
        )

    return script


def ambiguous(t: Travel) -> Any:
    def script(b: Brief) -> Understanding:
        return Understanding(
            acts=(
                SemanticAct(
                    id="a1",
                    operation="trip.add_extra",
                    target=ProposedTarget(
                        handles=(t.h(b, "T1"), t.h(b, "T2")), mention="the Lisbon trip"
                    ),
                    args={"kind": "seat"},
                    evidence={"kind": "seat"},
                ),
            )
        )

    return script


def hotel(t: Travel) -> Any:
    def script(b: Brief) -> Understanding:
        return Understanding(
            acts=(
                SemanticAct(
                    id="a1",
                    operation="trip.book_hotel",
                    target=ProposedTarget(handles=(t.h(b, "T2"),)),
                    args={"hotel": "Hotel Avenida", "nights": "3"},
                    evidence={"hotel": "Hotel Avenida", "nights": "3"},
                ),
            )
        )

    return script


def model_chain(text: str) -> ModelUnderstanding:
    """The model chain over the shipped chat script's answers for ``text``."""
    script = load_script("example")
    assert script is not None
    provider = script.provider_for(text)
    assert provider is not None
    return ModelUnderstanding(provider, merge=script_merge(provider))


def spans(view: InspectionView, act: str) -> dict[str, EvidenceSpan]:
    return {s.argument: s for s in view.message.evidence if s.act == act}


def run(fn: Any) -> Any:
    return anyio.run(fn)


def test_a_multi_act_message_shows_each_acts_chain() -> None:
    async def go() -> None:
        t = Travel()
        await t.seed()
        result = await t.text(MULTI, "t-multi", multi_act(t))
        view = await t.inspect("t-multi")
        assert view.kind == "text" and view.message.text == MULTI
        assert [a.id for a in view.acts] == ["a1", "a2"]
        for act in view.acts:
            assert act.resolution is not None and act.resolution.status == "exact"
            assert act.resolution.case == "trip/t3"
            assert act.result is not None
            assert act.result.status == result.results[act.id].status.value
        a1 = view.acts[0]
        assert a1.result is not None and a1.result.status == "committed"
        assert a1.summary == "Add a traveler to the trip."
        assert len(a1.commands) == 1
        command = a1.commands[0]
        assert command.operation == "trip.add_traveler" and command.case == "trip/t3"
        assert command.origin == {"turn_id": "t-multi", "kind": "direct_user_act"}
        assert command.expected_revision == 1 and len(command.idempotency_key) == 64
        assert command.journal is not None and command.journal.event_ids
        assert [e.id for e in a1.events] == command.journal.event_ids[: len(a1.events)]
        assert all(e.operation == "trip.add_traveler" for e in a1.events)
        receipted = {e for r in a1.receipts for e in r.event_ids}
        assert receipted and receipted <= {e.id for e in a1.events} | set(command.journal.event_ids)
        # The words: highlighted exactly where the message has them.
        s1, s2 = spans(view, "a1"), spans(view, "a2")
        assert MULTI[s1["target"].start : s1["target"].end] == "the Porto trip"  # type: ignore[misc]
        assert MULTI[s1["traveler"].start : s1["traveler"].end] == "Rui"  # type: ignore[misc]
        assert MULTI[s2["end"].start : s2["end"].end] == "6 July"  # type: ignore[misc]
        assert {s.match for s in view.message.evidence} == {"exact"}
        assert s1["target"].source == "target" and s1["traveler"].source == "evidence"
        # The question, its result and its answer.
        assert [q.id for q in view.questions] == ["q1"]
        assert view.questions[0].result is not None
        assert view.reduction.recorded and view.reduction.summary["acts"] == ["a1", "a2"]
        assert view.reduction.plan["batches"]
        assert view.blocks and view.blocks[0]["kind"] in {"receipt", "notice", "answer"}
        assert any("no model call" in n for n in view.notes)

    run(go)


def test_an_ambiguity_card_then_its_click() -> None:
    async def go() -> None:
        t = Travel()
        await t.seed()
        first = await t.text(AMBIGUOUS, "t-amb", ambiguous(t))
        view = await t.inspect("t-amb")
        act = view.acts[0]
        assert act.resolution is not None and act.resolution.status == "ambiguous"
        assert {c.case for c in act.resolution.candidates} == {"trip/t1", "trip/t2"}
        assert act.result is not None and act.result.status == "needs_clarification"
        assert act.commands == [] and act.events == [] and act.receipts == []
        card = first.interactions_created[0]
        assert [c.interaction_id for c in view.cards] == [card.id]
        assert view.cards[0].interaction_kind == "select_target"

        june = next(o for o in card.spec.options if o.case == t.refs["T2"])
        await t.click(card, june.id, "t-pick")
        clicked = await t.inspect("t-pick")
        assert clicked.kind == "click" and clicked.message.text is None
        assert clicked.model.calls == [] and clicked.message.evidence == []
        assert clicked.click is not None and clicked.click.found
        assert clicked.click.interaction_id == card.id and clicked.click.option_id == june.id
        assert clicked.click.interaction_kind == "select_target"
        assert clicked.click.option_label == june.label
        assert clicked.click.status == "resolved" and clicked.click.card_turn_id == "t-amb"
        resumed = clicked.acts[0]
        assert resumed.source == "click" and resumed.id == "a1"
        assert resumed.resolution is not None and resumed.resolution.case == "trip/t2"
        assert resumed.result is not None and resumed.result.status == "committed"
        assert resumed.events and resumed.receipts
        assert set(resumed.receipts[0].event_ids) <= {e.id for e in resumed.events}

    run(go)


def test_a_confirmation_card_and_its_confirmed_command() -> None:
    async def go() -> None:
        t = Travel()
        await t.seed()
        first = await t.text(HOTEL, "t-hotel", hotel(t))
        view = await t.inspect("t-hotel")
        act = view.acts[0]
        assert act.result is not None and act.result.status == "awaiting_confirmation"
        assert act.commands == [] and view.cards[0].interaction_kind == "confirm"
        card = first.interactions_created[0]
        await t.click(card, "confirm", "t-confirm")
        done = await t.inspect("t-confirm")
        command = done.acts[0].commands[0]
        assert command.operation == "trip.book_hotel"
        assert command.origin["kind"] == "confirmed_interaction"
        assert command.origin["interaction_id"] == card.id
        assert command.risk == "monetary"
        assert command.expected_revision == card.spec.bound_revision
        assert done.acts[0].receipts and done.acts[0].events
        assert done.click is not None and done.click.interaction_kind == "confirm"

    run(go)


def test_values_stand_in_for_evidence_a_script_did_not_record() -> None:
    async def go() -> None:
        t = Travel()
        await t.seed()

        def script(b: Brief) -> Understanding:
            return Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="trip.change_dates",
                        target=ProposedTarget(handles=(t.h(b, "T2"),)),
                        args={"start": "2026-06-04", "end": "6 June"},
                    ),
                    SemanticAct(
                        id="a2",
                        operation="trip.add_traveler",
                        target=ProposedTarget(handles=(t.h(b, "T2"),)),
                        args={"traveler": t.h(b, "P4")},
                    ),
                )
            )

        text = "Move the June trip to 4 to 6 June and add Rui"
        await t.text(text, "t-values", script)
        view = await t.inspect("t-values")
        shown = {(s.act, s.argument): s for s in view.message.evidence}
        # A normalised value the message does not hold and a handle are not shown.
        assert set(shown) == {("a1", "end")}
        end = shown[("a1", "end")]
        assert end.source == "value" and text[end.start : end.end] == "6 June"  # type: ignore[misc]

    run(go)


def test_a_click_with_words_shows_both() -> None:
    async def go() -> None:
        t = Travel()
        await t.seed()
        first = await t.text(HOTEL, "t-hotel", hotel(t))
        card = first.interactions_created[0]
        t.understanding.push(Understanding())
        response = InteractionResponse(
            interaction_id=card.id, option_id="confirm", expected_revision=card.spec.bound_revision
        )
        turn = TurnInput(text="yes please", interaction_response=response)
        await t.runtime.run_turn(ACTOR, "c1", turn, turn_id="t-both")
        view = await t.inspect("t-both")
        assert view.kind == "text_and_click" and view.message.text == "yes please"
        assert view.click is not None and view.click.found and view.click.option_id == "confirm"
        assert [a.source for a in view.acts] == ["click"]
        assert view.acts[0].commands[0].origin["kind"] == "confirmed_interaction"

    run(go)


def test_a_model_chain_turn_shows_its_calls_and_pointed_words() -> None:
    async def go() -> None:
        t = Travel()
        await t.seed()
        await t.text(RENAME, "t-model", model=model_chain(RENAME))
        view = await t.inspect("t-model")
        calls = view.model.calls
        assert calls and {c.task for c in calls} >= {"segment", "route", "extract", "verify"}
        for call in calls:
            assert call.prompt and call.prompt[0]["role"] == "system"
            assert call.model and call.verdict == "ok" and call.prompt_tokens > 0
        assert {c.for_act for c in calls if c.task in ("locate", "extract")} == {"a1"}
        assert view.model.votes and view.model.units == [
            {"id": "u1", "kind": "request", "from": 0, "to": 6}
        ]
        assert view.model.prompt_tokens == sum(c.prompt_tokens for c in calls)
        s = spans(view, "a1")
        assert s["name"].match == "pointer" and s["name"].text == "Summer Offsite"
        assert RENAME[s["name"].start : s["name"].end] == "Summer Offsite"  # type: ignore[misc]
        assert s["target"].match == "pointer" and s["target"].text == "the Porto trip"
        act = view.acts[0]
        assert act.result is not None and act.result.status == "committed"
        assert act.receipts and act.events
        assert not any("no model call" in n for n in view.notes)

    run(go)


UNIT = {"id": "u1", "kind": "request", "from": 0, "to": 6, "hypothetical": False, "continues": None}
ROUTE = {"unit": "u1", "operations": ["trip.rename"], "topic": None, "constraint": None}


def test_a_repaired_answer_is_shown_with_the_words_it_pointed_at() -> None:
    table = {
        "segment": {"units": [UNIT]},
        "route": {"routes": [{**ROUTE, "card": None, "corrects": None, "cancels": None}]},
        "locate": [{"handles": [], "find": {"from": 1, "to": 3, "copy": "the Porto trip"}}],
        "extract": [
            {"values": [{"argument": "name", "from": 4, "to": 6, "copy": "Summer Offsite"}]},
            {"values": [{"argument": "name", "from": 5, "to": 6, "copy": "Summer Offsite"}]},
        ],
        "verify": {"verdict": "ok", "grounding": "user", "findings": []},
    }

    async def go() -> None:
        t = Travel()
        await t.seed()
        provider = ScriptedProvider(table)
        model = ModelUnderstanding(provider, merge=script_merge(provider))
        await t.text(RENAME, "t-repair", model=model)
        view = await t.inspect("t-repair")
        extracts = [c for c in view.model.calls if c.task == "extract"]
        assert [c.attempt for c in extracts] == ["first", "repair"]
        assert extracts[0].verdict.startswith("invalid:") and extracts[1].verdict == "ok"
        assert view.model.repairs == 1
        name = spans(view, "a1")["name"]
        assert name.match == "pointer" and (name.start, name.end) == (25, 39)

    run(go)


def test_an_unreadable_message_says_why() -> None:
    async def go() -> None:
        t = Travel()
        await t.seed()
        provider = ScriptedProvider({"segment": [{"bad": 1}] * 6})
        model = ModelUnderstanding(provider, merge=script_merge(provider))
        await t.text("Rename the Porto trip", "t-unread", model=model)
        view = await t.inspect("t-unread")
        assert view.acts == [] and view.model.errors
        notice = next(n for n in view.notices if n.code.startswith("unreadable"))
        assert notice.why and "units" in notice.why
        assert all(c.verdict.startswith("invalid:") for c in view.model.calls)

    run(go)


def test_a_refusal_a_standing_constraint_and_a_cancellation_are_explained() -> None:
    async def go() -> None:
        t = Travel()
        await t.seed()

        def validate(b: Brief) -> Understanding:
            return Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="manifest.validate",
                        target=ProposedTarget(handles=(t.h(b, "D1"),)),
                    ),
                ),
                constraints=(
                    Constraint(
                        id="c1", kind=ConstraintKind.DO_NOT_SUBMIT, scope=ConstraintScope.STANDING
                    ),
                ),
            )

        def submit(b: Brief) -> Understanding:
            target = ProposedTarget(handles=(t.h(b, "D1"),))
            return Understanding(
                acts=(SemanticAct(id="a1", operation="manifest.submit", target=target),)
            )

        def cancel(b: Brief) -> Understanding:
            porto = ProposedTarget(handles=(t.h(b, "T3"),))
            return Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="trip.rename",
                        target=porto,
                        args={"name": "Oporto"},
                        evidence={"name": "Oporto"},
                    ),
                    SemanticAct(id="a2", operation=None, target=porto),
                ),
                links=(Link(act="a2", cancels="a1"),),
            )

        await t.text("Validate the TP manifest, but don't submit anything yet.", "t-v", validate)
        await t.text("Send the manifest.", "t-send", submit)
        sent = await t.inspect("t-send")
        refused = sent.acts[0]
        assert refused.result is not None and refused.result.label == "rejected:do_not_submit"
        assert refused.commands == [] and refused.events == []
        why = {n.code: n.why for n in sent.notices}
        assert "rejected:do_not_submit" in str(why["do_not_submit"])
        assert "standing" in str(why["standing_do_not_submit"])

        text = "Rename the Porto trip to Oporto... actually, leave it as it was."
        await t.text(text, "t-cancel", cancel)
        view = await t.inspect("t-cancel")
        a1, a2 = view.acts
        assert a1.result is not None and a1.result.status == "superseded" and a1.commands == []
        assert a2.operation is None and a2.result is not None
        oporto = spans(view, "a1")["name"]
        assert text[oporto.start : oporto.end] == "Oporto"  # type: ignore[misc]

    run(go)


def test_the_same_view_from_sqlite(tmp_path: Any) -> None:
    """The view reads the store protocol only: SQLite (``turnframe serve``'s default) gives it whole."""
    from turnframe.store.sqlite import SqliteStore

    async def go() -> None:
        store = await SqliteStore.open(tmp_path / "inspect.db")
        try:
            t = Travel(store)
            await t.seed()
            first = await t.text(HOTEL, "t-hotel", hotel(t))
            await t.click(first.interactions_created[0], "confirm", "t-confirm")
            await t.text(RENAME, "t-model", model=model_chain(RENAME))
            done = await t.inspect("t-confirm")
            act = done.acts[0]
            assert act.commands[0].origin["kind"] == "confirmed_interaction"
            assert act.commands[0].journal is not None and act.events and act.receipts
            model = await t.inspect("t-model")
            assert model.model.calls and spans(model, "a1")["name"].match == "pointer"
            for turn_id in ("t-hotel", "t-confirm", "t-model"):
                replay = await replay_for(store, t.runtime.registry, "acme", turn_id)
                assert replay is not None and replay.same is True, turn_id
        finally:
            await store.close()

    run(go)


def test_another_accounts_turn_and_an_unknown_one_are_none() -> None:
    async def go() -> None:
        t = Travel()
        await t.seed()
        await t.text(AMBIGUOUS, "t-shared", ambiguous(t))
        registry = t.runtime.registry
        assert await inspection_for(t.store, registry, "globex", "t-shared") is None
        assert await inspection_for(t.store, registry, "acme", "t-nothing") is None
        assert await replay_for(t.store, registry, "globex", "t-shared") is None
        # The other account's turn with the same id is stored under its alias: each
        # account sees its own turn under the id it used.
        t.understanding.push(Understanding())
        await t.runtime.run_turn(OTHER, "c9", TurnInput(text="hello there"), turn_id="t-shared")
        theirs = await t.inspect("t-shared", "globex")
        mine = await t.inspect("t-shared")
        assert theirs.message.text == "hello there" and theirs.conversation_id == "c9"
        assert mine.message.text == AMBIGUOUS
        assert any(alias("globex", "t-shared") in n for n in theirs.notes)
        replayed = await replay_for(t.store, registry, "globex", "t-shared")
        assert replayed is not None and replayed.turn_id == "t-shared"

    run(go)


class PartialStore:
    """A store whose replay record is replaced (an old or damaged record)."""

    def __init__(self, inner: InMemoryStore, record: Any) -> None:
        self.inner = inner
        self.record = record

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def load_replay(self, account: str, turn_id: str) -> Any:
        return self.record


DAMAGED: list[Any] = [
    None,
    {},
    {"turn_id": "t-amb"},
    {"calls": "x", "reading": [], "reduction": {"input": 3, "plan": None}, "events": {}},
    {"calls": [1, {"task": 3, "prompt": "no"}], "reduction": {"input": {"acts": [7]}}},
    {"understanding": {"acts": [{"id": "a1", "evidence": {"x": 5}, "target": 2}]}},
    {"reduction": {"input": {"click": {"pending": [3, {"act": "a"}]}, "waiting": [1]}}},
]


@pytest.mark.parametrize("record", DAMAGED, ids=lambda r: json.dumps(r)[:40])
def test_an_old_or_partial_record_gives_a_view_with_notes(record: Any) -> None:
    async def go() -> None:
        t = Travel()
        await t.seed()
        await t.text(AMBIGUOUS, "t-amb", ambiguous(t))
        store = PartialStore(t.store, record)
        view = await inspection_for(store, t.runtime.registry, "acme", "t-amb")  # type: ignore[arg-type]
        assert view is not None and view.message.text == AMBIGUOUS
        if not record or "reduction" not in record:
            assert view.notes
        replay = replay_view(record or {}, t.runtime.registry)
        assert replay.same is None and replay.reason

    run(go)


@pytest.mark.parametrize("boundary", [b for b in BOUNDARIES if b != "begin_turn"])
def test_a_turn_interrupted_at_any_boundary_is_inspected_then_and_after_recovery(
    boundary: str,
) -> None:
    async def go() -> None:
        plan = FaultPlan()
        t = Travel(FaultInjectingStore(InMemoryStore(), plan))
        await t.seed()
        plan.arm(boundary)
        interrupted = False
        try:
            await t.text(MULTI, "t-fault", multi_act(t))
        except TurnInterrupted:
            interrupted = True
        plan.disarm(boundary)
        view = await t.inspect("t-fault")
        assert view.message.text == MULTI
        if interrupted and view.phase != "replied":
            assert view.notes  # what the turn had not written yet is said
        t.understanding.push(multi_act(t))
        await t.runtime.recover(ACTOR, "t-fault")
        after = await t.inspect("t-fault")
        assert after.phase == "replied" and [a.id for a in after.acts] == ["a1", "a2"]
        assert all(a.result is not None for a in after.acts)
        assert after.acts[0].receipts and after.acts[0].events

    run(go)


def test_a_turn_that_only_began_is_shown_with_what_is_missing() -> None:
    async def go() -> None:
        t = Travel()
        await t.seed()
        await t.store.begin_turn(
            TurnRecord(turn_id="t-begun", account="acme", conversation_id="c1", input={"text": 5})
        )
        view = await t.inspect("t-begun")
        assert view.phase == "received" and view.kind == "empty" and view.acts == []
        assert len(view.notes) >= 2
        replay = await replay_for(t.store, t.runtime.registry, "acme", "t-begun")
        assert (
            replay is not None and replay.same is None and "no replay record" in str(replay.reason)
        )

    run(go)


def test_replay_is_identical_for_a_real_turn_and_diffs_an_altered_plan() -> None:
    async def go() -> tuple[Any, Any]:
        t = Travel()
        await t.seed()
        await t.text(MULTI, "t-multi", multi_act(t))
        record = await t.store.load_replay("acme", "t-multi")
        return record, t.runtime.registry

    record, registry = run(go)
    same = replay_view(record, registry)
    assert isinstance(same, ReplayView)
    assert same.same is True and same.diff == [] and same.turn_id == "t-multi"
    assert same.recorded_plan == same.replayed_plan

    altered = json.loads(json.dumps(record))
    plan = altered["reduction"]["plan"]
    plan["results"][0]["status"] = "rejected"
    plan["batches"][0]["expected_revision"] = 99
    plan["notices"].append(["made_up", "Not from the reducer.", None])
    view = replay_view(altered, registry)
    assert view.same is False
    by_path = {d.path: d for d in view.diff}
    assert by_path["/results/0/status"].recorded == "rejected"
    assert (
        by_path["/results/0/status"].replayed == record["reduction"]["plan"]["results"][0]["status"]
    )
    assert by_path["/batches/0/expected_revision"].recorded == 99
    added = by_path[f"/notices/{len(plan['notices']) - 1}"]
    assert added.change == "removed" and added.replayed is None
    assert view.replayed_plan == record["reduction"]["plan"]


def test_a_record_whose_workflow_is_gone_does_not_replay() -> None:
    async def go() -> Any:
        t = Travel()
        await t.seed()
        await t.text(MULTI, "t-multi", multi_act(t))
        return await t.store.load_replay("acme", "t-multi"), t.runtime.registry

    record, registry = run(go)
    broken = json.loads(json.dumps(record))
    for snap in broken["reduction"]["input"]["snapshots"]:
        snap["case"]["workflow"] = "gone"
    view = replay_view(broken, registry)
    assert view.same is None and "could not be re-run" in str(view.reason)
    assert view.recorded_plan == record["reduction"]["plan"]


def test_every_field_of_both_views_is_described() -> None:
    """The OpenAPI document is generated from these models: no field goes undocumented."""
    for model in (InspectionView, ReplayView):
        schema = model.model_json_schema()
        for name, definition in [(model.__name__, schema), *schema.get("$defs", {}).items()]:
            assert definition.get("description"), name
            for field, prop in definition.get("properties", {}).items():
                assert prop.get("description"), f"{name}.{field}"
