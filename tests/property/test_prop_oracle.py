"""The oracles can fail: each checker catches a planted violation.

Zero violations over 10,000 hostile turns means something only if the checkers would have
said otherwise. Two kinds of proof:

* unit: each checker of ``tf_oracle`` is fed a hand-made violation (a bogus origin object,
  an envelope no executor saw, a receipt citing a missing event or another case's event,
  a batch compiled from an Ambiguous target, a missing or duplicated result, a claimed
  commit that never happened, a card resolved as committed without a commit);
* end to end: the real runtime is sabotaged in ways its own self-checks do not notice (a
  reducer that breaks ambiguity by taking the first candidate, a reducer that forges a
  confirmation origin, a claim guard that lets everything through with a forged receipt)
  and a short conversation runs under the oracle, which must report the breach.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import anyio
import pytest
from tf_hostile import ACME, TODAY
from tf_oracle import (
    ObservingStore,
    Oracle,
    TurnContext,
    commit_violations,
    envelope_violations,
    plan_violations,
    receipt_violations,
    result_violations,
)

from turnframe.core import (
    Ambiguous,
    CardAnswer,
    CaseRef,
    CommandEnvelope,
    CommandPolicy,
    ConfirmationRequirement,
    ConfirmedInteraction,
    DirectUserAct,
    DomainEvent,
    Exact,
    Interaction,
    InteractionKind,
    InteractionOption,
    InteractionResolution,
    InteractionSpec,
    InteractionStatus,
    OptionMeaning,
    PendingAct,
    PlannedActResult,
    ProposedTarget,
    Question,
    Receipt,
    ReceiptBlock,
    ResultStatus,
    RiskClass,
    SemanticAct,
    TargetCandidate,
    TurnInput,
    Understanding,
)
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.runtime.plan import ActInput, Plan, PlannedBatch, ReductionInput
from turnframe.runtime.steps import reduction as reduction_step
from turnframe.runtime.steps import reply as reply_step
from turnframe.runtime.steps import reproject as reproject_step
from turnframe.samples.travel import DEMO_RECORDS, RenameTrip, seed_all, travel_application
from turnframe.store import CommitRequest, InteractionCas, PlanCommit
from turnframe.understand import ScriptedUnderstanding

REGISTRY = travel_application().registry
T1, T2 = CaseRef("trip", "T1"), CaseRef("trip", "T2")
LOW = CommandPolicy(risk=RiskClass.LOW)
CONFIRM = CommandPolicy(risk=RiskClass.MONETARY, confirmation=ConfirmationRequirement.CONFIRM)


@dataclass(frozen=True)
class ModelAskedForIt:
    """The origin the design says cannot exist: "the model asked for it"."""

    reason: str = "the model was confident"
    kind: str = "model_proposal"


def _state(key: str) -> Any:
    return next(state for k, _, state in seed_all(DEMO_RECORDS) if k == key)


def _envelope(origin: Any, *, policy: CommandPolicy = LOW, act_id: str = "a1") -> CommandEnvelope:
    return CommandEnvelope(
        command=RenameTrip(name="Lisbon 2"),
        case=T1,
        actor=ACME,
        expected_revision=1,
        idempotency_key="key-1",
        origin=origin,
        policy=policy,
        act_id=act_id,
    )


def _envelope_check(envelope: CommandEnvelope, **kw: Any) -> list[str]:
    args: dict[str, Any] = {
        "turn_id": "turn-1",
        "actor": ACME,
        "click": None,
        "card_before": None,
        "registry": REGISTRY,
        "state_json": _state("T1"),
    }
    args.update(kw)
    return envelope_violations(envelope, **args)


# ------------------------------------------------------------------------ unit proofs
def test_a_well_formed_envelope_passes() -> None:
    assert _envelope_check(_envelope(DirectUserAct(turn_id="turn-1"))) == []


def test_an_origin_outside_the_four_variants_is_caught() -> None:
    found = _envelope_check(_envelope(ModelAskedForIt()))
    assert found and found[0].startswith("I4"), found
    assert commit_violations(_request(), [_envelope(ModelAskedForIt())])


def test_a_forged_policy_or_confirmation_is_caught() -> None:
    # The workflow says trip.rename is low risk: claiming "confirm" is a forged policy.
    assert any(
        "policy" in v
        for v in _envelope_check(_envelope(DirectUserAct(turn_id="turn-1"), policy=CONFIRM))
    )
    forged = ConfirmedInteraction(
        interaction_id="card-7", option_id="confirm", interaction_kind="confirm", payload_hash="x"
    )
    found = _envelope_check(_envelope(forged))
    assert any(v.startswith("I9") for v in found), found
    assert any(v.startswith("I16") for v in found), found
    stale_turn = _envelope_check(_envelope(DirectUserAct(turn_id="turn-0")))
    assert stale_turn and "turn-0" in stale_turn[0]


def _request(**kw: Any) -> CommitRequest:
    fields: dict[str, Any] = {
        "account": "acme",
        "case": T1,
        "expected_revision": 1,
        "state": {},
        "events": (),
        "idempotency_key": "key-1",
        "request_hash": "h",
        "turn_id": "turn-1",
        "operations": ("trip.rename",),
    }
    fields.update(kw)
    return CommitRequest(**fields)


def test_a_commit_no_executor_saw_is_caught() -> None:
    assert commit_violations(_request(), [_envelope(DirectUserAct(turn_id="turn-1"))]) == []
    found = commit_violations(_request(), None)
    assert found and "no envelope" in found[0]
    found = commit_violations(
        _request(operations=("trip.cancel",)), [_envelope(DirectUserAct(turn_id="t"))]
    )
    assert found


def _event(event_id: str, case: CaseRef = T1, operation: str = "trip.rename") -> DomainEvent:
    return DomainEvent(
        id=event_id, case=case, revision=2, type="trip.renamed", data={}, operation=operation
    )


def _receipt(*event_ids: str, case: CaseRef = T1) -> ReceiptBlock:
    return ReceiptBlock(
        receipt=Receipt(case=case, operation="trip.rename", text="Renamed.", event_ids=event_ids)
    )


def test_a_receipt_without_its_committed_event_is_caught() -> None:
    journal = {"ev-1": _event("ev-1"), "ev-2": _event("ev-2", case=T2)}
    assert receipt_violations([_receipt("ev-1")], journal) == []
    assert "missing ev-404" in receipt_violations([_receipt("ev-404")], journal)[0]
    assert "cites no event" in receipt_violations([_receipt()], journal)[0]
    assert "an event of" in receipt_violations([_receipt("ev-2")], journal)[0]


def _plan_input(resolution: Any, *, understanding_extra: tuple[str, ...] = ()) -> ReductionInput:
    act = SemanticAct(id="a1", operation="trip.rename", args={"name": "Lisbon 2"})
    return ReductionInput(
        turn_id="turn-1",
        actor=ACME,
        today=TODAY,
        locale="en",
        understanding=Understanding(
            acts=(act,), questions=tuple(Question(id=i, topic="t") for i in understanding_extra)
        ),
        acts=(ActInput(act=act, resolution=resolution),),
        snapshots={},
    )


def _plan(*results: PlannedActResult, batch_case: CaseRef | None = T1) -> Plan:
    batches = ()
    if batch_case is not None:
        envelope = replace(_envelope(DirectUserAct(turn_id="turn-1")), case=batch_case)
        batches = (
            PlannedBatch(
                case=batch_case,
                expected_revision=1,
                new_case=False,
                envelopes=(envelope,),
                act_ids=("a1",),
            ),
        )
    return Plan(results=results, batches=batches)


READY = PlannedActResult(item_id="a1", status=ResultStatus.READY, operation="trip.rename", case=T1)


def test_a_batch_compiled_from_a_non_exact_target_is_caught() -> None:
    assert plan_violations(_plan_input(Exact(case=T1)), _plan(READY)) == []
    ambiguous = Ambiguous(
        candidates=(TargetCandidate(case=T1, label="May"), TargetCandidate(case=T2, label="June"))
    )
    found = plan_violations(_plan_input(ambiguous), _plan(READY))
    assert any(v.startswith("I8") for v in found), found
    # Exact, but on another case than the one compiled: still not an Exact source.
    assert any(
        v.startswith("I8") for v in plan_violations(_plan_input(Exact(case=T2)), _plan(READY))
    )


def test_a_missing_or_duplicated_result_is_caught() -> None:
    inp = _plan_input(Exact(case=T1), understanding_extra=("q1",))
    assert any("q1 has no result" in v for v in plan_violations(inp, _plan(READY)))
    twice = plan_violations(_plan_input(Exact(case=T1)), _plan(READY, READY))
    assert any("2 results" in v for v in twice), twice
    other = replace(READY, operation="trip.cancel")
    assert any(
        "reported as" in v for v in plan_violations(_plan_input(Exact(case=T1)), _plan(other))
    )


def test_a_claimed_commit_that_never_happened_is_caught() -> None:
    understanding = Understanding(acts=(SemanticAct(id="a1", operation="trip.rename"),))
    committed = replace(READY, status=ResultStatus.COMMITTED)
    ok = result_violations(
        understanding,
        {"a1": committed},
        {("a1", "trip.rename", T1)},
        any_commit=True,
        replayed=False,
    )
    assert ok == []
    found = result_violations(
        understanding, {"a1": committed}, set(), any_commit=False, replayed=False
    )
    assert found and found[0].startswith("I15")
    # The act's own result replaced by another item's: a commit reported under a wrong act.
    swapped = replace(committed, operation="traveler.delete", case=CaseRef("traveler", "P4"))
    found = result_violations(
        understanding,
        {"a1": swapped},
        {("a1", "traveler.delete", CaseRef("traveler", "P4"))},
        any_commit=True,
        replayed=False,
    )
    assert any(v.startswith("I11") for v in found), found


def test_a_card_resolved_as_committed_without_a_commit_is_caught() -> None:
    oracle = Oracle(REGISTRY)
    store = ObservingStore(oracle)
    spec = InteractionSpec(
        kind=InteractionKind.CONFIRM,
        case=T1,
        prompt="?",
        options=(InteractionOption(id="confirm", label="ok", meaning=OptionMeaning.CONFIRM),),
    )
    card = Interaction(
        id="card-1",
        account="acme",
        conversation_id="c",
        turn_id="t",
        spec=spec,
        payload_hash=spec.payload_hash(),
    )

    async def main() -> None:
        await store.create_interaction(card)
        await store.create_interaction(replace(card, id="card-2", spec=replace(spec, prompt="!")))
        await store.create_interaction(replace(card, id="card-3", spec=replace(spec, case=T2)))
        await store.close_interaction(
            InteractionCas(
                interaction_id="card-3",
                status=InteractionStatus.RESOLVED,
                resolution=InteractionResolution(
                    option_id="confirm", turn_id="t", user="u1", results={"a1": "committed"}
                ),
            )
        )

    anyio.run(main)
    assert oracle.card_state_violations(store) == [
        "I16: card card-3 resolved as committed without a commit"
    ]
    # Two open cards on one case would be an I5 breach; the store supersedes the older one.
    store._interactions["card-1"] = replace(card, status=InteractionStatus.OPEN)
    assert any(v.startswith("I5") for v in oracle.card_state_violations(store))


# ------------------------------------------------------------------- end-to-end proofs
async def _conversation(oracle: Oracle, script: list[Any]) -> None:
    store = ObservingStore(oracle)
    understander = ScriptedUnderstanding()
    runtime = Runtime(
        travel_application(), store, understander, clock=FixedClock(TODAY), ids=SequentialIds()
    )
    refs = {}
    for key, case, state in seed_all(DEMO_RECORDS):
        refs[key] = await runtime.seed("acme", case.workflow, state, case_id=case.case_id)
    for build in script:
        ctx = oracle.begin(TurnContext(actor=ACME, conversation_id="c"))

        def read(brief: Any, build: Any = build, ctx: TurnContext = ctx) -> Understanding:
            ctx.understanding = build(lambda k: runtime.handle_for(brief.turn_id, refs[k]))
            return ctx.understanding

        understander.push(read)
        result = await runtime.run_turn(ACME, "c", TurnInput(text="words"))
        await oracle.finish(store, result)


def _rename_the_lisbon_trip(h: Any) -> Understanding:
    # "Lisbon" names two trips: the resolution is Ambiguous.
    target = ProposedTarget(handles=(h("T1"), h("T2")), mention="the Lisbon trip")
    return Understanding(
        acts=(SemanticAct(id="a1", operation="trip.rename", target=target, args={"name": "X"}),)
    )


def _sabotage(monkeypatch: pytest.MonkeyPatch, rewrite: Any) -> None:
    real = reduction_step.reduce_turn

    def sabotaged(inp: ReductionInput, registry: Any) -> Plan:
        return rewrite(real, inp, registry)

    monkeypatch.setattr(reduction_step, "reduce_turn", sabotaged)


def test_oracle_catches_a_reducer_that_breaks_ambiguity_by_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def first_candidate(real: Any, inp: ReductionInput, registry: Any) -> Plan:
        acts = tuple(
            replace(a, resolution=Exact(case=a.resolution.candidates[0].case))
            if isinstance(a.resolution, Ambiguous)
            else a
            for a in inp.acts
        )
        return real(replace(inp, acts=acts), registry)

    oracle = Oracle(REGISTRY)
    with oracle.installed():
        anyio.run(_conversation, oracle, [_rename_the_lisbon_trip])
    assert oracle.violations == []  # the honest runtime asks which trip
    assert oracle.stats["card:select_target"] == 1
    _sabotage(monkeypatch, first_candidate)
    oracle = Oracle(REGISTRY)
    with oracle.installed():
        anyio.run(_conversation, oracle, [_rename_the_lisbon_trip])
    assert any(v.startswith("I8") for v in oracle.violations), oracle.violations


def test_oracle_catches_a_forged_confirmation_origin(monkeypatch: pytest.MonkeyPatch) -> None:
    def forge(real: Any, inp: ReductionInput, registry: Any) -> Plan:
        plan = real(inp, registry)
        forged = ConfirmedInteraction(
            interaction_id="card-forged",
            option_id="confirm",
            interaction_kind="confirm",
            payload_hash="0" * 64,
        )
        batches = tuple(
            replace(b, envelopes=tuple(replace(e, origin=forged) for e in b.envelopes))
            for b in plan.batches
        )
        return replace(plan, batches=batches)

    def rename_may(h: Any) -> Understanding:
        target = ProposedTarget(handles=(h("T1"),))
        return Understanding(
            acts=(SemanticAct(id="a1", operation="trip.rename", target=target, args={"name": "X"}),)
        )

    _sabotage(monkeypatch, forge)
    oracle = Oracle(REGISTRY)
    with oracle.installed():
        anyio.run(_conversation, oracle, [rename_may])
    # The runtime's own policy check accepts a "confirm" origin for a low-risk command and
    # commits; the oracle knows no card was clicked.
    assert any(v.startswith("I9") for v in oracle.violations), oracle.violations


def test_oracle_catches_a_receipt_citing_no_committed_event(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_receipts = reproject_step.receipts

    async def forged_receipts(parts: Any, events: Any, locale: str, *rows: Any) -> list[Receipt]:
        found = await real_receipts(parts, events, locale, *rows)
        fake = Receipt(case=T1, operation="trip.cancel", text="Cancelled.", event_ids=("ev-999",))
        return [*found, fake]

    monkeypatch.setattr(reproject_step, "receipts", forged_receipts)
    monkeypatch.setattr(reply_step, "guard_claims", lambda blocks, committed: (tuple(blocks), ()))

    def rename_may(h: Any) -> Understanding:
        target = ProposedTarget(handles=(h("T1"),))
        return Understanding(
            acts=(SemanticAct(id="a1", operation="trip.rename", target=target, args={"name": "X"}),)
        )

    oracle = Oracle(REGISTRY)
    with oracle.installed():
        anyio.run(_conversation, oracle, [rename_may])
    assert any("cites missing ev-999" in v for v in oracle.violations), oracle.violations


def test_a_stale_confirmation_or_a_review_without_confirmation_is_caught() -> None:
    spec = InteractionSpec(
        kind=InteractionKind.CONFIRM,
        case=T1,
        prompt="?",
        options=(InteractionOption(id="confirm", label="ok", meaning=OptionMeaning.CONFIRM),),
        bound_revision=1,
    )
    card = Interaction(
        id="card-1",
        account="acme",
        conversation_id="c",
        turn_id="t",
        spec=spec,
        payload_hash=spec.payload_hash(),
    )
    confirmed = ConfirmedInteraction(
        interaction_id="card-1",
        option_id="confirm",
        interaction_kind="confirm",
        payload_hash=card.payload_hash,
    )
    fresh = commit_violations(_request(), [_envelope(confirmed)], card_before=card)
    assert fresh == []
    stale = commit_violations(
        _request(expected_revision=2),
        [replace(_envelope(confirmed), expected_revision=2)],
        card_before=card,
    )
    assert any("stale" in v for v in stale), stale
    review = ConfirmedInteraction(
        interaction_id="card-2",
        option_id="approve",
        interaction_kind="review",
        payload_hash="x",
        confirmed_by=("card-1",),
    )
    given_confirmation = replace(card, status=InteractionStatus.RESOLVED)
    assert (
        commit_violations(_request(), [_envelope(review)], cards={"card-1": given_confirmation})
        == []
    )
    found = commit_violations(_request(), [_envelope(review)], cards={"card-1": card})
    assert any(v.startswith("I17") for v in found), found


def test_a_commit_carrying_two_cards_or_an_unresolved_answer_is_caught() -> None:
    def select_card(card_id: str, act_id: str) -> Interaction:
        spec = InteractionSpec(
            kind=InteractionKind.SELECT_TARGET,
            case=None,
            prompt="?",
            options=(
                InteractionOption(id="o1", label="May", meaning=OptionMeaning.SELECT, case=T1),
                InteractionOption(id="o2", label="June", meaning=OptionMeaning.SELECT, case=T2),
            ),
            independent=True,
            pending=(PendingAct(act=SemanticAct(id=act_id, operation="trip.rename")),),
        )
        return Interaction(
            id=card_id,
            account="acme",
            conversation_id="c",
            turn_id="t",
            spec=spec,
            payload_hash=spec.payload_hash(),
        )

    cards = (select_card("card-1", "a1"), select_card("card-2", "a2"))
    inp = ReductionInput(
        turn_id="turn-1",
        actor=ACME,
        today=TODAY,
        locale="en",
        understanding=Understanding(
            card_answers=(
                CardAnswer(id="k1", interaction="card-1", option="o1"),
                CardAnswer(id="k2", interaction="card-2", option="o1"),
            )
        ),
        acts=(),
        snapshots={},
        cards_on_screen=cards,
    )
    envelopes = tuple(
        replace(_envelope(DirectUserAct(turn_id="turn-1")), act_id=a) for a in ("a1", "a2")
    )
    plan = Plan(
        results=(
            replace(READY, item_id="a1"),
            replace(READY, item_id="a2"),
            PlannedActResult(item_id="k1", status=ResultStatus.READY),
            PlannedActResult(item_id="k2", status=ResultStatus.READY),
        ),
        batches=(
            PlannedBatch(
                case=T1,
                expected_revision=1,
                new_case=False,
                envelopes=envelopes,
                act_ids=("a1", "a2"),
                card=("card-1", "o1"),
            ),
        ),
    )
    found = plan_violations(inp, plan)
    assert any(v.startswith("I16 plan") for v in found), found
    committed = PlannedActResult(item_id="k2", status=ResultStatus.COMMITTED)
    found = result_violations(
        inp.understanding,
        {"k1": replace(committed, item_id="k1"), "k2": committed},
        set(),
        any_commit=True,
        replayed=False,
        resolved={("card-1", "o1")},
    )
    assert found == [
        "I15 turn: answer k2 (card-2/o1) claims committed, but no commit resolved that card "
        "with that option"
    ]


class _First:
    """A stand-in for Hypothesis ``data`` that always draws the first element."""

    def draw(self, strategy: Any, label: str | None = None) -> Any:
        return strategy.elements[0]


def test_the_card_commit_check_catches_a_card_resolved_outside_its_commit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import test_prop_card_commit
    from test_prop_card_commit import Machine, step

    monkeypatch.setattr(test_prop_card_commit, "note", lambda text: None)

    class CardFirstStore(ObservingStore):
        """A broken store: it resolves the card, then attempts the commit (not atomic)."""

        async def commit(self, request: CommitRequest) -> Any:
            if request.interaction is not None:
                await self.close_interaction(request.interaction)
            return await super().commit(request)

        async def commit_plan(self, write: PlanCommit) -> Any:
            for request in write.requests:
                if request.interaction is not None:
                    await self.close_interaction(request.interaction)
            return await super().commit_plan(write)

    machine = Machine()
    machine.store = CardFirstStore(machine.oracle, faults=machine.plan)
    machine.runtime.store = machine.store
    machine.runtime.directory._store = machine.store  # type: ignore[attr-defined]

    async def main() -> None:
        await machine.seed()
        await machine.text("T1", "trip.cancel", {})
        await step(machine, "click_commit_fails", _First())

    with machine.oracle.installed(), pytest.raises(AssertionError) as caught:
        anyio.run(main)
    assert "resolved" in str(caught.value)
    assert any("I16" in v for v in machine.oracle.card_state_violations(machine.store))
