"""The ``expense_report`` workflow (docs/architecture.md; docs/invariants.md I2, I3, I17, I19).

Written only against the public API (``turnframe.core``). A draft report takes line
items; every amount added needs a Confirm card that shows it (monetary risk).
``expense_report.submit`` is the professional-review path: the submitter confirms, then a
Review card that only a ``manager`` may resolve, so the submitter's own click never
approves (I17). ``expense_report.pay``, offered on an approved report to the ``finance``
role, commits ``payment_pending`` with an outbox row on :data:`PAYMENT_TOPIC`; what the
payments service says afterwards arrives through :meth:`ExpenseReportWorkflow.external_update`
(a verified callback or a timeout), never collapsed into "done" (I19).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import date
from decimal import Decimal

from turnframe.core import (
    Actor,
    Amount,
    ArgumentSpec,
    ArgValue,
    CaseRef,
    Command,
    CommandPolicy,
    CommandText,
    Compiled,
    CompileRequest,
    DomainEvent,
    EventDraft,
    Execution,
    ExecutionContext,
    JSONObject,
    Notice,
    Obligation,
    OperationSpec,
    OutboxDraft,
    Outcome,
    PartCandidate,
    Refusal,
    RenderedArgument,
    UsageError,
    WorkflowView,
)
from turnframe.samples.expenses import copy
from turnframe.samples.expenses.model import (
    EXTERNAL_STATUSES,
    OPERATIONS,
    WORKFLOW,
    AddLine,
    CreateReport,
    ExpenseCommand,
    Line,
    PayReport,
    RemoveLine,
    ReportState,
    SubmitReport,
    dump_report,
    load_report,
    money,
)

__all__ = [
    "PAYMENT_TOPIC",
    "PAY_ROLE",
    "REVIEW_ROLE",
    "ExpenseReportWorkflow",
    "Rejected",
    "TransitionRefused",
]

PAYMENT_TOPIC = "payments.submit_payment"
"""The outbox topic of a payment."""
REVIEW_ROLE = "manager"
"""The role whose holder resolves a submitted report's Review card."""
PAY_ROLE = "finance"
"""The role to whom ``expense_report.pay`` is offered."""

_EDIT = (AddLine.OPERATION, RemoveLine.OPERATION)
_TERMINAL = ("paid", "payment_failed")
_RANK = {
    "payment_pending": 0,
    "payment_submitted": 1,
    "payment_processing": 2,
    "paid": 3,
    "payment_failed": 3,
}
_POLICIES = {op.key: op.policy for op in OPERATIONS}


class Rejected(Exception):
    """A domain refusal inside a check; :func:`_refusal` words it at the edge.

    Args:
        code: the refusal code (copy key ``refusal.<code>``).
        params: server data the sentence interpolates.
    """

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


class TransitionRefused(ValueError):
    """An external update the report cannot take (docs/invariants.md I19).

    A ``ValueError`` (what ``Runtime.external_update`` callers catch); ``refusal`` holds
    the code ``invalid_transition`` and the English sentence, also the message.
    """

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.sentence)
        self.refusal = refusal


def _refusal(rejected: Rejected, locale: str) -> Refusal:
    params = dict(rejected.params)
    for key in ("status", "from_status"):
        if key in params:
            params[key] = copy.status_name(locale, str(params[key]))
    return Refusal(
        code=rejected.code, sentence=copy.text(locale, f"refusal.{rejected.code}", **params)
    )


def _as_command(command: Command) -> ExpenseCommand:
    if isinstance(command, CreateReport | AddLine | RemoveLine | SubmitReport | PayReport):
        return command
    raise UsageError(f"not an expense report command: {command!r}")


def _check(state: ReportState | None, command: ExpenseCommand) -> None:
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


def _event(kind: str, state: ReportState, operation: str, **data: object) -> EventDraft:
    payload: JSONObject = {
        "report": state.title,
        "total": str(state.total),
        "currency": state.currency,
        "lines": len(state.lines),
    }
    for key, value in data.items():
        payload[key] = str(value) if isinstance(value, Decimal) else value  # type: ignore[assignment]
    return EventDraft(type=f"{WORKFLOW}.{kind}", data=payload, operation=operation)


def _transition(
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
        return Execution(state=new, events=(_event("created", new, op),))
    if state is None:
        raise UsageError(f"{op} needs an existing expense report")
    if isinstance(command, AddLine):
        line = Line(
            id=f"L{state.next_line}", description=command.description, amount=command.amount
        )
        new = replace(state, lines=(*state.lines, line), next_line=state.next_line + 1)
        event = _event(
            "line_added", new, op, line=line.id, description=line.description, amount=line.amount
        )
        return Execution(state=new, events=(event,))
    if isinstance(command, RemoveLine):
        gone = state.line(command.line)
        if gone is None:
            return Execution(state=state, events=())
        new = replace(state, lines=tuple(x for x in state.lines if x.id != gone.id))
        event = _event(
            "line_removed", new, op, line=gone.id, description=gone.description, amount=gone.amount
        )
        return Execution(state=new, events=(event,))
    if isinstance(command, SubmitReport):
        approver = ctx.actor.user if ctx else ""
        new = replace(state, status="approved", approved_by=approver)
        return Execution(state=new, events=(_event("approved", new, op, approver=approver),))
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
    return Execution(state=new, events=(_event("payment_pending", new, op),), outbox=(payment,))


def _external_allowed(current: str, status: str) -> bool:
    """Return whether the payments service may move ``current`` to ``status`` (I19)."""
    if status not in EXTERNAL_STATUSES or current in _TERMINAL:
        return False
    if current == "outcome_unknown":
        return status != "outcome_unknown"
    if current not in _RANK:
        return False
    return status == "outcome_unknown" or _RANK[status] > _RANK[current]


def _value(values: Mapping[str, ArgValue], name: str) -> ArgValue:
    value = values.get(name)
    if value is None or value == "":
        raise Rejected("missing_argument", argument=name)
    return value


def _command(request: CompileRequest[ReportState]) -> ExpenseCommand:
    """Return the command the act asks for (before the domain check)."""
    key, values, state = request.operation.key, request.values, request.state
    if key == CreateReport.OPERATION:
        currency = values.get("currency") or "EUR"
        title = str(_value(values, "title")).strip()
        return CreateReport(title=title, currency=str(currency).upper())
    if state is None:
        raise Rejected("not_created")
    if key == AddLine.OPERATION:
        amount = _value(values, "amount")
        if not isinstance(amount, Amount):
            raise Rejected("missing_argument", argument="amount")
        try:
            value = money(amount.value)
        except ValueError:
            raise Rejected("amount_precision") from None
        return AddLine(
            description=str(_value(values, "description")).strip(),
            amount=value,
            currency=amount.currency or state.currency,
        )
    if key == RemoveLine.OPERATION:
        return RemoveLine(line=str(_value(values, "line")))
    if key == SubmitReport.OPERATION:
        return SubmitReport(total=state.total, currency=state.currency)
    if key == PayReport.OPERATION:
        return PayReport(total=state.total, currency=state.currency)
    raise UsageError(f"the expense report workflow has no operation {key!r}")


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


_BRIEFINGS = {
    "new": "This expense report does not exist yet; it can be opened with a title and a currency.",
    "draft": "This expense report is a draft: line items can be added (each amount needs a "
    "confirmation card) or removed, and it can be submitted for a manager's approval. The "
    "submitter confirms; only a manager's review approves it.",
    "approved": "This expense report is approved by a manager. The finance team can pay it "
    "through the payments service; paying is irreversible and needs a confirmation card.",
    "payment_pending": "The payment of this report is queued for the payments service, which "
    "has confirmed nothing yet. Never describe it as paid.",
    "outcome_unknown": "The payment's transmission timed out; its outcome is unknown and "
    "reconciliation is pending. Never describe it as paid.",
}


class ExpenseReportWorkflow:
    """The ``expense_report`` workflow; implements ``WorkflowDefinition[ReportState]``.

    Pure and synchronous (docs/architecture.md). Refusal codes: ``not_created``,
    ``report_locked``, ``no_lines``, ``not_draft``, ``not_approved``,
    ``amount_not_positive``, ``amount_precision``, ``other_currency``, ``no_such_line``,
    ``missing_argument``; ``invalid_transition`` for an external update
    (:class:`TransitionRefused`).
    """

    locales: tuple[str, ...] = copy.LOCALES
    """Every code-written sentence exists in these (registration checks the operations)."""
    timeout_status: str = "outcome_unknown"
    """The status a payment whose transmission timed out moves to (I19)."""
    external_source: str = "payments"
    """The external system whose updates :meth:`external_update` applies."""

    @property
    def name(self) -> str:
        """``"expense_report"``."""
        return WORKFLOW

    @property
    def version(self) -> str:
        """The projection version."""
        return "expense_report/1"

    def operations(self) -> tuple[OperationSpec, ...]:
        """Return the five operations (docs/invariants.md I2)."""
        return OPERATIONS

    def registration_problems(self, locales: tuple[str, ...]) -> tuple[str, ...]:
        """Return what registration must refuse: a served locale the sample's copy lacks.

        One problem per locale naming the first missing copy keys and the fix (the
        registration-check hook; ``expenses_application`` also asks it).
        """
        problems = []
        for locale in locales:
            gone = copy.missing(locale)
            if gone:
                problems.append(
                    f"copy of locale {locale!r} lacks {len(gone)} sentence(s) "
                    f"(first {gone[0]!r}); add them to turnframe/samples/expenses/copy.py"
                )
        return tuple(problems)

    def load_state(self, data: JSONObject) -> ReportState:
        """Return the typed state; raises ``ValueError`` when ``data`` is malformed."""
        return load_report(data)

    def dump_state(self, state: ReportState) -> JSONObject:
        """Return ``state`` as JSON; ``load_state(dump_state(s)) == s``."""
        return dump_report(state)

    def project(self, state: ReportState | None, today: date) -> WorkflowView:
        """Return the view: phase = status, outcome only when paid or failed (I3, I19).

        Notice ``expense_report.reconciliation_pending`` in ``outcome_unknown``.
        """
        if state is None:
            return WorkflowView(workflow=WORKFLOW, version=self.version, phase="new", exists=False)
        notices = (
            (Notice(code=f"{WORKFLOW}.reconciliation_pending"),)
            if state.status == "outcome_unknown"
            else ()
        )
        outcome = Outcome(code=state.status) if state.status in _TERMINAL else None
        return WorkflowView(
            workflow=WORKFLOW,
            version=self.version,
            phase=state.status,
            notices=notices,
            outcome=outcome,
        )

    def offered(self, view: WorkflowView, actor: Actor) -> tuple[str, ...]:
        """Return line edits and submit on a draft; pay on an approved report to ``finance``."""
        if view.phase == "draft":
            return (*_EDIT, SubmitReport.OPERATION)
        if view.phase == "approved" and actor.has_role(PAY_ROLE):
            return (PayReport.OPERATION,)
        return ()

    def terminal_phases(self) -> tuple[str, ...]:
        """Return ``paid`` and ``payment_failed``: never a mutation's target."""
        return _TERMINAL

    def compile(self, request: CompileRequest[ReportState]) -> Compiled | Refusal:
        """Compile an act into at most one command, or refuse it in ``request.locale``.

        Commands planned earlier in the turn (``request.prior``) are applied first, so a
        second line is checked against the report with the first. Removing a line that
        is already gone compiles to no command.

        Raises:
            UsageError: for an operation the workflow does not register.
        """
        state = request.state
        try:
            for prior in request.prior:
                state = _transition(state, _as_command(prior), None).state
            command = _command(replace(request, state=state))
            _check(state, command)
        except Rejected as rejected:
            return _refusal(rejected, request.locale)
        if not _transition(state, command, None).events:
            return Compiled()
        return Compiled(commands=(command,))

    def policy(self, state: ReportState | None, command: Command) -> CommandPolicy:
        """Return the operation's declared policy (registration checked it, I17).

        ``add_line``: monetary + Confirm; ``submit``: monetary + Confirm + a ``manager``
        review; ``pay``: irreversible + Confirm, claiming only the external status.
        """
        return _POLICIES[command.operation]

    def validate(
        self, state: ReportState | None, command: Command, today: date, locale: str = copy.EN
    ) -> Refusal | None:
        """Re-check ``command`` against ``state`` now, worded in ``locale``."""
        try:
            _check(state, _as_command(command))
        except Rejected as rejected:
            return _refusal(rejected, locale)
        return None

    def execute(
        self, state: ReportState | None, command: Command, ctx: ExecutionContext
    ) -> Execution[ReportState]:
        """Apply ``command`` purely; ``pay`` also returns the payments outbox draft.

        Raises:
            UsageError: for a foreign command, or a non-creating one on an absent report.
        """
        return _transition(state, _as_command(command), ctx)

    def external_update(
        self, state: ReportState, status: str, *, reference: str = ""
    ) -> Execution[ReportState]:
        """Apply what the payments service reported (``outcome_unknown``: a timeout), purely.

        Statuses only move forward (``payment_pending`` < ``payment_submitted`` <
        ``payment_processing`` < ``paid`` / ``payment_failed``; steps may be skipped);
        ``outcome_unknown`` is reachable from any non-terminal payment status and
        reconciliation moves it to any other external status (I19). The event is
        ``expense_report.status_changed`` with ``from``, ``status`` and ``reference``.

        Raises:
            TransitionRefused: for an unknown status, an unpaid report, a terminal one,
                the same status again or a step back.
        """
        current = state.status
        if not _external_allowed(current, status):
            raise TransitionRefused(
                _refusal(
                    Rejected(
                        "invalid_transition", report=state.title, from_status=current, status=status
                    ),
                    copy.EN,
                )
            )
        new_status = next(s for s in EXTERNAL_STATUSES if s == status)
        new = replace(
            state,
            status=new_status,  # type: ignore[arg-type]
            payment_reference=reference or state.payment_reference,
        )
        event = _event(
            "status_changed",
            new,
            PayReport.OPERATION,
            reference=reference,
            status=new_status,
            **{"from": current},
        )
        return Execution(state=new, events=(event,))

    def render_receipt(
        self, event: DomainEvent, state: ReportState | None, locale: str
    ) -> str | None:
        """Return the receipt for an event in ``locale``, from the event's data only (I15).

        ``payment_pending`` says the payment is queued, never that it was paid;
        ``status_changed`` names the exact external status (I19).
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
            status = str(data.get("status"))
            if status == "outcome_unknown":
                return copy.text(locale, "outcome_unknown", **params)
            params["status"] = copy.status_name(locale, status)
        if not copy.has(kind):
            return None
        return copy.text(locale, kind, **params)

    def candidate_label(self, case: CaseRef, state: ReportState | None, locale: str) -> str:
        """Return ``"Lisbon offsite · 2 lines, EUR 120.00 · draft"`` (tells homonyms apart)."""
        if state is None:
            return copy.text(locale, "label.absent")
        return copy.text(
            locale,
            "label",
            title=state.title,
            lines=copy.lines_count(locale, len(state.lines)),
            total=copy.money_text(locale, state.total, state.currency),
            status=copy.status_name(locale, state.status),
        )

    def search_text(self, state: ReportState) -> str:
        """Return the title, the currency and the lines' descriptions."""
        return " ".join((state.title, state.currency, *(x.description for x in state.lines)))

    def find_parts(
        self,
        state: ReportState | None,
        operation: OperationSpec,
        argument: ArgumentSpec,
        words: str,
        locale: str,
    ) -> tuple[PartCandidate, ...] | Refusal:
        """Return the lines ``words`` name, or the domain's refusal when none does.

        By id (``L2``), else the lines whose description shares the most words with them:
        ``"the taxi"`` names every taxi line (a word no description has, like ``"the"``,
        is not required) and ``"the taxi to the hotel"`` the hotel one.
        """
        if state is None:
            return _refusal(Rejected("not_created"), locale)
        wanted = _words(words)
        found = [x for x in state.lines if x.id.casefold() in wanted]
        if not found:
            scores = {x.id: len(wanted & _words(x.description)) for x in state.lines}
            best = max(scores.values(), default=0)
            found = [x for x in state.lines if best and scores[x.id] == best]
        if not found:
            return _refusal(Rejected("no_such_line", report=state.title), locale)
        return tuple(
            PartCandidate(
                id=x.id,
                label=f"{x.id} · {x.description} · {copy.money_text(locale, x.amount, state.currency)}",
            )
            for x in found
        )

    def no_candidate(
        self, operation: OperationSpec, argument: ArgumentSpec | None, locale: str
    ) -> str:
        """Return the sentence for reports named that ``operation`` does not fit now."""
        return copy.text(
            locale, "no_candidate", summary=operation.summary_in(locale).rstrip(".").lower()
        )

    def glossary(self, locale: str) -> dict[str, str]:
        """Return what the domain's words mean in ``locale``."""
        return copy.glossary(locale)

    def briefing(self, view: WorkflowView) -> str:
        """Return server-authored guidance for the view's phase (never user text)."""
        if view.phase in _BRIEFINGS:
            return _BRIEFINGS[view.phase]
        return (
            f"This report's payment was handed to the payments service; its external status "
            f"is {view.phase}. Report it exactly, never as paid unless it is paid."
        )

    def ask_obligation(self, view: WorkflowView, obligation: Obligation, locale: str) -> str:
        """Return a generic question (the workflow declares no obligations)."""
        return copy.text(locale, "ask.obligation", obligation=obligation.id)

    def ask_argument(self, operation: OperationSpec, argument: ArgumentSpec, locale: str) -> str:
        """Return the question for a missing argument value, in ``locale``."""
        key = f"ask.{argument.name}"
        if copy.has(key):
            return copy.text(locale, key)
        return copy.text(locale, "ask.other", argument=argument.label_in(locale))

    def select_prompt(
        self, operation: OperationSpec, argument: ArgumentSpec | None, locale: str
    ) -> str:
        """Return the question of a selection card offering expense reports."""
        return copy.text(locale, "select")

    def render_command(
        self,
        state: ReportState | None,
        command: Command,
        locale: str,
        labels: Mapping[CaseRef, str],
    ) -> CommandText:
        """Return ``command`` as a card shows it, amounts in the locale (D2, ADR 0013).

        ``"Add Hotel, EUR 120.00, to Lisbon offsite"``; a submission names the line
        count and the total, a payment the total.
        """
        cmd = _as_command(command)
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
