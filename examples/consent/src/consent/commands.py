"""The commands of both workflows; their fields are the operations' arguments."""

from __future__ import annotations

from turnframe.core import TypedCommand, arg


class Accept(TypedCommand, operation="terms.accept", event="terms.accepted"):
    """Accept the current artifact (a Confirm card first, showing its version and digest)."""

    artifact: str = arg("", argument=False)
    version: str = arg("", argument=False)
    digest: str = arg("", argument=False)


class Withdraw(TypedCommand, operation="terms.withdraw", event="terms.withdrawn"):
    """Take an acceptance back (a Confirm card first)."""


class Book(TypedCommand, operation="booking.book", event="booking.booked"):
    """Book a trip; refused until the traveller accepted the current terms."""

    destination: str = arg(description="where the trip goes", names_record=True)


class Cancel(TypedCommand, operation="booking.cancel", event="booking.cancelled"):
    """Cancel a booking."""
