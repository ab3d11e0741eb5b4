"""Risk has teeth (I4, I17; docs/adr/0013-cards-show-what-they-do.md).

For every ``RiskClass`` × ``ConfirmationRequirement`` × opt-out (none, blank, a reason) ×
review role, declared on an operation of a toy workflow:

* registration fails with :class:`RiskPolicyError` exactly when the declaration lets a
  monetary, destructive, irreversible or unknown command run without a card, or opts out
  where no opt-out is allowed (irreversible, unknown; meaningless for low and reversible),
  with a blank reason, or beside a confirmation;
* otherwise a direct act on it commits only when the policy needs no card (low and
  reversible, or a valid explicit opt-out); every other direct act plans a Confirm card
  and no batch, and no envelope of a command that needs confirmation carries anything
  but a ``ConfirmedInteraction`` origin.

The workflow's run-time ``policy()`` may return ANY policy, even one the registry would
refuse: the runtime never applies a weaker one than the operation declares, and a risky
run-time policy without a valid opt-out still needs a card. High-risk confirmations are
never resolved from text (the last test).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from turnframe.core import (
    Actor,
    CardAnswer,
    CaseRef,
    CommandPolicy,
    Compiled,
    CompileRequest,
    ConfirmationRequirement,
    ConfirmedInteraction,
    DirectUserAct,
    Exact,
    Interaction,
    InteractionKind,
    InteractionStatus,
    OperationSpec,
    RiskClass,
    RiskPolicyError,
    SemanticAct,
    Understanding,
    WorkflowRegistry,
    WorkflowView,
)
from turnframe.runtime.plan import ActInput, CaseSnapshot, ReductionInput
from turnframe.runtime.policy import origin_satisfies
from turnframe.runtime.reduce import reduce_turn

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
CASE = CaseRef("toy", "X1")
VIEW = WorkflowView(workflow="toy", version="1", phase="open")


@dataclass(frozen=True, slots=True, kw_only=True)
class Poke:
    """The toy workflow's one command."""

    operation: str = "toy.poke"
    amount: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"amount": self.amount}


class Toy:
    """A workflow with one operation whose declared and run-time policies are given."""

    name = "toy"
    version = "1"

    def __init__(self, declared: CommandPolicy, runtime: CommandPolicy | None = None) -> None:
        self.declared = declared
        self.runtime = runtime or declared

    def operations(self) -> tuple[OperationSpec, ...]:
        return (
            OperationSpec(key="toy.poke", workflow="toy", summary="Poke.", policy=self.declared),
        )

    def load_state(self, data: dict[str, Any]) -> dict[str, Any]:
        return data

    def dump_state(self, state: dict[str, Any]) -> dict[str, Any]:
        return state

    def project(self, state: Any, today: date) -> WorkflowView:
        return VIEW

    def offered(self, view: WorkflowView, actor: Actor) -> tuple[str, ...]:
        return ("toy.poke",)

    def compile(self, request: CompileRequest[Any]) -> Compiled:
        return Compiled(commands=(Poke(),))

    def policy(self, state: Any, command: Any) -> CommandPolicy:
        return self.runtime

    def validate(self, state: Any, command: Any, today: date, locale: str = "en") -> None:
        return None

    def candidate_label(self, case: CaseRef, state: Any, locale: str) -> str:
        return "Toy X1"

    # Registration checks every member of the protocol; these never run in this test
    # (a risky act stops at its confirmation or at registration).
    def execute(self, state: Any, command: Any, ctx: Any) -> Any:
        raise NotImplementedError

    def render_receipt(self, event: Any, state: Any, locale: str) -> str | None:
        return None

    def search_text(self, state: Any) -> str:
        return "toy"

    def briefing(self, view: WorkflowView) -> str:
        return ""

    def ask_obligation(self, view: WorkflowView, obligation: Any, locale: str) -> str:
        return ""

    def ask_argument(self, operation: Any, argument: Any, locale: str) -> str:
        return ""


RISKS = st.sampled_from(list(RiskClass))
CONFIRMS = st.sampled_from(list(ConfirmationRequirement))
OPT_OUTS = st.sampled_from([None, "", "  ", "the desk refunds any mistake within a day"])
ROLES = st.sampled_from([None, "agent"])


@st.composite
def policies(draw: Any) -> CommandPolicy:
    return CommandPolicy(
        risk=draw(RISKS),
        confirmation=draw(CONFIRMS),
        opt_out=draw(OPT_OUTS),
        review_role=draw(ROLES),
    )


def _expected_problem(p: CommandPolicy) -> bool:
    confirmed = p.confirmation is ConfirmationRequirement.CONFIRM or bool(p.review_role)
    if p.opt_out is not None:
        return (
            not p.opt_out.strip()
            or p.risk not in (RiskClass.MONETARY, RiskClass.DESTRUCTIVE)
            or confirmed
        )
    return p.risk not in (RiskClass.LOW, RiskClass.REVERSIBLE) and not confirmed


def _may_run_unconfirmed(p: CommandPolicy) -> bool:
    """Whether a command with ``p`` may commit on a direct act (the rule, stated again)."""
    if p.confirmation is ConfirmationRequirement.CONFIRM or p.review_role:
        return False
    if p.risk in (RiskClass.LOW, RiskClass.REVERSIBLE):
        return True
    return p.risk in (RiskClass.MONETARY, RiskClass.DESTRUCTIVE) and bool(
        p.opt_out and p.opt_out.strip()
    )


def _direct_act(registry: WorkflowRegistry, *, answer_card: Interaction | None = None) -> Any:
    answers = ()
    if answer_card is not None:
        answers = (CardAnswer(id="ca1", interaction=answer_card.id, option="confirm"),)
    act = SemanticAct(id="a1", operation="toy.poke", args={})
    return reduce_turn(
        ReductionInput(
            turn_id="t1",
            actor=ACTOR,
            today=TODAY,
            locale="en",
            understanding=Understanding(acts=() if answer_card else (act,), card_answers=answers),
            acts=() if answer_card else (ActInput(act=act, resolution=Exact(case=CASE)),),
            snapshots={
                CASE: CaseSnapshot(
                    case=CASE, state={}, state_json={}, revision=3, view=VIEW, label="Toy X1"
                )
            },
            cards_on_screen=(answer_card,) if answer_card else (),
        ),
        registry,
    )


def _check_plan(plan: Any, needs_card: bool) -> None:
    envelopes = [e for b in plan.batches for e in b.envelopes]
    if needs_card:
        assert not envelopes, f"a direct act committed a command that needs a card: {envelopes}"
        assert [c.spec.kind for c in plan.cards] == [InteractionKind.CONFIRM]
    else:
        assert [e.operation for e in envelopes] == ["toy.poke"]
    for envelope in envelopes:
        assert origin_satisfies(envelope.policy, envelope.origin)
        if envelope.policy.needs_confirmation:
            assert isinstance(envelope.origin, ConfirmedInteraction)
        else:
            assert isinstance(envelope.origin, DirectUserAct)


@settings(max_examples=300, deadline=None)
@given(declared=policies())
def test_registration_fails_or_a_risky_direct_act_never_commits(declared: CommandPolicy) -> None:
    registry = WorkflowRegistry()
    if _expected_problem(declared):
        with pytest.raises(RiskPolicyError) as raised:
            registry.register(Toy(declared))
        assert raised.value.operation == "toy.poke"
        assert "toy.poke" in str(raised.value) and str(raised.value.problem)
        assert registry.names() == ()
        return
    registry.register(Toy(declared))
    _check_plan(_direct_act(registry), needs_card=not _may_run_unconfirmed(declared))


@settings(max_examples=300, deadline=None)
@given(declared=policies(), runtime=policies())
# A blank run-time opt-out is no opt-out: it must not hide the declaration's stated one.
@example(
    declared=CommandPolicy(
        risk=RiskClass.MONETARY, opt_out="the desk refunds any mistake within a day"
    ),
    runtime=CommandPolicy(risk=RiskClass.LOW, opt_out="  "),
)
def test_a_run_time_policy_never_weakens_the_declared_one(
    declared: CommandPolicy, runtime: CommandPolicy
) -> None:
    if _expected_problem(declared):
        return
    registry = WorkflowRegistry([Toy(declared, runtime)])
    # The runtime applies the declaration's floor: a card whenever either policy needs one.
    needs_card = not (_may_run_unconfirmed(declared) and _may_run_unconfirmed(runtime))
    effective = registry.workflow("toy").policy({}, Poke())
    assert effective.risk.rank >= max(declared.risk.rank, runtime.risk.rank)
    _check_plan(_direct_act(registry), needs_card=needs_card)


@pytest.mark.parametrize("risk", [r for r in RiskClass if r.high])
def test_a_high_risk_confirmation_is_never_resolved_from_text(risk: RiskClass) -> None:
    declared = CommandPolicy(risk=risk, confirmation=ConfirmationRequirement.CONFIRM)
    registry = WorkflowRegistry([Toy(declared)])
    planned = _direct_act(registry).cards[0]
    card = Interaction(
        id="card-1",
        account="acme",
        conversation_id="c1",
        turn_id="t0",
        spec=planned.spec,
        payload_hash=planned.spec.payload_hash(),
        status=InteractionStatus.OPEN,
    )
    plan = _direct_act(registry, answer_card=card)
    results = {r.item_id: r for r in plan.results}
    assert results["ca1"].code == "needs_click"
    assert not plan.batches


def test_the_travel_sample_declares_every_operation() -> None:
    from turnframe.samples.travel import travel_application

    registry = travel_application().registry
    for name in registry.names():
        for op in registry.workflow(name).operations():
            assert op.policy.risk is not RiskClass.UNKNOWN, f"{op.key} declares no risk"
            assert op.policy.problem() is None
