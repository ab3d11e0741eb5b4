"""A store written before the default view is refused when the runtime is built (ADR 0020 rule 7)."""

from __future__ import annotations

from typing import Any

import pytest

from turnframe.core.errors import UsageError
from turnframe.runtime import Runtime
from turnframe.samples.travel import travel_application
from turnframe.store import InMemoryStore


class _OldPages(InMemoryStore):
    """An adopter's store whose listing predates ``recent``."""

    async def list_cases_page(  # type: ignore[override]
        self, account: str, *, workflow: str | None = None, limit: int = 100
    ) -> Any:
        return await super().list_cases_page(account, workflow=workflow, limit=limit)


class _Forwarding(InMemoryStore):
    """A wrapper that forwards every keyword."""

    async def list_cases_page(self, account: str, **kwargs: Any) -> Any:  # type: ignore[override]
        return await super().list_cases_page(account, **kwargs)


def test_a_listing_without_recent_is_refused_at_construction() -> None:
    with pytest.raises(UsageError, match=r"_OldPages\.list_cases_page takes no 'recent'"):
        Runtime(travel_application(), _OldPages())


def test_the_shipped_store_and_a_forwarding_wrapper_are_accepted() -> None:
    Runtime(travel_application(), InMemoryStore())
    Runtime(travel_application(), _Forwarding())
