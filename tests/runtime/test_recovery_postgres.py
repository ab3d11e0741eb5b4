"""Crash recovery on PostgreSQL: every boundary, SIGKILL, takeover, dead letter.

See docs/architecture.md "Failures".

A worker process (:mod:`turnframe.testing.crash_worker`) runs a turn and is killed with
SIGKILL at each named store boundary; a fresh process then takes the stalled turn over
(compare-and-set: one recoverer only) and resumes it from its persisted phase. The
invariants are checked on the database afterwards.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from turnframe.core import CaseRef, InteractionStatus, TurnInput
from turnframe.runtime.recovery import Recoverer
from turnframe.samples.travel import seed_order, seed_state
from turnframe.store import BOUNDARIES, FaultInjectingStore, FaultPlan
from turnframe.testing.crash_worker import ACTOR, RECORDS, TEXT, crash_runtime
from turnframe.testing.postgres import TEST_DSN_VAR, postgres_dsn

pytest.importorskip("psycopg")


def _dsn() -> str:
    dsn = postgres_dsn(required=False, test=True)
    if not dsn:
        pytest.skip(f"the PostgreSQL recovery tests need {TEST_DSN_VAR}")
    return dsn


@asynccontextmanager
async def seeded() -> AsyncIterator[tuple[Any, dict[str, CaseRef]]]:
    from turnframe.testing.postgres import open_temporary_store

    store = await open_temporary_store(_dsn(), prefix="tf_crash")
    try:
        refs: dict[str, CaseRef] = {}
        runtime = crash_runtime(store, refs)
        for record in seed_order(RECORDS):
            workflow, state = seed_state(record, refs)
            refs[str(record["key"])] = await runtime.seed("acme", workflow, state)
        yield store, refs
    finally:
        await store.close()


async def check_invariants(store: Any, refs: dict[str, CaseRef], turn_id: str) -> None:
    """Insurance added exactly once, ≤ 1 card shown = persisted, receipts cite events."""
    row = await store.load_case(refs["T1"])
    assert [e["kind"] for e in row.state["extras"]] == ["insurance"]
    events = await store.case_events(refs["T1"])
    assert len([e for e in events if e.operation == "trip.add_extra"]) == 1
    keys = [e.idempotency_key for e in events]
    assert len(keys) == len(set(keys))  # no key has two effects
    porto = await store.load_case(refs["T2"])
    assert porto.state["status"] != "cancelled"  # a card never executes by itself
    cards = [c for c in await store.open_interactions("acme", "c1") if c.spec.case == refs["T2"]]
    assert len(cards) <= 1 and all(c.status is InteractionStatus.OPEN for c in cards)
    turn = await store.get_turn("acme", turn_id)
    assert turn is not None and turn.phase == "replied"
    blocks = await store.load_reply("acme", turn_id)
    assert blocks is not None
    shown = [b for b in blocks if b.kind == "interaction"]
    assert len(shown) == len(cards)
    cited = [i for b in blocks if b.kind == "receipt" for i in b.receipt.event_ids]
    assert cited, "the committed insurance has a receipt"
    found = {e.id for e in await store.events_by_id(cited)}
    assert found == set(cited)  # no receipt without events (I15)


def _spawn(store: Any, refs: dict[str, CaseRef], boundary: str, turn_id: str) -> str:
    """Run the worker until it reaches ``boundary``, then SIGKILL it; return what it said."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "turnframe.testing.crash_worker",
            "--dsn",
            store.dsn,
            "--schema",
            store.schema,
            "--boundary",
            boundary,
            "--turn-id",
            turn_id,
            "--refs",
            json.dumps({k: [v.workflow, v.case_id] for k, v in refs.items()}),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert proc.stdout is not None
    said = ""
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 0.5)
            if ready:
                said = proc.stdout.readline().strip()
                if said.startswith(("READY", "DONE")) or not said:
                    break
            elif proc.poll() is not None:
                break
        if said.startswith("READY"):
            os.kill(proc.pid, signal.SIGKILL)  # mid-turn, no cleanup of any kind
    finally:
        if proc.poll() is None and not said.startswith("DONE"):
            proc.kill()
        proc.wait(timeout=30)
        proc.stdout.close()
        assert proc.stderr is not None
        err = proc.stderr.read()
        proc.stderr.close()
    assert said.startswith(("READY", "DONE")), f"worker said {said!r}: {err[-2000:]}"
    if said.startswith("READY"):
        assert proc.returncode == -signal.SIGKILL
    return said


@pytest.mark.parametrize("boundary", BOUNDARIES)
def test_sigkill_mid_turn_then_recovery_keeps_the_invariants(boundary: str) -> None:
    async def main() -> None:
        async with seeded() as (store, refs):
            turn_id = f"turn-{uuid.uuid4().hex[:10]}"
            said = await anyio.to_thread.run_sync(_spawn, store, refs, boundary, turn_id)
            runtime = crash_runtime(store, refs)
            if await store.get_turn("acme", turn_id) is None:
                # killed before the turn was persisted: the client sends it again
                await runtime.run_turn(ACTOR, "c1", TurnInput(text=TEXT), turn_id=turn_id)
            elif said.startswith("READY"):
                recoverer = Recoverer(runtime, store, owner="recoverer", idle_seconds=0)
                report = await recoverer.recover_stalled(account="acme")
                assert report.recovered == [turn_id], report
            await check_invariants(store, refs, turn_id)

    anyio.run(main)


@pytest.mark.parametrize("boundary", [b for b in BOUNDARIES if b != "put_conversation_state"])
def test_in_process_failure_at_every_boundary_recovers_on_postgres(boundary: str) -> None:
    """tests/runtime/test_recovery.py's boundary injection, on PostgreSQL."""

    async def main() -> None:
        async with seeded() as (store, refs):
            from turnframe.runtime import TurnInterrupted

            plan = FaultPlan()
            runtime = crash_runtime(FaultInjectingStore(store, plan), refs)
            plan.arm(boundary)
            turn_id = f"turn-{uuid.uuid4().hex[:10]}"
            try:
                await runtime.run_turn(ACTOR, "c1", TurnInput(text=TEXT), turn_id=turn_id)
            except TurnInterrupted:
                if await store.get_turn("acme", turn_id) is None:
                    await runtime.run_turn(ACTOR, "c1", TurnInput(text=TEXT), turn_id=turn_id)
                else:
                    await runtime.recover(ACTOR, turn_id)
            await check_invariants(store, refs, turn_id)

    anyio.run(main)


def test_only_one_recoverer_takes_a_stalled_turn_over() -> None:
    async def main() -> None:
        async with seeded() as (store, refs):
            from turnframe.store.postgres import PostgresStore

            plan = FaultPlan().arm("save_reply", times=None)
            runtime = crash_runtime(FaultInjectingStore(store, plan), refs)
            turn_id = "turn-stalled"
            with pytest.raises(Exception):  # noqa: B017 - TurnInterrupted
                await runtime.run_turn(ACTOR, "c1", TurnInput(text=TEXT), turn_id=turn_id)
            stalled = await store.stalled_turns(idle_seconds=0, account="acme")
            assert [t.turn_id for t in stalled] == [turn_id]
            assert stalled[0].phase in ("committing", "committed")
            peers = [await PostgresStore.open(store.dsn, schema=store.schema) for _ in range(6)]
            winners: list[str] = []

            async def claim(i: int) -> None:
                if await peers[i].claim_turn(turn_id, f"r{i}", attempts=0, lease_seconds=30):
                    winners.append(f"r{i}")

            try:
                async with anyio.create_task_group() as tg:
                    for i in range(6):
                        tg.start_soon(claim, i)
            finally:
                for p in peers:
                    await p.close()
            assert len(winners) == 1
            # leased: not stalled for anyone else while the winner works
            assert await store.stalled_turns(idle_seconds=0, account="acme") == []
            assert await store.claim_turn(turn_id, "late", attempts=0, lease_seconds=30) is None

    anyio.run(main)


def test_a_turn_that_keeps_failing_is_dead_lettered_for_a_person() -> None:
    async def main() -> None:
        async with seeded() as (store, refs):
            plan = FaultPlan().arm("save_reply", times=None)  # the reply can never be saved
            broken = crash_runtime(FaultInjectingStore(store, plan), refs)
            turn_id = "turn-doomed"
            with pytest.raises(Exception):  # noqa: B017 - TurnInterrupted
                await broken.run_turn(ACTOR, "c1", TurnInput(text=TEXT), turn_id=turn_id)
            recoverer = Recoverer(
                broken, store, owner="r", idle_seconds=0, lease_seconds=0.05, max_attempts=2
            )
            outcomes = []
            for _ in range(4):
                outcomes.append(await recoverer.recover_stalled(account="acme"))
                await anyio.sleep(0.1)
            assert [len(o.failed) for o in outcomes[:2]] == [1, 1]
            assert outcomes[2].dead == [turn_id]
            dead = await store.dead_turns("acme")
            assert [d.record.turn_id for d in dead] == [turn_id]
            assert "gave up after 2 attempts" in dead[0].reason
            assert dead[0].record.attempts == 2
            assert await store.stalled_turns(idle_seconds=0) == []  # stays dead
            # the insurance still committed exactly once
            events = await store.case_events(refs["T1"])
            assert len([e for e in events if e.operation == "trip.add_extra"]) == 1

    anyio.run(main)


def test_dead_letters_are_listed_for_a_person(capsys: pytest.CaptureFixture[str]) -> None:
    from turnframe.cli import main

    async def main_() -> tuple[str, str]:
        async with seeded() as (store, refs):
            plan = FaultPlan().arm("save_reply", times=None)
            broken = crash_runtime(FaultInjectingStore(store, plan), refs)
            with pytest.raises(Exception):  # noqa: B017 - TurnInterrupted
                await broken.run_turn(ACTOR, "c1", TurnInput(text=TEXT), turn_id="turn-dead")
            recoverer = Recoverer(broken, store, owner="r", idle_seconds=0, max_attempts=0)
            assert (await recoverer.recover_stalled()).dead == ["turn-dead"]

            def cli() -> int:
                return main(["db", "dead-letters", "--dsn", store.dsn, "--schema", store.schema])

            assert await anyio.to_thread.run_sync(cli) == 1
            return store.dsn, store.schema

    anyio.run(main_)
    out = capsys.readouterr().out
    assert "turn turn-dead: recovery gave up after 0 attempts" in out
    assert "1 dead letter(s)" in out
