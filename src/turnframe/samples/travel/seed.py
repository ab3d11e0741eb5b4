"""Seeding: records for scenario files and the demo.

See docs/samples/travel.md "Seeding", docs/scenario-format.md.

A record is a mapping with a stable ``key`` (``T1``, ``P7``, ``D4``), a ``workflow`` and
that workflow's fields; references name other records by key. YAML may give dates as
``datetime.date`` values or ISO strings. Keys never reach a model; they only let scenarios
name records.

* trip: ``name`` (required), ``destination``, ``start``, ``end``, ``travelers`` (traveler
  keys), ``extras`` (``[{kind, details?, payer?, nights?}]``, payer one of the trip's
  traveler keys or ``company``; ids E1, E2, … in order), ``status``.
* traveler: ``full_name`` (required), ``birth_date``, ``email``, ``status``.
* manifest: ``trip`` (required key), ``airline`` (required), ``passengers`` (traveler
  keys), ``status`` (any manifest status, e.g. an external one), ``trip_name``,
  ``trip_start``, ``passenger_birth_dates`` (traveler key → date).

A manifest keeps its trip's name and start date and its passengers' birth dates (see
``manifest_model`` for why). A record may give them; :func:`complete_records` fills the
ones it leaves out from the trip and traveler records it names. Then :func:`seed_order`
orders the records so referenced ones come first, and :func:`seed_state` turns each into
a state with the references minted so far. :func:`seed_all` does all three.

Every record may also carry ``account`` (which account owns it); seeding ignores it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

from turnframe.core import CaseRef, JSONObject
from turnframe.samples.travel._common import COMPANY, date_from_json
from turnframe.samples.travel.manifest_model import (
    MANIFEST_STATUSES,
    ManifestState,
    dump_manifest,
)
from turnframe.samples.travel.traveler import TravelerState, TravelerWorkflow
from turnframe.samples.travel.trip_model import (
    EXTRA_KINDS,
    TRIP_STATUSES,
    Extra,
    TripState,
    dump_trip,
)

__all__ = [
    "DEMO_RECORDS",
    "TravelSeeder",
    "complete_records",
    "seed_all",
    "seed_order",
    "seed_state",
]

_FIELDS = {
    "trip": {"name", "destination", "start", "end", "travelers", "extras", "status"},
    "traveler": {"full_name", "birth_date", "email", "status"},
    "manifest": {
        "trip",
        "airline",
        "passengers",
        "status",
        "trip_name",
        "trip_start",
        "passenger_birth_dates",
    },
}
_EXTRA_FIELDS = {"kind", "details", "payer", "nights"}
_META = {"key", "workflow", "account"}


def _where(record: Mapping[str, Any]) -> str:
    return f"record {record.get('key', '?')}"


def _text(record: Mapping[str, Any], field: str, *, required: bool = False) -> str | None:
    value = record.get(field)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{_where(record)}: {field} must be non-empty text, not {value!r}")
    return value.strip()


def _date(record: Mapping[str, Any], field: str, value: Any = None) -> date | None:
    value = record.get(field) if value is None else value
    try:
        return date_from_json(value)
    except ValueError:
        raise ValueError(f"{_where(record)}: {field} must be a date, not {value!r}") from None


def _keys(record: Mapping[str, Any], field: str) -> list[str]:
    value = record.get(field, [])
    if not isinstance(value, list | tuple) or not all(isinstance(k, str) for k in value):
        raise ValueError(f"{_where(record)}: {field} must be a list of record keys")
    return list(value)


def _ref(
    record: Mapping[str, Any], field: str, key: Any, refs: Mapping[str, CaseRef], workflow: str
) -> CaseRef:
    ref = refs.get(key) if isinstance(key, str) else None
    if ref is None:
        raise ValueError(f"{_where(record)}: {field} names unknown record {key!r}")
    if ref.workflow != workflow:
        raise ValueError(f"{_where(record)}: {field} {key!r} is a {ref.workflow}, not a {workflow}")
    return ref


def _status(record: Mapping[str, Any], allowed: Sequence[str], default: str) -> Any:
    status = record.get("status", default)
    if status not in allowed:
        raise ValueError(f"{_where(record)}: unknown status {status!r}")
    return status


def _extras(record: Mapping[str, Any], refs: Mapping[str, CaseRef]) -> tuple[Extra, ...]:
    items = record.get("extras", [])
    if not isinstance(items, list | tuple):
        raise ValueError(f"{_where(record)}: extras must be a list")
    extras = []
    for n, item in enumerate(items, start=1):
        if not isinstance(item, Mapping):
            raise ValueError(f"{_where(record)}: extra {n} must be a mapping")
        unknown = sorted(set(item) - _EXTRA_FIELDS)
        if unknown:
            raise ValueError(f"{_where(record)}: unknown extra field {unknown[0]!r}")
        if item.get("kind") not in EXTRA_KINDS:
            raise ValueError(f"{_where(record)}: unknown extra kind {item.get('kind')!r}")
        payer = item.get("payer")
        nights = item.get("nights")
        if nights is not None and (isinstance(nights, bool) or not isinstance(nights, int)):
            raise ValueError(f"{_where(record)}: extra nights must be an integer")
        extras.append(
            Extra(
                id=f"E{n}",
                kind=item["kind"],
                details=_text(item, "details"),
                nights=nights,
                payer=None
                if payer is None
                else COMPANY
                if payer == COMPANY
                else _ref(record, "extras.payer", payer, refs, "traveler"),
            )
        )
    return tuple(extras)


def seed_state(record: Mapping[str, Any], refs: Mapping[str, CaseRef]) -> tuple[str, JSONObject]:
    """Return ``(workflow name, JSON state)`` for one seeded record (pure).

    See docs/samples/travel.md "Seeding".

    Args:
        record: ``{key, workflow, ...fields}`` as the module docstring lists them.
        refs: record key → the case already minted for it (references resolve here).

    Raises:
        ValueError: naming the record and field for an unknown workflow or field, a
            missing required field, a bad date or status, an unknown key or one of the
            wrong workflow, an end date before the start date, or an extra's payer who
            is not a traveler of the trip.
    """
    workflow = record.get("workflow")
    if workflow not in _FIELDS:
        raise ValueError(f"{_where(record)}: unknown workflow {workflow!r}")
    unknown = sorted(set(record) - _FIELDS[workflow] - _META)
    if unknown:
        raise ValueError(f"{_where(record)}: unknown field {unknown[0]!r} for a {workflow}")
    if workflow == "traveler":
        state = TravelerState(
            full_name=_text(record, "full_name", required=True) or "",
            birth_date=_date(record, "birth_date"),
            email=_text(record, "email"),
            status=_status(record, ("active", "deleted"), "active"),
        )
        return workflow, TravelerWorkflow().dump_state(state)
    if workflow == "trip":
        extras = _extras(record, refs)
        trip = TripState(
            name=_text(record, "name", required=True) or "",
            destination=_text(record, "destination"),
            start=_date(record, "start"),
            end=_date(record, "end"),
            travelers=tuple(
                dict.fromkeys(
                    _ref(record, "travelers", k, refs, "traveler")
                    for k in _keys(record, "travelers")
                )
            ),
            extras=extras,
            status=_status(record, TRIP_STATUSES, "planning"),
            next_extra=len(extras) + 1,
        )
        if trip.start and trip.end and trip.end < trip.start:
            raise ValueError(f"{_where(record)}: end is before start")
        if any(isinstance(e.payer, CaseRef) and e.payer not in trip.travelers for e in extras):
            raise ValueError(f"{_where(record)}: an extra's payer is not a traveler of the trip")
        return workflow, dump_trip(trip)
    passengers = tuple(
        dict.fromkeys(
            _ref(record, "passengers", k, refs, "traveler") for k in _keys(record, "passengers")
        )
    )
    born_given = record.get("passenger_birth_dates", {})
    if not isinstance(born_given, Mapping):
        raise ValueError(f"{_where(record)}: passenger_birth_dates must map keys to dates")
    born: dict[CaseRef, date] = {}
    for key, value in born_given.items():
        ref = _ref(record, "passenger_birth_dates", key, refs, "traveler")
        day = _date(record, "passenger_birth_dates", value)
        if ref not in passengers or day is None:
            raise ValueError(
                f"{_where(record)}: passenger_birth_dates names {key!r}, who is not a passenger"
            )
        born[ref] = day
    manifest = ManifestState(
        trip=_ref(record, "trip", record.get("trip"), refs, "trip"),
        airline=_text(record, "airline", required=True) or "",
        passengers=passengers,
        status=_status(record, MANIFEST_STATUSES, "draft"),
        trip_name=_text(record, "trip_name"),
        trip_start=_date(record, "trip_start"),
        passenger_birth_dates=born,
    )
    return workflow, dump_manifest(manifest)


def _references(record: Mapping[str, Any]) -> list[Any]:
    """Return the keys ``record`` refers to, in field order."""
    if record.get("workflow") == "trip":
        payers = [x.get("payer") for x in record.get("extras", []) if isinstance(x, Mapping)]
        return [*record.get("travelers", []), *(p for p in payers if p not in (None, COMPANY))]
    if record.get("workflow") == "manifest":
        born = record.get("passenger_birth_dates", {})
        return [
            record.get("trip"),
            *record.get("passengers", []),
            *(born if isinstance(born, Mapping) else ()),
        ]
    return []


def _index(records: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """Return records by key.

    Raises:
        ValueError: for a record without a key or workflow, or a duplicate key.
    """
    by_key: dict[str, Mapping[str, Any]] = {}
    for record in records:
        key = record.get("key")
        if not isinstance(key, str) or not key:
            raise ValueError(f"a record has no key: {dict(record)!r}")
        if key in by_key:
            raise ValueError(f"duplicate record key {key!r}")
        if "workflow" not in record:
            raise ValueError(f"record {key} has no workflow")
        by_key[key] = record
    return by_key


def complete_records(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Return ``records`` with each manifest completed from the records it names (I17 data).

    A manifest record gets ``trip_name`` and ``trip_start`` from its trip record's
    ``name`` and ``start``, and ``passenger_birth_dates`` from its passengers' traveler
    records, wherever it does not give them itself (its own birth dates win). Other
    records, and manifests with nothing to add, are returned as the same objects; a
    completed manifest is a new dict, and ``records`` is never changed.

    Raises:
        ValueError: as :func:`seed_order` does, for a missing or duplicate key.
    """
    by_key = _index(records)
    completed: list[Mapping[str, Any]] = []
    for record in records:
        if record["workflow"] != "manifest":
            completed.append(record)
            continue
        trip_key = record.get("trip")
        trip = by_key.get(trip_key, {}) if isinstance(trip_key, str) else {}
        extra: dict[str, Any] = {
            field: trip[source]
            for field, source in (("trip_name", "name"), ("trip_start", "start"))
            if field not in record and trip.get(source) is not None
        }
        people = record.get("passengers", [])
        born = {
            k: by_key[k]["birth_date"]
            for k in people
            if isinstance(k, str) and k in by_key and by_key[k].get("birth_date") is not None
        }
        given = record.get("passenger_birth_dates")
        if isinstance(given, Mapping):
            born.update(given)
        if born and born != given:
            extra["passenger_birth_dates"] = born
        completed.append({**record, **extra} if extra else record)
    return completed


def seed_order(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Return ``records`` (same objects) ordered so referenced records come first.

    See docs/samples/travel.md "Seeding".

    The order is otherwise the listing order.

    Raises:
        ValueError: naming the key for a record without a key or workflow, a duplicate
            key, a reference to an unknown key, or a cycle of references.
    """
    by_key = _index(records)
    ordered: list[Mapping[str, Any]] = []
    marks: dict[str, str] = {}

    def visit(key: str) -> None:
        if marks.get(key) == "done":
            return
        if marks.get(key) == "visiting":
            raise ValueError(f"records form a cycle through {key!r}")
        marks[key] = "visiting"
        for ref in _references(by_key[key]):
            if not isinstance(ref, str) or ref not in by_key:
                raise ValueError(f"record {key} refers to unknown record {ref!r}")
            visit(ref)
        marks[key] = "done"
        ordered.append(by_key[key])

    for key in by_key:
        visit(key)
    return ordered


def seed_all(
    records: Sequence[Mapping[str, Any]],
    mint: Callable[[str, str], CaseRef] | None = None,
) -> list[tuple[str, CaseRef, JSONObject]]:
    """Return ``(key, case, JSON state)`` for every record, referenced first.

    See docs/samples/travel.md "Seeding".

    Args:
        records: the records, in any order.
        mint: ``(workflow, key) → CaseRef``; by default the key is the case id.

    Raises:
        ValueError: as :func:`seed_order` and :func:`seed_state` do.

    Manifests are completed first (:func:`complete_records`).
    """
    mint = mint or (lambda workflow, key: CaseRef(workflow, key))
    refs: dict[str, CaseRef] = {}
    seeded = []
    for record in seed_order(complete_records(records)):
        workflow, state = seed_state(record, refs)
        refs[record["key"]] = case = mint(workflow, record["key"])
        seeded.append((record["key"], case, state))
    return seeded


DEMO_RECORDS: list[dict[str, Any]] = [
    {
        "key": "T1",
        "workflow": "trip",
        "name": "Lisbon",
        "destination": "Lisbon",
        "start": "2026-05-12",
        "end": "2026-05-15",
        "travelers": ["P1", "P3"],
        "extras": [{"kind": "insurance", "payer": "company"}, {"kind": "baggage"}],
    },
    {
        "key": "T2",
        "workflow": "trip",
        "name": "Lisbon",
        "destination": "Lisbon",
        "start": "2026-06-03",
        "end": "2026-06-06",
        "travelers": ["P2"],
    },
    {"key": "T3", "workflow": "trip", "name": "Porto", "destination": "Porto"},
    {
        "key": "P1",
        "workflow": "traveler",
        "full_name": "Ana Costa",
        "birth_date": "1985-03-14",
        "email": "ana.costa@example.com",
    },
    {"key": "P2", "workflow": "traveler", "full_name": "Ana Costa", "birth_date": "1992-11-02"},
    {"key": "P3", "workflow": "traveler", "full_name": "Kim Lee", "birth_date": "2012-02-01"},
    {
        "key": "P4",
        "workflow": "traveler",
        "full_name": "Rui Almeida",
        "email": "rui.almeida@example.com",
    },
    {
        "key": "D1",
        "workflow": "manifest",
        "trip": "T1",
        "airline": "TP",
        "passengers": ["P1", "P3"],
    },
]
"""The CLI demo's records: two "Lisbon" trips (May and June), a "Porto" trip without dates
or travelers, two "Ana Costa" born in different years, a minor (Kim Lee, 14 on the May
trip) and a TP manifest for the May trip listing her (its submission needs an agent's
review). Dates are ISO strings, as a JSON or YAML file would give them."""


class TravelSeeder:
    """The travel records' seeder (:class:`turnframe.runtime.app.RecordSeeder`).

    Scenario files and the demo list travel records in the sample's own form
    (``{key: T1, workflow: trip, name: Lisbon, ...}``); this completes and orders them
    (:func:`complete_records`, :func:`seed_order`) and turns each into a state
    (:func:`seed_state`).
    """

    def seed_order(self, records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        """Return ``records`` completed and ordered so referenced records come first.

        Raises:
            ValueError: for a missing, duplicate, unknown or cyclic key.
        """
        return list(seed_order(complete_records(records)))

    def seed_state(
        self, record: Mapping[str, Any], refs: Mapping[str, CaseRef]
    ) -> tuple[str, JSONObject]:
        """Return ``(workflow name, JSON state)`` for one record (:func:`seed_state`).

        Raises:
            ValueError: naming a bad field.
        """
        return seed_state(record, refs)
