"""The manifest workflow: a trip's passenger list, submitted to an airline.

See docs/architecture.md "Workflows", "Claims", "Stores".

The phase is the status, never collapsed (I19); ``issued`` and ``rejected`` are terminal
and carry that outcome. Passengers can change in ``draft`` and ``validated`` (a change
returns a validated manifest to draft). ``manifest.submit`` commits the status
``submitting`` together with an :class:`OutboxDraft` on topic ``airline.submit_manifest``;
what the airline says afterwards arrives through :meth:`ManifestWorkflow.external_update`,
a pure function the runtime calls for a verified callback or a timeout.

Submission is irreversible and external: policy asks for a Confirm card and claims only
the external status (``ClaimMode.EXTERNAL_STATUS``), and when a passenger is under 16 on
the trip's start date, for a Review card resolved by the ``agent`` role too (I17). How the
manifest knows birth dates and the start date is explained in ``manifest_model``.

No operation creates a manifest: manifests are created for a trip by the travel desk
(seeding), so an absent manifest (phase ``new``) offers nothing. ``manifest.submit`` stays
offered on a draft so the user hears the domain's ``not_validated`` refusal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import date

from turnframe.core import (
    ArgumentSpec,
    CaseRef,
    ClaimMode,
    Command,
    CommandPolicy,
    CommandText,
    ConfirmationRequirement,
    DomainEvent,
    EventDraft,
    Execution,
    ExecutionContext,
    JSONObject,
    Notice,
    OperationSpec,
    OutboxDraft,
    Outcome,
    Refusal,
    Refused,
    RiskClass,
    UsageError,
    Workflow,
    WorkflowView,
    to_json_value,
)
from turnframe.samples.travel import copy
from turnframe.samples.travel._common import (
    Rejected,
    TransitionRefused,
    ask_argument,
    command_text,
    refusal,
)
from turnframe.samples.travel.airlines import AIRLINES
from turnframe.samples.travel.glossary import glossary_of
from turnframe.samples.travel.manifest_model import (
    EXTERNAL_STATUSES,
    MANIFEST_TABLE,
    AddPassenger,
    ManifestCommand,
    ManifestState,
    ManifestStatus,
    RemovePassenger,
    SubmitManifest,
    ValidateManifest,
    dump_manifest,
    load_manifest,
)

__all__ = ["SUBMIT_TOPIC", "ManifestWorkflow"]

SUBMIT_TOPIC = "airline.submit_manifest"
"""The outbox topic of a manifest submission."""

_EDIT = ("manifest.add_passenger", "manifest.remove_passenger")
_OFFERED: dict[str, tuple[str, ...]] = {
    "draft": (*_EDIT, "manifest.validate", "manifest.submit"),
    "validated": (*_EDIT, "manifest.submit"),
}
_EDITABLE = ("draft", "validated")
_TERMINAL = ("issued", "rejected")
_RANK = {
    "submitting": 0,
    "submitted": 1,
    "received_by_intermediary": 2,
    "received_by_airline": 3,
    "accepted": 4,
    "rejected": 5,
    "issued": 5,
}


def _as_command(command: Command) -> ManifestCommand:
    if isinstance(command, ManifestCommand):
        return command
    raise UsageError(f"not a manifest command: {command!r}")


def _external_allowed(current: str, status: str) -> bool:
    """Return whether an external report may move ``current`` to ``status`` (I19)."""
    if status not in EXTERNAL_STATUSES or current in _TERMINAL:
        return False
    if current == "outcome_unknown":
        return status != "outcome_unknown"
    if current not in _RANK:
        return False
    return status == "outcome_unknown" or _RANK[status] > _RANK[current]


def _check(state: ManifestState | None, command: ManifestCommand, today: date) -> None:
    """Raise :class:`Rejected` when ``command`` may not apply to ``state`` on ``today``."""
    if state is None:
        raise Rejected("not_created")
    name, status = state.display, state.status
    if isinstance(command, SubmitManifest):
        if status == "draft":
            raise Rejected("not_validated", manifest=name, status=status)
        if status != "validated":
            raise Rejected("already_submitted", manifest=name, status=status)
    elif status not in _EDITABLE:
        raise Rejected("manifest_locked", manifest=name, status=status)
    elif isinstance(command, AddPassenger):
        if command.birth_date is not None and command.birth_date > today:
            raise Rejected("birth_date_in_future")
    elif isinstance(command, RemovePassenger):
        if command.traveler not in state.passengers:
            raise Rejected("not_a_passenger", manifest=name)
    elif not state.passengers:
        raise Rejected("no_passengers", manifest=name)


def _event(kind: str, state: ManifestState, operation: str, **data: object) -> EventDraft:
    payload: JSONObject = {
        "manifest": state.display,
        "airline": state.airline,
        "passengers": len(state.passengers),
    }
    payload.update({key: to_json_value(value) for key, value in data.items()})
    return EventDraft(type=f"manifest.{kind}", data=payload, operation=operation)


def _submission(state: ManifestState, case: CaseRef | None) -> OutboxDraft:
    born = state.passenger_birth_dates
    return OutboxDraft(
        topic=SUBMIT_TOPIC,
        payload={
            "manifest": None if case is None else str(case),
            "trip": str(state.trip),
            "trip_name": state.trip_name,
            "trip_start": to_json_value(state.trip_start),
            "airline": state.airline,
            "passengers": [
                {"traveler": str(p), "birth_date": to_json_value(born.get(p))}
                for p in state.passengers
            ],
        },
    )


def _transition(
    state: ManifestState | None, command: ManifestCommand, case: CaseRef | None = None
) -> Execution[ManifestState]:
    """Apply ``command`` purely; a command that changes nothing yields no event.

    Raises:
        UsageError: when the manifest is absent (no command creates one).
    """
    if state is None:
        raise UsageError(f"{command.operation} needs an existing manifest")
    op = command.operation
    if isinstance(command, AddPassenger | RemovePassenger):
        who, born = command.traveler, dict(state.passenger_birth_dates)
        if isinstance(command, AddPassenger) and who not in state.passengers:
            passengers = (*state.passengers, who)
            if command.birth_date is not None:
                born[who] = command.birth_date
        elif isinstance(command, RemovePassenger) and who in state.passengers:
            passengers = tuple(p for p in state.passengers if p != who)
            born.pop(who, None)
        else:
            return Execution(state=state, events=())
        new = replace(
            state,
            passengers=passengers,
            passenger_birth_dates=born,
            status="draft" if state.status in _EDITABLE else state.status,
        )
        kind = "passenger_added" if isinstance(command, AddPassenger) else "passenger_removed"
        return Execution(
            state=new,
            events=(
                _event(kind, new, op, traveler=who, back_to_draft=state.status == "validated"),
            ),
        )
    if isinstance(command, ValidateManifest) and state.status == "draft":
        new = replace(state, status="validated")
        return Execution(state=new, events=(_event("validated", new, op, status=new.status),))
    if isinstance(command, SubmitManifest) and state.status == "validated":
        new = replace(state, status="submitting")
        return Execution(
            state=new,
            events=(_event("submission_queued", new, op, status=new.status),),
            outbox=(_submission(new, case),),
        )
    return Execution(state=state, events=())


class ManifestWorkflow(Workflow[ManifestState]):
    """The ``manifest`` workflow, on the authoring kit's ``Workflow`` base (docs/authoring.md).

    The base compiles (replay, check, no-op), validates, offers and words the questions
    from the tables (docs/authoring.md); written here: the state's JSON, the notices of
    the view, the check, the transition, the minor's review policy, the external update
    and the computed receipts. Pure and synchronous. Refusal codes: ``not_created``,
    ``manifest_locked``, ``not_a_passenger``, ``no_passengers``, ``not_validated``,
    ``already_submitted``, ``birth_date_in_future``, ``invalid_transition``,
    ``missing_argument``, ``invalid_value``.
    """

    name = "manifest"
    version = "manifest/1"
    state_type = ManifestState
    locales = (copy.EN, copy.PT)
    table = MANIFEST_TABLE
    offers = _OFFERED
    terminal = _TERMINAL
    extra_events = ("manifest.status_changed",)
    words = copy.table(
        {
            "select": "select.manifest",
            "label.absent": "label.absent.manifest",
            "ask.obligation": "ask.obligation",
            "no_candidate": "no_candidate.manifest",
        }
    )
    timeout_status: str = "outcome_unknown"
    """The status :meth:`external_update` is given when the airline never answers (a
    scenario's ``external: {timeout: true}``; docs/scenario-format.md)."""
    external_source: str = "airline"
    """The external system whose reports :meth:`external_update` applies (the commit's source)."""

    def load_state(self, data: JSONObject) -> ManifestState:
        """Return the typed state for ``data``; raises ``ValueError`` when malformed.

        See docs/architecture.md "Workflows".
        """
        return load_manifest(data)

    def dump_state(self, state: ManifestState) -> JSONObject:
        """Return ``state`` as JSON; ``load_state(dump_state(s)) == s``.

        See docs/architecture.md "Workflows" erased boundary.
        """
        return dump_manifest(state)

    def project(self, state: ManifestState | None, today: date) -> WorkflowView:
        """Return the view: phase = status (never collapsed), outcome only when terminal (I3).

        Notices: ``manifest.minor_needs_review`` (``{"minors": n}``) and
        ``manifest.birth_date_unknown`` (``{"passengers": n}``) and
        ``manifest.trip_start_unknown`` while passengers can change;
        ``manifest.reconciliation_pending`` in ``outcome_unknown``.
        """
        if state is None:
            return WorkflowView(
                workflow="manifest", version=self.version, phase="new", exists=False
            )
        notices: list[Notice] = []
        if state.status in _EDITABLE:
            if state.minors:
                notices.append(
                    Notice(code="manifest.minor_needs_review", params={"minors": len(state.minors)})
                )
            if state.passengers and state.trip_start is None:
                notices.append(Notice(code="manifest.trip_start_unknown"))
            if state.unknown_ages:
                notices.append(
                    Notice(
                        code="manifest.birth_date_unknown",
                        params={"passengers": len(state.unknown_ages)},
                    )
                )
        if state.status == "outcome_unknown":
            notices.append(Notice(code="manifest.reconciliation_pending"))
        outcome = Outcome(code=state.status) if state.status in _TERMINAL else None
        return WorkflowView(
            workflow="manifest",
            version=self.version,
            phase=state.status,
            notices=tuple(notices),
            outcome=outcome,
        )

    def policy(self, state: ManifestState | None, command: Command) -> CommandPolicy:
        """Return low risk, or for ``manifest.submit`` irreversible + Confirm + external (I17).

        See docs/architecture.md "Commands".

        ``review_role="agent"`` when a passenger is under 16 on the trip's start date.
        """
        if command.operation != "manifest.submit":
            return CommandPolicy(risk=RiskClass.LOW)
        return CommandPolicy(
            risk=RiskClass.IRREVERSIBLE,
            confirmation=ConfirmationRequirement.CONFIRM,
            review_role="agent" if state is not None and state.minors else None,
            claim_mode=ClaimMode.EXTERNAL_STATUS,
        )

    def check(self, state: ManifestState | None, command: Command, today: date) -> None:
        """Raise :class:`Rejected` when ``command`` may not apply to ``state`` (docs/authoring.md#compile)."""
        _check(state, _as_command(command), today)

    def refusal(self, refused: Refused, locale: str) -> Refusal:
        """Return the refusal worded by the sample's ``copy`` (en or pt-PT; docs/authoring.md#compile)."""
        return refusal(refused, locale)

    def execute(
        self, state: ManifestState | None, command: Command, ctx: ExecutionContext
    ) -> Execution[ManifestState]:
        """Apply ``command`` purely; ``submit`` also returns the airline outbox draft.

        See docs/architecture.md "Stores".

        Raises:
            UsageError: for a foreign command or an absent manifest.
        """
        return _transition(state, _as_command(command), ctx.case)

    def external_update(
        self, state: ManifestState, status: str, *, reference: str = ""
    ) -> Execution[ManifestState]:
        """Apply what the airline reported (``outcome_unknown``: a timeout), purely (I19).

        Statuses only move forward (``submitting`` < ``submitted`` <
        ``received_by_intermediary`` < ``received_by_airline`` < ``accepted`` <
        ``issued``/``rejected``; steps may be skipped). ``outcome_unknown`` is reachable
        from any transmitted, non-terminal status, and reconciliation moves it to any
        external status. The event is ``manifest.status_changed`` with ``from``,
        ``status`` and ``reference``; its operation is ``manifest.submit``.

        Args:
            state: the manifest's state.
            status: one of :data:`EXTERNAL_STATUSES`.
            reference: the external reference the callback carried.

        Returns:
            The execution: the new status and its one event.

        Raises:
            TransitionRefused: (a ``ValueError``) with refusal code ``invalid_transition``
                and an English sentence, for an unknown status, a manifest never
                transmitted, a terminal one, the same status again, or a step back.
        """
        current = state.status
        if not _external_allowed(current, status):
            raise TransitionRefused(
                refusal(
                    Rejected(
                        "invalid_transition",
                        manifest=state.display,
                        from_status=current,
                        status=status,
                    ),
                    copy.EN,
                )
            )
        new_status: ManifestStatus = next(s for s in EXTERNAL_STATUSES if s == status)
        new = replace(state, status=new_status)
        event = _event(
            "status_changed",
            new,
            "manifest.submit",
            reference=reference,
            status=new_status,
            **{"from": current},
        )
        return Execution(state=new, events=(event,))

    def render_receipt(
        self, event: DomainEvent, state: ManifestState | None, locale: str
    ) -> str | None:
        """Return the receipt for a manifest event in ``locale``, from its data only (I15, I19).

        ``submission_queued`` says the submission was queued (status submitting), never
        that it was sent or accepted; ``status_changed`` names the exact status.
        """
        data, kind = event.data, event.type.removeprefix("manifest.")
        count = copy.count(locale, "passenger", int(str(data.get("passengers", 0))))
        params = {"manifest": data.get("manifest"), "airline": data.get("airline"), "count": count}
        if kind == "status_changed":
            status = str(data.get("status"))
            if status == "outcome_unknown":
                return copy.text(locale, "manifest.outcome_unknown", **params)
            return copy.text(
                locale, "manifest.status_changed", **params, status=copy.status_name(locale, status)
            )
        if kind not in ("passenger_added", "passenger_removed", "validated", "submission_queued"):
            return None
        text = copy.text(locale, f"manifest.{kind}", **params)
        if data.get("back_to_draft"):
            text += copy.text(locale, "manifest.back_to_draft")
        return text

    def candidate_label(self, case: CaseRef, state: ManifestState | None, locale: str) -> str:
        """Return ``"Manifest TP · Lisbon · draft"`` (trip name when known; ADR 0001 labels)."""
        if state is None:
            return copy.text(locale, "label.absent.manifest")
        status = copy.status_name(locale, state.status)
        if state.trip_name:
            return copy.text(
                locale, "label.manifest", airline=state.airline, trip=state.trip_name, status=status
            )
        return copy.text(locale, "label.manifest.no_trip", airline=state.airline, status=status)

    def search_text(self, state: ManifestState) -> str:
        """Return the airline's code and name and the trip's name, when known.

        See docs/architecture.md "One turn" step 6.
        """
        airline = AIRLINES.get(state.airline)
        words = (state.airline, airline.name if airline else None, state.trip_name)
        return " ".join(w for w in words if w)

    def glossary(self, locale: str) -> dict[str, str]:
        """Return what this workflow's words mean in ``locale`` (optional hook; ``glossary.py``)."""
        return glossary_of("manifest", locale)

    def briefing(self, view: WorkflowView) -> str:
        """Return server-authored guidance for the view's phase (no user text).

        See docs/architecture.md "One turn" step 3.
        """
        if view.phase in _BRIEFINGS:
            return _BRIEFINGS[view.phase]
        return (
            f"This manifest was handed to the airline; its external status is {view.phase}. "
            "It can't change in conversation, and its status must be reported exactly, "
            "never as done."
        )

    def ask_argument(self, operation: OperationSpec, argument: ArgumentSpec, locale: str) -> str:
        """Return the question for a missing argument value (en or pt-PT).

        See docs/architecture.md "Claims".
        """
        return ask_argument(argument, locale)

    def render_command(
        self,
        state: ManifestState | None,
        command: Command,
        locale: str,
        labels: Mapping[CaseRef, str],
    ) -> CommandText:
        """Return ``command`` as a card shows it, airline and passengers named (ADR 0003).

        ``"Submit the manifest to airline TP with 2 passengers: Ana Costa (born 1985) and
        Rui Lopes (born 2012)"``: passengers are named by the labels the turn loaded.
        """
        manifest = _as_command(command)
        passengers = state.passengers if state is not None else ()
        names = [labels[p] for p in passengers if p in labels]
        counted = copy.count(locale, "passenger", len(passengers))
        words = (
            copy.text(
                locale, "card.passengers.named", count=counted, names=copy.join(locale, names)
            )
            if names and len(names) == len(passengers)
            else counted
        )
        airline = state.airline if state is not None else ""
        return command_text(
            locale,
            manifest.to_json(),
            manifest.operation,
            labels,
            airline=airline,
            passengers=words,
        )


_BRIEFINGS = {
    "new": "This manifest does not exist yet; manifests are created for a trip by the travel "
    "desk, not in conversation.",
    "draft": "This passenger manifest is a draft: passengers can be added or removed, and it "
    "must be validated before it is submitted to the airline.",
    "validated": "This manifest is validated and can be submitted to the airline. Submitting "
    "is irreversible and needs a confirmation card, plus an agent's review when a "
    "passenger is under 16. Changing passengers returns it to draft.",
    "submitting": "This manifest's submission is queued for the airline; the airline has "
    "confirmed nothing yet. It can't change; never describe it as sent.",
    "outcome_unknown": "The transmission of this manifest timed out; its outcome is unknown "
    "and reconciliation is pending. Never describe it as sent or accepted.",
}
