"""I13: a turn id is used once; another account's turn id behaves like a free one.

Hypothesis draws reuses of a turn id that has replied: by the same account or another,
in the same conversation or another, with the same text or another, and with an
understanding that numbers its acts differently (the re-read that used to commit twice).
Each reuse runs against the store the first turn left and is checked:

* the account's own id: the stored result comes back (same input) or ``TurnIdReused``
  (other input or conversation); the understander is not called, no event is committed,
  the stored reply and replay record are unchanged;
* another account's id, first use: exactly what a free id does — compared with a twin
  store where the id was never used (same results, commands, reply texts; the result
  carries the id given, and ``recover`` finds it) — and the holder's turn is untouched.

docs/adr/0016-races-and-turn-ids.md.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tf_hostile import TODAY

from turnframe.core import (
    Actor,
    CaseRef,
    ProposedTarget,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.runtime import FixedClock, Runtime, TurnIdReused, TurnResult
from turnframe.samples.travel import travel_application
from turnframe.store import InMemoryStore, TurnStore
from turnframe.store.sqlite import SqliteStore
from turnframe.understand import ScriptedUnderstanding
from turnframe.understand.base import UnderstandingResult
from turnframe.understand.brief import Brief

ACME = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
GLOBEX = Actor(account="globex", user="u9", roles=frozenset({"customer"}))
TRIP: dict[str, Any] = {
    "name": "Lisbon",
    "destination": "Lisbon",
    "start": "2026-05-12",
    "end": "2026-05-15",
    "travelers": [],
    "extras": [],
    "status": "planning",
    "next_extra": 1,
}
TURN_ID = "turn-client-7"
FIRST_TEXT = "Rename the trip to Porto."


class Counting(ScriptedUnderstanding):
    """Scripted understanding that counts how often it is asked to read a turn."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def understand(self, brief: Brief) -> UnderstandingResult:
        """Count the read, then serve the next proposal."""
        self.reads += 1
        return await super().understand(brief)


@dataclass(frozen=True, slots=True)
class Reuse:
    """One reuse of the turn id."""

    other_account: bool
    other_conversation: bool
    other_text: bool
    act_prefix: str  # how the re-read numbers its act ("a" is the first turn's numbering)
    name: str


REUSES = st.builds(
    Reuse,
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.sampled_from(("a", "b", "x")),
    st.sampled_from(("Faro", "Braga", "Porto")),
)


class World:
    """A store with one trip per account and a runtime over it."""

    def __init__(self, store: TurnStore) -> None:
        self.store = store
        self.understander = Counting()
        self.runtime = Runtime(
            travel_application(), store, self.understander, clock=FixedClock(TODAY)
        )
        self.trips: dict[str, CaseRef] = {}

    async def seed(self) -> None:
        for actor in (ACME, GLOBEX):
            self.trips[actor.account] = await self.runtime.seed(actor.account, "trip", dict(TRIP))

    async def turn(
        self, actor: Actor, conv: str, text: str, act_id: str, name: str, turn_id: str
    ) -> TurnResult:
        trip = self.trips[actor.account]

        def read(brief: Any) -> Understanding:
            handle = self.runtime.handle_for(brief.turn_id, trip)
            return Understanding(
                acts=(
                    SemanticAct(
                        id=act_id,
                        operation="trip.rename",
                        target=ProposedTarget(handles=(handle,)),
                        args={"name": name},
                    ),
                )
            )

        self.understander.push(read)
        try:
            return await self.runtime.run_turn(actor, conv, TurnInput(text=text), turn_id=turn_id)
        finally:
            self.understander._script.clear()  # a refused reuse leaves its proposal unread

    async def events(self) -> int:
        return sum([len(await self.store.case_events(t)) for t in self.trips.values()])


def shape(result: TurnResult) -> tuple[Any, ...]:
    """What a caller can see of a turn, ids of cards and events aside."""
    return (
        {k: v.label for k, v in result.results.items()},
        [(op, case.workflow) for op, case in result.commands],
        [(b.kind, getattr(b, "text", None)) for b in result.blocks],
    )


async def _scenario(make: Any, reuses: list[Reuse]) -> None:
    world = World(await make())
    await world.seed()
    first = await world.turn(ACME, "c1", FIRST_TEXT, "a1", "Porto", TURN_ID)
    assert first.turn_id == TURN_ID and first.commands
    used: dict[str, tuple[str, str, TurnResult]] = {"acme": ("c1", FIRST_TEXT, first)}
    for n, reuse in enumerate(reuses):
        actor = GLOBEX if reuse.other_account else ACME
        conv = "c2" if reuse.other_conversation else "c1"
        text = f"Rename the trip to {reuse.name}." if reuse.other_text else FIRST_TEXT
        act_id = f"{reuse.act_prefix}{n + 1}"
        reads, events = world.understander.reads, await world.events()
        holder = await world.store.load_reply(ACME.account, TURN_ID)
        replay = await world.store.load_replay(ACME.account, TURN_ID)
        if actor.account not in used:
            # Another account's id, first use: exactly what a free id does.
            twin = World(await make())
            await twin.seed()
            expected = await twin.turn(actor, conv, text, act_id, reuse.name, TURN_ID)
            got = await world.turn(actor, conv, text, act_id, reuse.name, TURN_ID)
            assert got.turn_id == TURN_ID
            assert shape(got) == shape(expected)
            assert world.understander.reads == reads + 1
            again = await world.runtime.recover(actor, TURN_ID)
            assert again.turn_id == TURN_ID and again.blocks == got.blocks
            used[actor.account] = (conv, text, got)
        else:
            conv0, text0, original = used[actor.account]
            try:
                got = await world.turn(actor, conv, text, act_id, reuse.name, TURN_ID)
            except TurnIdReused as exc:
                assert (conv, text) != (conv0, text0), exc
                assert exc.turn_id == TURN_ID
            else:
                assert (conv, text) == (conv0, text0)
                assert got.turn_id == TURN_ID
                assert got.blocks == original.blocks
                assert {k: v.label for k, v in got.results.items()} == {
                    k: v.label for k, v in original.results.items()
                }
            assert world.understander.reads == reads, "the reused id was understood again"
            assert await world.events() == events, "the reused id committed again"
        # The holder's turn is never touched.
        assert await world.store.load_reply(ACME.account, TURN_ID) == holder
        assert await world.store.load_replay(ACME.account, TURN_ID) == replay
        assert (await world.runtime.recover(ACME, TURN_ID)).blocks == first.blocks
    await world.store.close()


SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SETTINGS
@given(reuses=st.lists(REUSES, min_size=1, max_size=5))
def test_memory_turn_ids_are_used_once(reuses: list[Reuse]) -> None:
    async def make() -> TurnStore:
        return InMemoryStore()

    anyio.run(_scenario, make, reuses)


@SETTINGS
@given(reuses=st.lists(REUSES, min_size=1, max_size=4))
def test_sqlite_turn_ids_are_used_once(reuses: list[Reuse], tmp_path: Path) -> None:
    async def make() -> TurnStore:
        return await SqliteStore.open(tmp_path / f"ids-{os.urandom(6).hex()}.db")

    anyio.run(_scenario, make, reuses)
