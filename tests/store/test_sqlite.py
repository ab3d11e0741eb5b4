import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import platformdirs
import pytest

from turnframe.core.events import EventDraft
from turnframe.core.ids import CaseRef
from turnframe.core.workflow import OutboxDraft
from turnframe.store import (
    CommitRequest,
    CommitResult,
    PlanCommit,
    StoreError,
    StoreUnavailable,
    TurnRecord,
    TurnReply,
    TurnStore,
)
from turnframe.store._sqlite_schema import SCHEMA_VERSION
from turnframe.store.conformance import StoreConformance
from turnframe.store.sqlite import SqliteStore, default_path


class TestSqliteStore(StoreConformance):
    offload = False

    async def make_store(self) -> TurnStore:
        return await SqliteStore.open(self.tmp_path / "turnframe.db", offload=self.offload)

    async def make_peer_store(self, store: TurnStore) -> TurnStore | None:
        assert isinstance(store, SqliteStore)
        # peers run in worker threads so the races really overlap on the database lock
        return await SqliteStore.open(store.path, offload=True)


class TestSqliteStoreOffloaded(TestSqliteStore):
    offload = True


class TestSqliteStoreInMemory(StoreConformance):
    async def make_store(self) -> TurnStore:
        return await SqliteStore.open(":memory:")


def test_unopenable_path_is_store_unavailable(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    target = blocker / "turnframe.db"

    async def main() -> None:
        await SqliteStore.open(target)

    with pytest.raises(StoreUnavailable) as caught:
        anyio.run(main)
    assert str(target) in str(caught.value)
    assert caught.value.failure.retryable is True


def test_a_file_that_is_not_a_database_is_store_unavailable(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"definitely not sqlite" * 100)

    async def main() -> None:
        await SqliteStore.open(junk)

    with pytest.raises(StoreUnavailable, match="junk.db"):
        anyio.run(main)


def test_default_path_is_under_the_user_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir = tmp_path / "data" / "turnframe"
    calls: list[str] = []

    def fake_user_data_dir(appname: str | None = None, *args: object, **kw: object) -> str:
        calls.append(str(appname))
        return str(data_dir)

    monkeypatch.setattr(platformdirs, "user_data_dir", fake_user_data_dir)
    assert default_path() == data_dir / "turnframe.db"

    async def main() -> Path | str:
        store = await SqliteStore.open()
        try:
            await store.put_conversation_state("a", "c", {"x": 1})
            return store.path
        finally:
            await store.close()

    assert anyio.run(main) == data_dir / "turnframe.db"
    assert (data_dir / "turnframe.db").is_file()
    assert calls and set(calls) == {"turnframe"}


def test_wal_synchronous_foreign_keys_and_schema_version(tmp_path: Path) -> None:
    async def main() -> None:
        store = await SqliteStore.open(tmp_path / "x.db")
        conn = store._conn  # peeking at the connection's pragmas
        assert conn is not None
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
        await store.close()
        await store.close()
        with pytest.raises(StoreUnavailable, match="closed"):
            await store.load_case(CaseRef("trip", "t1"))
        again = await SqliteStore.open(tmp_path / "x.db")  # reopening keeps one version row
        assert again._conn is not None
        assert again._conn.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 1
        again._conn.execute("INSERT INTO schema_version (version) VALUES (99)")
        await again.close()
        with pytest.raises(StoreUnavailable, match="schema version 99"):
            await SqliteStore.open(tmp_path / "x.db")

    anyio.run(main)


def test_a_version_1_database_is_migrated_in_place(tmp_path: Path) -> None:
    """Opening a version-1 file adds ``replays.outcome`` and keeps every stored record."""
    path = tmp_path / "v1.db"

    async def fresh() -> None:
        await (await SqliteStore.open(path)).close()

    anyio.run(fresh)
    with sqlite3.connect(path) as conn:  # take the file back to version 1
        conn.execute("ALTER TABLE replays DROP COLUMN outcome")
        conn.execute("ALTER TABLE cases DROP COLUMN workflow_version")  # version 6's
        conn.execute("ALTER TABLE turns DROP COLUMN replay_outcome")  # version 7's
        conn.execute("DELETE FROM schema_version")
        conn.execute("INSERT INTO schema_version (version) VALUES (1)")
        conn.execute(
            "INSERT INTO replays (account, turn_id, record) VALUES ('a', 't', '{\"x\": 1}')"
        )
    conn.close()

    async def main() -> None:
        store = await SqliteStore.open(path)
        assert store._conn is not None  # peeking at the version rows
        rows = store._conn.execute("SELECT version FROM schema_version ORDER BY version")
        assert rows.fetchall() == [(v,) for v in range(1, SCHEMA_VERSION + 1)]
        assert await store.load_replay("a", "t") == {"x": 1}
        await store.close()
        again = await SqliteStore.open(path)  # a migrated file opens as it is
        assert await again.load_replay("a", "t") == {"x": 1}
        await again.close()

    anyio.run(main)


def test_a_version_6_database_keeps_reading_its_two_part_replay_records(tmp_path: Path) -> None:
    """Version 7 keeps the second part in the turn's row; parts stored before still read.

    A record whose second part is in ``replays.outcome`` reads whole after the migration;
    a new second part (``finish_turn``) goes in ``turns.replay_outcome`` and its keys win,
    with no write to the first part's row; saving the record whole again clears both
    places (docs/adr/0024-four-writes-per-turn.md rule 4).
    """
    path = tmp_path / "v6.db"

    async def fresh() -> None:
        store = await SqliteStore.open(path)
        await store.begin_turn(TurnRecord(turn_id="t", account="a", conversation_id="c"))
        await store.close()

    anyio.run(fresh)
    with sqlite3.connect(path) as conn:  # take the file back to version 6
        conn.execute("ALTER TABLE turns DROP COLUMN replay_outcome")
        conn.execute("UPDATE schema_version SET version = 6")
        conn.execute(
            "INSERT INTO replays (account, turn_id, record, outcome)"
            " VALUES ('a', 't', '{\"x\": 1, \"y\": 1}', '{\"y\": 2, \"z\": 3}')"
        )
    conn.close()

    async def main() -> None:
        store = await SqliteStore.open(path)
        assert store._conn is not None  # peeking at the version rows
        rows = store._conn.execute("SELECT version FROM schema_version ORDER BY version")
        assert rows.fetchall() == [(6,), (SCHEMA_VERSION,)] == [(6,), (7,)]
        assert await store.load_replay("a", "t") == {"x": 1, "y": 2, "z": 3}
        assert await store.load_replay("b", "t") is None  # another account's: not served
        with store.tally() as tally:
            reply = TurnReply(
                turn_id="t", account="a", conversation_id="c", blocks=(), data={}, replay={"z": 4}
            )
            await store.finish_turn(reply)
        assert not any("replays" in sql for sql in tally.sql), tally.sql
        assert await store.load_replay("a", "t") == {"x": 1, "y": 2, "z": 4}
        await store.save_replay("a", "t", {"w": 0})
        assert await store.load_replay("a", "t") == {"w": 0}
        left = store._conn.execute("SELECT replay_outcome FROM turns").fetchall()
        assert left == [(None,)]
        await store.close()

    anyio.run(main)


def _request(key: str, expected: int = 0, **state: Any) -> CommitRequest:
    return CommitRequest(
        account="a",
        case=CaseRef("trip", "t1"),
        expected_revision=expected,
        state=dict(state),
        events=(EventDraft(type="x", data={"k": key}, operation="o"),),
        idempotency_key=key,
        request_hash="h",
        turn_id="t",
    )


def test_a_held_write_lock_is_store_unavailable_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"

    async def main() -> None:
        store = await SqliteStore.open(path, timeout=0.05)
        other = sqlite3.connect(path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
            with pytest.raises(StoreUnavailable, match="locked") as caught:
                await store.commit(_request("k"))
            assert caught.value.failure.retryable is True
            other.execute("ROLLBACK")
            assert await store.lookup_command("a", "k") is None
            assert (await store.commit(_request("k"))).revision == 1
        finally:
            other.close()
            await store.close()

    anyio.run(main)


def test_ids_text_and_json_survive_the_file(tmp_path: Path) -> None:
    async def main() -> None:
        store = await SqliteStore.open(tmp_path / "x.db")
        try:
            first = await store.commit(_request("k1", name="Zoë ✓", odd="\ud800"))
            second = await store.commit(_request("k2", expected=1))
            assert [e.id for e in (*first.events, *second.events)] == ["ev-1", "ev-2"]
            reopened = await SqliteStore.open(tmp_path / "x.db")
            try:
                row = await reopened.load_case(CaseRef("trip", "t1"))
                assert row is not None and row.revision == 2
                entry = await reopened.lookup_command("a", "k1")
                assert entry is not None and entry.result == first
                with pytest.raises(StoreError):
                    await reopened.put_conversation_state("a", "c", {"bad": {1}})  # type: ignore[dict-item]
            finally:
                await reopened.close()
            await store.save_replay("a", "t", {"text": "\ud800 lone surrogate"})
            assert await store.load_replay("a", "t") == {"text": "\ud800 lone surrogate"}
        finally:
            await store.close()

    anyio.run(main)


def test_begin_turn_costs_the_same_at_turn_10_and_turn_2000(tmp_path: Path) -> None:
    """Numbering a turn reads one index entry, not the conversation's turns (issue 9).

    Counted in SQLite virtual-machine instructions (a progress handler called on every
    instruction), so the figure is exact and independent of the machine's load.
    """

    async def main() -> None:
        store = await SqliteStore.open(tmp_path / "seq.db")
        conn = store._conn  # counting the connection's VM instructions
        assert conn is not None
        steps = [0]

        def tick() -> int:
            steps[0] += 1
            return 0

        async def cost(n: int) -> int:
            steps[0] = 0
            conn.set_progress_handler(tick, 1)
            try:
                record = TurnRecord(turn_id=f"t{n}", account="a", conversation_id="c")
                assert (await store.begin_turn(record)).seq == n
            finally:
                conn.set_progress_handler(None, 1)
            return steps[0]

        for n in range(1, 10):
            await store.begin_turn(TurnRecord(turn_id=f"t{n}", account="a", conversation_id="c"))
        early = await cost(10)
        for n in range(11, 2000):
            await store.begin_turn(TurnRecord(turn_id=f"t{n}", account="a", conversation_id="c"))
        late = await cost(2000)
        assert late <= early + 20, (early, late)
        with store.tally() as tally:
            await store.begin_turn(TurnRecord(turn_id="t2001", account="a", conversation_id="c"))
        assert tally.write_transactions == 1
        assert not any("COUNT(" in sql.upper() for sql in tally.sql)
        await store.close()

    anyio.run(main)


def test_outbox_ids_follow_each_other_across_the_commits_of_one_plan(tmp_path: Path) -> None:
    """Each commit reads the highest outbox ``pos`` with its journal lookup, one statement.

    Two commits of one ``commit_plan`` transaction, then a lone commit: the ids run on
    (``ob-1`` … ``ob-5``), none repeats, and no commit reads the outbox on its own.
    """

    def request(key: str, case_id: str, topics: tuple[str, ...]) -> CommitRequest:
        return replace(
            _request(key),
            case=CaseRef("trip", case_id),
            outbox=tuple(OutboxDraft(topic=t, payload={"t": t}) for t in topics),
        )

    async def main() -> None:
        store = await SqliteStore.open(tmp_path / "x.db")
        try:
            with store.tally() as tally:
                outcome = await store.commit_plan(
                    PlanCommit(
                        turn_id="t",
                        account="a",
                        requests=(
                            request("k1", "t1", ("one", "two")),
                            request("k2", "t2", ("three",)),
                        ),
                    )
                )
                last = await store.commit(request("k3", "t3", ("four", "five")))
            first, second = outcome.commits
            assert isinstance(first, CommitResult) and isinstance(second, CommitResult)
            assert first.outbox_ids + second.outbox_ids + last.outbox_ids == tuple(
                f"ob-{n}" for n in range(1, 6)
            )
            stored = [(m.id, m.topic) for m in await store.outbox_messages()]
            assert stored == [
                ("ob-1", "one"),
                ("ob-2", "two"),
                ("ob-3", "three"),
                ("ob-4", "four"),
                ("ob-5", "five"),
            ]
            reads = [sql for sql in tally.sql if sql.lstrip().startswith("SELECT")]
            assert len(reads) == 3 and all("FROM outbox" in sql for sql in reads), reads
        finally:
            await store.close()

    anyio.run(main)
