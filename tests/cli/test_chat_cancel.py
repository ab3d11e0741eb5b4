"""Ctrl-C cancels a chat turn cleanly: closed from its stored phase, never left in received.

The turn is cancelled at each awaited store call in turn, before the call and after it
(the call done, its answer lost, as when Ctrl-C lands while SQLite commits). Whatever the
point, the stored turn ends ``replied`` (or was never stored) and every command was
committed at most once; a turn cancelled after committing keeps what it committed.
"""

from __future__ import annotations

from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import pytest

from turnframe.cli.chat_turns import Closed, closing_runtime, run_cancellable
from turnframe.core import Actor, ProposedTarget, SemanticAct, TurnInput, Understanding
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import seed_all, travel_application
from turnframe.store import InMemoryStore, TurnStore
from turnframe.store.sqlite import SqliteStore
from turnframe.understand import ScriptedUnderstanding

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="maria", roles=frozenset({"customer"}))
RECORDS = [
    {"key": "T1", "workflow": "trip", "name": "Porto", "start": "2026-07-01", "end": "2026-07-04"}
]


class Interrupting:
    """Delegates to a store; cancels the registered scope at its ``at``-th awaited call."""

    def __init__(self, inner: TurnStore, at: int, after: bool) -> None:
        self._inner = inner
        self.at = at
        self.after = after
        self.calls = 0
        self.scope: anyio.CancelScope | None = None
        self.fired = False

    @property
    def inner(self) -> TurnStore:
        return self._inner

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._inner, name)
        if not callable(target) or name.startswith("_"):
            return target

        async def call(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            hit = self.calls == self.at and self.scope is not None and not self.fired
            if hit and not self.after:
                self.fired = True
                self.scope.cancel()  # type: ignore[union-attr]
                await anyio.sleep(0)
            result = target(*args, **kwargs)
            if hasattr(result, "__await__"):
                result = await result
            if hit and self.after:
                self.fired = True
                self.scope.cancel()  # type: ignore[union-attr]
                await anyio.sleep(0)
            return result

        return call


def _rename() -> Understanding:
    return Understanding(
        acts=(
            SemanticAct(
                id="a1",
                operation="trip.rename",
                target=ProposedTarget(find="the Porto trip"),
                args={"name": "Summer"},
                evidence={"name": "Summer"},
            ),
        )
    )


async def _run(kind: str, tmp: Path, at: int, after: bool) -> tuple[Any, Interrupting]:
    inner: TurnStore = (
        InMemoryStore() if kind == "memory" else await SqliteStore.open(tmp / f"c{at}{after}.db")
    )
    app = travel_application()
    seeder = Runtime(app, inner, None, clock=FixedClock(TODAY), ids=SequentialIds())
    for _key, case, state in seed_all(RECORDS):
        await seeder.seed(ACTOR.account, case.workflow, state, case_id=case.case_id)
    store = Interrupting(inner, at, after)
    runtime = Runtime(
        app,
        store,  # type: ignore[arg-type]
        ScriptedUnderstanding([_rename()]),
        clock=FixedClock(TODAY),
        ids=SequentialIds(),
    )

    def register(scope: anyio.CancelScope | None) -> None:
        store.scope = scope

    outcome = await run_cancellable(
        runtime,
        closing_runtime(runtime),
        ACTOR,
        "chat",
        TurnInput(text="Rename the Porto trip to Summer"),
        "chat-t1",
        register,
    )
    record = await inner.get_turn(ACTOR.account, "chat-t1")
    row = await inner.load_case(next(iter(await inner.list_cases(ACTOR.account))).case)
    events = await inner.case_events(row.case)
    await inner.close()
    return (outcome, record, row, events), store


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@pytest.mark.parametrize("after", [False, True])
def test_a_turn_cancelled_at_any_store_call_is_closed(
    kind: str, after: bool, tmp_path: Path
) -> None:
    at = 1
    seen_cancelled = 0
    names: set[str] = set()
    while True:
        (outcome, record, row, events), store = anyio.run(_run, kind, tmp_path, at, after)
        assert row is not None
        if not store.fired:  # the turn made fewer calls: every point was tried
            assert not isinstance(outcome, Closed)
            assert row.state["name"] == "Summer"
            break
        seen_cancelled += 1
        assert isinstance(outcome, Closed), at
        # Never left unfinished: replied, or never stored at all.
        assert (record is None and outcome.phase is None) or (
            record is not None and record.phase == "replied" and outcome.phase == "replied"
        ), (at, record and record.phase)
        # Committed at most once: the rename is in the state once, or not at all.
        assert row.state["name"] in ("Porto", "Summer"), at
        names.add(row.state["name"])
        if events is not None:
            counts = Counter(e.type for e in events)
            assert all(n == 1 for t, n in counts.items() if t != "seeded"), (at, counts)
        at += 1
    assert seen_cancelled >= 5  # the turn was cut at many distinct points
    assert names == {"Porto", "Summer"}  # cut before the commit and after it
