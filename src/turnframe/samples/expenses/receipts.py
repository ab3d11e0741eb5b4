"""The words of receipts and cards, from committed events and commands only (I15, ADR 0003).

:data:`RECEIPTS` holds the receipt templates (the kit's table) and :func:`receipt_params`
what they interpolate, from a committed event's data alone: a queued payment is never
called paid and an external status is named exactly (I19).
:func:`card_text` words a proposed command for a Confirm or Review card with every
argument shown, amounts as the locale writes them
(docs/adr/0013-cards-show-what-they-do.md).
"""

from __future__ import annotations

from decimal import Decimal

from turnframe.core import Command, CommandText, DomainEvent, RenderedArgument
from turnframe.samples.expenses import copy
from turnframe.samples.expenses.model import (
    OPERATIONS,
    WORKFLOW,
    AddLine,
    CreateReport,
    RemoveLine,
    ReportState,
    SubmitReport,
)
from turnframe.samples.expenses.rules import as_command

__all__ = ["RECEIPTS", "RECEIPT_EVENTS", "card_text", "receipt_params"]


RECEIPT_EVENTS: tuple[str, ...] = (
    "created",
    "line_added",
    "line_removed",
    "approved",
    "payment_pending",
    "status_changed",
)
"""The events with a receipt (``expense_report.<kind>``); the copy key is the kind."""

RECEIPTS: dict[str, dict[str, str]] = {
    locale: {f"{WORKFLOW}.{kind}": copy.template(locale, kind) for kind in RECEIPT_EVENTS}
    for locale in copy.LOCALES
}
"""The kit's receipt table: locale → event type → the copy's template (I15)."""


def receipt_params(event: DomainEvent, locale: str) -> dict[str, object]:
    """Return what a receipt of ``event`` interpolates in ``locale``, from its data alone.

    Amounts as the locale writes them, the approver, the exact external status named
    (I19): ``payment_pending`` says the payment is queued, never that it was paid.
    """
    data = event.data
    kind = event.type.removeprefix(f"{WORKFLOW}.")
    currency = str(data.get("currency", ""))

    def amount(key: str) -> str:
        return copy.money_text(locale, Decimal(str(data.get(key, "0"))), currency)

    params: dict[str, object] = {
        "report": data.get("report"),
        "currency": currency,
        "total": amount("total"),
    }
    if kind in ("line_added", "line_removed"):
        params.update(line=data.get("line"), description=data.get("description"))
        params["amount"] = amount("amount")
    elif kind == "approved":
        params["approver"] = data.get("approver")
    elif kind == "status_changed":
        params["status"] = copy.status_name(locale, str(data.get("status")))
    return params


def card_text(state: ReportState | None, command: Command, locale: str) -> CommandText:
    """Return ``command`` as a card shows it in ``locale``, every argument rendered.

    ``"Add Hotel, EUR 120.00, to Lisbon offsite"``; a submission names the line count and
    the total, a payment the total.

    Raises:
        UsageError: for a command of another workflow.
    """
    cmd = as_command(command)
    op = next(o for o in OPERATIONS if o.key == cmd.operation)
    title = state.title if state is not None else ""

    def arg(name: str, value: str) -> RenderedArgument:
        spec = op.argument(name)
        label = spec.label_in(locale) if spec else name.replace("_", " ")
        return RenderedArgument(name=name, label=label, value=value)

    if isinstance(cmd, CreateReport):
        words = copy.text(locale, "card.create", title=cmd.title, currency=cmd.currency)
        return CommandText(
            text=words, arguments=(arg("title", cmd.title), arg("currency", cmd.currency))
        )
    if isinstance(cmd, RemoveLine):
        words = copy.text(locale, "card.remove_line", line=cmd.line, report=title)
        return CommandText(text=words, arguments=(arg("line", cmd.line),))
    if isinstance(cmd, AddLine):
        shown = copy.money_text(locale, cmd.amount, cmd.currency)
        words = copy.text(
            locale, "card.add_line", description=cmd.description, amount=shown, report=title
        )
        return CommandText(
            text=words,
            arguments=(
                arg("description", cmd.description),
                arg("amount", copy.number_text(locale, cmd.amount)),
                arg("currency", cmd.currency),
            ),
        )
    shown = copy.money_text(locale, cmd.total, cmd.currency)
    rendered = (
        arg("total", copy.number_text(locale, cmd.total)),
        arg("currency", cmd.currency),
    )
    if isinstance(cmd, SubmitReport):
        count = copy.lines_count(locale, len(state.lines) if state else 0)
        words = copy.text(locale, "card.submit", report=title, lines=count, total=shown)
    else:
        words = copy.text(locale, "card.pay", report=title, total=shown)
    return CommandText(text=words, arguments=rendered)
