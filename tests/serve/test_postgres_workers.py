"""Several uvicorn workers on PostgreSQL: a retried key is one turn across workers.

Needs ``TURNFRAME_TEST_POSTGRES_DSN`` (``.ci/run`` sets it); skipped with a message when
it is unset.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from turnframe.core.ids import CaseRef

DSN = os.environ.get("TURNFRAME_TEST_POSTGRES_DSN")

pytestmark = pytest.mark.skipif(
    not DSN,
    reason="set TURNFRAME_TEST_POSTGRES_DSN=postgresql://USER@127.0.0.1:5432/DB to run the "
    "multi-worker PostgreSQL serving test",
)


async def _hotel_events(schema: str) -> int:
    from turnframe.store.postgres import PostgresStore

    assert DSN is not None
    store = await PostgresStore.open(DSN, schema=schema)
    try:
        events = await store.case_events(CaseRef("trip", "T2"))
    finally:
        await store.close()
    return len([e for e in events if "hotel" in e.type])


async def _many(base: str, body: dict[str, Any], key: str, n: int) -> list[httpx.Response]:
    answers: list[httpx.Response] = []
    limits = httpx.Limits(max_keepalive_connections=0)  # one connection per request

    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as client:

        async def send() -> None:
            answers.append(
                await client.post(
                    "/v1/conversations/pg/turns", json=body, headers={"Idempotency-Key": key}
                )
            )

        async with anyio.create_task_group() as group:
            for _ in range(n):
                group.start_soon(send)
    return answers


def test_a_key_retried_across_workers_is_one_turn_and_one_effect(
    tmp_path: Path, running: Any
) -> None:
    from turnframe.testing.postgres import drop_schema, new_schema_name

    assert DSN is not None
    schema = new_schema_name("tf_serve")
    try:
        args = ("serve", "--store", "postgres", "--dsn", DSN, "--schema", schema)
        with running(*args, "--workers", "2", "--port", "0", log=tmp_path / "err") as (
            base,
            line,
        ):
            assert "workers 2" in line
            booked = httpx.post(
                f"{base}/v1/conversations/pg/turns",
                json={"text": "Book Hotel Avenida for 3 nights in June."},
                timeout=30,
            ).json()
            card = next(b for b in booked["blocks"] if b["kind"] == "interaction")
            click = {
                "click": {
                    "interaction_id": card["interaction_id"],
                    "option_id": "confirm",
                    "expected_revision": card["expected_revision"],
                }
            }
            answers = anyio.run(_many, base, click, "pg-key-1", 12)
            assert all(a.status_code in (200, 201) for a in answers), [a.text for a in answers]
            assert len({a.json()["turn_id"] for a in answers}) == 1
            assert len({str(a.json()["blocks"]) for a in answers}) == 1
            other = httpx.post(
                f"{base}/v1/conversations/pg/turns",
                json={"text": "Send the manifest."},
                headers={"Idempotency-Key": "pg-key-1"},
                timeout=30,
            )
            assert other.status_code == 409
            assert other.json()["code"] == "idempotency_key_reused"
        assert anyio.run(_hotel_events, schema) == 1
    finally:
        anyio.run(drop_schema, DSN, schema)
