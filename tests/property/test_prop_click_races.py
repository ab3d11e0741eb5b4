"""I16 / I13: racing Confirm and Decline clicks on one card, each tab with its own ``in_view``.

Hypothesis draws the storms (per card: four clicks, each Confirm or Decline, each with every
record, none, or only the trip in view); the clicks of a card run at once through separate
store connections — SQLite connections in worker threads, PostgreSQL pools — and every
reply is checked against the card and the trip afterwards (``tf_click_storm.contradictions``).
Before docs/adr/0016-races-and-turn-ids.md a click that lost the card's compare-and-set
reported its own intended option ("Cancelled: nothing was changed." while the booking
committed) and stored that reply.
"""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tf_click_storm import VIEWS, Click, storm

from turnframe.store import InMemoryStore, TurnStore
from turnframe.store.sqlite import SqliteStore
from turnframe.testing.postgres import TEST_DSN_VAR, drop_schema, new_schema_name

CLICKS = st.lists(
    st.builds(Click, st.sampled_from(("confirm", "decline")), st.sampled_from(VIEWS)),
    min_size=2,
    max_size=4,
)
PLANS = st.lists(CLICKS, min_size=2, max_size=3)
SETTINGS = settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


async def _check(stores: list[TurnStore], plans: list[list[Click]]) -> None:
    try:
        report = await storm(stores, plans)
    finally:
        for s in stores:
            await s.close()
    assert report.cards == len(plans)
    assert report.contradicting == 0, report.contradictions


@SETTINGS
@given(plans=PLANS)
def test_memory_storms_never_contradict_the_store(plans: list[list[Click]]) -> None:
    anyio.run(_check, [InMemoryStore()], plans)


@SETTINGS
@given(plans=PLANS)
def test_sqlite_storms_never_contradict_the_store(plans: list[list[Click]], tmp_path: Path) -> None:
    path = tmp_path / f"storm-{os.urandom(4).hex()}.db"

    async def run() -> None:
        await _check([await SqliteStore.open(path, offload=True) for _ in range(4)], plans)

    anyio.run(run)


@SETTINGS
@given(plans=PLANS)
def test_postgres_storms_never_contradict_the_store(plans: list[list[Click]]) -> None:
    dsn = os.environ.get(TEST_DSN_VAR)
    if not dsn:
        pytest.skip(f"PostgreSQL storms need {TEST_DSN_VAR}")
    from turnframe.store.postgres import PostgresStore, migrate

    schema = new_schema_name("tf_storm")

    async def run() -> None:
        await migrate(dsn, schema=schema)
        try:
            stores: list[TurnStore] = [
                await PostgresStore.open(dsn, schema=schema, max_size=2) for _ in range(4)
            ]
            await _check(stores, plans)
        finally:
            await drop_schema(dsn, schema)

    anyio.run(run)
