"""What a ticket holds. Stored as JSON by its field types."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Priority = Literal["low", "normal", "high", "urgent"]
Status = Literal["open", "closed"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Ticket:
    """A ticket; ``status`` is its phase, and a closed ticket can be reopened."""

    title: str
    requester: str = ""
    priority: Priority = "normal"
    assignee: str | None = None
    comments: tuple[str, ...] = ()
    status: Status = "open"
