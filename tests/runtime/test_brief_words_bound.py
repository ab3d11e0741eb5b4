"""A long message costs a bounded number of word-index reads (docs/adr/0020-what-a-brief-shows.md).

Counted, never timed: a message of ``n`` distinct words, none naming a record, asks the
store's word index at most ``BriefLimits.words`` times, whatever ``n``; and a record
the words name is still briefed when its word comes first.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.core import Actor, CaseRef, TurnInput
from turnframe.core.acts import Understanding
from turnframe.runtime import BriefLimits, FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import complete_records, seed_order, seed_state, travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import Brief, ScriptedUnderstanding

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))


class _Counting(InMemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.finds = 0

    async def find_cases(self, account: str, words: str, **kw: Any) -> Any:
        self.finds += 1
        return await super().find_cases(account, words, **kw)  # type: ignore[misc]


async def _turn(text: str, limit: int) -> tuple[int, Brief, Runtime, CaseRef]:
    from dataclasses import replace

    seen: list[Brief] = []

    def read(brief: Brief) -> Understanding:
        seen.append(brief)
        return Understanding()

    store = _Counting()
    app = replace(travel_application(), brief_limits=BriefLimits(words=limit))
    runtime = Runtime(
        app, store, ScriptedUnderstanding([read]), clock=FixedClock(TODAY), ids=SequentialIds()
    )
    refs: dict[str, CaseRef] = {}
    record = {
        "key": "T1",
        "workflow": "trip",
        "name": "Oslo",
        "start": "2026-05-12",
        "end": "2026-05-15",
    }
    for r in seed_order(complete_records([record])):
        workflow, state = seed_state(r, refs)
        refs[str(r["key"])] = await runtime.seed("acme", workflow, state, case_id="t1")
    store.finds = 0
    await runtime.run_turn(ACTOR, "c1", TurnInput(text=text), in_view=[])
    return store.finds, seen[0], runtime, refs["T1"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(0, 600), limit=st.integers(0, 40))
def test_word_index_reads_are_bounded_by_brief_limits_words(n: int, limit: int) -> None:
    words = " ".join(f"qz{i:04d}" for i in range(n))
    finds, brief, runtime, oslo = anyio.run(_turn, f"oslo {words}", limit)
    assert finds <= limit
    shown = runtime.handle_for(brief.turn_id, oslo) in set(brief.handles)
    assert shown == (limit >= 1)
