"""The expense report's typed state, its commands and its operations (docs/architecture.md).

A report has a title, the submitter's user id, one currency and line items (``L1``,
``L2``… in order, never reused). Its status is its phase and is never collapsed
(docs/invariants.md I3, I19): ``draft`` → ``approved`` (a manager's review) →
``payment_pending`` (queued in the outbox) → what the payments service reports
(``payment_submitted``, ``payment_processing``, ``paid``, ``payment_failed``) or
``outcome_unknown`` when a transmission timed out.

Amounts are :class:`decimal.Decimal` with two places, stored as strings, never floats.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import ClassVar, Literal, TypeAlias, get_args

from turnframe.core import (
    LOW,
    REVERSIBLE,
    ArgumentKind,
    ArgumentSpec,
    ClaimMode,
    JSONObject,
    Op,
    OperationSpec,
    Part,
    RiskClass,
    TypedCommand,
    arg,
    confirm,
    fast_init,
    to_json_value,
)

__all__ = [
    "CURRENCIES",
    "TABLE",
    "EXTERNAL_STATUSES",
    "OPERATIONS",
    "REPORT_STATUSES",
    "WORKFLOW",
    "AddLine",
    "CreateReport",
    "ExpenseCommand",
    "Line",
    "PayReport",
    "RemoveLine",
    "ReportState",
    "ReportStatus",
    "SubmitReport",
    "dump_report",
    "load_report",
    "money",
]

WORKFLOW = "expense_report"
"""The workflow's registry name."""

ReportStatus: TypeAlias = Literal[
    "draft",
    "approved",
    "payment_pending",
    "payment_submitted",
    "payment_processing",
    "paid",
    "payment_failed",
    "outcome_unknown",
]
REPORT_STATUSES: tuple[str, ...] = get_args(ReportStatus)
"""Every status a report can be in, in lifecycle order."""

EXTERNAL_STATUSES: tuple[str, ...] = (
    "payment_submitted",
    "payment_processing",
    "paid",
    "payment_failed",
    "outcome_unknown",
)
"""The statuses only the payments service (or a timeout) moves a report to."""

CURRENCIES: tuple[str, ...] = ("EUR", "USD", "GBP")
"""The ISO 4217 currencies a report may be kept in."""

_CENT = Decimal("0.01")


def money(value: object) -> Decimal:
    """Return ``value`` (a ``Decimal``, int or numeric string) as an amount with two places.

    Raises:
        ValueError: when ``value`` is no finite number or has more than two decimals.
    """
    try:
        number = value if isinstance(value, Decimal) else Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"not an amount: {value!r}") from None
    if isinstance(value, bool) or not number.is_finite():
        raise ValueError(f"not an amount: {value!r}")
    if number != number.quantize(_CENT):
        raise ValueError(f"an amount has at most two decimals, not {value!r}")
    return number.quantize(_CENT)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Line:
    """One line item: ``id`` (``L1``…), what was spent on and how much, in the report's currency."""

    id: str
    description: str
    amount: Decimal


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ReportState:
    """An expense report (see the module notes).

    Attributes:
        title: what people call it (``"Lisbon offsite"``).
        submitter: the user id of the employee who created it.
        currency: the ISO 4217 code every line is in.
        lines: the line items, in order.
        next_line: the number the next line's id gets (ids are never reused).
        status: the phase.
        approved_by: the user id of the manager whose review approved it, once approved.
        payment_reference: the payments service's reference, once it gave one.
    """

    title: str
    submitter: str
    currency: str = "EUR"
    lines: tuple[Line, ...] = ()
    next_line: int = 1
    status: ReportStatus = "draft"
    approved_by: str | None = None
    payment_reference: str | None = None

    @property
    def total(self) -> Decimal:
        """The sum of the lines' amounts (``0.00`` without lines)."""
        return sum((line.amount for line in self.lines), Decimal("0.00"))

    def line(self, line_id: str) -> Line | None:
        """Return the line with ``line_id``, or ``None``."""
        return next((line for line in self.lines if line.id == line_id), None)


def dump_report(state: ReportState) -> JSONObject:
    """Return ``state`` as JSON (the kit's canonical form, amounts as strings); ``load_report`` inverts it."""
    data = to_json_value(state)
    assert isinstance(data, dict)
    return data


def _status(value: object) -> ReportStatus:
    for status in get_args(ReportStatus):
        if value == status:
            found: ReportStatus = status
            return found
    raise ValueError(f"unknown report status {value!r}")


def load_report(data: JSONObject) -> ReportState:
    """Return the state stored as ``data``.

    Raises:
        ValueError: for a missing or malformed field (naming it).
    """
    try:
        raw_lines = data.get("lines", [])
        if not isinstance(raw_lines, list):
            raise ValueError("lines must be a list")
        lines = tuple(
            Line(
                id=str(item["id"]),
                description=str(item["description"]),
                amount=money(item["amount"]),
            )
            for item in raw_lines
            if isinstance(item, dict)
        )
        if len(lines) != len(raw_lines):
            raise ValueError("every line must be an object")
        currency = str(data.get("currency", "EUR"))
        if currency not in CURRENCIES:
            raise ValueError(f"unknown currency {currency!r}")
        approved_by, reference = data.get("approved_by"), data.get("payment_reference")
        next_line = data.get("next_line", len(lines) + 1)
        if not isinstance(next_line, int) or isinstance(next_line, bool):
            raise ValueError("next_line must be an integer")
        return ReportState(
            title=str(data["title"]),
            submitter=str(data["submitter"]),
            currency=currency,
            lines=lines,
            next_line=next_line,
            status=_status(data.get("status", "draft")),
            approved_by=None if approved_by is None else str(approved_by),
            payment_reference=None if reference is None else str(reference),
        )
    except KeyError as exc:
        raise ValueError(f"expense report state lacks {exc.args[0]!r}") from None


class _Command(TypedCommand):
    """The kit's command base: ``operation``, the declared event and ``to_json``.

    Each command is a ``@dataclass(frozen=True, slots=True, kw_only=True)`` itself
    (``AUTO_DATACLASS`` is off); ``to_json`` is the canonical JSON of the fields, amounts
    as strings (hashed and journaled; docs/authoring.md#commands).
    """

    __slots__ = ()
    AUTO_DATACLASS: ClassVar[bool] = False


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CreateReport(_Command, operation=f"{WORKFLOW}.create", event=f"{WORKFLOW}.created"):
    """``expense_report.create``: open a draft report (low risk)."""

    title: str = arg(
        labels={"pt-PT": "título"}, description="what the report is called", names_record=True
    )
    currency: str = arg("EUR", argument=False)  # the lower-case choice, upper-cased


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class AddLine(_Command, operation=f"{WORKFLOW}.add_line", event=f"{WORKFLOW}.line_added"):
    """``expense_report.add_line``: claim an amount (monetary: a Confirm card)."""

    description: str = arg(labels={"pt-PT": "descrição"}, description="what was paid for")
    amount: Decimal = arg(argument=False)  # read from the AMOUNT argument, two places
    currency: str = arg(argument=False)  # the amount's, else the report's


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class RemoveLine(_Command, operation=f"{WORKFLOW}.remove_line", event=f"{WORKFLOW}.line_removed"):
    """``expense_report.remove_line``: drop a line item from a draft (reversible)."""

    line: Part = arg(
        labels={"pt-PT": "linha"}, description="the line item, by its description or id (L1)"
    )


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class SubmitReport(_Command, operation=f"{WORKFLOW}.submit", event=f"{WORKFLOW}.approved"):
    """``expense_report.submit``: the submitter's Confirm, then a manager's Review (I17)."""

    total: Decimal = arg(argument=False)  # the report's, bound when the card is drawn
    currency: str = arg(argument=False)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PayReport(_Command, operation=f"{WORKFLOW}.pay", event=f"{WORKFLOW}.payment_pending"):
    """``expense_report.pay``: hand the approved total to the payments service (irreversible)."""

    total: Decimal = arg(argument=False)  # the report's, bound when the card is drawn
    currency: str = arg(argument=False)


ExpenseCommand: TypeAlias = CreateReport | AddLine | RemoveLine | SubmitReport | PayReport
COMMANDS: tuple[type[TypedCommand], ...] = (
    CreateReport,
    AddLine,
    RemoveLine,
    SubmitReport,
    PayReport,
)


def _arg(
    name: str,
    label_pt: str,
    kind: ArgumentKind,
    *,
    description: str,
    required: bool = False,
    choices: tuple[str, ...] = (),
) -> ArgumentSpec:
    """Return the spec of an argument a command reads into a computed field (en: its name)."""
    return ArgumentSpec(
        name=name,
        kind=kind,
        required=required,
        choices=choices,
        label=name,
        labels={"pt-PT": label_pt},
        description=description,
    )


_LOW = LOW
MONETARY_CONFIRMED = confirm(RiskClass.MONETARY)
"""Adding an amount: a Confirm card that shows it (docs/invariants.md I17)."""
REVIEWED = confirm(RiskClass.MONETARY, review_role="manager")
"""Submitting for approval: the submitter confirms, a ``manager`` approves (I17).

``ExpenseReportWorkflow.policy`` adds the report's submitter as an excluded reviewer, so
a submitter who is also a manager never approves their own report (four eyes).
"""
PAYMENT = confirm(RiskClass.IRREVERSIBLE, claim_mode=ClaimMode.EXTERNAL_STATUS)
"""Paying: irreversible and external; the reply claims only the status reached (I19)."""

TABLE: tuple[Op, ...] = (
    Op(
        CreateReport,
        "Open a new expense report.",
        summaries={"pt-PT": "Abrir um novo relatório de despesas."},
        creates_case=True,
        policy=_LOW,
    ),
    Op(
        AddLine,
        "Add a line item to the expense report.",
        summaries={"pt-PT": "Acrescentar uma linha ao relatório de despesas."},
        policy=MONETARY_CONFIRMED,
    ),
    Op(
        RemoveLine,
        "Remove a line item from the expense report.",
        summaries={"pt-PT": "Retirar uma linha do relatório de despesas."},
        policy=REVERSIBLE,
    ),
    Op(
        SubmitReport,
        "Submit the expense report for a manager's approval.",
        summaries={"pt-PT": "Submeter o relatório de despesas à aprovação de um gestor."},
        submission=True,
        policy=REVIEWED,
    ),
    Op(
        PayReport,
        "Pay the approved expense report through the payments service.",
        summaries={"pt-PT": "Pagar o relatório de despesas aprovado pelo serviço de pagamentos."},
        submission=True,
        policy=PAYMENT,
    ),
)
"""The kit's operation table; the commands' argument fields give the specs' arguments."""

_COMPUTED: dict[str, tuple[ArgumentSpec, ...]] = {
    CreateReport.OPERATION: (
        _arg(
            "currency",
            "moeda",
            ArgumentKind.CHOICE,
            choices=tuple(c.lower() for c in CURRENCIES),  # the runtime lower-cases words
            description="the ISO 4217 currency of every line (default EUR)",
        ),
    ),
    AddLine.OPERATION: (
        _arg(
            "amount",
            "montante",
            ArgumentKind.AMOUNT,
            required=True,
            description="how much was spent, in the report's currency",
        ),
    ),
}
"""The arguments a command reads into computed fields (the currency upper-cased, the
amount's two-place value and its currency), which no field's type can declare."""

OPERATIONS: tuple[OperationSpec, ...] = tuple(
    replace(spec, arguments=(*spec.arguments, *_COMPUTED.get(spec.key, ())))
    for spec in (row.spec() for row in TABLE)
)
"""The five operations (the closed vocabulary, docs/invariants.md I2)."""
