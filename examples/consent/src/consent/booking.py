"""The ``booking`` workflow: the work the acceptance gates (``consent.gate`` refuses it until then)."""

from __future__ import annotations

from dataclasses import replace

from turnframe.core import Command, Execution, ExecutionContext, Op, Workflow

from consent.commands import Book, Cancel
from consent.copy import BOOKING_RECEIPTS
from consent.state import Booking


class BookingWorkflow(Workflow[Booking]):
    """A booking: booked, then maybe cancelled. It knows nothing of the terms but their key.

    ``terms`` is filled by :class:`consent.gate.ConsentGate` when the booking is made: the
    ``version:digest`` of the acceptance it relied on, so the booked event records it.
    """

    name = "booking"
    version = "booking/1"
    state_type = Booking
    nouns = {"en": "booking"}
    label_fields = ("destination", "traveller")
    search_fields = ("destination",)
    terminal = ("cancelled",)
    table = (
        Op(Book, "Book a trip.", creates_case=True),
        Op(Cancel, "Cancel the booking."),
    )
    offers = {"new": ("booking.book",), "booked": ("booking.cancel",)}
    receipts = BOOKING_RECEIPTS
    payload_fields = {"booking.booked": ("terms",)}

    def execute(
        self, state: Booking | None, command: Command, ctx: ExecutionContext
    ) -> Execution[Booking]:
        """Book for the actor, or cancel."""
        if isinstance(command, Book):
            return self.emit(
                Booking(traveller=ctx.actor.user, destination=command.destination), command
            )
        record = self.existing(state, command)
        if isinstance(command, Cancel):
            return self.emit(replace(record, status="cancelled"), command)
        return self.unchanged(record)
