"""The application: what ``turnframe ... --app consent`` serves."""

from __future__ import annotations

from pathlib import Path

from turnframe.core import WorkflowRegistry
from turnframe.runtime.app import Application
from turnframe.store import TurnStore

from consent.artifact import TERMS_2026_05, Artifact
from consent.booking import BookingWorkflow
from consent.gate import ConsentGate
from consent.terms import TermsWorkflow

TOUR = Path(__file__).resolve().parents[2] / "scenarios" / "01_accept_then_book.yaml"
"""The scenario ``turnframe demo`` plays."""


def application(artifact: Artifact = TERMS_2026_05) -> Application:
    """Return the consent app publishing ``artifact``: bookings gated on accepting it."""

    def gate(registry: WorkflowRegistry, store: TurnStore) -> ConsentGate:
        return ConsentGate(registry, store, artifact)

    return Application(
        name="consent",
        registry=WorkflowRegistry([TermsWorkflow(artifact), BookingWorkflow()]),
        executor=gate,
        tour=str(TOUR),
    )
