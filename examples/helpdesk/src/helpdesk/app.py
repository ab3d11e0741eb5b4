"""The application: what ``turnframe ... --app helpdesk`` serves."""

from turnframe.core import WorkflowRegistry
from turnframe.runtime.app import Application

from helpdesk.workflow import TicketWorkflow


def application() -> Application:
    """Return helpdesk: the ticket workflow, in English."""
    return Application(name="helpdesk", registry=WorkflowRegistry([TicketWorkflow()]))
