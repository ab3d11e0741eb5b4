"""The runtime's snapshot memo: who may use it and who opts out (ADR 0020 rule 8).

The equivalence of memoised and fresh snapshots under any interleaving of writes is
``tests/property/test_prop_snapshot_memo.py``; here: the samples and the examples hold the
contract (immutable states, served from the memo and equal to fresh ones), a definition
with ``memo_snapshots = False`` is never memoised, and ``Runtime.snapshot_memo = None``
turns the memo off.
"""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import pytest

from turnframe.core import CaseRef
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.runtime.case_snapshots import immutable_state
from turnframe.runtime.snapshots import TurnSnapshots
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application
from turnframe.store import InMemoryStore

TODAY = date(2026, 5, 1)
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


async def _demo() -> tuple[Runtime, InMemoryStore, list[CaseRef]]:
    store = InMemoryStore()
    runtime = Runtime(travel_application(), store, clock=FixedClock(TODAY), ids=SequentialIds())
    cases = []
    for _, case, state in seed_all(DEMO_RECORDS):
        cases.append(await runtime.seed("acme", case.workflow, state, case.case_id))
    return runtime, store, cases


def _turn(runtime: Runtime, store: InMemoryStore, locale: str = "en") -> TurnSnapshots:
    return TurnSnapshots(runtime.registry, store, "acme", TODAY, locale, memo=runtime.snapshot_memo)


def test_the_travel_demo_is_served_from_the_memo_equal_to_fresh() -> None:
    """Trips, travelers and manifests are immutable and served from the memo on the second turn.

    A manifest's birth dates are a ``FrozenMap``, so its state is immutable too. Every
    snapshot equals the fresh one.
    """

    async def run() -> None:
        runtime, store, cases = await _demo()
        memo = runtime.snapshot_memo
        assert memo is not None
        first = await _turn(runtime, store).load_rows(cases)
        frozen = {c for c, s in first.items() if immutable_state(s.state)}
        assert frozen == set(cases)
        assert any(c.workflow == "manifest" for c in cases)
        again = await _turn(runtime, store).load_rows(cases)
        fresh = await TurnSnapshots(runtime.registry, store, "acme", TODAY, "en").load_rows(cases)
        assert memo.hits == len(frozen)
        assert all(again[c].state is first[c].state for c in cases)  # served, not typed again
        for case in cases:
            assert again[case].state == fresh[case].state
            assert (again[case].view, again[case].label) == (fresh[case].view, fresh[case].label)
            assert again[case].state_json == fresh[case].state_json

    anyio.run(run)


def test_a_definition_with_memo_snapshots_false_is_computed_every_time() -> None:
    """``memo_snapshots = False`` on the trip definition: trips never enter the memo."""

    async def run() -> None:
        runtime, store, cases = await _demo()
        memo = runtime.snapshot_memo
        assert memo is not None
        runtime.registry.workflow("trip").raw.memo_snapshots = False  # type: ignore[attr-defined]
        trips = [c for c in cases if c.workflow == "trip"]
        others = [c for c in cases if c.workflow != "trip"]
        assert trips and others
        for _ in range(2):
            await _turn(runtime, store).load_rows(cases)
        assert memo.hits == len(others)  # only the other workflows were served
        assert len(memo) == len(others)  # no trip remembered
        first = await _turn(runtime, store).load(trips[0])
        second = await _turn(runtime, store).load(trips[0])
        assert first.state is not second.state  # typed afresh each time

    anyio.run(run)


def test_a_runtime_without_a_memo_computes_every_snapshot() -> None:
    """``Runtime.snapshot_memo = None``: the turn's parts carry none; nothing is reused."""

    async def run() -> None:
        runtime, store, cases = await _demo()
        runtime.snapshot_memo = None
        assert runtime._parts().snapshot_memo is None
        first = await _turn(runtime, store).load(cases[0])
        second = await _turn(runtime, store).load(cases[0])
        assert first.state == second.state and first.state is not second.state

    anyio.run(run)


def _example_states(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    for name in ("helpdesk", "consent"):
        monkeypatch.syspath_prepend(str(EXAMPLES / name / "src"))
    from consent.state import Acceptance, Booking
    from helpdesk.state import Ticket

    return [
        Ticket(title="Printer", requester="Ana", comments=("jammed", "again")),
        Booking(traveller="Ana", destination="Lisbon", terms="terms/2026-05"),
        Acceptance(
            holder="Ana",
            artifact="terms",
            version="2026-05",
            digest="abc",
            accepted_on=TODAY,
            keep_until=date(2031, 5, 1),
        ),
    ]


def test_the_examples_states_are_immutable_all_the_way_down(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The helpdesk and consent examples' states are frozen, holding tuples and atoms only."""
    for state in _example_states(monkeypatch):
        assert immutable_state(state), state


def test_frozen_pydantic_models_are_immutable_only_without_a_mutable_field() -> None:
    """A frozen model of tuples is memoisable; a list field or an unfrozen model is not."""
    from pydantic import BaseModel, ConfigDict

    class Frozen(BaseModel):
        model_config = ConfigDict(frozen=True)
        name: str
        tags: tuple[str, ...] = ()

    class Listed(BaseModel):
        model_config = ConfigDict(frozen=True)
        tags: list[str]

    class Open(BaseModel):
        name: str

    assert immutable_state(Frozen(name="a", tags=("x",)))
    assert not immutable_state(Listed(tags=["x"]))
    assert not immutable_state(Open(name="a"))


def test_a_state_with_a_cached_property_is_never_memoised() -> None:
    """A cached property sets an attribute on first read, past the freezing check."""
    import functools

    @dataclasses.dataclass(frozen=True)
    class Lazy:
        name: str

        @functools.cached_property
        def tags(self) -> list[str]:
            return [self.name]

    assert not immutable_state(Lazy(name="a"))
