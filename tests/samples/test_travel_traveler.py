"""The traveler workflow: registration, email, deletion as a status, labels, receipts."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from turnframe.core import (
    Actor,
    CaseRef,
    Compiled,
    ConfirmationRequirement,
    DomainEvent,
    ExecutionContext,
    Refusal,
    RiskClass,
)
from turnframe.samples.travel import (
    DeleteTraveler,
    RegisterTraveler,
    TravelerState,
    UpdateTravelerEmail,
)

TODAY = date(2026, 5, 1)
CASE = CaseRef("traveler", "c1")
CTX = ExecutionContext(case=CASE, actor=Actor(account="a", user="u"), today=TODAY, turn_id="t")
ANA = TravelerState(full_name="Ana Costa", birth_date=date(1985, 3, 14), email="ana@example.com")


def test_register_compiles_and_refuses_bad_values(traveler_wf, make_request):
    values = {"full_name": "Kim Lee", "birth_date": date(2012, 2, 1), "email": "kim@example.com"}
    result = traveler_wf.compile(make_request(traveler_wf, "traveler.register", None, values))
    assert isinstance(result, Compiled)
    assert result.commands == (RegisterTraveler(**values),)
    for locale in ("en", "pt-PT"):
        for values, code in (
            ({"full_name": "Kim", "birth_date": date(2030, 1, 1)}, "birth_date_in_future"),
            ({"full_name": "Kim", "email": "kim at home"}, "invalid_email"),
            ({}, "missing_argument"),
        ):
            refusal = traveler_wf.compile(
                make_request(traveler_wf, "traveler.register", None, values, locale=locale)
            )
            assert isinstance(refusal, Refusal) and refusal.code == code
    refusal = traveler_wf.compile(
        make_request(traveler_wf, "traveler.register", ANA, {"full_name": "Ana Costa"})
    )
    assert isinstance(refusal, Refusal) and refusal.code == "already_registered"


def test_update_email_to_the_same_address_is_no_change(traveler_wf, make_request):
    same = traveler_wf.compile(
        make_request(traveler_wf, "traveler.update_email", ANA, {"email": "ana@example.com"})
    )
    assert same == Compiled(commands=())
    new = traveler_wf.compile(
        make_request(traveler_wf, "traveler.update_email", ANA, {"email": "ana@costa.pt"})
    )
    assert new == Compiled(commands=(UpdateTravelerEmail(email="ana@costa.pt"),))


@pytest.mark.parametrize("locale", ["en", "pt-PT"])
def test_a_deleted_traveler_keeps_the_row_and_refuses_changes(traveler_wf, make_request, locale):
    execution = traveler_wf.execute(ANA, DeleteTraveler(), CTX)
    deleted = execution.state
    assert deleted == replace(ANA, status="deleted")
    view = traveler_wf.project(deleted, TODAY)
    assert view.phase == "deleted" and view.outcome is not None and view.exists
    assert traveler_wf.offered(view, CTX.actor) == ()
    refusal = traveler_wf.compile(
        make_request(
            traveler_wf, "traveler.update_email", deleted, {"email": "x@y.pt"}, locale=locale
        )
    )
    assert isinstance(refusal, Refusal) and refusal.code == "traveler_deleted"
    assert "Ana Costa" in refusal.sentence


def test_delete_is_destructive_and_needs_a_confirm_card(traveler_wf):
    policy = traveler_wf.policy(ANA, DeleteTraveler())
    assert policy.risk is RiskClass.DESTRUCTIVE
    assert policy.confirmation is ConfirmationRequirement.CONFIRM
    assert traveler_wf.policy(ANA, UpdateTravelerEmail(email="a@b.c")).risk is RiskClass.LOW


def test_labels_tell_homonyms_apart(traveler_wf):
    other = TravelerState(full_name="Ana Costa", birth_date=date(1992, 11, 2))
    labels = {traveler_wf.candidate_label(CASE, s, "en") for s in (ANA, other)}
    assert labels == {"Ana Costa (born 1985)", "Ana Costa (born 1992)"}
    assert traveler_wf.candidate_label(CASE, other, "pt-PT") == "Ana Costa (n. 1992)"
    no_birth = TravelerState(full_name="Ana Costa", email="ana2@example.com")
    assert traveler_wf.candidate_label(CASE, no_birth, "en") == "Ana Costa (ana2@example.com)"
    assert traveler_wf.search_text(ANA) == "Ana Costa ana@example.com"


@pytest.mark.parametrize(
    ("state", "command", "en", "pt"),
    [
        (
            None,
            RegisterTraveler(full_name="Kim Lee"),
            "Registered traveler Kim Lee.",
            "Viajante Kim Lee registado.",
        ),
        (
            ANA,
            UpdateTravelerEmail(email="ana@costa.pt"),
            "Updated the email of Ana Costa to ana@costa.pt.",
            "Email de Ana Costa atualizado para ana@costa.pt.",
        ),
        (
            ANA,
            DeleteTraveler(),
            "Deleted traveler Ana Costa; the record stays with status Deleted.",
            "Viajante Ana Costa eliminado; o registo mantém-se com o estado Eliminado.",
        ),
    ],
)
def test_receipts(traveler_wf, state, command, en, pt):
    (draft,) = traveler_wf.execute(state, command, CTX).events
    event = DomainEvent(
        id="e", case=CASE, revision=1, type=draft.type, data=draft.data, operation=draft.operation
    )
    assert traveler_wf.render_receipt(event, None, "en") == en
    assert traveler_wf.render_receipt(event, None, "pt-PT") == pt
