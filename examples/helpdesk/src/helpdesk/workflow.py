"""The ``ticket`` workflow: declarations, and what each command does."""

from __future__ import annotations

from dataclasses import replace

from turnframe.core import (
    Command,
    Execution,
    ExecutionContext,
    Op,
    RiskClass,
    Workflow,
    confirm,
)

from helpdesk.commands import Assign, Close, Comment, OpenTicket, Reopen, SetPriority
from helpdesk.copy import RECEIPTS, WORDS
from helpdesk.state import Ticket


class TicketWorkflow(Workflow[Ticket]):
    """A ticket's life: open → (priority, assignee, comments) → closed → reopened."""

    name = "ticket"
    version = "ticket/1"
    state_type = Ticket
    nouns = {"en": "ticket"}
    label_fields = ("title", "requester", "priority")
    search_fields = ("title", "requester", "assignee")
    table = (
        Op(OpenTicket, "Open a new ticket.", creates_case=True),
        Op(SetPriority, "Set the ticket's priority."),
        Op(Assign, "Assign the ticket to an agent."),
        Op(Comment, "Add a comment to the ticket."),
        Op(Close, "Close the ticket.", policy=confirm(RiskClass.REVERSIBLE)),
        Op(Reopen, "Reopen a closed ticket."),
    )
    offers = {
        "new": ("ticket.open",),
        "open": ("ticket.set_priority", "ticket.assign", "ticket.comment", "ticket.close"),
        "closed": ("ticket.comment", "ticket.reopen"),
    }
    receipts = RECEIPTS
    words = WORDS

    def execute(
        self, state: Ticket | None, command: Command, ctx: ExecutionContext
    ) -> Execution[Ticket]:
        """Apply one command; setting what the ticket already has changes nothing."""
        if isinstance(command, OpenTicket):
            new = Ticket(
                title=command.title, requester=command.requester, priority=command.priority
            )
            return self.emit(new, command)
        record = self.existing(state, command)
        match command:
            case SetPriority(priority=priority) if priority != record.priority:
                return self.emit(replace(record, priority=priority), command)
            case Assign(assignee=assignee) if assignee != record.assignee:
                return self.emit(replace(record, assignee=assignee), command)
            case Comment(text=text):
                return self.emit(replace(record, comments=(*record.comments, text)), command)
            case Close():
                return self.emit(replace(record, status="closed"), command)
            case Reopen():
                return self.emit(replace(record, status="open"), command)
        return self.unchanged(record)
