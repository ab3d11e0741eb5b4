"""What an acceptance and a booking hold. Stored as JSON by their field types."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

AcceptanceStatus = Literal["accepted", "withdrawn", "expired"]
BookingStatus = Literal["booked", "cancelled"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Acceptance:
    """One traveller's acceptance of one version of an artifact.

    ``status`` is its phase: ``accepted`` counts for the gate; ``withdrawn`` (the
    traveller took it back) and ``expired`` (its retention ended) are terminal and never
    count again. The record stays in every status, with what was accepted and when.
    """

    holder: str
    artifact: str
    version: str
    digest: str
    accepted_on: date
    keep_until: date
    status: AcceptanceStatus = "accepted"
    ended_on: date | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Booking:
    """A booking; ``terms`` is the ``version:digest`` the traveller had accepted when it was made."""

    traveller: str
    destination: str
    terms: str = ""
    status: BookingStatus = "booked"
