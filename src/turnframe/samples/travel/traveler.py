"""The traveler workflow.

See docs/samples/travel.md "traveler", docs/architecture.md "Workflows", "What you write".

State JSON: ``{"full_name", "birth_date": ISO date | null, "email": str | null,
"status": "active" | "deleted"}``. Phases: ``active`` and ``deleted``; deletion is a status
and the row stays (docs/architecture.md "What you write": removal is a status, never an absence), so
``deleted`` is terminal and carries the outcome ``deleted``. A named-but-not-created traveler
projects to phase ``new`` (``exists=False``) and offers only ``traveler.register``.

Candidate labels tell homonyms apart by birth year, or by email when the birth date is
unknown (the label sees only this case's state, so a traveler's trips cannot be listed).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache
from typing import Literal, TypeAlias

from turnframe.core import (
    CaseRef,
    Command,
    CommandText,
    Email,
    EventDraft,
    Execution,
    ExecutionContext,
    JSONObject,
    Op,
    OperationSpec,
    Refusal,
    Refused,
    RiskClass,
    UsageError,
    Workflow,
    fast_init,
    to_json_value,
)
from turnframe.samples.travel import copy
from turnframe.samples.travel._common import (
    LOW_RISK,
    Rejected,
    TravelCommand,
    arg_field,
    command_text,
    confirmed,
    localized,
    refusal,
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


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TravelerState:
    """A traveler's persisted state (docs/architecture.md "What you write": deletion is a status).

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


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class RegisterTraveler(TravelCommand, operation="traveler.register", event="traveler.registered"):
    """``traveler.register``: create the traveler (low risk, creates the case).

    See docs/architecture.md "Commands".
    """

    full_name: str = arg_field(
        "full_name", description="the traveler's full name", names_record=True
    )
    birth_date: date | None = arg_field("birth_date", None, description="the traveler's birth date")
    email: Email | None = arg_field("email", None, description="the traveler's email address")


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class UpdateTravelerEmail(
    TravelCommand, operation="traveler.update_email", event="traveler.email_updated"
):
    """``traveler.update_email``: set the email address (low risk).

    See docs/architecture.md "Commands".
    """

    email: Email = arg_field("email", description="the new email address")


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class DeleteTraveler(TravelCommand, operation="traveler.delete", event="traveler.deleted"):
    """``traveler.delete``: move the traveler to status ``deleted`` (destructive, confirm).

    See docs/architecture.md "Commands".
    """


TravelerCommand: TypeAlias = RegisterTraveler | UpdateTravelerEmail | DeleteTraveler
"""Every command the traveler workflow compiles and executes."""

_TABLE = (
    Op(
        RegisterTraveler,
        "Register a new traveler.",
        summaries=localized("Register a new traveler.", "Registar um novo viajante."),
        policy=LOW_RISK,
        creates_case=True,
    ),
    Op(
        UpdateTravelerEmail,
        "Change the traveler's email address.",
        summaries=localized(
            "Change the traveler's email address.", "Alterar o endereço de email do viajante."
        ),
        policy=LOW_RISK,
    ),
    Op(
        DeleteTraveler,
        "Delete the traveler.",
        summaries=localized("Delete the traveler.", "Eliminar o viajante."),
        policy=confirmed(RiskClass.DESTRUCTIVE),
    ),
)

TRAVELER_OPERATIONS: tuple[OperationSpec, ...] = tuple(row.spec() for row in _TABLE)
"""The traveler's operations (docs/samples/travel.md table order), derived from the commands."""

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
_RECEIPTS = copy.table(
    {t: t for t in ("traveler.registered", "traveler.email_updated", "traveler.deleted")}
)
_WORDS = copy.table(
    {
        "select": "select.traveler",
        "label.absent": "label.absent.traveler",
        "ask.obligation": "ask.obligation",
        "ask.argument": "ask.arg.other",
        "ask.full_name": "ask.arg.full_name",
        "ask.birth_date": "ask.arg.birth_date",
        "ask.email": "ask.arg.email",
        "no_candidate": "no_candidate.traveler",
        "no_candidate.argument": "no_candidate.traveler.argument",
    }
)


def _as_command(command: Command) -> TravelerCommand:
    if isinstance(command, TravelerCommand):
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


class TravelerWorkflow(Workflow[TravelerState]):
    """The ``traveler`` workflow, on the authoring kit's ``Workflow`` base (docs/authoring.md).

    The tables declare what the base derives: operations (from the commands' fields),
    offers, policies, receipts and questions (docs/authoring.md). Written here: the
    domain check, the transition, the refusal words and the candidate label. Pure and
    synchronous. Refusal codes: ``already_registered``, ``not_created``,
    ``traveler_deleted``, ``invalid_email``, ``birth_date_in_future``,
    ``missing_argument``, ``invalid_value``.
    """

    name = "traveler"
    version = "traveler/1"
    state_type = TravelerState
    locales = (copy.EN, copy.PT)
    table = _TABLE
    offers = _OFFERED
    terminal = ("deleted",)
    briefings = _BRIEFINGS
    receipts = _RECEIPTS
    payload_fields = {
        "traveler.registered": ("name", "birth_date", "email"),
        "traveler.email_updated": ("name", "email", "previous"),
        "traveler.deleted": ("name",),
    }
    words = _WORDS
    label_fields = ("full_name",)
    search_fields = ("full_name", "email")

    def check(self, state: TravelerState | None, command: Command, today: date) -> None:
        """Raise :class:`Rejected` when ``command`` may not apply to ``state`` (docs/authoring.md#compile)."""
        _check(state, _as_command(command), today)

    def refusal(self, refused: Refused, locale: str) -> Refusal:
        """Return the refusal worded by the sample's ``copy`` (en or pt-PT; docs/authoring.md#compile)."""
        return refusal(refused, locale)

    def execute(
        self, state: TravelerState | None, command: Command, ctx: ExecutionContext
    ) -> Execution[TravelerState]:
        """Apply ``command`` purely (events carry the name so receipts stand alone; I15).

        Raises:
            UsageError: for a foreign command, or a non-creating one on an absent traveler.
        """
        return _transition(state, _as_command(command))

    def candidate_label(self, case: CaseRef, state: TravelerState | None, locale: str) -> str:
        """Return ``"Ana Costa (born 1985)"``; email stands in for an unknown birth date.

        See ADR 0001.
        """
        if state is None:
            return copy.text(locale, "label.absent.traveler")
        year = state.birth_date.year if state.birth_date is not None else None
        return _label(state.full_name, year, state.email, state.status, locale)

    def glossary(self, locale: str) -> dict[str, str]:
        """Return what this workflow's words mean in ``locale`` (optional hook; ``glossary.py``)."""
        return glossary_of("traveler", locale)

    def render_command(
        self,
        state: TravelerState | None,
        command: Command,
        locale: str,
        labels: Mapping[CaseRef, str],
    ) -> CommandText:
        """Return ``command`` as a card shows it: ``"Delete traveler Ana Costa"`` (ADR 0003)."""
        traveler = _as_command(command)
        name = state.full_name if state is not None else ""
        return command_text(locale, traveler.to_json(), traveler.operation, labels, name=name)


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
