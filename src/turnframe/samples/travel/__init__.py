"""The travel sample: trips, travelers and airline manifests.

See docs/samples/travel.md, docs/architecture.md "What you write".

Written exactly as an adopter writes an application: it imports only ``turnframe.core``
and :class:`turnframe.runtime.app.Application`. :func:`travel_application` is what the
runtime, the CLI demo and the scenario runner serve; :func:`complete_records`,
:func:`seed_order` and :func:`seed_state` create the records scenario files and the demo
list (:func:`seed_all` chains them).
"""

from __future__ import annotations

from turnframe.core import WorkflowRegistry
from turnframe.runtime.app import Application
from turnframe.samples.travel._common import TransitionRefused
from turnframe.samples.travel.knowledge import TOPICS, TravelKnowledge
from turnframe.samples.travel.manifest import SUBMIT_TOPIC, ManifestWorkflow
from turnframe.samples.travel.manifest_model import (
    EXTERNAL_STATUSES,
    MANIFEST_STATUSES,
    AddPassenger,
    ManifestState,
    RemovePassenger,
    SubmitManifest,
    ValidateManifest,
)
from turnframe.samples.travel.seed import (
    DEMO_RECORDS,
    TravelSeeder,
    complete_records,
    seed_all,
    seed_order,
    seed_state,
)
from turnframe.samples.travel.traveler import (
    DeleteTraveler,
    RegisterTraveler,
    TravelerState,
    TravelerWorkflow,
    UpdateTravelerEmail,
)
from turnframe.samples.travel.trip import TripWorkflow
from turnframe.samples.travel.trip_model import (
    EXTRA_KINDS,
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
    TripState,
)

__all__ = [
    "DEMO_RECORDS",
    "EXTERNAL_STATUSES",
    "EXTRA_KINDS",
    "MANIFEST_STATUSES",
    "SUBMIT_TOPIC",
    "TOPICS",
    "AddExtra",
    "AddPassenger",
    "AddTraveler",
    "BookHotel",
    "CancelTrip",
    "ChangeTripDates",
    "ConfirmTrip",
    "DeleteTraveler",
    "Extra",
    "ManifestState",
    "ManifestWorkflow",
    "RegisterTraveler",
    "RemoveExtra",
    "RemovePassenger",
    "RenameTrip",
    "SetExtraPayer",
    "StartTrip",
    "SubmitManifest",
    "TransitionRefused",
    "TravelKnowledge",
    "TravelSeeder",
    "TravelerState",
    "TravelerWorkflow",
    "TripState",
    "TripWorkflow",
    "UpdateTravelerEmail",
    "ValidateManifest",
    "complete_records",
    "seed_all",
    "seed_order",
    "seed_state",
    "travel_application",
]


def travel_application() -> Application:
    """Return the travel application: three workflows and the knowledge source.

    See docs/architecture.md "What you write".

    Returns:
        ``Application(name="travel")`` with a fresh :class:`WorkflowRegistry` holding
        :class:`TripWorkflow`, :class:`TravelerWorkflow` and :class:`ManifestWorkflow`,
        :class:`TravelKnowledge` as its knowledge source, serving ``en`` and ``pt-PT``
        (every workflow's copy is written in both).
    """
    registry = WorkflowRegistry([TripWorkflow(), TravelerWorkflow(), ManifestWorkflow()])
    return Application(
        name="travel",
        registry=registry,
        knowledge=TravelKnowledge(),
        seeder=TravelSeeder(),
        locales=("en", "pt-PT"),
    )
