"""Seeding: ordering, validation, manifest completion and the demo dataset."""

from __future__ import annotations

from datetime import date

import pytest

from turnframe.core import CaseRef
from turnframe.samples.travel import (
    DEMO_RECORDS,
    ManifestWorkflow,
    SubmitManifest,
    TravelerWorkflow,
    TripWorkflow,
    complete_records,
    seed_all,
    seed_order,
    seed_state,
    travel_application,
)

RECORDS = [
    {"key": "D4", "workflow": "manifest", "trip": "T1", "airline": "TP", "passengers": ["P1"]},
    {
        "key": "T1",
        "workflow": "trip",
        "name": "Lisbon",
        "start": date(2026, 5, 12),
        "end": "2026-05-15",
        "travelers": ["P1"],
        "extras": [{"kind": "hotel", "payer": "P1"}],
    },
    {"key": "P1", "workflow": "traveler", "full_name": "Kim Lee", "birth_date": date(2012, 2, 1)},
]


def test_seed_order_puts_referenced_records_first_and_keeps_the_objects():
    ordered = seed_order(RECORDS)
    assert [r["key"] for r in ordered] == ["P1", "T1", "D4"]
    assert all(any(r is original for original in RECORDS) for r in ordered)
    assert [r["key"] for r in seed_order(list(reversed(RECORDS)))] == ["P1", "T1", "D4"]


def test_complete_records_fills_manifests_from_the_records_they_name():
    completed = complete_records(RECORDS)
    manifest = completed[0]
    assert manifest["trip_name"] == "Lisbon"
    assert manifest["trip_start"] == date(2026, 5, 12)
    assert manifest["passenger_birth_dates"] == {"P1": date(2012, 2, 1)}
    assert "trip_start" not in RECORDS[0]  # the caller's records are not changed
    assert completed[1] is RECORDS[1] and completed[2] is RECORDS[2]
    given = dict(RECORDS[0], trip_start="2026-05-20", passenger_birth_dates={"P1": "2011-01-01"})
    completed_given = complete_records([given, *RECORDS[1:]])[0]
    assert completed_given["trip_start"] == "2026-05-20"
    assert completed_given["passenger_birth_dates"] == {"P1": "2011-01-01"}


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([{"key": "T1", "workflow": "trip", "name": "x", "travelers": ["P9"]}], "'P9'"),
        ([{"key": "T1", "workflow": "trip", "name": "x", "travelers": ["T1"]}], "'T1'"),
        (
            [
                {"key": "D1", "workflow": "manifest", "trip": "D2", "airline": "TP"},
                {"key": "D2", "workflow": "manifest", "trip": "D1", "airline": "TP"},
            ],
            "cycle",
        ),
        (
            [
                {"key": "P1", "workflow": "traveler", "full_name": "a"},
                {"key": "P1", "workflow": "traveler", "full_name": "b"},
            ],
            "duplicate record key 'P1'",
        ),
        ([{"workflow": "traveler", "full_name": "a"}], "no key"),
        ([{"key": "P1", "full_name": "a"}], "P1 has no workflow"),
    ],
)
def test_seed_order_errors_name_the_key(records, message):
    with pytest.raises(ValueError, match=message):
        seed_order(records)


def test_seed_state_builds_json_states_with_references():
    refs: dict[str, CaseRef] = {}
    states = {}
    for record in seed_order(complete_records(RECORDS)):
        workflow, state = seed_state(record, refs)
        refs[record["key"]] = CaseRef(workflow, record["key"].lower())
        states[record["key"]] = state
    trip = TripWorkflow().load_state(states["T1"])
    assert trip.travelers == (CaseRef("traveler", "p1"),)
    assert [(e.id, e.kind, e.payer) for e in trip.extras] == [
        ("E1", "hotel", CaseRef("traveler", "p1"))
    ]
    assert trip.next_extra == 2
    manifest = ManifestWorkflow().load_state(states["D4"])
    assert manifest.minors == (CaseRef("traveler", "p1"),)
    assert ManifestWorkflow().policy(manifest, SubmitManifest()).review_role == "agent"
    assert TravelerWorkflow().load_state(states["P1"]).birth_date == date(2012, 2, 1)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"key": "P1", "workflow": "traveler", "full_name": "a", "age": 3}, "unknown field 'age'"),
        (
            {"key": "P1", "workflow": "traveler", "full_name": "a", "key2": 3},
            "unknown field 'key2'",
        ),
        ({"key": "P1", "workflow": "pet", "full_name": "a"}, "unknown workflow 'pet'"),
        ({"key": "P1", "workflow": "traveler"}, "full_name"),
        (
            {"key": "P1", "workflow": "traveler", "full_name": "a", "birth_date": "soon"},
            "birth_date",
        ),
        ({"key": "T1", "workflow": "trip", "name": "x", "status": "dreaming"}, "status"),
        (
            {
                "key": "T1",
                "workflow": "trip",
                "name": "x",
                "start": "2026-05-02",
                "end": "2026-05-01",
            },
            "end is before start",
        ),
        ({"key": "T1", "workflow": "trip", "name": "x", "extras": [{"kind": "spa"}]}, "spa"),
        (
            {"key": "T1", "workflow": "trip", "name": "x", "extras": [{"kind": "meal", "cost": 3}]},
            "'cost'",
        ),
        ({"key": "D1", "workflow": "manifest", "trip": "P1", "airline": "TP"}, "not a trip"),
        (
            {
                "key": "T1",
                "workflow": "trip",
                "name": "x",
                "extras": [{"kind": "meal", "payer": "P1"}],
            },
            "payer is not a traveler",
        ),
    ],
)
def test_seed_state_rejects_invalid_records(record, message):
    refs = {"P1": CaseRef("traveler", "p1")}
    with pytest.raises(ValueError, match=message):
        seed_state(record, refs)


def test_a_manifest_can_be_seeded_in_an_external_status():
    refs = {"T1": CaseRef("trip", "t1")}
    _, state = seed_state(
        {
            "key": "D4",
            "workflow": "manifest",
            "trip": "T1",
            "airline": "TP",
            "status": "received_by_airline",
            "account": "acme",
        },
        refs,
    )
    assert (
        ManifestWorkflow().project(ManifestWorkflow().load_state(state), date(2026, 5, 1)).phase
        == "received_by_airline"
    )


def test_the_demo_dataset_has_homonyms_a_minor_and_a_manifest():
    app = travel_application()
    assert app.name == "travel" and app.knowledge is not None
    assert app.registry.names() == ("trip", "traveler", "manifest")
    seeded = seed_all(DEMO_RECORDS)
    labels: dict[str, list[str]] = {}
    for _key, case, state in seeded:
        workflow = app.registry.workflow(case.workflow).definition
        typed = workflow.load_state(state)
        labels.setdefault(workflow.search_text(typed).split()[0], []).append(
            workflow.candidate_label(case, typed, "en")
        )
        if case.workflow == "manifest":
            assert workflow.policy(typed, SubmitManifest()).review_role == "agent"
    lisbon = [label for label in labels["Lisbon"] if "May" in label or "June" in label]
    assert len(lisbon) == 2 and len(set(lisbon)) == 2
    assert len(labels["Ana"]) == 2 and len(set(labels["Ana"])) == 2
    assert "Porto" in labels
