"""The trip workflow: compilation, domain refusals (en and pt-PT), policy, execution, receipts."""

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
    ExecutionContext,
    Refusal,
    RiskClass,
)
from turnframe.samples.travel import (
    AddExtra,
    AddTraveler,
    BookHotel,
    CancelTrip,
    ChangeTripDates,
    ConfirmTrip,
    Extra,
    RemoveExtra,
    RenameTrip,
    SetExtraPayer,
    StartTrip,
    TransitionRefused,
    TripState,
    TripWorkflow,
)

TODAY = date(2026, 5, 1)
ANA = CaseRef("traveler", "ana")
KIM = CaseRef("traveler", "kim")
CTX = ExecutionContext(
    case=CaseRef("trip", "c1"), actor=Actor(account="a", user="u"), today=TODAY, turn_id="t1"
)
LISBON = TripState(
    name="Lisbon",
    destination="Lisbon",
    start=date(2026, 5, 12),
    end=date(2026, 5, 15),
    travelers=(ANA,),
)
LOCALES = ["en", "pt-PT"]


def refused(result: Compiled | Refusal, code: str) -> Refusal:
    assert isinstance(result, Refusal), result
    assert result.code == code
    assert result.sentence and "{" not in result.sentence
    return result


def commands(result: Compiled | Refusal) -> tuple[object, ...]:
    assert isinstance(result, Compiled), result
    return result.commands


# --- domain refusals, in both languages ---------------------------------------------------


@pytest.mark.parametrize("locale", LOCALES)
def test_end_before_start_is_refused(trip_wf, make_request, locale):
    for op, state in (("trip.start", None), ("trip.change_dates", LISBON)):
        values = {"name": "Lisbon", "start": date(2026, 5, 15), "end": date(2026, 5, 12)}
        result = trip_wf.compile(make_request(trip_wf, op, state, values, locale=locale))
        refusal = refused(result, "end_before_start")
        assert (
            ("end date" in refusal.sentence)
            if locale == "en"
            else ("data de fim" in refusal.sentence)
        )


@pytest.mark.parametrize("locale", LOCALES)
def test_dates_in_the_past_are_refused_against_the_turns_today(trip_wf, make_request, locale):
    values = {"start": date(2026, 4, 20), "end": date(2026, 5, 3)}
    result = trip_wf.compile(
        make_request(trip_wf, "trip.change_dates", LISBON, values, locale=locale)
    )
    refusal = refused(result, "date_in_past")
    assert ("1 May 2026" if locale == "en" else "1 de maio de 2026") in refusal.sentence
    # the same dates are fine when the turn's today is earlier
    earlier = make_request(trip_wf, "trip.change_dates", LISBON, values, today=date(2026, 4, 1))
    assert commands(trip_wf.compile(earlier)) == (ChangeTripDates(**values),)


@pytest.mark.parametrize("locale", LOCALES)
def test_a_second_hotel_is_refused_from_state(trip_wf, make_request, locale):
    booked = replace(
        LISBON, extras=(Extra(id="E1", kind="hotel", details="Avenida", nights=3),), next_extra=2
    )
    result = trip_wf.compile(
        make_request(
            trip_wf, "trip.book_hotel", booked, {"hotel": "Tivoli", "nights": 2}, locale=locale
        )
    )
    refusal = refused(result, "second_hotel")
    assert "Lisbon" in refusal.sentence and "E1" in refusal.sentence
    assert ("already has a hotel" if locale == "en" else "já tem um hotel") in refusal.sentence
    # an unbooked hotel extra counts too, and add_extra(kind=hotel) is refused alike
    added = trip_wf.compile(make_request(trip_wf, "trip.add_extra", booked, {"kind": "hotel"}))
    refused(added, "second_hotel")


@pytest.mark.parametrize("locale", LOCALES)
def test_a_second_hotel_planned_earlier_in_the_turn_is_refused(trip_wf, make_request, locale):
    first = trip_wf.compile(
        make_request(trip_wf, "trip.book_hotel", LISBON, {"hotel": "Avenida", "nights": 3})
    )
    assert commands(first) == (BookHotel(hotel="Avenida", nights=3),)
    second = trip_wf.compile(
        make_request(
            trip_wf,
            "trip.book_hotel",
            LISBON,
            {"hotel": "Tivoli", "nights": 2},
            prior=commands(first),
            locale=locale,
        )
    )
    refusal = refused(second, "second_hotel")
    assert "E1" in refusal.sentence  # the id the planned booking will take


@pytest.mark.parametrize("locale", LOCALES)
def test_a_payer_who_is_not_a_traveler_is_refused(trip_wf, make_request, locale):
    for op, values in (
        ("trip.add_extra", {"kind": "seat", "payer": KIM}),
        ("trip.set_extra_payer", {"extra": "E1", "payer": KIM}),
    ):
        state = replace(LISBON, extras=(Extra(id="E1", kind="meal"),), next_extra=2)
        refusal = refused(
            trip_wf.compile(make_request(trip_wf, op, state, values, locale=locale)),
            "payer_not_traveler",
        )
        assert ("company" if locale == "en" else "empresa") in refusal.sentence


def test_a_traveler_added_earlier_in_the_turn_may_pay(trip_wf, make_request):
    prior = (AddTraveler(traveler=KIM),)
    result = trip_wf.compile(
        make_request(trip_wf, "trip.add_extra", LISBON, {"kind": "seat", "payer": KIM}, prior=prior)
    )
    assert commands(result) == (AddExtra(kind="seat", payer=KIM),)


def test_company_and_travelers_may_pay(trip_wf, make_request):
    state = replace(LISBON, extras=(Extra(id="E1", kind="meal"),), next_extra=2)
    for payer, expected in (("Company", "company"), (ANA, ANA)):
        result = trip_wf.compile(
            make_request(trip_wf, "trip.set_extra_payer", state, {"extra": "e1", "payer": payer})
        )
        assert commands(result) == (SetExtraPayer(extra="E1", payer=expected),)
    refused(
        trip_wf.compile(
            make_request(
                trip_wf, "trip.set_extra_payer", state, {"extra": "E1", "payer": "the boss"}
            )
        ),
        "invalid_value",
    )


@pytest.mark.parametrize("locale", LOCALES)
def test_other_refusals_have_sentences_in_both_languages(trip_wf, make_request, locale):
    confirmed = replace(LISBON, status="confirmed")
    cancelled = replace(LISBON, status="cancelled")
    cases = [
        (
            "trip.change_dates",
            confirmed,
            {"start": date(2026, 6, 1), "end": date(2026, 6, 2)},
            "dates_locked",
        ),
        ("trip.rename", cancelled, {"name": "Porto"}, "trip_closed"),
        ("trip.remove_extra", LISBON, {"extra": "E9"}, "unknown_extra"),
        ("trip.add_extra", LISBON, {"kind": "spa"}, "invalid_kind"),
        ("trip.book_hotel", LISBON, {"hotel": "Avenida", "nights": 0}, "invalid_nights"),
        ("trip.start", LISBON, {"name": "Lisbon"}, "already_started"),
        ("trip.rename", None, {"name": "Porto"}, "not_created"),
        ("trip.rename", LISBON, {}, "missing_argument"),
        ("trip.change_dates", LISBON, {"start": "soon", "end": date(2026, 6, 2)}, "invalid_value"),
    ]
    sentences = set()
    for op, state, values, code in cases:
        sentences.add(
            refused(
                trip_wf.compile(make_request(trip_wf, op, state, values, locale=locale)), code
            ).sentence
        )
    assert len(sentences) == len(cases)


@pytest.mark.parametrize("locale", LOCALES)
def test_confirm_is_refused_while_obligations_are_open(trip_wf, make_request, locale):
    open_trip = TripState(name="Porto", extras=(Extra(id="E2", kind="meal"),), next_extra=3)
    refusal = refused(
        trip_wf.compile(make_request(trip_wf, "trip.confirm", open_trip, locale=locale)),
        "obligations_open",
    )
    if locale == "en":
        assert refusal.sentence.endswith("dates, a traveler and a payer for E2.")
    else:
        assert refusal.sentence.endswith("datas, um viajante e um pagador para E2.")
    assert commands(trip_wf.compile(make_request(trip_wf, "trip.confirm", LISBON))) == (
        ConfirmTrip(),
    )


# --- corrections that change nothing ------------------------------------------------------


def test_setting_a_value_to_what_it_already_is_compiles_to_no_commands(trip_wf, make_request):
    state = replace(LISBON, extras=(Extra(id="E1", kind="meal", payer="company"),), next_extra=2)
    no_ops = [
        ("trip.rename", {"name": "Lisbon"}),
        ("trip.change_dates", {"start": LISBON.start, "end": LISBON.end}),
        ("trip.add_traveler", {"traveler": ANA}),
        ("trip.set_extra_payer", {"extra": "E1", "payer": "company"}),
    ]
    for op, values in no_ops:
        assert commands(trip_wf.compile(make_request(trip_wf, op, state, values))) == (), op
    confirmed = replace(LISBON, status="confirmed")
    assert commands(trip_wf.compile(make_request(trip_wf, "trip.confirm", confirmed))) == ()


def test_a_rename_planned_earlier_makes_renaming_back_a_change(trip_wf, make_request):
    prior = (RenameTrip(name="Porto"),)
    result = trip_wf.compile(
        make_request(trip_wf, "trip.rename", LISBON, {"name": "Lisbon"}, prior=prior)
    )
    assert commands(result) == (RenameTrip(name="Lisbon"),)


# --- policy, validation, execution --------------------------------------------------------


def test_policies_follow_the_sample_table(trip_wf):
    expected = {
        StartTrip(name="x"): RiskClass.LOW,
        RenameTrip(name="x"): RiskClass.LOW,
        ChangeTripDates(start=TODAY, end=TODAY): RiskClass.LOW,
        AddTraveler(traveler=ANA): RiskClass.LOW,
        AddExtra(kind="meal"): RiskClass.LOW,
        SetExtraPayer(extra="E1", payer="company"): RiskClass.LOW,
        RemoveExtra(extra="E1"): RiskClass.REVERSIBLE,
        BookHotel(hotel="h", nights=1): RiskClass.MONETARY,
        ConfirmTrip(): RiskClass.MONETARY,
        CancelTrip(): RiskClass.DESTRUCTIVE,
    }
    for command, risk in expected.items():
        policy = trip_wf.policy(LISBON, command)
        assert policy.risk is risk
        assert (policy.confirmation is ConfirmationRequirement.CONFIRM) == risk.high
        assert policy.review_role is None and policy.claim_mode is ClaimMode.RECEIPT


def test_validate_rechecks_at_execution_time(trip_wf):
    assert trip_wf.validate(LISBON, RenameTrip(name="Porto"), TODAY) is None
    refusal = trip_wf.validate(
        LISBON, ChangeTripDates(start=date(2026, 5, 20), end=date(2026, 5, 22)), date(2026, 5, 21)
    )
    assert isinstance(refusal, Refusal) and refusal.code == "date_in_past"
    cancelled = trip_wf.validate(replace(LISBON, status="cancelled"), CancelTrip(), TODAY)
    assert isinstance(cancelled, Refusal) and cancelled.code == "trip_closed"


def test_extras_are_numbered_per_trip_and_never_reused(trip_wf):
    state = LISBON
    for command in (
        AddExtra(kind="insurance"),
        AddExtra(kind="meal"),
        RemoveExtra(extra="E2"),
        AddExtra(kind="seat"),
        BookHotel(hotel="Avenida", nights=3),
    ):
        state = trip_wf.execute(state, command, CTX).state
    assert [(e.id, e.kind) for e in state.extras] == [
        ("E1", "insurance"),
        ("E3", "seat"),
        ("E4", "hotel"),
    ]
    assert state.hotel == Extra(id="E4", kind="hotel", details="Avenida", nights=3)
    assert state.next_extra == 5


def test_execute_is_pure_and_emits_one_event_per_change(trip_wf):
    execution = trip_wf.execute(LISBON, AddExtra(kind="insurance", payer="company"), CTX)
    assert LISBON.extras == ()
    (event,) = execution.events
    assert event.type == "trip.extra_added" and event.operation == "trip.add_extra"
    assert event.data == {
        "trip": "Lisbon",
        "extra": "E1",
        "kind": "insurance",
        "details": None,
        "payer": "company",
    }
    assert trip_wf.execute(LISBON, RenameTrip(name="Lisbon"), CTX).events == ()


def test_cancel_keeps_the_row_and_complete_needs_a_finished_confirmed_trip(trip_wf):
    cancelled = trip_wf.execute(LISBON, CancelTrip(), CTX).state
    assert cancelled.status == "cancelled" and cancelled.name == "Lisbon"
    confirmed = replace(LISBON, status="confirmed")
    for state, today in ((LISBON, date(2026, 6, 1)), (confirmed, date(2026, 5, 15))):
        with pytest.raises(TransitionRefused, match="not over yet"):
            trip_wf.complete(state, today)
    done = trip_wf.complete(confirmed, date(2026, 5, 16))
    assert done.state.status == "completed" and done.events[0].type == "trip.completed"


# --- receipts -----------------------------------------------------------------------------


def receipt(trip_wf: TripWorkflow, state: TripState | None, command: object, locale: str) -> str:
    execution = trip_wf.execute(state, command, CTX)  # type: ignore[arg-type]
    (draft,) = execution.events
    event = DomainEvent(
        id="ev1",
        case=CTX.case,
        revision=1,
        type=draft.type,
        data=draft.data,
        operation=draft.operation,
    )
    text = trip_wf.render_receipt(event, execution.state, locale)
    assert text is not None
    return text


@pytest.mark.parametrize(
    ("command", "en", "pt"),
    [
        (
            AddExtra(kind="insurance"),
            "Added insurance (E1) to trip Lisbon.",
            "Extra adicionado à viagem Lisbon: seguro (E1).",
        ),
        (
            AddExtra(kind="meal", payer="company"),
            "Added meal (E1) to trip Lisbon, paid by the company.",
            "Extra adicionado à viagem Lisbon: refeição (E1), pago pela empresa.",
        ),
        (
            RenameTrip(name="Lisboa"),
            "Renamed trip Lisbon to Lisboa.",
            "Viagem Lisbon renomeada para Lisboa.",
        ),
        (
            ChangeTripDates(start=date(2026, 5, 20), end=date(2026, 6, 2)),
            "Changed the dates of trip Lisbon to 20 May 2026 – 2 June 2026.",
            "Datas da viagem Lisbon alteradas para 20 de maio de 2026 – 2 de junho de 2026.",
        ),
        (
            AddTraveler(traveler=KIM),
            "Added a traveler to trip Lisbon; it now has 2 travelers.",
            "Viajante adicionado à viagem Lisbon; tem agora 2 viajantes.",
        ),
        (
            BookHotel(hotel="Avenida", nights=1),
            "Booked hotel Avenida for 1 night on trip Lisbon (E1).",
            "Hotel Avenida reservado por 1 noite na viagem Lisbon (E1).",
        ),
        (ConfirmTrip(), "Confirmed trip Lisbon.", "Viagem Lisbon confirmada."),
        (CancelTrip(), "Cancelled trip Lisbon.", "Viagem Lisbon cancelada."),
    ],
)
def test_receipts_in_english_and_portuguese(trip_wf, command, en, pt):
    assert receipt(trip_wf, LISBON, command, "en") == en
    assert receipt(trip_wf, LISBON, command, "pt-PT") == pt
    assert receipt(trip_wf, LISBON, command, "pt") == pt


def test_start_receipt_states_the_dates(trip_wf):
    start = StartTrip(name="Porto", start=date(2026, 7, 1), end=date(2026, 7, 4))
    assert receipt(trip_wf, None, start, "en") == "Started trip Porto (1–4 July 2026)."
    assert receipt(trip_wf, None, start, "pt-PT") == "Viagem Porto criada (1–4 de julho de 2026)."
    assert receipt(trip_wf, None, StartTrip(name="Porto"), "en") == (
        "Started trip Porto (no dates)."
    )


def test_labels_tell_homonym_trips_apart(trip_wf):
    june = replace(LISBON, start=date(2026, 6, 3), end=date(2026, 6, 6))
    may_label = trip_wf.candidate_label(CTX.case, LISBON, "en")
    assert may_label == "Lisbon · 12–15 May 2026 · planning"
    assert trip_wf.candidate_label(CTX.case, june, "en") != may_label
    assert trip_wf.candidate_label(CTX.case, june, "pt-PT") == (
        "Lisbon · 3–6 de junho de 2026 · em planeamento"
    )
    assert "June" in trip_wf.search_text(june) and "junho" in trip_wf.search_text(june)


def test_questions_are_written_in_both_languages(trip_wf):
    view = trip_wf.project(
        TripState(name="Porto", extras=(Extra(id="E1", kind="meal"),), next_extra=2), TODAY
    )
    asks = {
        o.id: (trip_wf.ask_obligation(view, o, "en"), trip_wf.ask_obligation(view, o, "pt"))
        for o in view.obligations
    }
    assert set(asks) == {"dates", "travelers", "payer:E1"}
    assert "E1" in asks["payer:E1"][0] and "E1" in asks["payer:E1"][1]
    assert all(en != pt for en, pt in asks.values())
    book = next(op for op in trip_wf.operations() if op.key == "trip.book_hotel")
    for argument in book.arguments:
        assert trip_wf.ask_argument(book, argument, "en") != trip_wf.ask_argument(
            book, argument, "pt-PT"
        )
    assert "Still open: dates, a traveler and a payer for E1." in trip_wf.briefing(view)
