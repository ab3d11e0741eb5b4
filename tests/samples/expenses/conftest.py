"""Store kinds the expenses tests run on: memory and SQLite, PostgreSQL when configured."""

from __future__ import annotations

import os

import pytest

_KINDS = ["memory", "sqlite"]
if os.environ.get("TURNFRAME_TEST_POSTGRES_DSN"):
    _KINDS.append("postgres")


@pytest.fixture(params=_KINDS)
def store_kind(request: pytest.FixtureRequest) -> str:
    """The store kind of one run (PostgreSQL only with ``TURNFRAME_TEST_POSTGRES_DSN``)."""
    return str(request.param)
