"""TurnWorker: many conversations at once, one conversation's turns one at a time."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from turnframe.core import Actor, TurnInput
from turnframe.runtime.worker import LocalConversationLocks, TurnJob, TurnWorker
from turnframe.testing.postgres import TEST_DSN_VAR, postgres_dsn


class _Recorder:
    """A stand-in runtime that records how many turns of each conversation overlap."""

    def __init__(self) -> None:
        self.active: dict[str, int] = {}
        self.max_same = 0
        self.max_total = 0

    async def run_turn(self, actor: Actor, conversation_id: str, turn: TurnInput, **_: Any) -> Any:
        self.active[conversation_id] = self.active.get(conversation_id, 0) + 1
        self.max_same = max(self.max_same, self.active[conversation_id])
        self.max_total = max(self.max_total, sum(self.active.values()))
        await anyio.sleep(0.01)
        self.active[conversation_id] -= 1
        return conversation_id


def _jobs(conversations: int, per: int) -> list[TurnJob]:
    actor = Actor(account="acme", user="u1")
    return [
        TurnJob(actor=actor, conversation_id=f"c{c}", turn=TurnInput(text="hi"))
        for _ in range(per)
        for c in range(conversations)
    ]


def test_turns_run_concurrently_across_conversations_serialized_within_one() -> None:
    recorder = _Recorder()
    worker = TurnWorker(recorder, concurrency=16)  # type: ignore[arg-type]
    outcomes = anyio.run(worker.run_all, _jobs(8, 4))
    assert len(outcomes) == 32 and all(o.error is None for o in outcomes)
    assert recorder.max_same == 1
    assert recorder.max_total > 1
    assert isinstance(worker.locks, LocalConversationLocks) and worker.locks._locks == {}


def test_postgres_advisory_lock_serializes_a_conversation_across_stores() -> None:
    dsn = postgres_dsn(required=False, test=True)
    if not dsn:
        pytest.skip(f"needs {TEST_DSN_VAR}")
    pytest.importorskip("psycopg")

    async def main() -> None:
        from turnframe.store.postgres import PostgresStore
        from turnframe.testing.postgres import open_temporary_store

        first = await open_temporary_store(dsn, prefix="tf_worker")
        second = await PostgresStore.open(dsn, schema=first.schema)
        recorder = _Recorder()
        try:
            workers = [
                TurnWorker(recorder, locks=store, concurrency=8)  # type: ignore[arg-type]
                for store in (first, second)
            ]
            async with anyio.create_task_group() as tg:
                for w in workers:
                    tg.start_soon(w.run_all, _jobs(4, 3))
            assert recorder.max_same == 1 and recorder.max_total > 1
        finally:
            await second.close()
            await first.close()

    anyio.run(main)
