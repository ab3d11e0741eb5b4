"""Shared helpers for understanding tests: a travel runtime over the demo records in memory.

Imported by name (not through conftest) so the module stays unique across tests/."""

from __future__ import annotations

from datetime import date
from typing import Any

from turnframe.core import Actor, CaseRef
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import complete_records, seed_order, seed_state, travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import Understander

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))

RECORDS: list[dict[str, Any]] = [
    {
        "key": "T1",
        "workflow": "trip",
        "name": "Lisbon",
        "start": "2026-05-12",
        "end": "2026-05-15",
        "travelers": ["P1"],
    },
    {"key": "T2", "workflow": "trip", "name": "Lisbon", "start": "2026-06-03", "end": "2026-06-06"},
    {
        "key": "T3",
        "workflow": "trip",
        "name": "Porto",
        "start": "2026-07-01",
        "end": "2026-07-04",
        "travelers": ["P1"],
    },
    {"key": "P1", "workflow": "traveler", "full_name": "Kim Lee", "birth_date": "1980-04-02"},
    {"key": "P2", "workflow": "traveler", "full_name": "Ana Silva", "birth_date": "1991-02-10"},
    {
        "key": "D1",
        "workflow": "manifest",
        "trip": "T1",
        "airline": "TP",
        "passengers": ["P1"],
        "status": "validated",
    },
]


async def travel_runtime(
    understander: Understander, records: list[dict[str, Any]] | None = None
) -> tuple[Runtime, InMemoryStore, dict[str, CaseRef]]:
    """Return a runtime over a fresh memory store seeded with ``records``."""
    store = InMemoryStore()
    runtime = Runtime(
        travel_application(), store, understander, clock=FixedClock(TODAY), ids=SequentialIds()
    )
    refs: dict[str, CaseRef] = {}
    for record in seed_order(complete_records(records or RECORDS)):
        workflow, state = seed_state(record, refs)
        refs[str(record["key"])] = await runtime.seed(
            "acme", workflow, state, case_id=str(record["key"]).lower()
        )
    return runtime, store, refs
