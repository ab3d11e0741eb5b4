"""The trip workflow: projection, compilation, policy, execution and receipts.

See docs/architecture.md "Workflows", "What you write".

Phases are the statuses ``planning`` → ``confirmed`` → ``completed``, ``cancelled`` from
planning or confirmed; a named-but-not-created trip projects to phase ``new``
(``exists=False``, no outcome). ``completed`` and ``cancelled`` carry an outcome and keep
the row (docs/architecture.md "What you write"). A trip completes only through
:meth:`TripWorkflow.complete`, a system trigger for a confirmed trip whose end date has passed.

Obligations (stable ids): ``dates`` while a date is missing, ``travelers`` while nobody
travels, ``payer:<extra id>`` per extra without a payer (params ``{"extra": id}``).

Compilation first applies the commands planned earlier in the turn (``request.prior``,
ADR 0004) to the state, then checks the new command against that planned state, so a
second hotel or a payer added in the same turn is judged as if already committed. A
command that would leave the planned state as it is compiles to no commands: this is how
"rename it, actually leave it as it was" yields no mutation (I10).

``trip.change_dates`` stays offered on a confirmed trip so the user hears the domain's
refusal (``dates_locked``) instead of an operation the model cannot name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import date
from functools import lru_cache
from typing import Any

from turnframe.core import (
    ArgumentSpec,
    CaseRef,
    Command,
    CommandText,
    CompileRequest,
    DomainEvent,
    EventDraft,
    Execution,
    ExecutionContext,
    JSONObject,
    Obligation,
    OperationSpec,
    Outcome,
    PartCandidate,
    Refusal,
    Refused,
    UsageError,
    Workflow,
    WorkflowView,
    to_json_value,
)
from turnframe.samples.travel import copy
from turnframe.samples.travel._common import (
    COMPANY,
    Rejected,
    TransitionRefused,
    ask_argument,
    command_text,
    refusal,
)
from turnframe.samples.travel.glossary import glossary_of
from turnframe.samples.travel.trip_model import (
    TRIP_OPERATIONS,
    TRIP_TABLE,
    AddExtra,
    AddTraveler,
    BookHotel,
    CancelTrip,
    ChangeTripDates,
    ConfirmTrip,
    Extra,
    Payer,
    RemoveExtra,
    RenameTrip,
    SetExtraPayer,
    StartTrip,
    TripCommand,
    TripState,
    build_trip_command,
    dump_trip,
    extra_id,
    load_trip,
)

__all__ = ["TripWorkflow", "trip_obligations"]

_EDIT = (
    "trip.rename",
    "trip.change_dates",
    "trip.add_traveler",
    "trip.add_extra",
    "trip.set_extra_payer",
    "trip.remove_extra",
    "trip.book_hotel",
)
_OFFERED: dict[str, tuple[str, ...]] = {
    "new": ("trip.start",),
    "planning": (*_EDIT, "trip.confirm", "trip.cancel"),
    "confirmed": (*_EDIT, "trip.cancel"),
    "completed": (),
    "cancelled": (),
}
"""The declared policies of docs/samples/travel.md's table, one per operation (I17)."""
_TERMINAL = ("completed", "cancelled")


def trip_obligations(state: TripState | None) -> tuple[Obligation, ...]:
    """Return the trip's open obligations, ids stable across unrelated changes (I3).

    ``dates`` (a date missing), ``travelers`` (nobody travels) and ``payer:E<n>`` per
    extra without a payer, in that order; none in a terminal phase. For an absent trip
    (``None``) the obligations the case will need: ``dates`` and ``travelers``.
    """
    if state is None:
        return (
            Obligation(id="dates", kind="dates", waits_for="trip.start"),
            Obligation(id="travelers", kind="travelers", waits_for="trip.add_traveler"),
        )
    if state.status in _TERMINAL:
        return ()
    found: list[Obligation] = []
    if state.start is None or state.end is None:
        found.append(Obligation(id="dates", kind="dates", waits_for="trip.change_dates"))
    if not state.travelers:
        found.append(Obligation(id="travelers", kind="travelers", waits_for="trip.add_traveler"))
    found.extend(
        Obligation(
            id=f"payer:{e.id}",
            kind="payer",
            params={"extra": e.id},
            waits_for="trip.set_extra_payer",
        )
        for e in state.extras
        if e.payer is None
    )
    return tuple(found)


def _check_dates(start: date | None, end: date | None, today: date) -> None:
    if start is not None and end is not None and end < start:
        raise Rejected("end_before_start")
    if any(d is not None and d < today for d in (start, end)):
        raise Rejected("date_in_past", today=today)


def _check_payer(state: TripState, payer: Payer) -> None:
    if isinstance(payer, CaseRef) and payer not in state.travelers:
        raise Rejected("payer_not_traveler", trip=state.name)


def _require_extra(state: TripState, extra_id: str) -> None:
    if state.extra(extra_id) is None:
        raise Rejected("unknown_extra", trip=state.name, extra=extra_id)


def _check(state: TripState | None, command: TripCommand, today: date) -> None:
    """Raise :class:`Rejected` when ``command`` may not apply to ``state`` on ``today``."""
    if isinstance(command, StartTrip):
        if state is not None:
            raise Rejected("already_started")
        _check_dates(command.start, command.end, today)
        return
    if state is None:
        raise Rejected("not_created")
    if isinstance(command, ChangeTripDates):
        if state.status != "planning":
            raise Rejected("dates_locked", trip=state.name, trip_status=state.status)
        _check_dates(command.start, command.end, today)
    elif state.status in _TERMINAL:
        raise Rejected("trip_closed", trip=state.name, trip_status=state.status)
    elif isinstance(command, AddExtra | BookHotel):
        if isinstance(command, BookHotel) and command.nights < 1:
            raise Rejected("invalid_nights")
        hotel = state.hotel
        if hotel is not None and (isinstance(command, BookHotel) or command.kind == "hotel"):
            raise Rejected("second_hotel", trip=state.name, extra=hotel.id)
        if isinstance(command, AddExtra):
            _check_payer(state, command.payer)
    elif isinstance(command, SetExtraPayer):
        _require_extra(state, command.extra)
        _check_payer(state, command.payer)
    elif isinstance(command, RemoveExtra):
        _require_extra(state, command.extra)
    elif isinstance(command, ConfirmTrip) and state.status == "planning":
        open_ids = tuple(o.id for o in trip_obligations(state))
        if open_ids:
            raise Rejected("obligations_open", trip=state.name, open=open_ids)


def _event(event: str, state: TripState, **data: object) -> EventDraft:
    payload: JSONObject = {"trip": state.name}
    payload.update({key: to_json_value(value) for key, value in data.items()})
    return EventDraft(type=f"trip.{event}", data=payload, operation=_EVENT_OPS[event])


_EVENT_OPS = {
    "started": "trip.start",
    "renamed": "trip.rename",
    "dates_changed": "trip.change_dates",
    "traveler_added": "trip.add_traveler",
    "extra_added": "trip.add_extra",
    "extra_payer_set": "trip.set_extra_payer",
    "extra_removed": "trip.remove_extra",
    "hotel_booked": "trip.book_hotel",
    "confirmed": "trip.confirm",
    "cancelled": "trip.cancel",
    "completed": "trip.complete",
}


def _one(new: TripState, event: str, **data: object) -> Execution[TripState]:
    return Execution(state=new, events=(_event(event, new, **data),))


def _with_extra(state: TripState, **fields: Any) -> tuple[TripState, str]:
    """Return ``state`` with a new extra numbered ``E<next_extra>``, and that id."""
    extra = Extra(id=f"E{state.next_extra}", **fields)
    return replace(state, extras=(*state.extras, extra), next_extra=state.next_extra + 1), extra.id


def _transition(state: TripState | None, command: TripCommand) -> Execution[TripState]:
    """Apply ``command`` purely; a command that changes nothing yields no event.

    Raises:
        UsageError: when a command other than ``StartTrip`` meets an absent trip.
    """
    if isinstance(command, StartTrip):
        new = TripState(
            name=command.name, destination=command.destination, start=command.start, end=command.end
        )
        return _one(new, "started", destination=new.destination, start=new.start, end=new.end)
    if state is None:
        raise UsageError(f"{command.operation} needs an existing trip")
    match command:
        case RenameTrip(name=name) if name != state.name:
            return _one(replace(state, name=name), "renamed", old=state.name)
        case ChangeTripDates(start=start, end=end) if (start, end) != (state.start, state.end):
            return _one(replace(state, start=start, end=end), "dates_changed", start=start, end=end)
        case AddTraveler(traveler=who) if who not in state.travelers:
            return _one(
                replace(state, travelers=(*state.travelers, who)),
                "traveler_added",
                traveler=who,
                travelers=len(state.travelers) + 1,
            )
        case AddExtra(kind=kind, details=details, payer=payer):
            new, extra_id = _with_extra(state, kind=kind, details=details, payer=payer)
            return _one(new, "extra_added", extra=extra_id, kind=kind, details=details, payer=payer)
        case BookHotel(hotel=hotel, nights=nights):
            new, extra_id = _with_extra(state, kind="hotel", details=hotel, nights=nights)
            return _one(new, "hotel_booked", extra=extra_id, hotel=hotel, nights=nights)
        case SetExtraPayer(extra=extra_id, payer=payer):
            old = state.extra(extra_id)
            if old is not None and old.payer != payer:
                extras = tuple(
                    replace(e, payer=payer) if e.id == extra_id else e for e in state.extras
                )
                return _one(
                    replace(state, extras=extras),
                    "extra_payer_set",
                    extra=extra_id,
                    kind=old.kind,
                    payer=payer,
                )
        case RemoveExtra(extra=extra_id):
            old = state.extra(extra_id)
            if old is not None:
                extras = tuple(e for e in state.extras if e.id != extra_id)
                return _one(
                    replace(state, extras=extras), "extra_removed", extra=extra_id, kind=old.kind
                )
        case ConfirmTrip() if state.status == "planning":
            return _one(replace(state, status="confirmed"), "confirmed")
        case CancelTrip() if state.status not in _TERMINAL:
            return _one(
                replace(state, status="cancelled"), "cancelled", previous_status=state.status
            )
    return Execution(state=state, events=())


def _as_trip_command(command: Command) -> TripCommand:
    # The alias is a union built once (``A | B`` written here would build it per call).
    if isinstance(command, TripCommand):
        return command
    raise UsageError(f"not a trip command: {command!r}")


class TripWorkflow(Workflow[TripState]):
    """The ``trip`` workflow, on the authoring kit's ``Workflow`` base.

    See docs/samples/travel.md "trip".

    Offers, policies, validation, terminal phases and the selection and no-candidate
    sentences come from the tables (docs/authoring.md); written here: the specs (with
    their descriptions), the state's JSON, the view's obligations, the command building,
    the check, the transition, compilation's planned-hotel wording and the receipts.
    Pure and synchronous. Refusal codes: ``end_before_start``, ``date_in_past``,
    ``second_hotel``, ``payer_not_traveler``, ``dates_locked``, ``trip_closed``,
    ``obligations_open``, ``unknown_extra``, ``invalid_kind``, ``invalid_nights``,
    ``already_started``, ``not_created``, ``missing_argument``, ``invalid_value``.
    """

    name = "trip"
    version = "trip/1"
    state_type = TripState
    locales = (copy.EN, copy.PT)
    table = TRIP_TABLE
    offers = _OFFERED
    terminal = _TERMINAL
    extra_events = ("trip.completed",)
    words = copy.table(
        {
            "select": "select.trip",
            "label.absent": "label.absent.trip",
            "no_candidate": "no_candidate.trip",
        }
    )

    def operations(self) -> tuple[OperationSpec, ...]:
        """Return the ten trip operations (docs/samples/travel.md table order)."""
        return TRIP_OPERATIONS

    def load_state(self, data: JSONObject) -> TripState:
        """Return the typed state for ``data``; raises ``ValueError`` when malformed.

        See docs/architecture.md "Workflows".
        """
        return load_trip(data)

    def dump_state(self, state: TripState) -> JSONObject:
        """Return ``state`` as JSON; ``load_state(dump_state(s)) == s``.

        See docs/architecture.md "Workflows" erased boundary.
        """
        return dump_trip(state)

    def project(self, state: TripState | None, today: date) -> WorkflowView:
        """Return the view: one phase, stable obligations, an outcome only when terminal (I3).

        ``today`` is unused: a trip's phase is a function of its persisted status alone.
        """
        if state is None:
            return WorkflowView(
                workflow="trip",
                version=self.version,
                phase="new",
                obligations=trip_obligations(None),
                exists=False,
            )
        outcome = Outcome(code=state.status) if state.status in _TERMINAL else None
        return WorkflowView(
            workflow="trip",
            version=self.version,
            phase=state.status,
            obligations=trip_obligations(state),
            outcome=outcome,
        )

    def compile_refusal(self, refused: Refused, request: CompileRequest[TripState]) -> Refusal:
        """Return the refusal of a compilation in ``request.locale``.

        A hotel only planned earlier in this turn (ADR 0004) is not one the trip "already
        has": ``second_hotel`` then reads its ``planned`` wording.
        """
        stored = request.state.hotel if request.state is not None else None
        variant = "planned" if refused.code == "second_hotel" and stored is None else None
        return refusal(refused, request.locale, variant=variant)

    def find_parts(
        self,
        state: TripState | None,
        operation: OperationSpec,
        argument: ArgumentSpec,
        words: str,
        locale: str,
    ) -> tuple[PartCandidate, ...] | Refusal:
        """Return the extras the user's ``words`` name ("the hotel", "E1", "Hotel Avenida").

        An extra is named by its id, or by words that all appear in its kind (English or
        Portuguese) and details; articles and the word "extra" are ignored, so "the
        extra" names every extra. Several extras go on a choice card, none is refused
        with ``no_such_extra`` in ``locale``
        (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).
        """
        if state is None:
            return refusal(Rejected("not_created"), locale)
        named = extra_id(words)
        wanted = [t for t in _tokens(words) if t not in _IGNORED]
        found = [e for e in state.extras if _names_extra(e, named, wanted)]
        if not found:
            return refusal(Rejected("no_such_extra", trip=state.name), locale)
        return tuple(PartCandidate(id=e.id, label=_extra_label(e, locale)) for e in found)

    def build(self, request: CompileRequest[TripState]) -> Command:
        """Return the command of ``request`` (extras named ``E1``/``1``, kinds any case)."""
        return build_trip_command(request.operation.key, request.values)

    def check(self, state: TripState | None, command: Command, today: date) -> None:
        """Raise :class:`Rejected` when ``command`` may not apply to ``state`` (docs/authoring.md#compile)."""
        _check(state, _as_trip_command(command), today)

    def refusal(self, refused: Refused, locale: str) -> Refusal:
        """Return the refusal worded by the sample's ``copy`` (en or pt-PT)."""
        return refusal(refused, locale)

    def execute(
        self, state: TripState | None, command: Command, ctx: ExecutionContext
    ) -> Execution[TripState]:
        """Apply ``command`` purely; events name the trip so receipts stand alone (I15).

        Raises:
            UsageError: for a foreign command, or a non-creating one on an absent trip.
        """
        return _transition(state, _as_trip_command(command))

    def complete(self, state: TripState, today: date) -> Execution[TripState]:
        """System trigger: a confirmed trip whose end date is before ``today`` completes.

        The event is ``trip.completed`` (operation ``trip.complete``, which no act can name:
        the origin is a policy decision, I4).

        Raises:
            TransitionRefused: (a ``ValueError``) with code ``not_finished`` otherwise.
        """
        if state.status != "confirmed" or state.end is None or state.end >= today:
            raise TransitionRefused(
                refusal(
                    Rejected("not_finished", trip=state.name, trip_status=state.status), copy.EN
                )
            )
        return _one(replace(state, status="completed"), "completed")

    def render_receipt(
        self, event: DomainEvent, state: TripState | None, locale: str
    ) -> str | None:
        """Return the receipt for a trip event in ``locale`` (en or pt-PT), from its data (I15)."""
        data, kind = event.data, event.type.removeprefix("trip.")
        params: dict[str, object] = {k: v for k, v in data.items() if v is not None}
        if kind in ("started", "dates_changed"):
            params["dates"] = copy.fmt_range(
                locale, _date(data.get("start")), _date(data.get("end"))
            )
        if "kind" in params:
            params["kind"] = copy.kind_name(locale, str(params["kind"]))
        if kind == "traveler_added":
            params["travelers"] = copy.count(locale, "traveler", int(str(data["travelers"])))
        if kind == "hotel_booked":
            params["nights"] = copy.count(locale, "night", int(str(data["nights"])))
        if kind in ("extra_added", "extra_payer_set"):
            payer = data.get("payer")
            if payer is not None:
                kind += ".company" if payer == COMPANY else ".traveler"
        key = f"trip.{kind}"
        return copy.text(locale, key, **params) if copy.has(key) else None

    def candidate_label(self, case: CaseRef, state: TripState | None, locale: str) -> str:
        """Return ``"Lisbon · 12–15 May 2026 · planning"`` (+ destination when it differs).

        See ADR 0001.
        """
        if state is None:
            return copy.text(locale, "label.absent.trip")
        return _label(state.name, state.destination, state.start, state.end, state.status, locale)

    def search_text(self, state: TripState) -> str:
        """Return the name, destination and the months/years of the dates (en and pt).

        See docs/architecture.md "One turn" step 6.
        """
        words = [state.name]
        if state.destination:
            words.append(state.destination)
        for day in dict.fromkeys(d for d in (state.start, state.end) if d is not None):
            words.extend(_month_words(day))
        return " ".join(dict.fromkeys(words))

    def glossary(self, locale: str) -> dict[str, str]:
        """Return what this workflow's words mean in ``locale`` (optional hook; ``glossary.py``)."""
        return glossary_of("trip", locale)

    def briefing(self, view: WorkflowView) -> str:
        """Return server-authored guidance for the view's phase and obligations.

        See docs/architecture.md "One turn" step 3.
        """
        text = _BRIEFINGS.get(view.phase, "")
        if view.obligations:
            text += (
                " Still open: "
                + copy.join(
                    copy.EN, [copy.obligation_words(copy.EN, o.id) for o in view.obligations]
                )
                + "."
            )
        return text

    def ask_obligation(self, view: WorkflowView, obligation: Obligation, locale: str) -> str:
        """Return the question that discharges ``obligation`` (en or pt-PT).

        See docs/architecture.md "Claims", "What you write".
        """
        if obligation.kind in ("dates", "travelers"):
            return copy.text(locale, f"ask.{obligation.kind}")
        if obligation.kind == "payer":
            return copy.text(locale, "ask.payer", extra=obligation.params.get("extra", ""))
        return copy.text(locale, "ask.obligation", obligation=obligation.id)

    def ask_argument(self, operation: OperationSpec, argument: ArgumentSpec, locale: str) -> str:
        """Return the question for a missing argument value (en or pt-PT).

        See docs/architecture.md "Claims".
        """
        return ask_argument(argument, locale)

    def render_command(
        self,
        state: TripState | None,
        command: Command,
        locale: str,
        labels: Mapping[CaseRef, str],
    ) -> CommandText:
        """Return ``command`` as a card shows it: ``"Book hotel Avenida for 3 nights"`` (ADR 0003).

        An extra is named by its kind and id (``"hotel (E1)"``) from ``state``; a traveler
        by its candidate label from ``labels``.
        """
        trip = _as_trip_command(command)
        data = trip.to_json()
        shown: dict[str, str] = {}
        extra = data.get("extra")
        if isinstance(extra, str) and state is not None:
            found = next((e for e in state.extras if e.id == extra), None)
            if found is not None:
                shown["extra"] = f"{copy.kind_name(locale, found.kind)} ({found.id})"
        name = state.name if state is not None else str(data.get("name") or "")
        return command_text(locale, data, trip.operation, labels, shown=shown, trip=name)


_IGNORED = frozenset(
    "the a an my our this that extra o os as um uma de do da dos das meu minha nosso nossa".split()
)


def _tokens(words: str) -> list[str]:
    return [t for w in words.split() if (t := w.strip(".,;:!?\"'()").casefold())]


def _names_extra(extra: Extra, named: str | None, wanted: list[str]) -> bool:
    """Return whether the words name ``extra``: its id, or words all found in its description.

    ``named`` is ``extra_id`` of the words and ``wanted`` their tokens less the ignored
    ones, both read once for every extra of the trip.
    """
    if named == extra.id:
        return True
    known = _extra_tokens(extra.kind, extra.details, extra.id)
    return all(t in known for t in wanted)


@lru_cache(maxsize=1024)
def _extra_tokens(kind: str, details: str | None, extra_id: str) -> frozenset[str]:
    """The words that describe an extra: its kind's, its details' and its id (pure; memoised on them)."""
    return frozenset((*_kind_tokens(kind), *_tokens(details or ""), extra_id.casefold()))


@lru_cache(maxsize=256)
def _month_words(day: date) -> tuple[str, str]:
    """The month words of ``day``: English month and year, Portuguese month ("May 2026", "maio")."""
    return (
        copy.fmt_date(copy.EN, day).split(" ", 1)[1],
        copy.fmt_date(copy.PT, day).split(" de ")[1],
    )


@lru_cache(maxsize=64)
def _kind_tokens(kind: str) -> frozenset[str]:
    """The tokens of a kind and of its English and Portuguese names (fixed words)."""
    return frozenset(
        (
            *_tokens(kind),
            *_tokens(copy.kind_name(copy.EN, kind)),
            *_tokens(copy.kind_name(copy.PT, kind)),
        )
    )


@lru_cache(maxsize=1024)
def _label(
    name: str,
    destination: str | None,
    start: date | None,
    end: date | None,
    status: str,
    locale: str,
) -> str:
    """The candidate label of a trip with these fields (pure; memoised on them)."""
    dates = copy.fmt_range(locale, start, end)
    words = copy.status_name(locale, status)
    if destination and destination.lower() != name.lower():
        return copy.text(
            locale,
            "label.trip.destination",
            trip=name,
            destination=destination,
            dates=dates,
            status=words,
        )
    return copy.text(locale, "label.trip", trip=name, dates=dates, status=words)


def _extra_label(extra: Extra, locale: str) -> str:
    kind = copy.kind_name(locale, extra.kind)
    if extra.details:
        return copy.text(locale, "label.extra", kind=kind, details=extra.details, extra=extra.id)
    return copy.text(locale, "label.extra.plain", kind=kind, extra=extra.id)


def _date(value: object) -> date | None:
    return date.fromisoformat(value) if isinstance(value, str) else None


_BRIEFINGS = {
    "new": "This trip does not exist yet; trip.start creates it with a name and, optionally, "
    "a destination and dates.",
    "planning": "This trip is being planned: its name, dates, travelers and extras can change. "
    "Extras are named the way the user names them (the hotel, the baggage); a payer is "
    "a traveler on the trip or the company. Booking a hotel, confirming and cancelling need a confirmation card.",
    "confirmed": "This trip is confirmed: its dates can no longer change, but travelers and "
    "extras can still be added. Cancelling needs a confirmation card.",
    "completed": "This trip is completed; it can't change any more, but questions about it "
    "can be answered.",
    "cancelled": "This trip is cancelled; it can't change any more, but questions about it "
    "can be answered.",
}
