"""The trip's typed state, commands and operation catalog.

See docs/samples/travel.md "trip", docs/architecture.md "What you write".

State (JSON keys in brackets): ``name``, ``destination``, ``start``/``end`` (ISO dates or
``null``), ``travelers`` (``"traveler/<id>"`` strings), ``extras``, ``status``
(``planning``/``confirmed``/``completed``/``cancelled``) and ``next_extra``.

An extra is ``{"id": "E<n>", "kind", "details", "payer", "nights"}``. Ids are numbered per
trip from ``next_extra`` and never reused, so ``payer:E2`` always names the same extra.
``payer`` is ``"traveler/<id>"``, ``"company"`` or ``null``.

**Hotel bookings.** A trip holds at most one hotel, and a hotel is an extra of kind
``hotel``. ``trip.book_hotel`` creates that extra with ``details`` = the hotel's name and
``nights`` = the nights booked (a booked hotel is the hotel extra whose ``nights`` is set);
``trip.add_extra`` with kind ``hotel`` records an unbooked hotel (``nights`` null). Either
is refused with ``second_hotel`` while the trip (or a command planned earlier in the same
turn, ADR 0004) already holds a hotel extra. A booked hotel without a payer opens ``payer:E<n>``
like any extra.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Literal, TypeAlias, cast, get_args

from turnframe.core import (
    ArgumentKind,
    ArgValue,
    CaseRef,
    JSONObject,
    JSONValue,
    Op,
    OperationSpec,
    Part,
    RiskClass,
    UsageError,
    fast_init,
)
from turnframe.samples.travel._common import (
    COMPANY,
    LOW_RISK,
    REVERSIBLE_RISK,
    Rejected,
    TravelCommand,
    arg,
    arg_field,
    confirmed,
    date_from_json,
    date_value,
    int_value,
    localized,
    record_value,
    ref_from_json,
    text_value,
)

__all__ = [
    "EXTRA_KINDS",
    "TRIP_OPERATIONS",
    "TRIP_TABLE",
    "TRIP_STATUSES",
    "AddExtra",
    "AddTraveler",
    "BookHotel",
    "CancelTrip",
    "ChangeTripDates",
    "ConfirmTrip",
    "Extra",
    "Payer",
    "RemoveExtra",
    "RenameTrip",
    "SetExtraPayer",
    "StartTrip",
    "build_trip_command",
    "TripCommand",
    "TripState",
    "TripStatus",
    "dump_trip",
    "extra_id",
    "load_trip",
]

TripStatus: TypeAlias = Literal["planning", "confirmed", "completed", "cancelled"]
TRIP_STATUSES: tuple[TripStatus, ...] = ("planning", "confirmed", "completed", "cancelled")
"""Every trip status; each is also the phase of that name (docs/architecture.md "Workflows")."""

ExtraKind: TypeAlias = Literal["hotel", "baggage", "insurance", "seat", "meal"]
"""The kinds of extra (a ``CHOICE`` argument of ``trip.add_extra``)."""

EXTRA_KINDS: tuple[str, ...] = get_args(ExtraKind)
"""The kinds an extra may have (the ``kind`` CHOICE of ``trip.add_extra``)."""

Payer: TypeAlias = CaseRef | Literal["company"] | None
"""Who pays for an extra: a traveler on the trip, the company, or nobody yet."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Extra:
    """One extra of a trip (parameterised obligations, docs/architecture.md "Workflows").

    Attributes:
        id: ``"E<n>"``, unique within the trip and never reused.
        kind: one of :data:`EXTRA_KINDS`.
        details: free details; a booked hotel's name.
        payer: who pays; ``None`` opens the obligation ``payer:<id>``.
        nights: nights booked; set only on a booked hotel.
    """

    id: str
    kind: str
    details: str | None = None
    payer: Payer = None
    nights: int | None = None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TripState:
    """A trip's persisted state (JSON shape in the module docstring).

    See docs/architecture.md "Workflows", "What you write".

    Attributes:
        name: the trip's name (homonyms are allowed; labels tell them apart).
        destination: where it goes, if said.
        start: first day, if known.
        end: last day, if known; never before ``start``.
        travelers: the travelers, in the order they were added, without duplicates.
        extras: the extras, in the order they were added.
        status: the lifecycle status; the phase of the same name.
        next_extra: the number the next extra's id takes.
    """

    name: str
    destination: str | None = None
    start: date | None = None
    end: date | None = None
    travelers: tuple[CaseRef, ...] = ()
    extras: tuple[Extra, ...] = ()
    status: TripStatus = "planning"
    next_extra: int = 1

    def extra(self, extra_id: str) -> Extra | None:
        """Return the extra with ``extra_id``, or ``None`` (ids are stable, I3)."""
        return next((e for e in self.extras if e.id == extra_id), None)

    @property
    def hotel(self) -> Extra | None:
        """The trip's hotel extra (booked or not), or ``None``; a trip holds one (ADR 0004)."""
        return next((e for e in self.extras if e.kind == "hotel"), None)


def dump_trip(state: TripState) -> JSONObject:
    """Return ``state`` as its JSON object (dates ISO, references ``"workflow/id"``).

    See docs/architecture.md "Workflows".

    Written field by field: the same object as ``to_json_value(state)`` (the fields in
    declaration order), without the generic walk (every commit of a trip dumps one).
    """
    start, end = state.start, state.end
    return {
        "name": state.name,
        "destination": state.destination,
        "start": None if start is None else start.isoformat(),
        "end": None if end is None else end.isoformat(),
        "travelers": [str(t) for t in state.travelers],
        "extras": [_dump_extra(e) for e in state.extras],
        "status": state.status,
        "next_extra": state.next_extra,
    }


def _dump_extra(extra: Extra) -> JSONObject:
    payer = extra.payer
    return {
        "id": extra.id,
        "kind": extra.kind,
        "details": extra.details,
        "payer": None if payer is None else str(payer),
        "nights": extra.nights,
    }


def _opt_str(data: JSONObject, key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key} must be text or null, not {value!r}")
    return value


def _payer(value: JSONValue) -> Payer:
    if value is None:
        return None
    if value == COMPANY:
        return COMPANY
    return ref_from_json(value, "traveler")


def _extra(item: JSONValue) -> Extra:
    """Return the extra stored as ``item``; raises ``ValueError`` when it is not one.

    An extra whose fields are plain values of the exact JSON types (the stored shape)
    is read through :func:`_plain_extra`, memoised on those immutable values: the same
    stored extra is the same (frozen) :class:`Extra`, read and checked once. Anything
    else is checked field by field every time.
    """
    if type(item) is dict:
        extra_id, kind, details = item.get("id"), item.get("kind"), item.get("details")
        payer, nights = item.get("payer"), item.get("nights")
        if (
            type(extra_id) is str
            and type(kind) is str
            and (details is None or type(details) is str)
            and (payer is None or type(payer) is str)
            and (nights is None or type(nights) is int)
        ):
            return _plain_extra(extra_id, kind, details, payer, nights)
    return _checked_extra(item)


@lru_cache(maxsize=4096)
def _plain_extra(
    extra_id: str, kind: str, details: str | None, payer: str | None, nights: int | None
) -> Extra:
    return _checked_extra(
        {"id": extra_id, "kind": kind, "details": details, "payer": payer, "nights": nights}
    )


@lru_cache(maxsize=4096)
def _traveler(value: str) -> CaseRef:
    return ref_from_json(value, "traveler")


def _traveler_ref(value: JSONValue) -> CaseRef:
    """Return the traveler reference ``value`` (memoised for a string; ``ValueError`` else)."""
    return _traveler(value) if type(value) is str else ref_from_json(value, "traveler")


def _checked_extra(item: JSONValue) -> Extra:
    if not isinstance(item, dict):
        raise ValueError(f"an extra must be an object, not {item!r}")
    kind = item.get("kind")
    if kind not in EXTRA_KINDS:
        raise ValueError(f"unknown extra kind {kind!r}")
    extra_id, nights = item.get("id"), item.get("nights")
    if not isinstance(extra_id, str) or not extra_id.startswith("E"):
        raise ValueError(f"an extra id looks like E1, not {extra_id!r}")
    if nights is not None and (isinstance(nights, bool) or not isinstance(nights, int)):
        raise ValueError(f"nights must be an integer, not {nights!r}")
    return Extra(
        id=extra_id,
        kind=str(kind),
        details=_opt_str(item, "details"),
        payer=_payer(item.get("payer")),
        nights=nights,
    )


def load_trip(data: JSONObject) -> TripState:
    """Return the :class:`TripState` stored as ``data`` (inverse of :func:`dump_trip`).

    See docs/architecture.md "Workflows".

    Raises:
        ValueError: when ``data`` is not a trip state (a missing name, an unknown status
            or kind, a malformed reference or date).
    """
    name, status = data.get("name"), data.get("status", "planning")
    if not isinstance(name, str):
        raise ValueError("a trip needs a name")
    if status not in TRIP_STATUSES:
        raise ValueError(f"unknown trip status {status!r}")
    travelers, extras = data.get("travelers", []), data.get("extras", [])
    next_extra = data.get("next_extra", 1)
    if not isinstance(travelers, list) or not isinstance(extras, list):
        raise ValueError("travelers and extras must be lists")
    if isinstance(next_extra, bool) or not isinstance(next_extra, int):
        raise ValueError("next_extra must be an integer")
    return TripState(
        name=name,
        destination=_opt_str(data, "destination"),
        start=date_from_json(data.get("start")),
        end=date_from_json(data.get("end")),
        travelers=tuple(_traveler_ref(t) for t in travelers),
        extras=tuple(_extra(e) for e in extras),
        status=status,
        next_extra=next_extra,
    )


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class StartTrip(TravelCommand, event="trip.started"):
    """``trip.start``: create the trip (low risk, no card; docs/architecture.md "Commands")."""

    OPERATION = "trip.start"
    name: str
    destination: str | None = None
    start: date | None = None
    end: date | None = None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class RenameTrip(TravelCommand, event="trip.renamed"):
    """``trip.rename``: give the trip a new name (low risk; docs/architecture.md "Commands")."""

    OPERATION = "trip.rename"
    name: str


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ChangeTripDates(TravelCommand, event="trip.dates_changed"):
    """``trip.change_dates``: set both dates (low risk while planning; refused after).

    See docs/architecture.md "Commands".
    """

    OPERATION = "trip.change_dates"
    start: date
    end: date


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class AddTraveler(TravelCommand, event="trip.traveler_added"):
    """``trip.add_traveler``: add a traveler record to the trip (low risk).

    See docs/architecture.md "Commands".
    """

    OPERATION = "trip.add_traveler"
    traveler: CaseRef = arg_field("traveler", workflow="traveler")


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class AddExtra(TravelCommand, event="trip.extra_added"):
    """``trip.add_extra``: add an extra of ``kind`` (low risk); the next ``E<n>`` id."""

    OPERATION = "trip.add_extra"
    kind: ExtraKind
    details: str | None = None
    payer: Payer = arg_field("payer", None, workflow="traveler")


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class SetExtraPayer(TravelCommand, event="trip.extra_payer_set"):
    """``trip.set_extra_payer``: name who pays for ``extra`` (low risk).

    See docs/architecture.md "Commands".
    """

    OPERATION = "trip.set_extra_payer"
    extra: Part
    payer: CaseRef | Literal["company"] = arg_field("payer", workflow="traveler")


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class RemoveExtra(TravelCommand, event="trip.extra_removed"):
    """``trip.remove_extra``: remove ``extra``; its id is never reused (reversible).

    See docs/architecture.md "Commands".
    """

    OPERATION = "trip.remove_extra"
    extra: Part


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class BookHotel(TravelCommand, event="trip.hotel_booked"):
    """``trip.book_hotel``: book ``hotel`` for ``nights`` as the hotel extra (monetary).

    See docs/architecture.md "Commands".
    """

    OPERATION = "trip.book_hotel"
    hotel: str
    nights: int


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ConfirmTrip(TravelCommand, event="trip.confirmed"):
    """``trip.confirm``: planning → confirmed (monetary; refused while obligations are open).

    See docs/architecture.md "Commands".
    """

    OPERATION = "trip.confirm"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CancelTrip(TravelCommand, event="trip.cancelled"):
    """``trip.cancel``: planning or confirmed → cancelled; the row stays (destructive).

    See docs/architecture.md "Commands".
    """

    OPERATION = "trip.cancel"


TripCommand: TypeAlias = (
    StartTrip
    | RenameTrip
    | ChangeTripDates
    | AddTraveler
    | AddExtra
    | SetExtraPayer
    | RemoveExtra
    | BookHotel
    | ConfirmTrip
    | CancelTrip
)
"""Every command the trip workflow compiles and executes."""

_PAYER = "a traveler on the trip, or the word 'company' when the company pays"
_EXTRA_WORDS = "the extra, in the user's words: its kind (the hotel, the baggage) or its details"

TRIP_OPERATIONS: tuple[OperationSpec, ...] = (
    OperationSpec(
        key="trip.start",
        policy=LOW_RISK,
        workflow="trip",
        creates_case=True,
        summary="Start planning a new trip.",
        summaries=localized("Start planning a new trip.", "Começar a planear uma nova viagem."),
        arguments=(
            arg("name", required=True, description="what the trip is called", names_record=True),
            arg("destination", description="where the trip goes"),
            arg("start", ArgumentKind.DATE, description="the first day of the trip"),
            arg("end", ArgumentKind.DATE, description="the last day of the trip"),
        ),
    ),
    OperationSpec(
        key="trip.rename",
        policy=LOW_RISK,
        workflow="trip",
        summary="Rename the trip.",
        summaries=localized("Rename the trip.", "Mudar o nome da viagem."),
        arguments=(arg("name", required=True, description="the trip's new name"),),
    ),
    OperationSpec(
        key="trip.change_dates",
        policy=LOW_RISK,
        workflow="trip",
        summary="Change the trip's dates.",
        summaries=localized("Change the trip's dates.", "Alterar as datas da viagem."),
        arguments=(
            arg("start", ArgumentKind.DATE, required=True, description="the new first day"),
            arg("end", ArgumentKind.DATE, required=True, description="the new last day"),
        ),
    ),
    OperationSpec(
        key="trip.add_traveler",
        policy=LOW_RISK,
        workflow="trip",
        summary="Add a traveler to the trip.",
        summaries=localized("Add a traveler to the trip.", "Adicionar um viajante à viagem."),
        arguments=(
            arg(
                "traveler",
                ArgumentKind.RECORD,
                required=True,
                record_workflow="traveler",
                description="the traveler who goes on the trip",
            ),
        ),
    ),
    OperationSpec(
        key="trip.add_extra",
        policy=LOW_RISK,
        workflow="trip",
        summary="Add an extra (hotel, baggage, insurance, seat or meal) to the trip.",
        summaries=localized(
            "Add an extra (hotel, baggage, insurance, seat or meal) to the trip.",
            "Adicionar um extra (hotel, bagagem, seguro, lugar ou refeição) à viagem.",
        ),
        arguments=(
            arg(
                "kind",
                ArgumentKind.CHOICE,
                required=True,
                choices=EXTRA_KINDS,
                description="which kind of extra",
            ),
            arg("details", description="details of the extra"),
            arg(
                "payer",
                ArgumentKind.RECORD,
                record_workflow="traveler",
                literals=(COMPANY,),
                description=f"who pays: {_PAYER}",
            ),
        ),
    ),
    OperationSpec(
        key="trip.set_extra_payer",
        policy=LOW_RISK,
        workflow="trip",
        summary="Say who pays for an extra.",
        summaries=localized("Say who pays for an extra.", "Indicar quem paga um extra."),
        arguments=(
            arg("extra", ArgumentKind.PART, required=True, description=_EXTRA_WORDS),
            arg(
                "payer",
                ArgumentKind.RECORD,
                required=True,
                record_workflow="traveler",
                literals=(COMPANY,),
                description=f"who pays: {_PAYER}",
            ),
        ),
    ),
    OperationSpec(
        key="trip.remove_extra",
        policy=REVERSIBLE_RISK,
        workflow="trip",
        summary="Remove an extra from the trip.",
        summaries=localized("Remove an extra from the trip.", "Remover um extra da viagem."),
        arguments=(arg("extra", ArgumentKind.PART, required=True, description=_EXTRA_WORDS),),
    ),
    OperationSpec(
        key="trip.book_hotel",
        policy=confirmed(RiskClass.MONETARY),
        workflow="trip",
        summary="Book the trip's hotel.",
        summaries=localized("Book the trip's hotel.", "Reservar o hotel da viagem."),
        arguments=(
            arg("hotel", required=True, description="the hotel's name"),
            arg(
                "nights", ArgumentKind.INTEGER, required=True, description="how many nights to book"
            ),
        ),
    ),
    OperationSpec(
        key="trip.confirm",
        policy=confirmed(RiskClass.MONETARY),
        workflow="trip",
        summary="Confirm the trip.",
        summaries=localized("Confirm the trip.", "Confirmar a viagem."),
    ),
    OperationSpec(
        key="trip.cancel",
        policy=confirmed(RiskClass.DESTRUCTIVE),
        workflow="trip",
        summary="Cancel the trip.",
        summaries=localized("Cancel the trip.", "Cancelar a viagem."),
    ),
)
"""The trip's operations, in the order docs/samples/travel.md lists them."""

_COMMANDS: tuple[type[TravelCommand], ...] = (
    StartTrip,
    RenameTrip,
    ChangeTripDates,
    AddTraveler,
    AddExtra,
    SetExtraPayer,
    RemoveExtra,
    BookHotel,
    ConfirmTrip,
    CancelTrip,
)

TRIP_TABLE: tuple[Op, ...] = tuple(
    Op(
        command,
        spec.summary,
        summaries=spec.summaries,
        policy=spec.policy,
        creates_case=spec.creates_case,
        submission=spec.submission,
    )
    for command, spec in zip(_COMMANDS, TRIP_OPERATIONS, strict=True)
)
"""The trip's operation table (the authoring kit's rows, docs/authoring.md#tables): each
command beside the hand-written spec above, which keeps the argument descriptions;
``registration_problems`` checks that the two agree."""


_EXTRA_ID = re.compile(r"[Ee]?\s*0*(\d+)")


def _normal_extra(value: str) -> str:
    return extra_id(value) or value.strip()


def extra_id(value: str) -> str | None:
    """Return the extra id ``value`` spells (``"E1"``, ``"e1"``, ``"1"`` → ``"E1"``), else ``None``."""
    match = _EXTRA_ID.fullmatch(value.strip())
    return f"E{int(match.group(1))}" if match else None


def build_trip_command(key: str, values: Mapping[str, ArgValue]) -> TripCommand:
    """Return the command operation ``key`` asks for, from its evaluated values.

    See docs/architecture.md "One turn" step 5, "Commands".

    An extra may be named ``E1``, ``e1`` or ``1``; kinds are matched case-insensitively.

    Raises:
        Rejected: for a missing or invalid value.
        UsageError: for an operation the trip does not register.
    """
    if key == "trip.start":
        return StartTrip(
            name=text_value(values, "name", required=True) or "",
            destination=text_value(values, "destination"),
            start=date_value(values, "start"),
            end=date_value(values, "end"),
        )
    if key == "trip.rename":
        return RenameTrip(name=text_value(values, "name", required=True) or "")
    if key == "trip.change_dates":
        start = date_value(values, "start", required=True)
        end = date_value(values, "end", required=True)
        assert start is not None and end is not None
        return ChangeTripDates(start=start, end=end)
    if key == "trip.add_traveler":
        who = record_value(values, "traveler", "traveler", required=True)
        assert isinstance(who, CaseRef)
        return AddTraveler(traveler=who)
    if key == "trip.add_extra":
        kind = (text_value(values, "kind", required=True) or "").lower()
        if kind not in EXTRA_KINDS:
            raise Rejected("invalid_kind")
        payer = record_value(values, "payer", "traveler", literals=(COMPANY,))
        return AddExtra(
            kind=cast(ExtraKind, kind),
            details=text_value(values, "details"),
            payer=payer if isinstance(payer, CaseRef) or payer is None else COMPANY,
        )
    if key in ("trip.set_extra_payer", "trip.remove_extra"):
        extra = _normal_extra(text_value(values, "extra", required=True) or "")
        if key == "trip.remove_extra":
            return RemoveExtra(extra=Part(extra))
        payer = record_value(values, "payer", "traveler", required=True, literals=(COMPANY,))
        return SetExtraPayer(
            extra=Part(extra), payer=payer if isinstance(payer, CaseRef) else COMPANY
        )
    if key == "trip.book_hotel":
        return BookHotel(
            hotel=text_value(values, "hotel", required=True) or "",
            nights=int_value(values, "nights"),
        )
    if key == "trip.confirm":
        return ConfirmTrip()
    if key == "trip.cancel":
        return CancelTrip()
    raise UsageError(f"the trip workflow has no operation {key!r}")
