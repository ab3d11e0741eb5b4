"""Determinism ports: the runtime's clock and id source (replays need both fixed)."""

from __future__ import annotations

import itertools
import secrets
from datetime import UTC, date, datetime
from typing import Protocol

__all__ = ["Clock", "FixedClock", "IdSource", "RandomIds", "SequentialIds", "SystemClock"]


class Clock(Protocol):
    """Gives the turn's today; dates in acts are evaluated against it."""

    def today(self) -> date:
        """Return today's date."""
        ...


class SystemClock:
    """The wall clock, in UTC."""

    def today(self) -> date:
        """Return today's UTC date."""
        return datetime.now(UTC).date()  # noqa: TID251 - the one place wall time enters


class FixedClock:
    """A clock that always says ``day`` (scenarios, replays, tests).

    Args:
        day: the date.
    """

    def __init__(self, day: date) -> None:
        self.day = day

    def today(self) -> date:
        """Return the fixed date."""
        return self.day

    def advance(self, days: int) -> None:
        """Move the date ``days`` days forward."""
        self.day = date.fromordinal(self.day.toordinal() + days)


class IdSource(Protocol):
    """Mints server-side ids (turns, cases, cards)."""

    def new_id(self, prefix: str) -> str:
        """Return a fresh id starting with ``prefix``."""
        ...


class RandomIds:
    """Unguessable ids: ``prefix`` + 20 hex characters from the OS's CSPRNG."""

    def new_id(self, prefix: str) -> str:
        """Return ``prefix-<20 hex>``."""
        return f"{prefix}-{secrets.token_hex(10)}"


class SequentialIds:
    """Deterministic ids ``prefix-1``, ``prefix-2`` … (one counter per prefix), for tests."""

    def __init__(self) -> None:
        self._counters: dict[str, itertools.count[int]] = {}

    def new_id(self, prefix: str) -> str:
        """Return the next ``prefix-<n>``."""
        counter = self._counters.setdefault(prefix, itertools.count(1))
        return f"{prefix}-{next(counter)}"
