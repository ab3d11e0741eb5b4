"""Load test: several worker processes on one PostgreSQL database clicking the same cards.

What is measured
    ``--cards`` confirmation cards (default 1,000), each clicked ``--clicks`` times
    (default 8) at once by ``--workers`` worker processes (default 4): the clicks of one
    card are spread over every worker and issued together, so they race. Each card is a
    ``trip.book_hotel`` confirmation on its own trip, account and conversation, created
    by an untimed setup text turn (scripted understanding: no model call anywhere). The
    timed part is the click phase: wall time from the moment every worker is told to go
    until the last click turn finished. ``turns_per_s`` = click turns / that time.

    Each worker runs its jobs with :class:`turnframe.runtime.worker.TurnWorker`
    (``--concurrency`` tasks per process); turns of one conversation are serialized
    across processes by the PostgreSQL store's advisory ``conversation_lock``.

Checks (all must be 0)
    ``lost_updates``: trips whose revision is not 1 + the number of revisions with
    events, or whose booked hotels differ from their ``trip.book_hotel`` events, or
    cards whose booking did not commit exactly once.
    ``duplicate_effects``: trips with more than one booking, and idempotency keys whose
    events span more than one revision.
    ``receipts_without_events``: receipt blocks in persisted replies citing an event
    id that is not in the event journal.

Usage: ``python benchmarks/load_postgres.py [--json] [--cards N] [--clicks N]
[--workers N] [--concurrency N] [--dsn DSN]`` (DSN default: ``TURNFRAME_POSTGRES_DSN``
or ``TURNFRAME_TEST_POSTGRES_DSN``). Runs in a fresh schema, dropped afterwards
(``--keep`` keeps it). Exits 1 when a check is not 0.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

import anyio

from turnframe.core import Actor, CaseRef
from turnframe.core.acts import ProposedTarget, SemanticAct, Understanding
from turnframe.core.turn import InteractionResponse, TurnInput
from turnframe.runtime import FixedClock, RandomIds, Runtime
from turnframe.runtime.worker import TurnJob, TurnWorker
from turnframe.samples.travel import travel_application
from turnframe.understand import Brief, UnderstandingResult

TODAY = date(2026, 5, 1)


class BookHotel:
    """Scripted understanding: every setup turn proposes booking a hotel on its trip."""

    def __init__(self) -> None:
        self.runtime: Runtime | None = None
        self.trips: dict[str, CaseRef] = {}  # turn id -> trip

    async def understand(self, brief: Brief) -> UnderstandingResult:
        assert self.runtime is not None
        trip = self.trips[brief.turn_id]
        handle = self.runtime.handle_for(brief.turn_id, trip)
        act = SemanticAct(
            id="a1",
            operation="trip.book_hotel",
            target=ProposedTarget(handles=(handle,)),
            args={"hotel": "Avenida", "nights": "3"},
            evidence={"hotel": "Avenida", "nights": "3"},
        )
        return UnderstandingResult(understanding=Understanding(acts=(act,)), model_calls=0)


def _runtime(store: Any) -> tuple[Runtime, BookHotel]:
    understander = BookHotel()
    runtime = Runtime(
        travel_application(), store, understander, clock=FixedClock(TODAY), ids=RandomIds()
    )
    understander.runtime = runtime
    return runtime, understander


# setup ---------------------------------------------------------------------------------------
async def setup(
    dsn: str, schema: str, cards: int, concurrency: int
) -> tuple[list[dict[str, Any]], float]:
    from turnframe.store.postgres import PostgresStore

    store = await PostgresStore.open(dsn, schema=schema, max_size=concurrency + 2)
    try:
        runtime, understander = _runtime(store)
        jobs: list[dict[str, Any]] = [{} for _ in range(cards)]
        limiter = anyio.Semaphore(concurrency)

        async def one(k: int) -> None:
            async with limiter:
                account, conversation = f"acct-{k}", f"conv-{k}"
                state = {
                    "name": f"Trip {k}",
                    "start": "2026-05-12",
                    "end": "2026-05-15",
                }
                trip = await runtime.seed(account, "trip", _trip_state(state), case_id=f"trip-{k}")
                turn_id = f"setup-{k}"
                understander.trips[turn_id] = trip
                result = await runtime.run_turn(
                    Actor(account=account, user="u1", roles=frozenset({"customer"})),
                    conversation,
                    TurnInput(text="book the Avenida for three nights"),
                    in_view=[trip],
                    turn_id=turn_id,
                )
                if len(result.interactions_created) != 1:
                    raise RuntimeError(f"setup {k} made no card: {result.results}")
                card = result.interactions_created[0]
                jobs[k] = {
                    "account": account,
                    "conversation": conversation,
                    "trip": trip.case_id,
                    "card": card.id,
                    "revision": card.spec.bound_revision,
                }

        start = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for k in range(cards):
                tg.start_soon(one, k)
        return jobs, time.perf_counter() - start
    finally:
        await store.close()


def _trip_state(base: dict[str, Any]) -> dict[str, Any]:
    from turnframe.samples.travel import seed_state

    workflow, state = seed_state({"key": "T", "workflow": "trip", **base}, {})
    assert workflow == "trip"
    return dict(state)


# worker process ------------------------------------------------------------------------------
async def worker_main(args: argparse.Namespace) -> None:
    from turnframe.store.postgres import PostgresStore

    jobs = json.loads(Path(args.jobs).read_text())
    mine = [
        (card, i) for card in jobs for i in range(args.clicks) if i % args.workers == args.worker
    ]
    store = await PostgresStore.open(
        args.dsn, schema=args.schema, max_size=2 * args.concurrency + 2
    )
    try:
        runtime, _ = _runtime(store)
        worker = TurnWorker(runtime, locks=store, concurrency=args.concurrency)
        turn_jobs = [
            TurnJob(
                actor=Actor(account=c["account"], user="u1", roles=frozenset({"customer"})),
                conversation_id=c["conversation"],
                turn=TurnInput(
                    interaction_response=InteractionResponse(
                        interaction_id=c["card"],
                        option_id="confirm",
                        expected_revision=c["revision"],
                    )
                ),
                in_view=(CaseRef("trip", c["trip"]),),
            )
            for c, _ in mine
        ]
        await anyio.sleep(0)
        print("READY", flush=True)
        await anyio.to_thread.run_sync(sys.stdin.readline)  # GO
        start = time.perf_counter()
        outcomes = await worker.run_all(turn_jobs)
        elapsed = time.perf_counter() - start
        committed = sum(
            1
            for o in outcomes
            if o.result is not None
            and any(e.operation == "trip.book_hotel" for e in o.result.events)
        )
        errors = [f"{type(o.error).__name__}: {o.error}" for o in outcomes if o.error is not None]
        model_calls = sum(o.result.model_calls for o in outcomes if o.result is not None)
        print(
            json.dumps(
                {
                    "turns": len(outcomes),
                    "elapsed": elapsed,
                    "committed": committed,
                    "errors": len(errors),
                    "first_errors": errors[:3],
                    "model_calls": model_calls,
                }
            ),
            flush=True,
        )
    finally:
        await store.close()


# checks --------------------------------------------------------------------------------------
def check(dsn: str, schema: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(dsn, autocommit=True, options=f"-c search_path={schema}") as conn:
        cases = {
            r[0]: (r[1], json.loads(r[2]))
            for r in conn.execute(
                "SELECT case_id, revision, state FROM tf_case WHERE workflow = 'trip'"
            )
        }
        revs: dict[str, set[int]] = {}
        bookings: dict[str, int] = {}
        key_revs: dict[str, set[tuple[str, int]]] = {}
        for case_id, revision, operation, key in conn.execute(
            "SELECT case_id, revision, operation, idempotency_key FROM tf_event WHERE workflow = 'trip'"
        ):
            revs.setdefault(case_id, set()).add(revision)
            if operation == "trip.book_hotel":
                bookings[case_id] = bookings.get(case_id, 0) + 1
            key_revs.setdefault(key, set()).add((case_id, revision))
        event_ids = {r[0] for r in conn.execute("SELECT id FROM tf_event")}
        cited: list[str] = []
        for (reply,) in conn.execute("SELECT reply FROM tf_turn WHERE reply IS NOT NULL"):
            for block in json.loads(reply):
                if block.get("kind") == "receipt":
                    cited.extend(block["receipt"]["event_ids"])
        card_status = dict(
            conn.execute("SELECT status, count(*) FROM tf_interaction GROUP BY status").fetchall()
        )
    lost = 0
    for case_id, (revision, state) in cases.items():
        booked = sum(
            1 for e in state.get("extras", []) if e.get("kind") == "hotel" and e.get("nights")
        )
        if revision != len(revs.get(case_id, ())) or booked != bookings.get(case_id, 0):
            lost += 1
        if bookings.get(case_id, 0) == 0:
            lost += 1  # a card whose booking never committed
    duplicates = sum(1 for n in bookings.values() if n > 1) + sum(
        1 for v in key_revs.values() if len(v) > 1
    )
    return {
        "lost_updates": lost,
        "duplicate_effects": duplicates,
        "receipts_without_events": sum(1 for i in cited if i not in event_ids),
        "cards_resolved": int(card_status.get("resolved", 0)),
        "cards_open": int(card_status.get("open", 0)),
    }


# driver --------------------------------------------------------------------------------------
def drive(args: argparse.Namespace) -> dict[str, Any]:
    from turnframe.store.postgres import migrate
    from turnframe.testing.postgres import drop_schema, new_schema_name

    schema = new_schema_name("tf_load")
    anyio.run(lambda: migrate(args.dsn, schema=schema))
    try:
        jobs, setup_s = anyio.run(setup, args.dsn, schema, args.cards, args.concurrency)
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
            json.dump(jobs, fh)
            job_file = fh.name
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--worker",
                    str(i),
                    "--workers",
                    str(args.workers),
                    "--jobs",
                    job_file,
                    "--dsn",
                    args.dsn,
                    "--schema",
                    schema,
                    "--clicks",
                    str(args.clicks),
                    "--concurrency",
                    str(args.concurrency),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for i in range(args.workers)
        ]
        for p in procs:
            assert p.stdout is not None
            line = p.stdout.readline().strip()
            if line != "READY":
                raise RuntimeError(f"worker failed to start: {line!r}")
        start = time.perf_counter()
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("GO\n")
            p.stdin.flush()
        reports = []
        for p in procs:
            assert p.stdout is not None
            reports.append(json.loads(p.stdout.readline()))
        wall = time.perf_counter() - start
        for p in procs:
            p.wait(timeout=60)
        os.unlink(job_file)
        turns = sum(r["turns"] for r in reports)
        result: dict[str, Any] = {
            "turns_per_s": round(turns / wall, 1),
            "click_turns": turns,
            "wall_s": round(wall, 2),
            "cards": args.cards,
            "clicks_per_card": args.clicks,
            "workers": args.workers,
            "concurrency_per_worker": args.concurrency,
            "setup_turns_per_s": round(args.cards / setup_s, 1),
            "clicks_committed": sum(r["committed"] for r in reports),
            "turn_errors": sum(r["errors"] for r in reports),
            "model_calls": sum(r["model_calls"] for r in reports),
            "cpus": os.cpu_count(),
            "event_loop": "uvloop" if _uvloop() else "asyncio",
            "python": platform.python_version(),
        }
        result.update(check(args.dsn, schema))
        errors = [e for r in reports for e in r["first_errors"]]
        if errors:
            result["first_errors"] = errors[:3]
        return result
    finally:
        if not args.keep:
            anyio.run(drop_schema, args.dsn, schema)


def _uvloop() -> bool:
    """Use uvloop in the workers when it is installed (optional; reported).

    ``TURNFRAME_BENCH_LOOP=asyncio`` forces the standard loop.
    """
    if os.environ.get("TURNFRAME_BENCH_LOOP") == "asyncio":
        return False
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--clicks", type=int, default=8)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=12)
    parser.add_argument(
        "--dsn",
        default=os.environ.get("TURNFRAME_POSTGRES_DSN")
        or os.environ.get("TURNFRAME_TEST_POSTGRES_DSN"),
    )
    parser.add_argument("--keep", action="store_true", help="keep the schema")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--jobs", help=argparse.SUPPRESS)
    parser.add_argument("--schema", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not args.dsn:
        print("error: set TURNFRAME_POSTGRES_DSN or pass --dsn", file=sys.stderr)
        return 2
    if args.worker is not None:
        anyio.run(worker_main, args, backend_options={"use_uvloop": _uvloop()})
        return 0
    result = drive(args)
    failed = any(
        result[k] for k in ("lost_updates", "duplicate_effects", "receipts_without_events")
    )
    failed = failed or result["clicks_committed"] != args.cards or result["turn_errors"] > 0
    if args.json:
        print(json.dumps(result))
    else:
        width = max(len(k) for k in result)
        for key, value in result.items():
            print(f"{key:<{width}}  {value}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
