"""The manifest workflow: minors need review, submission via the outbox, external statuses."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from turnframe.core import (
    Actor,
    CaseRef,
    ClaimMode,
    Compiled,
    ConfirmationRequirement,
    DomainEvent,
    EventDraft,
    ExecutionContext,
    Refusal,
    RiskClass,
)
from turnframe.samples.travel import (
    EXTERNAL_STATUSES,
    MANIFEST_STATUSES,
    AddPassenger,
    ManifestState,
    ManifestWorkflow,
    RemovePassenger,
    SubmitManifest,
    TransitionRefused,
    ValidateManifest,
)

TODAY = date(2026, 5, 1)
CASE = CaseRef("manifest", "d4")
CTX = ExecutionContext(case=CASE, actor=Actor(account="a", user="u"), today=TODAY, turn_id="t")
ANA, KIM = CaseRef("traveler", "ana"), CaseRef("traveler", "kim")
ADULTS = ManifestState(
    trip=CaseRef("trip", "t1"),
    airline="TP",
    passengers=(ANA,),
    trip_name="Lisbon",
    trip_start=date(2026, 5, 12),
    passenger_birth_dates={ANA: date(1985, 3, 14)},
)
WITH_MINOR = replace(
    ADULTS,
    passengers=(ANA, KIM),
    passenger_birth_dates={ANA: date(1985, 3, 14), KIM: date(2010, 5, 13)},
)


def event_of(draft: EventDraft) -> DomainEvent:
    return DomainEvent(
        id="e", case=CASE, revision=2, type=draft.type, data=draft.data, operation=draft.operation
    )


def test_submit_policy_is_irreversible_external_and_confirmed(manifest_wf):
    policy = manifest_wf.policy(replace(ADULTS, status="validated"), SubmitManifest())
    assert policy.risk is RiskClass.IRREVERSIBLE
    assert policy.confirmation is ConfirmationRequirement.CONFIRM
    assert policy.claim_mode is ClaimMode.EXTERNAL_STATUS
    assert policy.review_role is None
    assert next(op for op in manifest_wf.operations() if op.key == "manifest.submit").submission
    assert manifest_wf.policy(ADULTS, ValidateManifest()).risk is RiskClass.LOW


def test_a_minor_on_the_start_date_needs_an_agents_review(manifest_wf):
    # Kim turns 16 the day after the trip starts
    assert manifest_wf.policy(WITH_MINOR, SubmitManifest()).review_role == "agent"
    view = manifest_wf.project(WITH_MINOR, TODAY)
    assert [n.code for n in view.notices] == ["manifest.minor_needs_review"]
    assert view.notices[0].params == {"minors": 1}
    sixteen = replace(WITH_MINOR, trip_start=date(2026, 5, 13))
    assert manifest_wf.policy(sixteen, SubmitManifest()).review_role is None


def test_birth_date_given_with_add_passenger_is_kept(manifest_wf, make_request):
    result = manifest_wf.compile(
        make_request(
            manifest_wf,
            "manifest.add_passenger",
            ADULTS,
            {"traveler": KIM, "birth_date": date(2012, 2, 1)},
        )
    )
    assert isinstance(result, Compiled)
    state = ADULTS
    for command in result.commands:
        state = manifest_wf.execute(state, command, CTX).state
    assert state.passengers == (ANA, KIM) and state.minors == (KIM,)
    # unknown birth date: not counted as a minor, but the view says it is unknown
    unknown = manifest_wf.execute(ADULTS, AddPassenger(traveler=KIM), CTX).state
    assert unknown.minors == ()
    assert "manifest.birth_date_unknown" in [
        n.code for n in manifest_wf.project(unknown, TODAY).notices
    ]


def test_passenger_edits_return_a_validated_manifest_to_draft(manifest_wf):
    validated = replace(ADULTS, status="validated")
    execution = manifest_wf.execute(validated, AddPassenger(traveler=KIM), CTX)
    assert execution.state.status == "draft"
    assert execution.events[0].data["back_to_draft"] is True
    text = manifest_wf.render_receipt(event_of(execution.events[0]), execution.state, "en")
    assert text == (
        "Added a passenger to manifest TP (Lisbon); it lists 2 passengers. "
        "The manifest is back to draft and must be validated again."
    )


@pytest.mark.parametrize("locale", ["en", "pt-PT"])
def test_manifest_refusals(manifest_wf, make_request, locale):
    submitted = replace(ADULTS, status="submitted")
    cases = [
        ("manifest.submit", ADULTS, {}, "not_validated"),
        ("manifest.submit", submitted, {}, "already_submitted"),
        ("manifest.add_passenger", submitted, {"traveler": KIM}, "manifest_locked"),
        ("manifest.remove_passenger", ADULTS, {"traveler": KIM}, "not_a_passenger"),
        ("manifest.validate", replace(ADULTS, passengers=()), {}, "no_passengers"),
        (
            "manifest.add_passenger",
            ADULTS,
            {"traveler": KIM, "birth_date": date(2027, 1, 1)},
            "birth_date_in_future",
        ),
        ("manifest.validate", None, {}, "not_created"),
    ]
    for op, state, values, code in cases:
        result = manifest_wf.compile(make_request(manifest_wf, op, state, values, locale=locale))
        assert isinstance(result, Refusal) and result.code == code, (op, result)
    refusal = manifest_wf.compile(
        make_request(manifest_wf, "manifest.submit", submitted, locale=locale)
    )
    assert ("submitted" if locale == "en" else "enviado") in refusal.sentence


def test_no_op_passenger_changes_compile_to_no_commands(manifest_wf, make_request):
    same = manifest_wf.compile(
        make_request(manifest_wf, "manifest.add_passenger", ADULTS, {"traveler": ANA})
    )
    assert same == Compiled(commands=())
    prior = (RemovePassenger(traveler=ANA),)
    back = manifest_wf.compile(
        make_request(manifest_wf, "manifest.add_passenger", ADULTS, {"traveler": ANA}, prior=prior)
    )
    assert back == Compiled(commands=(AddPassenger(traveler=ANA),))


def test_submit_queues_an_outbox_message_and_moves_to_submitting(manifest_wf):
    validated = manifest_wf.execute(WITH_MINOR, ValidateManifest(), CTX).state
    execution = manifest_wf.execute(validated, SubmitManifest(), CTX)
    assert execution.state.status == "submitting"
    (event,) = execution.events
    assert event.type == "manifest.submission_queued" and event.operation == "manifest.submit"
    (outbox,) = execution.outbox
    assert outbox.topic == "airline.submit_manifest"
    assert outbox.payload == {
        "manifest": "manifest/d4",
        "trip": "trip/t1",
        "trip_name": "Lisbon",
        "trip_start": "2026-05-12",
        "airline": "TP",
        "passengers": [
            {"traveler": "traveler/ana", "birth_date": "1985-03-14"},
            {"traveler": "traveler/kim", "birth_date": "2010-05-13"},
        ],
    }
    for locale in ("en", "pt-PT"):
        text = manifest_wf.render_receipt(event_of(event), execution.state, locale)
        assert text is not None
        lowered = text.lower()
        assert all(word not in lowered for word in ("sent", "accepted", "enviado", "aceite"))
        assert ("queued" in lowered) if locale == "en" else ("na fila" in lowered)


def test_external_statuses_are_never_collapsed(manifest_wf):
    state = replace(ADULTS, status="submitting")
    seen = []
    for status in (
        "submitted",
        "received_by_intermediary",
        "received_by_airline",
        "accepted",
        "issued",
    ):
        execution = manifest_wf.external_update(state, status, reference="ref-1")
        state = execution.state
        assert manifest_wf.project(state, TODAY).phase == status
        (event,) = execution.events
        assert event.type == "manifest.status_changed"
        assert event.data["status"] == status and event.data["reference"] == "ref-1"
        seen.append(manifest_wf.render_receipt(event_of(event), state, "en"))
    assert len(set(seen)) == len(seen)
    assert seen[2] == "Manifest TP (Lisbon): the status is now received by the airline."
    view = manifest_wf.project(state, TODAY)
    assert view.outcome is not None and view.outcome.code == "issued"
    words = {
        manifest_wf.candidate_label(CASE, replace(ADULTS, status=s), locale)
        for s in MANIFEST_STATUSES
        for locale in ("en",)
    }
    assert len(words) == len(MANIFEST_STATUSES)


def test_timeouts_and_invalid_transitions(manifest_wf):
    submitting = replace(ADULTS, status="submitting")
    timed_out = manifest_wf.external_update(submitting, "outcome_unknown")
    assert timed_out.state.status == "outcome_unknown"
    view = manifest_wf.project(timed_out.state, TODAY)
    assert view.outcome is None and view.notices[0].code == "manifest.reconciliation_pending"
    text = manifest_wf.render_receipt(event_of(timed_out.events[0]), timed_out.state, "pt-PT")
    assert text is not None and "desconhecido" in text
    reconciled = manifest_wf.external_update(timed_out.state, "accepted")
    assert reconciled.state.status == "accepted"
    for state, status in (
        (ADULTS, "submitted"),
        (replace(ADULTS, status="accepted"), "received_by_airline"),
        (replace(ADULTS, status="issued"), "outcome_unknown"),
        (submitting, "submitting"),
        (submitting, "done"),
        (timed_out.state, "outcome_unknown"),
    ):
        with pytest.raises(ValueError) as raised:
            manifest_wf.external_update(state, status)
        assert isinstance(raised.value, TransitionRefused)
        assert raised.value.refusal.code == "invalid_transition"
        assert str(raised.value) == raised.value.refusal.sentence
    assert set(EXTERNAL_STATUSES) == set(MANIFEST_STATUSES) - {"draft", "validated", "submitting"}


def test_offered_by_phase(manifest_wf):
    actor = CTX.actor
    offered = {
        s: manifest_wf.offered(manifest_wf.project(replace(ADULTS, status=s), TODAY), actor)
        for s in MANIFEST_STATUSES
    }
    assert "manifest.validate" in offered["draft"]
    assert "manifest.submit" in offered["validated"]
    assert all(offered[s] == () for s in MANIFEST_STATUSES if s not in ("draft", "validated"))
    assert manifest_wf.offered(manifest_wf.project(None, TODAY), actor) == ()
    assert isinstance(ManifestWorkflow().search_text(ADULTS), str)
    assert manifest_wf.search_text(ADULTS) == "TP TAP Air Portugal Lisbon"
