"""docs/recipes/no-revision-column.md: its SQL is the command's output, and it works."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import pytest

from turnframe.cli import main
from turnframe.core.events import EventDraft
from turnframe.core.ids import CaseRef
from turnframe.store import CommitRequest
from turnframe.testing.postgres import TEST_DSN_VAR, postgres_dsn

pytest.importorskip("psycopg")

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "recipes" / "no-revision-column.md"


def _printed(capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["db", "recipe", "no-revision-column", "--table", "bookings", "--key", "ref"]) == 0
    return capsys.readouterr().out


def test_the_document_shows_exactly_what_the_command_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    blocks = re.findall(r"```sql\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert blocks, "the recipe has a ```sql block"
    assert blocks[0].strip() == _printed(capsys).strip()


def test_the_printed_statements_run_and_guard_every_writer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    dsn = postgres_dsn(required=False, test=True)
    if not dsn:
        pytest.skip(f"needs {TEST_DSN_VAR}")
    printed = _printed(capsys)
    ddl, cas = printed.split("-- the executor's compare-and-set (zero rows: stale)\n")

    async def body() -> None:
        from turnframe.testing.postgres import open_temporary_store

        store = await open_temporary_store(dsn, prefix="tf_recipe")
        try:
            async with store.connection() as conn:
                # an adopter's table that never had a revision, with rows in it
                await conn.execute("CREATE TABLE bookings (ref text PRIMARY KEY, status text)")
                await conn.execute("INSERT INTO bookings VALUES ('B1', 'held'), ('B2', 'held')")
                await conn.execute(ddl.encode())  # the printed statements, as printed
                await conn.execute(ddl.encode())  # and they are idempotent

                async def revision(ref: str) -> int:
                    cur = await conn.execute(
                        "SELECT tf_revision FROM bookings WHERE ref = %s", (ref,)
                    )
                    row = await cur.fetchone()
                    assert row is not None
                    return int(row[0])

                assert await revision("B1") == 1
                # a legacy writer that knows nothing of revisions still moves it
                await conn.execute("UPDATE bookings SET status = 'paid' WHERE ref = 'B2'")
                await conn.execute(
                    "UPDATE bookings SET status = 'x', tf_revision = 1 WHERE ref = 'B2'"
                )
                assert await revision("B2") == 3
                # the compare-and-set: a stale revision writes nothing
                cur = await conn.execute(
                    cas.encode(), {"status": "confirmed", "key": "B2", "expected": 1}
                )
                assert await cur.fetchone() is None
                cur = await conn.execute("SELECT status FROM bookings WHERE ref = 'B2'")
                assert (await cur.fetchone()) == ("x",)
                # the current revision: written, with Turnframe's commit in one transaction
                request = CommitRequest(
                    account="acme",
                    case=CaseRef("booking", "B1"),
                    expected_revision=0,
                    state={"status": "confirmed"},
                    events=(EventDraft(type="booking.confirmed", data={}, operation="confirm"),),
                    idempotency_key="confirm-B1",
                    request_hash="h",
                    turn_id="t1",
                )
                async with conn.transaction():
                    cur = await conn.execute(
                        cas.encode(), {"status": "confirmed", "key": "B1", "expected": 1}
                    )
                    assert await cur.fetchone() == (2,)
                    await store.joined(conn).commit(request)
                assert await revision("B1") == 2
                assert await store.lookup_command("acme", "confirm-B1") is not None
                # and if the adopter's side fails, Turnframe's commit is undone with it
                with pytest.raises(RuntimeError):
                    async with conn.transaction():
                        await conn.execute(
                            cas.encode(), {"status": "gone", "key": "B1", "expected": 2}
                        )
                        await store.joined(conn).commit(
                            CommitRequest(
                                account="acme",
                                case=CaseRef("booking", "B1"),
                                expected_revision=1,
                                state={"status": "gone"},
                                events=(
                                    EventDraft(
                                        type="booking.cancelled", data={}, operation="cancel"
                                    ),
                                ),
                                idempotency_key="cancel-B1",
                                request_hash="h",
                                turn_id="t2",
                            )
                        )
                        raise RuntimeError("the adopter's own step failed")
                assert await revision("B1") == 2
                assert await store.lookup_command("acme", "cancel-B1") is None
        finally:
            await store.close()

    anyio.run(body)
