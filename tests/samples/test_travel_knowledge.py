"""TravelKnowledge: the four topics, one line per subject, in English and pt-PT."""

from __future__ import annotations

import asyncio
from datetime import date

from turnframe.core import CaseRef, Question, Subject
from turnframe.samples.travel import (
    Extra,
    ManifestState,
    ManifestWorkflow,
    TravelKnowledge,
    TripState,
    TripWorkflow,
)

TODAY = date(2026, 5, 1)
TRIP = TripState(
    name="Lisbon",
    start=date(2026, 5, 12),
    end=date(2026, 5, 15),
    travelers=(CaseRef("traveler", "ana"),),
    extras=(
        Extra(id="E1", kind="insurance", payer="company"),
        Extra(id="E2", kind="hotel", details="Avenida", nights=3),
    ),
    next_extra=3,
)
MANIFEST = ManifestState(
    trip=CaseRef("trip", "t1"), airline="TP", trip_name="Lisbon", status="received_by_intermediary"
)


def subject(workflow, case: CaseRef, state) -> Subject:
    return Subject(
        case=case,
        state=None if state is None else workflow.dump_state(state),
        view=workflow.project(state, TODAY),
        label=workflow.candidate_label(case, state, "en"),
    )


TRIP_SUBJECT = subject(TripWorkflow(), CaseRef("trip", "t1"), TRIP)
MANIFEST_SUBJECT = subject(ManifestWorkflow(), CaseRef("manifest", "d1"), MANIFEST)


def ask(topic: str, subjects, locale: str = "en") -> str:
    return asyncio.run(TravelKnowledge().answer(Question(id="q1", topic=topic), subjects, locale))


def test_manifest_status_is_exact():
    assert ask("manifest_status", [MANIFEST_SUBJECT]) == (
        "Manifest TP · Lisbon · received by the intermediary: status received by the intermediary."
    )
    assert "recebido pelo intermediário" in ask("manifest_status", [MANIFEST_SUBJECT], "pt-PT")


def test_baggage_comes_from_the_manifest_airline_or_the_table():
    answer = ask("baggage_allowance", [MANIFEST_SUBJECT])
    assert answer.count("\n") == 0 and "TAP Air Portugal (TP)" in answer and "23 kg" in answer
    table = ask("baggage_allowance", [TRIP_SUBJECT])
    lines = table.splitlines()
    assert "isn't known yet" in lines[0] and len(lines) == 6
    assert ask("baggage_allowance", []).count("\n") == 4
    assert "não incluída" in ask("baggage_allowance", [], "pt-PT")


def test_extras_and_summaries_over_several_subjects():
    extras = ask("extra_status", [TRIP_SUBJECT, MANIFEST_SUBJECT])
    first, second = extras.splitlines()
    assert first.endswith(
        "E1 insurance, payer: the company; "
        "E2 hotel (Avenida, 3 nights, booked), payer: no payer yet."
    )
    assert "no extras information" in second
    summary = ask("trip_summary", [TRIP_SUBJECT], "pt-PT")
    assert "12–15 de maio de 2026" in summary and "1 viajante" in summary


def test_absent_subjects_and_unknown_topics():
    absent = subject(TripWorkflow(), CaseRef("trip", "new"), None)
    assert ask("trip_summary", [absent]) == "new trip: this record doesn't exist yet."
    assert ask("weather", [TRIP_SUBJECT]) == "I have no information on that."
    assert ask("trip_summary", []) == "I have no record to answer that about."
