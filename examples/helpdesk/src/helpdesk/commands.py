"""The ticket commands; their fields are the operations' arguments."""

from __future__ import annotations

from turnframe.core import TypedCommand, arg

from helpdesk.state import Priority


class OpenTicket(TypedCommand, operation="ticket.open", event="ticket.opened"):
    """Open a ticket."""

    title: str = arg(description="what is wrong, in a few words", names_record=True)
    requester: str = arg("", description="who reported the problem")
    priority: Priority = arg("normal", description="low, normal, high or urgent")


class SetPriority(TypedCommand, operation="ticket.set_priority", event="ticket.priority_set"):
    """Change the priority."""

    priority: Priority = arg(description="low, normal, high or urgent")


class Assign(TypedCommand, operation="ticket.assign", event="ticket.assigned"):
    """Give the ticket to an agent."""

    assignee: str = arg(description="the agent who takes the ticket")


class Comment(TypedCommand, operation="ticket.comment", event="ticket.commented"):
    """Add a comment."""

    text: str = arg(label="comment", description="the comment, in the user's words")


class Close(TypedCommand, operation="ticket.close", event="ticket.closed"):
    """Close the ticket (a Confirm card first)."""

    resolution: str = arg("", description="how the problem was solved")


class Reopen(TypedCommand, operation="ticket.reopen", event="ticket.reopened"):
    """Reopen a closed ticket."""

    reason: str = arg("", description="why the ticket is reopened")
