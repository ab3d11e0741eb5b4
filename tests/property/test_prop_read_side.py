"""The read side's shortcuts change no byte of a brief, a reply or an event (ADR 0020 rule 8).

Two runtimes run the same turns of the turn-overhead benchmark's shapes (text turns of
one and three acts, card clicks; a fresh account every ten turns) over two stores: one
with the cross-turn snapshot memo (of any capacity), one without it. Every brief
(``brief_to_json``), every reply and result, and every event a listener hears must be
byte-identical. So the memo, the brief built in one construction and the step events
built only for a listener answer what the plain computation answers.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
from hypothesis import example, given, settings
from hypothesis import strategies as st

from turnframe.core.canonical import to_json_value
from turnframe.runtime import SequentialIds
from turnframe.runtime.case_snapshots import SnapshotMemo
from turnframe.store import InMemoryStore
from turnframe.understand.brief import brief_to_json

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "turn_overhead.py"


def _bench_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("turn_overhead", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


_BENCH = _bench_module()


def _bench(shape: str, memo: SnapshotMemo | None) -> tuple[Any, list[str]]:
    """Return a bench with sequential ids and ``memo``, and the log its turns write."""
    bench = _BENCH.Bench(shape, InMemoryStore())
    bench.runtime.ids = SequentialIds()
    bench.runtime.snapshot_memo = memo
    log: list[str] = []
    understand = bench.understander.understand

    async def capture(brief: Any) -> Any:
        log.append("brief " + json.dumps(brief_to_json(brief), sort_keys=True))
        return await understand(brief)

    bench.understander.understand = capture
    bench.runtime.subscribe(lambda event: log.append("event " + repr(event)))
    return bench, log


@settings(max_examples=12, deadline=None)
@given(
    st.sampled_from(["one_act", "three_act", "click"]),
    st.integers(1, 14),
    st.sampled_from([1, 3, 4096]),
)
@example("three_act", 12, 4096)
@example("click", 7, 1)
def test_briefs_replies_and_events_are_the_same_with_the_memo_and_without(
    shape: str, turns: int, capacity: int
) -> None:
    """Turn by turn, the memoised runtime's log equals the plain one's, byte for byte."""

    async def run() -> None:
        memoised, with_memo = _bench(shape, SnapshotMemo(capacity))
        plain, without = _bench(shape, None)
        runs = {"one_act": "one_act", "three_act": "three_act", "click": "click"}
        for _ in range(turns):
            for bench, log in ((memoised, with_memo), (plain, without)):
                _, result = await getattr(bench, runs[shape])()
                log.append("blocks " + repr(to_json_value(list(result.blocks))))
                log.append("results " + repr(sorted(result.results.items())))
        assert with_memo == without
        memo = memoised.runtime.snapshot_memo
        assert memo is not None and len(memo) <= capacity
        if capacity == 4096 and turns > 1:
            assert memo.hits > 0  # the memo was used, not bypassed

    anyio.run(run)
