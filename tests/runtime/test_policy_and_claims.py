from __future__ import annotations

from datetime import date

import pytest

from turnframe.core import (
    ArgumentKind,
    ArgumentSpec,
    CaseRef,
    CommandPolicy,
    ConfirmationRequirement,
    ConfirmedInteraction,
    DirectUserAct,
    DomainEvent,
    NoticeBlock,
    PolicyDecision,
    Receipt,
    ReceiptBlock,
    RiskClass,
    VerifiedCallback,
)
from turnframe.runtime import guard_claims, origin_satisfies
from turnframe.runtime.values import InvalidValue, evaluate_argument

LOW = CommandPolicy(risk=RiskClass.LOW)
CONFIRM = CommandPolicy(risk=RiskClass.MONETARY, confirmation=ConfirmationRequirement.CONFIRM)
REVIEW = CommandPolicy(
    risk=RiskClass.IRREVERSIBLE, confirmation=ConfirmationRequirement.CONFIRM, review_role="agent"
)


def _clicked(kind: str, confirmed_by: tuple[str, ...] = ()) -> ConfirmedInteraction:
    return ConfirmedInteraction(
        interaction_id="card-1",
        option_id="confirm",
        interaction_kind=kind,
        payload_hash="h",
        confirmed_by=confirmed_by,
    )


def test_direct_acts_only_authorise_commands_without_a_card() -> None:
    direct = DirectUserAct(turn_id="t")
    assert origin_satisfies(LOW, direct)
    assert not origin_satisfies(CONFIRM, direct)
    assert not origin_satisfies(REVIEW, direct)
    assert not origin_satisfies(CONFIRM, PolicyDecision(rule="r"))
    assert not origin_satisfies(CONFIRM, VerifiedCallback(source="airline", reference="x"))


def test_a_selection_never_confirms_and_a_confirm_never_reviews() -> None:
    assert not origin_satisfies(CONFIRM, _clicked("select_target"))
    assert origin_satisfies(CONFIRM, _clicked("confirm"))
    assert not origin_satisfies(REVIEW, _clicked("confirm"))
    assert not origin_satisfies(REVIEW, _clicked("review"))  # review without a confirm first
    assert origin_satisfies(REVIEW, _clicked("review", confirmed_by=("card-0",)))


def _event(event_id: str, operation: str = "trip.add_extra") -> DomainEvent:
    return DomainEvent(
        id=event_id,
        case=CaseRef("trip", "t1"),
        revision=2,
        type="trip.extra_added",
        data={},
        operation=operation,
    )


def _receipt(*event_ids: str, operation: str = "trip.add_extra") -> ReceiptBlock:
    return ReceiptBlock(
        receipt=Receipt(
            case=CaseRef("trip", "t1"), operation=operation, text="Added.", event_ids=event_ids
        )
    )


def test_claim_guard_keeps_receipts_citing_committed_events() -> None:
    blocks = (_receipt("ev-1"), NoticeBlock(code="x", text="note"))
    kept, refused = guard_claims(blocks, [_event("ev-1")])
    assert kept == blocks and refused == ()


@pytest.mark.parametrize(
    "block",
    [
        _receipt(),  # no event id at all
        _receipt("ev-9"),  # an event that never committed
        _receipt("ev-1", operation="manifest.submit"),  # an event of another operation
    ],
)
def test_claim_guard_refuses_claims_without_committed_events(block: ReceiptBlock) -> None:
    kept, refused = guard_claims((block,), [_event("ev-1")])
    assert kept == () and refused == (block,)


def test_values_are_evaluated_by_code_against_today() -> None:
    today = date(2026, 5, 1)
    day = ArgumentSpec(name="start", kind=ArgumentKind.DATE)
    assert evaluate_argument(day, "2026-05-12", today) == date(2026, 5, 12)
    assert evaluate_argument(day, "12 June", today) == date(2026, 6, 12)
    with pytest.raises(InvalidValue):
        evaluate_argument(day, "whenever", today)
    nights = ArgumentSpec(name="nights", kind=ArgumentKind.INTEGER)
    assert evaluate_argument(nights, " 3 ", today) == 3
    with pytest.raises(InvalidValue):
        evaluate_argument(nights, "three-ish", today)
    kind = ArgumentSpec(name="kind", kind=ArgumentKind.CHOICE, choices=("hotel", "seat"))
    assert evaluate_argument(kind, "Seat", today) == "seat"
    with pytest.raises(InvalidValue):
        evaluate_argument(kind, "yacht", today)
    payer = ArgumentSpec(
        name="payer", kind=ArgumentKind.RECORD, record_workflow="traveler", literals=("company",)
    )
    assert evaluate_argument(payer, "Company", today) == "company"
    assert evaluate_argument(payer, "h1", today, CaseRef("traveler", "p1")) == CaseRef(
        "traveler", "p1"
    )
    with pytest.raises(InvalidValue):
        evaluate_argument(payer, "h-unknown", today)
    email = ArgumentSpec(name="email", kind=ArgumentKind.EMAIL)
    with pytest.raises(InvalidValue):
        evaluate_argument(email, "not-an-email", today)
