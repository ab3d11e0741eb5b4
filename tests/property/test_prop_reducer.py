"""Pure-reducer properties: no store, no runtime; ``ReductionInput`` built from strategies.

Resolutions are drawn at random (Exact on a case in view, on a case not in view or on a
new case; Ambiguous over two or three random candidates; NotFound; Unauthorized; none), as
are acts (any operation, garbage or valid arguments, hypothetical, ungrounded), questions,
constraints, links, a click on a random card (any kind, status, revision, pending acts and
resolutions) and text answers to random cards. For every input:

* I8: only an Exact resolution compiles; every envelope's (act, case) is an Exact source;
* I11: every act, question and card answer has exactly one result; a batched act is
  reported ``ready`` under its own operation and case;
* I4/I17: every envelope carries a server-issued origin that satisfies its policy; no
  ``DirectUserAct`` on a command whose policy needs a card; a confirmation origin names the
  clicked card, and only a structured click (never a text card answer) confirms;
* purity and determinism: the same input gives an equal plan, twice and from a deep copy,
  and the order of an act's arguments does not matter.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from datetime import date
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tf_oracle import plan_violations

from turnframe.core import (
    Actor,
    Ambiguous,
    ArgumentKind,
    CardAnswer,
    CaseRef,
    ConfirmedInteraction,
    Constraint,
    ConstraintKind,
    ConstraintScope,
    DirectUserAct,
    EvidenceSource,
    Exact,
    Interaction,
    InteractionKind,
    InteractionOption,
    InteractionResponse,
    InteractionSpec,
    InteractionStatus,
    Link,
    NotFound,
    OptionMeaning,
    PendingAct,
    Question,
    SemanticAct,
    TargetCandidate,
    Unauthorized,
    Understanding,
    origin_is_server_issued,
)
from turnframe.runtime.plan import ActInput, CaseSnapshot, ClickInput, ReductionInput
from turnframe.runtime.policy import origin_satisfies
from turnframe.runtime.reduce import reduce_turn
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application

TODAY = date(2026, 5, 1)
REGISTRY = travel_application().registry
ACTORS = (
    Actor(account="acme", user="u1", roles=frozenset({"customer"})),
    Actor(account="acme", user="agent-7", roles=frozenset({"agent"})),
)
EXTRA_RECORDS = [
    {
        "key": "D2",
        "workflow": "manifest",
        "trip": "T1",
        "airline": "TP",
        "passengers": ["P1", "P3"],
    },
    {
        "key": "D3",
        "workflow": "manifest",
        "trip": "T2",
        "airline": "TP",
        "passengers": ["P2"],
        "status": "validated",
    },
    {"key": "T4", "workflow": "trip", "name": "Faro", "status": "confirmed"},
]


def _snapshots() -> dict[CaseRef, CaseSnapshot]:
    records = [*DEMO_RECORDS, *EXTRA_RECORDS]
    out = {}
    for n, (_, case, state) in enumerate(seed_all(records)):
        erased = REGISTRY.workflow(case.workflow)
        typed = erased.typed(state)
        out[case] = CaseSnapshot(
            case=case,
            state=typed,
            state_json=state,
            revision=1 + n % 3,
            view=erased.definition.project(typed, TODAY),
            label=erased.definition.candidate_label(case, typed, "en"),
        )
    for case in (CaseRef("trip", "new-1"), CaseRef("traveler", "new-2")):
        erased = REGISTRY.workflow(case.workflow)
        out[case] = CaseSnapshot(
            case=case,
            state=None,
            state_json=None,
            revision=0,
            view=erased.definition.project(None, TODAY),
            label=erased.definition.candidate_label(case, None, "en"),
        )
    return out


SNAPSHOTS = _snapshots()
IN_VIEW = tuple(c for c in SNAPSHOTS if not c.case_id.startswith("new"))
NEW = tuple(c for c in SNAPSHOTS if c.case_id.startswith("new"))
ELSEWHERE = (CaseRef("trip", "T404"), CaseRef("traveler", "P404"), CaseRef("ghost", "x"))
TRAVELERS = tuple(c for c in IN_VIEW if c.workflow == "traveler")
OPERATIONS = tuple(
    op.key for name in REGISTRY.names() for op in REGISTRY.workflow(name).operations()
)
WORDS = (
    "",
    "Hotel Avenida",
    "E1",
    "E2",
    "E7",
    "hotel",
    "insurance",
    "seat",
    "spa",
    "company",
    "2",
    "0",
    "-1",
    "2026-05-20",
    "2026-05-24",
    "2026-06-10",
    "2020-01-01",
    "May 22",
    "2026-13-01",
    "ana@example.com",
    "nope",
    "x" * 80,
)
CONFIRMABLE = ("trip.cancel", "trip.book_hotel", "traveler.delete", "manifest.submit")
IDS = ("a1", "a2", "a3", "a4", "q1", "q2", "k1", "k2")

cases = st.sampled_from(IN_VIEW + ELSEWHERE)
candidates = st.builds(TargetCandidate, case=cases, label=st.sampled_from(("Lisbon", "Ana")))
resolutions = st.one_of(
    st.builds(Exact, case=cases),
    st.builds(Exact, case=st.sampled_from(NEW + IN_VIEW), new=st.just(True)),
    st.builds(Ambiguous, candidates=st.lists(candidates, min_size=2, max_size=3).map(tuple)),
    st.builds(NotFound, reason=st.sampled_from(("no_target", "unknown_handle", "no_match"))),
    st.builds(Unauthorized),
    st.none(),
)


VALID = {
    ArgumentKind.TEXT: ("Hotel Avenida", "E1", "E2", "Sintra"),
    ArgumentKind.DATE: ("2026-05-20", "2026-05-24", "2026-06-10", "May 22"),
    ArgumentKind.INTEGER: ("1", "2", "3"),
    ArgumentKind.EMAIL: ("ana@example.com",),
    ArgumentKind.RECORD: ("h-traveler", "company"),
    ArgumentKind.PART: ("E1", "the hotel", "the baggage", "insurance"),
}


@st.composite
def acts(draw: Any, act_id: str, *, confirmable: bool = False) -> ActInput:
    # ``confirmable``: a card's pending act, which passed grounding before it was parked.
    case = draw(cases)
    own: tuple[str, ...] = ()
    if case.workflow in REGISTRY.names():
        own = tuple(op.key for op in REGISTRY.workflow(case.workflow).operations())
    if confirmable:
        own += tuple(k for k in CONFIRMABLE if k.startswith(case.workflow + ".")) * 4
    operation = draw(st.sampled_from((*own * 4, *OPERATIONS, "trip.teleport", None)))
    spec = REGISTRY.operation(operation or "")
    args: dict[str, str] = {}
    record_args = {}
    bad_args = {}
    for arg in spec.arguments if spec else ():
        if not arg.required and draw(st.booleans()):
            continue
        if arg.choices:
            args[arg.name] = draw(st.sampled_from((*arg.choices, "spa")))
        else:
            args[arg.name] = draw(st.sampled_from(VALID[arg.kind] * 3 + WORDS))
        if arg.record_workflow:
            choice = draw(st.sampled_from(("ok", "ok", "bad", "literal")))
            if choice == "ok":
                record_args[arg.name] = draw(st.sampled_from(TRAVELERS + ELSEWHERE[:1]))
            elif choice == "bad":
                bad_args[arg.name] = "unknown_handle"
    if draw(st.booleans()):
        args["junk"] = draw(st.sampled_from(WORDS))
    act = SemanticAct(
        id=act_id,
        operation=operation,
        args=args,
        evidence_source=EvidenceSource.USER
        if confirmable
        else draw(st.sampled_from((EvidenceSource.USER,) * 5 + tuple(EvidenceSource))),
        hypothetical=not confirmable and draw(st.sampled_from((False,) * 5 + (True,))),
    )
    exact = (
        Exact(
            case=CaseRef(case.workflow, "new-1" if case.workflow == "trip" else "new-2"), new=True
        )
        if spec is not None and spec.creates_case
        else Exact(case=case)
    )
    resolution = exact if draw(st.integers(0, 9)) < 7 else draw(resolutions)
    return ActInput(act=act, resolution=resolution, record_args=record_args, bad_args=bad_args)


@st.composite
def cards(draw: Any, card_id: str) -> Interaction:
    kind = draw(st.sampled_from(tuple(InteractionKind)))
    first = draw(acts(draw(st.sampled_from(IDS)), confirmable=True))
    case = (
        first.resolution.case
        if isinstance(first.resolution, Exact) and first.resolution.case in IN_VIEW
        else draw(st.sampled_from(IN_VIEW))
    )
    more = [draw(acts("a9", confirmable=True))] if draw(st.booleans()) else []
    pending = [
        PendingAct(
            act=item.act,
            case=None if kind is InteractionKind.SELECT_TARGET else case,
            record_args=dict(item.record_args),
        )
        for item in (first, *more)
    ]
    if kind is InteractionKind.SELECT_TARGET:
        options = tuple(
            InteractionOption(id=f"o{n}", label="x", meaning=OptionMeaning.SELECT, case=c)
            for n, c in enumerate(draw(st.lists(cases, min_size=2, max_size=3)), start=1)
        )
    elif kind is InteractionKind.REVIEW:
        options = (
            InteractionOption(id="approve", label="ok", meaning=OptionMeaning.APPROVE),
            InteractionOption(id="reject", label="no", meaning=OptionMeaning.REJECT),
        )
    else:
        options = (
            InteractionOption(id="confirm", label="ok", meaning=OptionMeaning.CONFIRM),
            InteractionOption(id="decline", label="no", meaning=OptionMeaning.DECLINE),
        )
    spec = InteractionSpec(
        kind=kind,
        case=None if kind is InteractionKind.SELECT_TARGET else case,
        prompt="?",
        options=options,
        bound_revision=SNAPSHOTS[case].revision + (draw(st.integers(0, 9)) >= 8),
        independent=kind is InteractionKind.SELECT_TARGET,
        pending=tuple(pending),
        operations=tuple(p.act.operation or "" for p in pending),
        required_role="agent" if kind is InteractionKind.REVIEW else None,
        confirmed_by=("card-0",) if kind is InteractionKind.REVIEW else (),
    )
    return Interaction(
        id=card_id,
        account="acme",
        conversation_id="conv-1",
        turn_id="turn-0",
        spec=spec,
        payload_hash=spec.payload_hash(),
        status=InteractionStatus.OPEN
        if draw(st.integers(0, 9)) < 8
        else draw(st.sampled_from(tuple(InteractionStatus))),
    )


AUTHORIZABLE = (
    ("T1", "trip.cancel", {}),
    ("T2", "trip.cancel", {}),
    ("T3", "trip.book_hotel", {"hotel": "Hotel Avenida", "nights": "2"}),
    ("P4", "traveler.delete", {}),
    ("D2", "manifest.submit", {}),
    ("D3", "manifest.submit", {}),
)
REFS = {c.case_id: c for c in IN_VIEW}


@st.composite
def realistic_cards(draw: Any, card_id: str) -> Interaction:
    """A card as the runtime would have stored it: clean pending acts it can authorize."""
    key, operation, args = draw(st.sampled_from(AUTHORIZABLE))
    case = REFS[key]
    act = SemanticAct(id=draw(st.sampled_from(IDS)), operation=operation, args=args)
    review = operation == "manifest.submit" and draw(st.booleans())
    if review:
        kind, options = (
            InteractionKind.REVIEW,
            (
                InteractionOption(id="approve", label="ok", meaning=OptionMeaning.APPROVE),
                InteractionOption(id="reject", label="no", meaning=OptionMeaning.REJECT),
            ),
        )
    else:
        kind, options = (
            InteractionKind.CONFIRM,
            (
                InteractionOption(id="confirm", label="ok", meaning=OptionMeaning.CONFIRM),
                InteractionOption(id="decline", label="no", meaning=OptionMeaning.DECLINE),
            ),
        )
    spec = InteractionSpec(
        kind=kind,
        case=case,
        prompt="?",
        options=options,
        bound_revision=SNAPSHOTS[case].revision,
        pending=(PendingAct(act=act, case=case),),
        operations=(operation,),
        required_role="agent" if review else None,
        confirmed_by=("card-0",) if review else (),
    )
    return Interaction(
        id=card_id,
        account="acme",
        conversation_id="conv-1",
        turn_id="turn-0",
        spec=spec,
        payload_hash=spec.payload_hash(),
    )


@st.composite
def reduction_inputs(draw: Any) -> ReductionInput:
    ids = draw(st.permutations(IDS))
    n_acts, n_questions, n_answers = (draw(st.integers(0, k)) for k in (4, 2, 2))
    act_inputs = tuple(draw(acts(i)) for i in ids[:n_acts])
    act_ids = [a.act.id for a in act_inputs]
    screen = tuple(draw(cards(f"card-{n}")) for n in range(draw(st.integers(0, 3))))
    if draw(st.booleans()):
        screen = (*screen, draw(realistic_cards("card-5")))
    click = None
    if screen and draw(st.integers(0, 9)) < 7:
        favourite = screen[-1] if screen[-1].id == "card-5" else None
        card = favourite if favourite and draw(st.integers(0, 2)) else draw(st.sampled_from(screen))
        option = (
            draw(st.sampled_from([o.id for o in card.spec.options]))
            if draw(st.integers(0, 9)) < 9
            else "o9"
        )
        chosen = card.spec.option(option)
        pending = tuple(
            ActInput(
                act=p.act,
                resolution=draw(
                    st.sampled_from(
                        (
                            Exact(case=chosen.case if chosen and chosen.case else p.case),
                            Unauthorized(),
                        )
                    )
                )
                if (chosen and chosen.case) or p.case
                else None,
                record_args=p.record_args,
            )
            for p in card.spec.pending
        )
        revision = SNAPSHOTS[card.spec.case].revision if card.spec.case else None
        click = ClickInput(
            response=InteractionResponse(
                interaction_id=card.id,
                option_id=option,
                expected_revision=card.spec.bound_revision
                if draw(st.integers(0, 9)) < 8
                else draw(st.sampled_from((None, 7))),
            ),
            interaction=card,
            case_revision=revision,
            pending=pending,
        )
    elif draw(st.booleans()):
        click = ClickInput(
            response=InteractionResponse(interaction_id="card-9", option_id="confirm"),
            interaction=None,
        )
    ends = (*act_ids, "zz")
    understanding = Understanding(
        acts=tuple(a.act for a in act_inputs),
        questions=tuple(
            Question(id=i, topic="trip_summary") for i in ids[n_acts : n_acts + n_questions]
        ),
        constraints=tuple(
            Constraint(
                id=f"c{n}",
                kind=draw(st.sampled_from(tuple(ConstraintKind))),
                scope=draw(st.sampled_from(tuple(ConstraintScope))),
            )
            for n in range(draw(st.integers(0, 2)))
        ),
        card_answers=tuple(
            CardAnswer(
                id=i,
                interaction=draw(st.sampled_from([c.id for c in screen] + ["card-9"])),
                option=draw(st.sampled_from(("confirm", "decline", "approve", "reject", "o1"))),
            )
            for i in ids[n_acts + n_questions : n_acts + n_questions + n_answers]
        ),
        links=tuple(
            Link(
                act=draw(st.sampled_from(ends)),
                corrects=draw(st.sampled_from((None, *ends))),
                cancels=draw(st.sampled_from((None, *ends))),
            )
            for _ in range(draw(st.integers(0, 3)))
        ),
    )
    return ReductionInput(
        turn_id="turn-1",
        actor=draw(st.sampled_from(ACTORS)),
        today=TODAY,
        locale=draw(st.sampled_from(("en", "pt-PT"))),
        understanding=understanding,
        acts=act_inputs,
        snapshots=SNAPSHOTS,
        click=click,
        cards_on_screen=tuple(c for c in screen if c.status is InteractionStatus.OPEN),
        standing_do_not_submit=draw(st.booleans()),
    )


def _reversed_args(inp: ReductionInput) -> ReductionInput:
    def flip(act: SemanticAct) -> SemanticAct:
        return replace(act, args=dict(reversed(list(act.args.items()))))

    return replace(
        inp,
        understanding=replace(
            inp.understanding, acts=tuple(flip(a) for a in inp.understanding.acts)
        ),
        acts=tuple(replace(a, act=flip(a.act)) for a in inp.acts),
    )


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(inp=reduction_inputs())
def test_reducer_compiles_only_exact_and_answers_every_item_once(inp: ReductionInput) -> None:
    plan = reduce_turn(inp, REGISTRY)
    assert plan_violations(inp, plan) == []
    click_card = inp.click.interaction.id if inp.click and inp.click.interaction else None
    for batch in plan.batches:
        for e in batch.envelopes:
            assert origin_is_server_issued(e.origin)
            assert origin_satisfies(e.policy, e.origin)
            if e.policy.needs_card:
                assert not isinstance(e.origin, DirectUserAct), e
            if isinstance(e.origin, ConfirmedInteraction):
                # Only the structured click confirms; a text card answer never does (ADR 0006).
                assert e.origin.interaction_id == click_card
                assert inp.click is not None
                assert e.origin.option_id == inp.click.response.option_id


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(inp=reduction_inputs())
def test_reducer_is_deterministic_and_blind_to_argument_order(inp: ReductionInput) -> None:
    plan = reduce_turn(inp, REGISTRY)
    assert reduce_turn(inp, REGISTRY) == plan
    assert reduce_turn(copy.deepcopy(inp), REGISTRY) == plan
    assert reduce_turn(_reversed_args(inp), REGISTRY) == plan
