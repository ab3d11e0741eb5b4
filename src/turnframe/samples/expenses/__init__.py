"""The expenses sample: expense reports, a manager's approval and an external payment.

Written only through the public API (``turnframe.core``, ``turnframe.runtime``), which an
import-linter contract (``expenses-public-api`` in pyproject) holds it to.
:func:`expenses_application` is what the runtime, the CLI and the scenario runner serve
(entry point ``expenses`` in group ``turnframe.apps``). Modules: ``model`` (state,
commands, operations), ``workflow`` (the workflow definition), ``copy`` (en and pt-PT
words), ``rules`` (checks and transitions), ``receipts`` (receipt and card words),
``seed`` (scenario records), ``payments`` (the outbox saga and its client).
"""

from __future__ import annotations

from pathlib import Path

from turnframe.core import RegistryError, WorkflowRegistry
from turnframe.runtime import Application
from turnframe.samples.expenses.copy import LOCALES
from turnframe.samples.expenses.model import (
    EXTERNAL_STATUSES,
    REPORT_STATUSES,
    AddLine,
    CreateReport,
    Line,
    PayReport,
    RemoveLine,
    ReportState,
    SubmitReport,
)
from turnframe.samples.expenses.payments import PaymentSaga, PaymentsClient
from turnframe.samples.expenses.seed import ExpenseSeeder
from turnframe.samples.expenses.workflow import (
    PAY_ROLE,
    PAYMENT_TOPIC,
    REVIEW_ROLE,
    ExpenseReportWorkflow,
    TransitionRefused,
)

__all__ = [
    "EXTERNAL_STATUSES",
    "PAYMENT_TOPIC",
    "PAY_ROLE",
    "REPORT_STATUSES",
    "REVIEW_ROLE",
    "AddLine",
    "CreateReport",
    "ExpenseReportWorkflow",
    "ExpenseSeeder",
    "Line",
    "PayReport",
    "PaymentSaga",
    "PaymentsClient",
    "RemoveLine",
    "ReportState",
    "SubmitReport",
    "TOUR",
    "TransitionRefused",
    "expenses_application",
]

TOUR = Path(__file__).resolve().parent / "tour.yaml"
"""The sample's tour (``turnframe demo --app expenses``, the web chat's suggestions)."""


def expenses_application() -> Application:
    """Return the expenses application: one workflow, en and pt-PT, the short-record seeder.

    Returns:
        ``Application(name="expenses")`` with a fresh registry holding
        :class:`ExpenseReportWorkflow` (registration checks every operation's policy and
        its summaries and labels in both locales), ``locales=("en", "pt-PT")`` and
        :class:`ExpenseSeeder` and the tour :data:`TOUR` (a scenario file,
        docs/scenario-format.md).

    Raises:
        RegistryError: when the workflow's copy lacks a sentence in a served locale.
    """
    workflow = ExpenseReportWorkflow()
    problems = workflow.registration_problems(LOCALES)
    if problems:
        raise RegistryError(f"workflow {workflow.name!r}: " + "; ".join(problems))
    registry = WorkflowRegistry([workflow])
    return Application(
        name="expenses",
        registry=registry,
        locales=LOCALES,
        default_locale="en",
        seeder=ExpenseSeeder(),
        tour=str(TOUR),
    )
