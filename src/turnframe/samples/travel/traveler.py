"""The traveler workflow (travel-sample.md §traveler, guide §4, §13).

State JSON: ``{"full_name", "birth_date": ISO date | null, "email": str | null,
"status": "active" | "deleted"}``. Phases: ``active`` and ``deleted``; deletion is a status
and the row stays (§13: removal is a status, never an absence), so ``deleted`` is terminal
and carries the outcome ``deleted``. A named-but-not-created traveler projects to phase
``new`` (``exists=False``) and offers only ``traveler.register``.

Candidate labels tell homonyms apart by birth year, or by email when the birth date is
unknown (the label sees only this case's state, so a traveler's trips cannot be listed).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache
from typing import Literal, TypeAlias, cast

from turnframe.core import (
    Actor,
    ArgumentKind,
    ArgumentSpec,
    CaseRef,
    Command,
    CommandPolicy,
    CommandText,
    Compiled,
    CompileRequest,
    ConfirmationRequirement,
    DomainEvent,
    EventDraft,
    Execution,
    ExecutionContext,
    JSONObject,
    Obligation,
    OperationSpec,
    Outcome,
    Refusal,
    RiskClass,
    UsageError,
    WorkflowView,
    to_json_value,
)
from turnframe.samples.travel import copy
from turnframe.samples.travel._common import (
    LOW_RISK,
    Rejected,
    TravelCommand,
    arg,
    ask_argument,
    command_text,
    confirmed,
    date_from_json,
    date_value,
    localized,
    no_candidate,
    refusal,
    text_value,
)
from turnframe.samples.travel.glossary import glossary_of

__all__ = [
    "TRAVELER_OPERATIONS",
    "DeleteTraveler",
    "RegisterTraveler",
    "TravelerCommand",
    "TravelerState",
    "TravelerStatus",
    "TravelerWorkflow",
    "UpdateTravelerEmail",
]

TravelerStatus: TypeAlias = Literal["active", "deleted"]
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


@dataclass(frozen=True, slots=True, kw_only=True)
class TravelerState:
    """A traveler's persisted state (§13: deletion is a status).

    Attributes:
        full_name: the full name; homonyms are allowed.
        birth_date: the birth date, if known (decides whether a passenger is a minor).
        email: the email address, if known.
        status: ``active``, or ``deleted`` (terminal; the row stays).
    """

    full_name: str
    birth_date: date | None = None
    email: str | None = None
    status: TravelerStatus = "active"


@dataclass(frozen=True, slots=True, kw_only=True)
class RegisterTraveler(TravelCommand):
    """``traveler.register``: create the traveler (low risk, creates the case; §7)."""

    OPERATION = "traveler.register"
    full_name: str
    birth_date: date | None = None
    email: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class UpdateTravelerEmail(TravelCommand):
    """``traveler.update_email``: set the email address (low risk; §7)."""

    OPERATION = "traveler.update_email"
    email: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DeleteTraveler(TravelCommand):
    """``traveler.delete``: move the traveler to status ``deleted`` (destructive, confirm; §7)."""

    OPERATION = "traveler.delete"


TravelerCommand: TypeAlias = RegisterTraveler | UpdateTravelerEmail | DeleteTraveler
"""Every command the traveler workflow compiles and executes."""

TRAVELER_OPERATIONS: tuple[OperationSpec, ...] = (
    OperationSpec(
        key="traveler.register",
        policy=LOW_RISK,
        workflow="traveler",
        creates_case=True,
        summary="Register a new traveler.",
        summaries=localized("Register a new traveler.", "Registar um novo viajante."),
        arguments=(
            arg(
                "full_name",
                required=True,
                description="the traveler's full name",
                names_record=True,
            ),
            arg("birth_date", ArgumentKind.DATE, description="the traveler's birth date"),
            arg("email", ArgumentKind.EMAIL, description="the traveler's email address"),
        ),
    ),
    OperationSpec(
        key="traveler.update_email",
        policy=LOW_RISK,
        workflow="traveler",
        summary="Change the traveler's email address.",
        summaries=localized(
            "Change the traveler's email address.", "Alterar o endereço de email do viajante."
        ),
        arguments=(
            arg("email", ArgumentKind.EMAIL, required=True, description="the new email address"),
        ),
    ),
    OperationSpec(
        key="traveler.delete",
        policy=confirmed(RiskClass.DESTRUCTIVE),
        workflow="traveler",
        summary="Delete the traveler.",
        summaries=localized("Delete the traveler.", "Eliminar o viajante."),
    ),
)
"""The traveler's operations (travel-sample.md table order)."""

_OFFERED = {
    "new": ("traveler.register",),
    "active": ("traveler.update_email", "traveler.delete"),
    "deleted": (),
}
_EVENTS = {
    RegisterTraveler: "registered",
    UpdateTravelerEmail: "email_updated",
    DeleteTraveler: "deleted",
}
_BRIEFINGS = {
    "new": "This traveler is not registered yet; traveler.register creates the record with a "
    "full name and, optionally, a birth date and an email address.",
    "active": "This traveler is registered; the email address can change. Deleting keeps the "
    "record with status Deleted and needs a confirmation card.",
    "deleted": "This traveler was deleted; the record stays with status Deleted and can't "
    "change any more, but questions about it can be answered.",
}


def _as_command(command: Command) -> TravelerCommand:
    if isinstance(command, RegisterTraveler | UpdateTravelerEmail | DeleteTraveler):
        return command
    raise UsageError(f"not a traveler command: {command!r}")


def _check(state: TravelerState | None, command: TravelerCommand, today: date) -> None:
    """Raise :class:`Rejected` when ``command`` may not apply to ``state`` on ``today``."""
    if isinstance(command, RegisterTraveler):
        if state is not None:
            raise Rejected("already_registered")
        if command.birth_date is not None and command.birth_date > today:
            raise Rejected("birth_date_in_future")
    elif state is None:
        raise Rejected("not_created")
    elif state.status == "deleted":
        raise Rejected("traveler_deleted", name=state.full_name)
    email = getattr(command, "email", None)
    if email is not None and not _EMAIL.fullmatch(email):
        raise Rejected("invalid_email", email=email)


def _transition(state: TravelerState | None, command: TravelerCommand) -> Execution[TravelerState]:
    if isinstance(command, RegisterTraveler):
        new = TravelerState(
            full_name=command.full_name, birth_date=command.birth_date, email=command.email
        )
        data: JSONObject = {
            "name": new.full_name,
            "birth_date": to_json_value(new.birth_date),
            "email": new.email,
        }
    elif state is None:
        raise UsageError(f"{command.operation} needs an existing traveler")
    elif isinstance(command, UpdateTravelerEmail) and command.email != state.email:
        new = replace(state, email=command.email)
        data = {"name": new.full_name, "email": command.email, "previous": state.email}
    elif isinstance(command, DeleteTraveler) and state.status != "deleted":
        new = replace(state, status="deleted")
        data = {"name": new.full_name}
    else:
        return Execution(state=state, events=())
    event = EventDraft(
        type=f"traveler.{_EVENTS[type(command)]}", data=data, operation=command.operation
    )
    return Execution(state=new, events=(event,))


class TravelerWorkflow:
    """The ``traveler`` workflow; implements ``WorkflowDefinition[TravelerState]`` (§4, §13).

    Pure and synchronous. Refusal codes: ``already_registered``, ``not_created``,
    ``traveler_deleted``, ``invalid_email``, ``birth_date_in_future``,
    ``missing_argument``, ``invalid_value``.
    """

    locales: tuple[str, ...] = (copy.EN, copy.PT)
    """The locales every code-written sentence of the workflow exists in (§Localisation)."""

    @property
    def name(self) -> str:
        """``"traveler"`` (the registry key, §4)."""
        return "traveler"

    @property
    def version(self) -> str:
        """The projection version (guide §4)."""
        return "traveler/1"

    def operations(self) -> tuple[OperationSpec, ...]:
        """Return the three traveler operations (the closed vocabulary, I2)."""
        return TRAVELER_OPERATIONS

    def load_state(self, data: JSONObject) -> TravelerState:
        """Return the typed state for ``data`` (§4).

        Raises:
            ValueError: for a missing name, an unknown status, or a malformed date/email.
        """
        name, status, email = data.get("full_name"), data.get("status", "active"), data.get("email")
        if not isinstance(name, str) or status not in ("active", "deleted"):
            raise ValueError(f"not a traveler state: {data!r}")
        if email is not None and not isinstance(email, str):
            raise ValueError(f"email must be text or null, not {email!r}")
        return TravelerState(
            full_name=name,
            birth_date=date_from_json(data.get("birth_date")),
            email=email,
            status=cast(TravelerStatus, status),
        )

    def dump_state(self, state: TravelerState) -> JSONObject:
        """Return ``state`` as JSON; ``load_state(dump_state(s)) == s`` (§4 erased boundary)."""
        return cast(JSONObject, to_json_value(state))

    def project(self, state: TravelerState | None, today: date) -> WorkflowView:
        """Return the view: phase = status, outcome ``deleted`` only when deleted (I3)."""
        if state is None:
            return WorkflowView(
                workflow="traveler", version=self.version, phase="new", exists=False
            )
        outcome = Outcome(code="deleted") if state.status == "deleted" else None
        return WorkflowView(
            workflow="traveler", version=self.version, phase=state.status, outcome=outcome
        )

    def offered(self, view: WorkflowView, actor: Actor) -> tuple[str, ...]:
        """Return ``register`` before creation, email and delete while active, else none (I2)."""
        return _OFFERED.get(view.phase, ())

    def compile(self, request: CompileRequest[TravelerState]) -> Compiled | Refusal:
        """Compile an act into at most one command, or refuse it in ``request.locale`` (§2.5, I10).

        Setting the email it already has compiles to no commands.

        Raises:
            UsageError: for an operation the traveler does not register.
        """
        values, key = request.values, request.operation.key
        command: TravelerCommand
        try:
            if key == "traveler.register":
                command = RegisterTraveler(
                    full_name=text_value(values, "full_name", required=True) or "",
                    birth_date=date_value(values, "birth_date"),
                    email=text_value(values, "email"),
                )
            elif key == "traveler.update_email":
                command = UpdateTravelerEmail(
                    email=text_value(values, "email", required=True) or ""
                )
            elif key == "traveler.delete":
                command = DeleteTraveler()
            else:
                raise UsageError(f"the traveler workflow has no operation {key!r}")
            state = request.state
            for prior in request.prior:
                if state is not None or isinstance(prior, RegisterTraveler):
                    state = _transition(state, _as_command(prior)).state
            _check(state, command, request.today)
        except Rejected as rejected:
            return refusal(rejected, request.locale)
        if state is not None and not _transition(state, command).events:
            return Compiled()
        return Compiled(commands=(command,))

    def terminal_phases(self) -> tuple[str, ...]:
        """Return the traveler's terminal phases: never a mutation's target or argument."""
        return ("deleted",)

    def no_candidate(
        self, operation: OperationSpec, argument: ArgumentSpec | None, locale: str
    ) -> str:
        """Return the sentence for travelers named that ``operation`` does not fit (en or pt-PT)."""
        return no_candidate("traveler", operation, argument, locale)

    def policy(self, state: TravelerState | None, command: Command) -> CommandPolicy:
        """Return low risk, or destructive with a Confirm card for ``traveler.delete`` (§7)."""
        if command.operation == "traveler.delete":
            return CommandPolicy(
                risk=RiskClass.DESTRUCTIVE, confirmation=ConfirmationRequirement.CONFIRM
            )
        return CommandPolicy(risk=RiskClass.LOW)

    def validate(
        self, state: TravelerState | None, command: Command, today: date, locale: str = copy.EN
    ) -> Refusal | None:
        """Re-check ``command`` against ``state`` now; the sentence is in ``locale`` (§7)."""
        try:
            _check(state, _as_command(command), today)
        except Rejected as rejected:
            return refusal(rejected, locale)
        return None

    def execute(
        self, state: TravelerState | None, command: Command, ctx: ExecutionContext
    ) -> Execution[TravelerState]:
        """Apply ``command`` purely (events carry the name so receipts stand alone; I15).

        Raises:
            UsageError: for a foreign command, or a non-creating one on an absent traveler.
        """
        return _transition(state, _as_command(command))

    def render_receipt(
        self, event: DomainEvent, state: TravelerState | None, locale: str
    ) -> str | None:
        """Return the receipt for a traveler event in ``locale`` (en or pt-PT; I15)."""
        key = event.type
        if key not in ("traveler.registered", "traveler.email_updated", "traveler.deleted"):
            return None
        return copy.text(locale, key, **event.data)

    def candidate_label(self, case: CaseRef, state: TravelerState | None, locale: str) -> str:
        """Return ``"Ana Costa (born 1985)"``; email stands in for an unknown birth date (ADR)."""
        if state is None:
            return copy.text(locale, "label.absent.traveler")
        year = state.birth_date.year if state.birth_date is not None else None
        return _label(state.full_name, year, state.email, state.status, locale)

    def search_text(self, state: TravelerState) -> str:
        """Return the full name and the email address, if any (§2.6 ``CaseDirectory.find``)."""
        return " ".join(w for w in (state.full_name, state.email) if w)

    def glossary(self, locale: str) -> dict[str, str]:
        """Return what this workflow's words mean in ``locale`` (optional hook; ``glossary.py``)."""
        return glossary_of("traveler", locale)

    def briefing(self, view: WorkflowView) -> str:
        """Return server-authored guidance for the view's phase (no user text; §2.3)."""
        return _BRIEFINGS.get(view.phase, "")

    def ask_obligation(self, view: WorkflowView, obligation: Obligation, locale: str) -> str:
        """Return a generic question; the traveler workflow declares no obligations (§13)."""
        return copy.text(locale, "ask.obligation", obligation=obligation.id)

    def ask_argument(self, operation: OperationSpec, argument: ArgumentSpec, locale: str) -> str:
        """Return the question for a missing argument value (en or pt-PT; §9)."""
        return ask_argument(argument, locale)

    def render_command(
        self,
        state: TravelerState | None,
        command: Command,
        locale: str,
        labels: Mapping[CaseRef, str],
    ) -> CommandText:
        """Return ``command`` as a card shows it: ``"Delete traveler Ana Costa"`` (D2)."""
        traveler = _as_command(command)
        name = state.full_name if state is not None else ""
        return command_text(locale, traveler.to_json(), traveler.operation, labels, name=name)

    def select_prompt(
        self, operation: OperationSpec, argument: ArgumentSpec | None, locale: str
    ) -> str:
        """Return the question of a selection card offering travelers, in ``locale`` (ADR)."""
        return copy.text(locale, "select.traveler")


@lru_cache(maxsize=1024)
def _label(full_name: str, year: int | None, email: str | None, status: str, locale: str) -> str:
    """The candidate label of a traveler with these fields (pure; memoised on them)."""
    details = []
    if year is not None:
        details.append(copy.text(locale, "label.born", year=year))
    elif email:
        details.append(email)
    if status == "deleted":
        details.append(copy.status_name(locale, "deleted"))
    if not details:
        return full_name
    return copy.text(locale, "label.traveler", name=full_name, details=", ".join(details))
