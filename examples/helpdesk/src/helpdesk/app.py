"""The application: what ``turnframe ... --app helpdesk`` serves."""

from pathlib import Path

from turnframe.core import WorkflowRegistry
from turnframe.runtime.app import Application

from helpdesk.workflow import TicketWorkflow

TOUR = Path(__file__).resolve().parents[2] / "scenarios" / "01_ambiguity_card.yaml"
"""The scenario ``turnframe demo`` plays; a new ``turnframe chat`` database starts with its records."""


def application() -> Application:
    """Return helpdesk: the ticket workflow, in English, with its tour."""
    return Application(
        name="helpdesk", registry=WorkflowRegistry([TicketWorkflow()]), tour=str(TOUR)
    )
