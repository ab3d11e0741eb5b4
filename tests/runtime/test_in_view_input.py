"""``in_view`` is checked where a turn starts (docs/adr/0020-what-a-brief-shows.md).

Generated values for ``in_view``: lists, tuples and generators of ``CaseRef`` and of
things that are not (a ``"trip/t1"`` string, a tuple, ``None``), and a bare string.
Either the turn is refused with ``UsageError`` before anything is stored, or the brief
shows exactly the records of the actor's account that ``in_view`` names. Before the
check, a memory store read a non-``CaseRef`` item as "nothing in view", SQLite failed
with ``AttributeError``, and a generator was consumed before the brief read it.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.core import Actor, CaseRef, TurnInput
from turnframe.core.acts import Understanding
from turnframe.core.errors import UsageError
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import complete_records, seed_order, seed_state, travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import Brief, ScriptedUnderstanding

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
RECORDS: list[dict[str, Any]] = [
    {"key": "T1", "workflow": "trip", "name": "Oslo", "start": "2026-05-12", "end": "2026-05-15"},
    {"key": "T2", "workflow": "trip", "name": "Rome", "start": "2026-07-01", "end": "2026-07-04"},
]
_ITEMS = st.sampled_from(
    [
        CaseRef("trip", "t1"),
        CaseRef("trip", "t2"),
        CaseRef("trip", "nope"),
        "trip/t1",
        ("trip", "t1"),
        None,
        7,
    ]
)
_IN_VIEW = st.tuples(st.lists(_ITEMS, max_size=4), st.sampled_from(["list", "tuple", "gen"]))


async def _turn(in_view: Any) -> tuple[list[Brief], InMemoryStore, Runtime]:
    seen: list[Brief] = []

    def read(brief: Brief) -> Understanding:
        seen.append(brief)
        return Understanding()

    store = InMemoryStore()
    runtime = Runtime(
        travel_application(),
        store,
        ScriptedUnderstanding([read]),
        clock=FixedClock(TODAY),
        ids=SequentialIds(),
    )
    refs: dict[str, CaseRef] = {}
    for record in seed_order(complete_records(RECORDS)):
        workflow, state = seed_state(record, refs)
        refs[str(record["key"])] = await runtime.seed(
            "acme", workflow, state, case_id=str(record["key"]).lower()
        )
    await runtime.run_turn(ACTOR, "c1", TurnInput(text="hi"), in_view=in_view)
    return seen, store, runtime


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drawn=_IN_VIEW)
def test_in_view_is_refused_typed_or_briefed_exactly(drawn: tuple[list[Any], str]) -> None:
    items, shape = drawn
    value: Any = {"list": list, "tuple": tuple, "gen": lambda xs: (x for x in xs)}[shape](items)
    valid = all(isinstance(i, CaseRef) for i in items)
    if not valid:
        with pytest.raises(UsageError, match="in_view"):
            anyio.run(_turn, value)
        return
    seen, _, runtime = anyio.run(_turn, value)
    (brief,) = seen
    want = {c for c in items if c.case_id in ("t1", "t2")}
    assert set(brief.handles) == {runtime.handle_for(brief.turn_id, c) for c in want}


def test_a_bare_string_is_refused_before_anything_is_stored() -> None:
    async def go() -> InMemoryStore:
        store = InMemoryStore()
        runtime = Runtime(
            travel_application(),
            store,
            ScriptedUnderstanding([lambda b: Understanding()]),
            clock=FixedClock(TODAY),
            ids=SequentialIds(),
        )
        with pytest.raises(UsageError, match="in_view"):
            await runtime.run_turn(ACTOR, "c1", TurnInput(text="hi"), in_view="trip/t1")  # type: ignore[arg-type]
        return store

    store = anyio.run(go)
    assert list(anyio.run(store.conversation_replies, "acme", "c1")) == []
