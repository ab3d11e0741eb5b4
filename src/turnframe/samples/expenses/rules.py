"""The expense report's rules, pure: what may happen to a report and what it becomes.

:func:`check` refuses a command the report cannot take now (a :class:`Rejected` the
workflow words as a :class:`~turnframe.core.Refusal` in the turn's locale);
:func:`transition` applies one purely (events, and the payment's outbox draft);
:func:`external_allowed` says which payment statuses may follow which, so an external
status only moves forward and is never collapsed (docs/invariants.md I19).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal

from turnframe.core import (
    Amount,
    ArgValue,
    Command,
    CompileRequest,
    EventDraft,
    Execution,
    ExecutionContext,
    JSONObject,
    OutboxDraft,
    Part,
    Refusal,
    Refused,
    UsageError,
)
from turnframe.samples.expenses import copy
from turnframe.samples.expenses.model import (
    EXTERNAL_STATUSES,
    WORKFLOW,
    AddLine,
    CreateReport,
    ExpenseCommand,
    Line,
    PayReport,
    RemoveLine,
    ReportState,
    SubmitReport,
    money,
)

__all__ = [
    "EDITS",
    "PAYMENT_TOPIC",
    "PAY_ROLE",
    "REVIEW_ROLE",
    "TERMINAL",
    "Rejected",
    "TransitionRefused",
    "as_command",
    "check",
    "command_for",
    "event_draft",
    "external_allowed",
    "refusal",
    "transition",
    "value_of",
    "words_of",
]

PAYMENT_TOPIC = "payments.submit_payment"
"""The outbox topic of a payment."""
REVIEW_ROLE = "manager"
"""The role whose holder resolves a submitted report's Review card."""
PAY_ROLE = "finance"
"""The role to whom ``expense_report.pay`` is offered."""

EDITS = (AddLine.OPERATION, RemoveLine.OPERATION)
"""The operations that change a draft's lines."""
TERMINAL = ("paid", "payment_failed")
"""The phases a report never leaves (each is its outcome)."""
_RANK = {
    "payment_pending": 0,
    "payment_submitted": 1,
    "payment_processing": 2,
    "paid": 3,
    "payment_failed": 3,
}


class Rejected(Refused):
    """A domain refusal inside a check (the kit's :class:`~turnframe.core.Refused`).

    ``Rejected(code, **params)``: :func:`refusal` words it at the edge by the copy key
    ``refusal.<code>``, interpolating ``params`` (server data).
    """


class TransitionRefused(ValueError):
    """An external update the report cannot take (docs/invariants.md I19).

    A ``ValueError`` (what ``Runtime.external_update`` callers catch); ``refusal`` holds
    the code ``invalid_transition`` and the English sentence, also the message.
    """

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.sentence)
        self.refusal = refusal


def refusal(rejected: Refused, locale: str) -> Refusal:
    """Return ``rejected`` worded in ``locale``, statuses named as the locale names them."""
    params = dict(rejected.params)
    for key in ("status", "from_status"):
        if key in params:
            params[key] = copy.status_name(locale, str(params[key]))
    return Refusal(
        code=rejected.code, sentence=copy.text(locale, f"refusal.{rejected.code}", **params)
    )


def as_command(command: Command) -> ExpenseCommand:
    """Return ``command`` as one of the sample's commands.

    Raises:
        UsageError: for a command of another workflow.
    """
    if isinstance(command, CreateReport | AddLine | RemoveLine | SubmitReport | PayReport):
        return command
    raise UsageError(f"not an expense report command: {command!r}")


def check(state: ReportState | None, command: ExpenseCommand) -> None:
    """Raise :class:`Rejected` when ``command`` may not apply to ``state`` now."""
    if isinstance(command, CreateReport):
        return
    if state is None:
        raise Rejected("not_created")
    name, status = state.title, state.status
    if isinstance(command, PayReport):
        if status != "approved":
            raise Rejected("not_approved", report=name, status=status)
        return
    if isinstance(command, SubmitReport):
        if status != "draft":
            raise Rejected("not_draft", report=name, status=status)
        if not state.lines:
            raise Rejected("no_lines", report=name)
        return
    if status != "draft":
        raise Rejected("report_locked", report=name, status=status)
    if isinstance(command, AddLine):
        if command.currency != state.currency:
            raise Rejected(
                "other_currency", report=name, currency=state.currency, given=command.currency
            )
        if command.amount <= 0:
            raise Rejected("amount_not_positive")
    elif state.line(command.line) is None:
        raise Rejected("no_such_line", report=name)


def event_draft(kind: str, state: ReportState, operation: str, **data: object) -> EventDraft:
    """Return the event ``expense_report.<kind>`` of a change to ``state``.

    Its data: the report's title, total, currency and line count after the change, plus
    ``data`` (decimals as strings). Receipts read only this (I15).
    """
    payload: JSONObject = {
        "report": state.title,
        "total": str(state.total),
        "currency": state.currency,
        "lines": len(state.lines),
    }
    for key, value in data.items():
        payload[key] = str(value) if isinstance(value, Decimal) else value  # type: ignore[assignment]
    return EventDraft(type=f"{WORKFLOW}.{kind}", data=payload, operation=operation)


def transition(
    state: ReportState | None, command: ExpenseCommand, ctx: ExecutionContext | None
) -> Execution[ReportState]:
    """Apply ``command`` purely; a command that changes nothing yields no event.

    ``ctx`` is ``None`` while compiling (who acts is then unknown to the state).
    """
    op = command.operation
    if isinstance(command, CreateReport):
        new = ReportState(
            title=command.title,
            submitter=ctx.actor.user if ctx else "",
            currency=command.currency,
        )
        return Execution(state=new, events=(event_draft("created", new, op),))
    if state is None:
        raise UsageError(f"{op} needs an existing expense report")
    if isinstance(command, AddLine):
        line = Line(
            id=f"L{state.next_line}", description=command.description, amount=command.amount
        )
        new = replace(state, lines=(*state.lines, line), next_line=state.next_line + 1)
        event = event_draft(
            "line_added", new, op, line=line.id, description=line.description, amount=line.amount
        )
        return Execution(state=new, events=(event,))
    if isinstance(command, RemoveLine):
        gone = state.line(command.line)
        if gone is None:
            return Execution(state=state, events=())
        new = replace(state, lines=tuple(x for x in state.lines if x.id != gone.id))
        event = event_draft(
            "line_removed", new, op, line=gone.id, description=gone.description, amount=gone.amount
        )
        return Execution(state=new, events=(event,))
    if isinstance(command, SubmitReport):
        approver = ctx.actor.user if ctx else ""
        new = replace(state, status="approved", approved_by=approver)
        return Execution(state=new, events=(event_draft("approved", new, op, approver=approver),))
    new = replace(state, status="payment_pending")
    payment = OutboxDraft(
        topic=PAYMENT_TOPIC,
        payload={
            "report": None if ctx is None else str(ctx.case),
            "title": state.title,
            "payee": state.submitter,
            "amount": str(state.total),
            "currency": state.currency,
        },
    )
    return Execution(
        state=new, events=(event_draft("payment_pending", new, op),), outbox=(payment,)
    )


def external_allowed(current: str, status: str) -> bool:
    """Return whether the payments service may move ``current`` to ``status`` (I19)."""
    if status not in EXTERNAL_STATUSES or current in TERMINAL:
        return False
    if current == "outcome_unknown":
        return status != "outcome_unknown"
    if current not in _RANK:
        return False
    return status == "outcome_unknown" or _RANK[status] > _RANK[current]


def value_of(values: Mapping[str, ArgValue], name: str) -> ArgValue:
    """Return the evaluated argument ``name``; :class:`Rejected` ``missing_argument`` if none."""
    value = values.get(name)
    if value is None or value == "":
        raise Rejected("missing_argument", argument=name)
    return value


def command_for(request: CompileRequest[ReportState]) -> ExpenseCommand:
    """Return the command the act asks for, before the domain check.

    Raises:
        Rejected: for a missing or malformed value, or an absent report.
        UsageError: for an operation the workflow does not register.
    """
    key, values, state = request.operation.key, request.values, request.state
    if key == CreateReport.OPERATION:
        currency = values.get("currency") or "EUR"
        title = str(value_of(values, "title")).strip()
        return CreateReport(title=title, currency=str(currency).upper())
    if state is None:
        raise Rejected("not_created")
    if key == AddLine.OPERATION:
        amount = value_of(values, "amount")
        if not isinstance(amount, Amount):
            raise Rejected("missing_argument", argument="amount")
        try:
            value = money(amount.value)
        except ValueError:
            raise Rejected("amount_precision") from None
        return AddLine(
            description=str(value_of(values, "description")).strip(),
            amount=value,
            currency=amount.currency or state.currency,
        )
    if key == RemoveLine.OPERATION:
        return RemoveLine(line=Part(str(value_of(values, "line"))))
    if key == SubmitReport.OPERATION:
        return SubmitReport(total=state.total, currency=state.currency)
    if key == PayReport.OPERATION:
        return PayReport(total=state.total, currency=state.currency)
    raise UsageError(f"the expense report workflow has no operation {key!r}")


def words_of(text: str) -> set[str]:
    """Return the case-folded words of ``text`` (how lines are named, ``find_parts``)."""
    return set(re.findall(r"\w+", text.casefold()))
