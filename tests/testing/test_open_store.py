"""The test kit opens every store kind and exports what a scripted entry receives.

``turnframe.testing.open_store`` (docs/authoring.md "Testing your app") and
``turnframe.testing.Brief``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from turnframe.core.errors import UsageError
from turnframe.testing import Brief, ScriptedUnderstanding, open_store
from turnframe.understand import brief as brief_module

DSN_VAR = "TURNFRAME_TEST_POSTGRES_DSN"


def run(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    """Run an async test body with anyio (the repository's tests are sync)."""

    @functools.wraps(test)
    def sync(*args: Any, **kwargs: Any) -> None:
        anyio.run(functools.partial(test, *args, **kwargs))

    return sync


def test_brief_is_the_understanding_s_brief() -> None:
    assert Brief is brief_module.Brief
    assert ScriptedUnderstanding.__module__.startswith("turnframe.understand")


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@run
async def test_memory_and_sqlite_open_fresh_and_clean_up(kind: str) -> None:
    async with open_store(kind) as store:  # type: ignore[arg-type]
        assert await store.list_cases("acme") == []
        seen = getattr(store, "_path", None)
    if kind == "sqlite":
        assert seen is not None and not Path(seen).exists()  # the temporary directory is gone


@run
async def test_sqlite_at_a_given_path_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "kept.db"
    async with open_store("sqlite", path=path) as store:
        assert await store.list_cases("acme") == []
    assert path.exists()


@run
async def test_postgres_without_a_dsn_is_a_clear_usage_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TURNFRAME_POSTGRES_DSN", raising=False)
    monkeypatch.delenv(DSN_VAR, raising=False)
    with pytest.raises(UsageError, match="TURNFRAME_POSTGRES_DSN"):
        async with open_store("postgres"):
            pass


@run
async def test_postgres_opens_a_fresh_schema_and_drops_it() -> None:
    dsn = os.environ.get(DSN_VAR)
    if not dsn:
        pytest.skip(f"set {DSN_VAR} to run against PostgreSQL")
    async with open_store("postgres", dsn=dsn) as store:
        assert await store.list_cases("acme") == []
        schema = store.schema  # type: ignore[attr-defined]
    import psycopg

    async with await psycopg.AsyncConnection.connect(dsn) as conn:
        cur = await conn.execute(
            "SELECT count(*) FROM information_schema.schemata WHERE schema_name = %s", (schema,)
        )
        row = await cur.fetchone()
    assert row is not None and row[0] == 0


@pytest.mark.parametrize(
    ("kind", "kwargs", "message"),
    [
        ("oracle", {}, "unknown store"),
        ("memory", {"path": "x.db"}, "path= is for the sqlite store"),
        ("sqlite", {"dsn": "postgresql://x"}, "dsn= is for the postgres store"),
    ],
)
@run
async def test_bad_arguments_are_refused(kind: str, kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        async with open_store(kind, **kwargs):  # type: ignore[arg-type]
            pass
