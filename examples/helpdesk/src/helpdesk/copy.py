"""Every sentence the app says: receipts by event type, cards and questions."""

RECEIPTS = {
    "en": {
        "ticket.opened": "Opened ticket {title} ({priority} priority).",
        "ticket.priority_set": "Set the priority of ticket {title} to {priority}.",
        "ticket.assigned": "Assigned ticket {title} to {assignee}.",
        "ticket.commented": "Added a comment to ticket {title}.",
        "ticket.closed": "Closed ticket {title}.",
        "ticket.reopened": "Reopened ticket {title}.",
    }
}

WORDS = {
    "en": {
        "card.ticket.close": "Close ticket {label}",
        "ask.title": "What is the problem, in a few words?",
        "ask.assignee": "Who should take the ticket?",
    }
}
