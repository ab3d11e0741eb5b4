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

from collections.abc import Mapping
from dataclasses import replace
from datetime import date

from turnframe.core import (
    ArgumentSpec,
    CaseRef,
    Command,
    CommandText,
    CompileRequest,
    DomainEvent,
    Execution,
    ExecutionContext,
    JSONObject,
    Notice,
    Obligation,
    Offer,
    OperationSpec,
    PartCandidate,
    Refusal,
    Refused,
    Workflow,
    WorkflowView,
)
from turnframe.samples.expenses import copy
from turnframe.samples.expenses.model import (
    EXTERNAL_STATUSES,
    OPERATIONS,
    TABLE,
    WORKFLOW,
    PayReport,
    ReportState,
    SubmitReport,
    load_report,
)
from turnframe.samples.expenses.receipts import RECEIPTS, card_text, receipt_params
from turnframe.samples.expenses.rules import (
    EDITS,
    PAY_ROLE,
    PAYMENT_TOPIC,
    REVIEW_ROLE,
    TERMINAL,
    Rejected,
    TransitionRefused,
    as_command,
    command_for,
    event_draft,
    external_allowed,
    refusal,
    transition,
    words_of,
)
from turnframe.samples.expenses.rules import check as check_rules

__all__ = [
    "PAYMENT_TOPIC",
    "PAY_ROLE",
    "REVIEW_ROLE",
    "ExpenseReportWorkflow",
    "Rejected",
    "TransitionRefused",
]

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


class ExpenseReportWorkflow(Workflow[ReportState]):
    """The ``expense_report`` workflow on the authoring kit (docs/authoring.md).

    The kit's base supplies compilation (replay, check, no-op), validation, the
    view's phase and outcome, the offers, the terminal phases, the table's policies
    (the submitter excluded from the review, :meth:`excluded_reviewers`) and the
    registration checks. Written here: the commands built from the replayed report
    (:meth:`build`), the checks and their locale-aware wording, the transitions, the
    external update, receipts and cards with amounts in the locale, candidate labels,
    lines as parts and the questions, all worded by :mod:`~turnframe.samples.expenses.copy`.

    Pure and synchronous (docs/architecture.md). Refusal codes: ``not_created``,
    ``report_locked``, ``no_lines``, ``not_draft``, ``not_approved``,
    ``amount_not_positive``, ``amount_precision``, ``other_currency``, ``no_such_line``,
    ``missing_argument``; ``invalid_transition`` for an external update
    (:class:`TransitionRefused`).
    """

    name = WORKFLOW
    version = "expense_report/1"
    state_type = ReportState
    locales = copy.LOCALES
    table = TABLE
    offers = {
        "draft": (*EDITS, SubmitReport.OPERATION),
        "approved": (Offer(PayReport.OPERATION, PAY_ROLE),),
    }
    terminal = TERMINAL
    receipts = RECEIPTS
    extra_events = (f"{WORKFLOW}.status_changed",)
    timeout_status: str = "outcome_unknown"
    """The status a payment whose transmission timed out moves to (I19)."""
    external_source: str = "payments"
    """The external system whose updates :meth:`external_update` applies."""

    def operations(self) -> tuple[OperationSpec, ...]:
        """Return the five operations, the table's specs with two arguments added (I2).

        The arguments the commands read into computed fields (model ``_COMPUTED``).
        """
        return OPERATIONS

    def registration_problems(self, locales: tuple[str, ...] = ()) -> list[str]:
        """Return what registration must refuse: the kit's checks, and locales the copy lacks.

        The kit checks the table against the specs (two arguments there are written by
        hand, model ``_COMPUTED``), the policies (I17) and the labels per declared locale; a served locale the sample's copy lacks is one
        problem naming the first missing copy keys and the fix (``expenses_application``
        also asks it).
        """
        problems = super().registration_problems(tuple(x for x in locales if x in self.locales))
        for locale in locales:
            gone = copy.missing(locale)
            if gone:
                problems.append(
                    f"copy of locale {locale!r} lacks {len(gone)} sentence(s) "
                    f"(first {gone[0]!r}); add them to turnframe/samples/expenses/copy.py"
                )
        return problems

    def load_state(self, data: JSONObject) -> ReportState:
        """Return the typed state; raises ``ValueError`` when ``data`` is malformed."""
        return load_report(data)

    def project(self, state: ReportState | None, today: date) -> WorkflowView:
        """Return the view: phase = status, outcome only when paid or failed (I3, I19).

        Notice ``expense_report.reconciliation_pending`` in ``outcome_unknown``.
        """
        view = super().project(state, today)
        if state is None or state.status != "outcome_unknown":
            return view
        return replace(view, notices=(Notice(code=f"{WORKFLOW}.reconciliation_pending"),))

    def build(self, request: CompileRequest[ReportState]) -> Command:
        """Return the command the act asks for, built from the report as the turn left it.

        Commands planned earlier in the turn (``request.prior``) are applied first
        (:meth:`replay`), so ``submit`` binds the total with a line added in the same
        turn and a second line is checked against the report with the first.

        Raises:
            Rejected: for a missing or malformed value, or an absent report.
            UsageError: for an operation the workflow does not register.
        """
        return command_for(replace(request, state=self.replay(request)))

    def check(self, state: ReportState | None, command: Command, today: date) -> None:
        """Raise :class:`Rejected` when ``command`` may not apply to ``state`` now (the rules)."""
        check_rules(state, as_command(command))

    def refusal(self, refused: Refused, locale: str) -> Refusal:
        """Return ``refused`` worded by the sample's copy in ``locale`` (statuses named)."""
        return refusal(refused, locale)

    def excluded_reviewers(self, state: ReportState, command: Command) -> tuple[str, ...]:
        """Return the submitter: they never resolve their own report's Review card (four eyes).

        ``add_line``: monetary + Confirm; ``submit``: monetary + Confirm + a ``manager``
        review by someone other than the submitter; ``pay``: irreversible + Confirm,
        claiming only the external status (the table's policies, I17).
        """
        return (state.submitter,)

    def execute(
        self, state: ReportState | None, command: Command, ctx: ExecutionContext
    ) -> Execution[ReportState]:
        """Apply ``command`` purely; ``pay`` also returns the payments outbox draft.

        Raises:
            UsageError: for a foreign command, or a non-creating one on an absent report.
        """
        return transition(state, as_command(command), ctx)

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
        if not external_allowed(current, status):
            raise TransitionRefused(
                refusal(
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
        event = event_draft(
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
        """Return the receipt for a committed event in ``locale``, from its data (I15, I19).

        The templates are the kit's (:data:`receipts`); a status change to
        ``outcome_unknown`` has its own sentence (a timeout is never a status like the
        others), which a template chosen by the event type alone cannot say.
        """
        if event.type == f"{WORKFLOW}.status_changed" and event.data.get("status") == (
            "outcome_unknown"
        ):
            return copy.text(locale, "outcome_unknown", **receipt_params(event, locale))
        return super().render_receipt(event, state, locale)

    def receipt_params(
        self, event: DomainEvent, state: ReportState | None, locale: str
    ) -> dict[str, object]:
        """Return the event's data with amounts and statuses as ``locale`` words them."""
        return receipt_params(event, locale)

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
            return refusal(Rejected("not_created"), locale)
        wanted = words_of(words)
        found = [x for x in state.lines if x.id.casefold() in wanted]
        if not found:
            scores = {x.id: len(wanted & words_of(x.description)) for x in state.lines}
            best = max(scores.values(), default=0)
            found = [x for x in state.lines if best and scores[x.id] == best]
        if not found:
            return refusal(Rejected("no_such_line", report=state.title), locale)
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
        """Return ``command`` as a card shows it, amounts in the locale (ADR 0003, ADR 0013)."""
        return card_text(state, command, locale)
