"""The text a traveller accepts: its name, version, digest and how long an acceptance is kept."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Artifact:
    """A published legal text (docs/guides/consent.md "The artifact").

    Attributes:
        name: what the text is, as a card names it (``"Terms of travel"``).
        version: the published version (``"2026-05"``); a new text gets a new version.
        text: the whole text, exactly as shown to the traveller.
        retention_days: how long an acceptance is kept after it is given (> 0).
    """

    name: str
    version: str
    text: str
    retention_days: int

    def __post_init__(self) -> None:
        if not self.name.strip() or not self.version.strip() or not self.text.strip():
            raise ValueError("an artifact needs a name, a version and a text")
        if self.retention_days <= 0:
            raise ValueError(f"retention_days must be > 0, not {self.retention_days}")

    @property
    def digest(self) -> str:
        """Return the SHA-256 of the text (UTF-8), in hex: what exactly was accepted."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


TERMS_2026_05 = Artifact(
    name="Terms of travel",
    version="2026-05",
    text="Bookings are paid in advance. Changes are free until 48 hours before departure.",
    retention_days=730,
)
"""The terms the application publishes by default."""

TERMS_2026_09 = Artifact(
    name="Terms of travel",
    version="2026-09",
    text="Bookings are paid in advance. Changes are free until 24 hours before departure.",
    retention_days=730,
)
"""A later version of the terms: publishing it asks every traveller to accept again."""
