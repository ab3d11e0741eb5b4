"""``Runtime.stream_turn`` and ``run_turn(on_event=...)``: live, per-turn events.

A server streams several turns at once: each stream must carry its own turn's events
only, and a phase must reach the client while the turn is still running (not after).
"""

from __future__ import annotations

from datetime import date

import anyio

from turnframe.core import Actor, TurnInput, Understanding
from turnframe.core.turn import TurnEvent
from turnframe.runtime import FixedClock, Runtime
from turnframe.samples.travel import travel_application
from turnframe.store.memory import InMemoryStore
from turnframe.understand import Brief, ScriptedUnderstanding
from turnframe.understand.base import UnderstandingResult

ACTOR = Actor(account="acme", user="maria", roles=frozenset({"customer"}))
TODAY = date(2026, 5, 1)


class Gate:
    """An understander that waits until it is opened, so a test sees the turn mid-way."""

    def __init__(self, turns: int = 1) -> None:
        self.opened = anyio.Event()
        self.inner = ScriptedUnderstanding([Understanding() for _ in range(turns)])

    async def understand(self, brief: Brief) -> UnderstandingResult:
        await self.opened.wait()
        return await self.inner.understand(brief)


def _runtime() -> Runtime:
    return Runtime(
        travel_application(), InMemoryStore(), ScriptedUnderstanding([]), clock=FixedClock(TODAY)
    )


def test_a_phase_reaches_the_stream_before_the_turn_finishes() -> None:
    async def main() -> None:
        runtime = _runtime()
        gate = Gate()
        seen: list[str] = []
        stream = runtime.stream_turn(ACTOR, "c1", TurnInput(text="hello"), understander=gate)
        with anyio.fail_after(5):  # a buffered stream would park here: fail, not hang
            async for event in stream:
                seen.append(event.kind)
                if event.kind == "phase" and not gate.opened.is_set():
                    # the turn is parked inside understanding: this phase came live
                    gate.opened.set()
        assert seen[0] == "phase"
        assert seen[-2:] == ["blocks", "finished"]

    anyio.run(main)


def test_concurrent_turns_each_hear_only_their_own_events() -> None:
    async def main() -> None:
        runtime = _runtime()
        heard: dict[str, list[TurnEvent]] = {"t-a": [], "t-b": []}
        gate = Gate(turns=2)

        async def one(turn_id: str) -> None:
            await runtime.run_turn(
                ACTOR,
                f"conv-{turn_id}",
                TurnInput(text="hello"),
                turn_id=turn_id,
                understander=gate,
                on_event=heard[turn_id].append,
            )

        async with anyio.create_task_group() as group:
            group.start_soon(one, "t-a")
            group.start_soon(one, "t-b")
            await anyio.sleep(0.05)
            gate.opened.set()
        for turn_id, events in heard.items():
            assert events, turn_id
            assert {e.turn_id for e in events} == {turn_id}
            assert events[-1].kind == "phase"

    anyio.run(main)


def test_a_per_turn_understander_leaves_the_runtimes_own_in_place() -> None:
    async def main() -> None:
        runtime = _runtime()
        own = runtime.understander
        gate = Gate()
        gate.opened.set()
        await runtime.run_turn(ACTOR, "c1", TurnInput(text="hello"), understander=gate)
        assert runtime.understander is own

    anyio.run(main)


def test_a_failing_stream_raises_the_turns_own_error_not_a_group() -> None:
    from turnframe.core.errors import UsageError

    async def main() -> None:
        runtime = Runtime(travel_application(), InMemoryStore(), None, clock=FixedClock(TODAY))
        with anyio.fail_after(5):
            try:
                async for _event in runtime.stream_turn(ACTOR, "c1", TurnInput(text="hi")):
                    pass
            except UsageError as exc:
                assert "understander" in str(exc)
            else:
                raise AssertionError("a text turn with no understander must be refused")

    anyio.run(main)
