"""A worker process that stops dead at a named store boundary, for crash tests.

See docs/architecture.md "Failures".

``python -m turnframe.testing.crash_worker --dsn … --schema … --refs JSON --boundary B
--turn-id T`` runs one travel turn ("add insurance to Lisbon and cancel Porto", scripted
understanding) on the PostgreSQL store. When the turn reaches boundary ``B`` (one of
:data:`turnframe.store.base.BOUNDARIES`; ``commit.ack_lost`` is just after a commit) it
prints ``READY <boundary>`` and blocks, so the test can SIGKILL it mid-turn; a turn that
never reaches ``B`` prints ``DONE``. :func:`crash_runtime` builds the same runtime for the
process that recovers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from datetime import date

from turnframe.core import (
    Actor,
    CaseRef,
    ProposedTarget,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.runtime import FixedClock, RandomIds, Runtime
from turnframe.samples.travel import travel_application
from turnframe.store.base import TurnStore
from turnframe.store.faults import FaultInjectingStore, FaultPlan
from turnframe.understand import Brief, UnderstandingResult

__all__ = ["ACTOR", "RECORDS", "TEXT", "KillAt", "SameReading", "crash_runtime", "main"]

ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
TEXT = "Add insurance to Lisbon and cancel Porto."
RECORDS = [
    {"key": "T1", "workflow": "trip", "name": "Lisbon", "start": "2026-05-12", "end": "2026-05-15"},
    {"key": "T2", "workflow": "trip", "name": "Porto", "start": "2026-06-12", "end": "2026-06-15"},
]
TODAY = date(2026, 5, 1)


class SameReading:
    """Understanding that gives the same proposal however often the turn is re-read."""

    def __init__(self, refs: Mapping[str, CaseRef]) -> None:
        self.refs = refs
        self.runtime: Runtime | None = None
        self.calls = 0

    async def understand(self, brief: Brief) -> UnderstandingResult:
        """Propose: add insurance to T1, cancel T2 (which needs a confirmation card)."""
        self.calls += 1
        assert self.runtime is not None
        t1 = self.runtime.handle_for(brief.turn_id, self.refs["T1"])
        t2 = self.runtime.handle_for(brief.turn_id, self.refs["T2"])
        return UnderstandingResult(
            understanding=Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="trip.add_extra",
                        target=ProposedTarget(handles=(t1,)),
                        args={"kind": "insurance"},
                    ),
                    SemanticAct(
                        id="a2", operation="trip.cancel", target=ProposedTarget(handles=(t2,))
                    ),
                )
            )
        )


def crash_runtime(store: TurnStore, refs: Mapping[str, CaseRef]) -> Runtime:
    """Return the travel runtime the crash tests run and recover turns with."""
    understander = SameReading(refs)
    runtime = Runtime(
        travel_application(), store, understander, clock=FixedClock(TODAY), ids=RandomIds()
    )
    understander.runtime = runtime
    return runtime


class KillAt(FaultPlan):
    """A plan that, at ``boundary``, announces ``READY`` and blocks until killed."""

    def __init__(self, boundary: str) -> None:
        super().__init__()
        self.boundary = boundary

    def trip(self, boundary: str, *, performed: bool = False) -> None:
        """Block forever at the target boundary (the test SIGKILLs the process)."""
        if boundary == self.boundary:
            print(f"READY {boundary}", flush=True)
            time.sleep(600)


async def _run(args: argparse.Namespace) -> None:
    from turnframe.store.postgres import PostgresStore

    refs = {k: CaseRef(v[0], v[1]) for k, v in json.loads(args.refs).items()}
    store = await PostgresStore.open(args.dsn, schema=args.schema)
    try:
        runtime = crash_runtime(FaultInjectingStore(store, KillAt(args.boundary)), refs)
        await runtime.run_turn(ACTOR, "c1", TurnInput(text=TEXT), turn_id=args.turn_id)
    finally:
        await store.close()
    print("DONE", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Run the crash worker (see the module notes)."""
    import anyio

    parser = argparse.ArgumentParser(prog="python -m turnframe.testing.crash_worker")
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--schema", required=True)
    parser.add_argument("--refs", required=True, help='{"T1": ["trip", "id"], ...}')
    parser.add_argument("--boundary", required=True)
    parser.add_argument("--turn-id", required=True)
    anyio.run(_run, parser.parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
