"""The turn's snapshot cache: each case read at most once; what the reducer read is known.

docs/adr/0020-what-a-brief-shows.md rule 4.
"""

from __future__ import annotations

from datetime import date

import anyio
import pytest

from turnframe.core import CaseRef
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.runtime.snapshots import TurnSnapshots
from turnframe.samples.travel import travel_application
from turnframe.store import InMemoryStore

TODAY = date(2026, 5, 1)


async def _store() -> tuple[InMemoryStore, CaseRef, CaseRef]:
    store = InMemoryStore()
    runtime = Runtime(travel_application(), store, clock=FixedClock(TODAY), ids=SequentialIds())
    mine = await runtime.seed("acme", "traveler", {"full_name": "Ana Silva"}, case_id="p1")
    theirs = await runtime.seed("rival", "traveler", {"full_name": "Kim Lee"}, case_id="p2")
    return store, mine, theirs


def test_a_case_is_read_once_however_often_it_is_asked_for() -> None:
    async def go() -> None:
        store, mine, _ = await _store()
        snaps = TurnSnapshots(travel_application().registry, store, "acme", TODAY, "en")
        first = await snaps.load(mine)
        again = await snaps.load(mine)
        assert first is again and snaps.store_calls == 1
        assert first.label.startswith("Ana Silva") and first.revision == 1
        assert await snaps.load_rows([mine]) == {mine: first}
        assert snaps.store_calls == 1 and snaps.loaded == (mine,)

    anyio.run(go)


def test_rows_of_another_account_or_of_no_record_are_left_out_in_one_read() -> None:
    async def go() -> None:
        store, mine, theirs = await _store()
        snaps = TurnSnapshots(travel_application().registry, store, "acme", TODAY, "en")
        found = await snaps.load_rows([theirs, CaseRef("trip", "nope"), mine])
        assert list(found) == [mine]
        assert snaps.store_calls == 1
        assert theirs not in snaps

    anyio.run(go)


def test_a_minted_case_is_absent_without_a_read_and_never_forgotten() -> None:
    async def go() -> None:
        store, _, _ = await _store()
        snaps = TurnSnapshots(travel_application().registry, store, "acme", TODAY, "en")
        new = CaseRef("trip", "t9")
        snap = snaps.absent(new)
        assert snap.state is None and snap.revision == 0 and snaps.store_calls == 0
        with pytest.raises(TypeError):
            del snaps[new]

    anyio.run(go)


def test_the_reducers_view_records_what_was_read_and_iteration_reads_all() -> None:
    async def go() -> None:
        store, mine, _ = await _store()
        snaps = TurnSnapshots(travel_application().registry, store, "acme", TODAY, "en")
        await snaps.load(mine)
        other = CaseRef("trip", "t9")
        snaps.absent(other)
        view = snaps.recording()
        assert view.read() == ()
        assert CaseRef("trip", "nothing") not in view
        assert view.get(other) is not None
        assert view.read() == (other,)
        assert view.subset() == {other: snaps[other]}
        dict(view.items())
        assert set(view.read()) == {mine, other}

    anyio.run(go)
