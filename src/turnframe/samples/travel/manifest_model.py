"""The manifest's typed state, commands, statuses and catalog (docs/samples/travel.md "manifest").

State JSON: ``{"trip": "trip/<id>", "airline": "TP", "passengers": ["traveler/<id>", ...],
"status": ..., "trip_name": str | null, "trip_start": ISO date | null,
"passenger_birth_dates": {"traveler/<id>": ISO date}}``.

**Minor review data.** Whether a passenger is under 16 on the trip's start date decides
the submission's policy (a Review card for the ``agent`` role), and policy is a pure
function of this case's state. So the manifest keeps a copy of what it needs: the trip's
``trip_start`` (and ``trip_name`` for labels) captured when the manifest is created
(seeding fills them from the trip record, see ``seed.complete_records``), and per passenger the
birth date captured when the passenger is added (seeding copies it from the traveler
record; ``manifest.add_passenger`` takes an optional ``birth_date`` argument). A passenger
with no known birth date, or a manifest with no known start date, is not counted as a
minor; the view carries a ``manifest.birth_date_unknown`` or ``manifest.trip_start_unknown``
notice instead.

**Statuses** are the phases, never collapsed (I19): ``draft`` → ``validated`` →
``submitting`` (the submit command committed with its outbox row) → the external
statuses ``submitted``, ``received_by_intermediary``, ``received_by_airline``,
``accepted``, then ``issued`` or ``rejected``; ``outcome_unknown`` is a timeout after
transmission, pending reconciliation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Literal, TypeAlias, cast

from turnframe.core import (
    CaseRef,
    ClaimMode,
    JSONObject,
    Op,
    OperationSpec,
    RiskClass,
    fast_init,
    to_json_value,
)
from turnframe.core.frozen import FrozenMap
from turnframe.samples.travel._common import (
    LOW_RISK,
    TravelCommand,
    arg_field,
    confirmed,
    date_from_json,
    localized,
    ref_from_json,
)

__all__ = [
    "EXTERNAL_STATUSES",
    "MANIFEST_OPERATIONS",
    "MANIFEST_TABLE",
    "MANIFEST_STATUSES",
    "MINOR_AGE",
    "AddPassenger",
    "ManifestCommand",
    "ManifestState",
    "ManifestStatus",
    "RemovePassenger",
    "SubmitManifest",
    "ValidateManifest",
    "age_on",
    "dump_manifest",
    "load_manifest",
]

ManifestStatus: TypeAlias = Literal[
    "draft",
    "validated",
    "submitting",
    "submitted",
    "received_by_intermediary",
    "received_by_airline",
    "accepted",
    "rejected",
    "issued",
    "outcome_unknown",
]
MANIFEST_STATUSES: tuple[ManifestStatus, ...] = (
    "draft",
    "validated",
    "submitting",
    "submitted",
    "received_by_intermediary",
    "received_by_airline",
    "accepted",
    "rejected",
    "issued",
    "outcome_unknown",
)
"""Every manifest status, each also the phase of that name."""

EXTERNAL_STATUSES: tuple[ManifestStatus, ...] = MANIFEST_STATUSES[3:]
"""What an airline callback (or a timeout: ``outcome_unknown``) may report."""

MINOR_AGE = 16
"""A passenger younger than this on the trip's start date needs an agent's review."""


def age_on(birth_date: date, day: date) -> int:
    """Return the age in whole years on ``day`` of someone born on ``birth_date`` (I17 review)."""
    return day.year - birth_date.year - ((day.month, day.day) < (birth_date.month, birth_date.day))


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ManifestState:
    """A manifest's persisted state (JSON shape in the module docstring).

    See docs/architecture.md "Workflows", "What you write".

    Attributes:
        trip: the trip the manifest belongs to.
        airline: the airline's IATA code, e.g. ``"TP"``.
        passengers: the listed travelers, without duplicates.
        status: the status; the phase of the same name.
        trip_name: the trip's name when the manifest was created (labels only).
        trip_start: the trip's start date when the manifest was created.
        passenger_birth_dates: per passenger, the birth date captured when added: a
            :class:`~turnframe.core.frozen.FrozenMap` (any mapping given is frozen into
            one), so the whole state is immutable and its snapshots are memoised across
            turns (docs/adr/0020-what-a-brief-shows.md rule 8).
    """

    trip: CaseRef
    airline: str
    passengers: tuple[CaseRef, ...] = ()
    status: ManifestStatus = "draft"
    trip_name: str | None = None
    trip_start: date | None = None
    passenger_birth_dates: Mapping[CaseRef, date] = field(default_factory=FrozenMap)

    def __post_init__(self) -> None:
        born = self.passenger_birth_dates
        if type(born) is not FrozenMap:
            object.__setattr__(self, "passenger_birth_dates", FrozenMap(born))

    @property
    def minors(self) -> tuple[CaseRef, ...]:
        """The passengers known to be under :data:`MINOR_AGE` on ``trip_start`` (I17)."""
        start = self.trip_start
        if start is None:
            return ()
        born = self.passenger_birth_dates
        return tuple(p for p in self.passengers if p in born and age_on(born[p], start) < MINOR_AGE)

    @property
    def unknown_ages(self) -> tuple[CaseRef, ...]:
        """The passengers whose birth date is unknown (a notice).

        See docs/architecture.md "Workflows".
        """
        return tuple(p for p in self.passengers if p not in self.passenger_birth_dates)

    @property
    def display(self) -> str:
        """``"TP (Lisbon)"``, or the airline alone when the trip's name is unknown.

        See docs/architecture.md "Claims".
        """
        return f"{self.airline} ({self.trip_name})" if self.trip_name else self.airline


def dump_manifest(state: ManifestState) -> JSONObject:
    """Return ``state`` as its JSON object (dates ISO, references ``"workflow/id"``).

    See docs/architecture.md "Workflows".
    """
    return cast(JSONObject, to_json_value(state))


def load_manifest(data: JSONObject) -> ManifestState:
    """Return the :class:`ManifestState` stored as ``data`` (inverse of :func:`dump_manifest`).

    See docs/architecture.md "Workflows".

    Raises:
        ValueError: for a missing trip or airline, an unknown status, or a malformed
            reference or date.
    """
    airline, status, name = data.get("airline"), data.get("status", "draft"), data.get("trip_name")
    passengers, born = data.get("passengers", []), data.get("passenger_birth_dates", {})
    if not isinstance(airline, str) or status not in MANIFEST_STATUSES:
        raise ValueError(f"not a manifest state: {data!r}")
    if not isinstance(passengers, list) or not isinstance(born, dict):
        raise ValueError("passengers must be a list and passenger_birth_dates an object")
    if name is not None and not isinstance(name, str):
        raise ValueError("trip_name must be text or null")
    birth_dates: dict[CaseRef, date] = {}
    for key, value in born.items():
        day = date_from_json(value)
        if day is not None:
            birth_dates[ref_from_json(key, "traveler")] = day
    return ManifestState(
        trip=ref_from_json(data.get("trip"), "trip"),
        airline=airline,
        passengers=tuple(ref_from_json(p, "traveler") for p in passengers),
        status=status,
        trip_name=name,
        trip_start=date_from_json(data.get("trip_start")),
        passenger_birth_dates=FrozenMap(birth_dates),
    )


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class AddPassenger(
    TravelCommand, operation="manifest.add_passenger", event="manifest.passenger_added"
):
    """``manifest.add_passenger``: list ``traveler``, with the birth date if known (low).

    See docs/architecture.md "Commands".
    """

    traveler: CaseRef = arg_field(
        "traveler", workflow="traveler", description="the traveler to list as a passenger"
    )
    birth_date: date | None = arg_field(
        "birth_date", None, description="the passenger's birth date, when the user gives it"
    )


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class RemovePassenger(
    TravelCommand, operation="manifest.remove_passenger", event="manifest.passenger_removed"
):
    """``manifest.remove_passenger``: unlist ``traveler`` (low, docs/architecture.md "Commands")."""

    traveler: CaseRef = arg_field(
        "traveler", workflow="traveler", description="the passenger to remove"
    )


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ValidateManifest(TravelCommand, operation="manifest.validate", event="manifest.validated"):
    """``manifest.validate``: draft → validated (low, docs/architecture.md "Commands")."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class SubmitManifest(
    TravelCommand, operation="manifest.submit", event="manifest.submission_queued"
):
    """``manifest.submit``: validated → submitting, with an outbox message (irreversible).

    See docs/architecture.md "Stores".
    """


ManifestCommand: TypeAlias = AddPassenger | RemovePassenger | ValidateManifest | SubmitManifest
"""Every command the manifest workflow compiles and executes."""

MANIFEST_TABLE: tuple[Op, ...] = (
    Op(
        AddPassenger,
        "Add a passenger to the manifest.",
        summaries=localized(
            "Add a passenger to the manifest.", "Adicionar um passageiro ao manifesto."
        ),
        policy=LOW_RISK,
    ),
    Op(
        RemovePassenger,
        "Remove a passenger from the manifest.",
        summaries=localized(
            "Remove a passenger from the manifest.", "Remover um passageiro do manifesto."
        ),
        policy=LOW_RISK,
    ),
    Op(
        ValidateManifest,
        "Validate the manifest.",
        summaries=localized("Validate the manifest.", "Validar o manifesto."),
        policy=LOW_RISK,
    ),
    Op(
        SubmitManifest,
        "Submit the manifest to the airline.",
        summaries=localized(
            "Submit the manifest to the airline.", "Submeter o manifesto à companhia aérea."
        ),
        policy=confirmed(RiskClass.IRREVERSIBLE, claim_mode=ClaimMode.EXTERNAL_STATUS),
        submission=True,
    ),
)
"""The manifest's operation table (the authoring kit's rows; docs/authoring.md#tables)."""

MANIFEST_OPERATIONS: tuple[OperationSpec, ...] = tuple(row.spec() for row in MANIFEST_TABLE)
"""The manifest's operations (docs/samples/travel.md table order); none creates a manifest."""
