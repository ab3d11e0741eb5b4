"""The read side's shortcuts change no byte of a brief, a reply or an event (ADR 0020 rule 8).

Two runtimes run the same turns of the turn-overhead benchmark's shapes (text turns of
one and three acts, card clicks; a fresh account every ten turns) over two stores: one
with the cross-turn snapshot memo (of any capacity), one without it. Every brief
(``brief_to_json``), every reply and result, and every event a listener hears must be
byte-identical. So the memo, the brief built in one construction and the step events
built only for a listener answer what the plain computation answers. The brief's labels,
read from the turn's snapshots, equal labels made afresh in the directory's locale,
whatever the turn's locale.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest.mock import patch

import anyio
from hypothesis import example, given, settings
from hypothesis import strategies as st

from turnframe.core.canonical import to_json_value
from turnframe.core.ports import DirectoryEntry
from turnframe.runtime import SequentialIds, scope
from turnframe.runtime.case_snapshots import SnapshotMemo
from turnframe.samples.travel import travel_application
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


_REGISTRY = travel_application().registry
"""The travel workflows the benches run (the labels' definitions)."""


def _fresh_entries(directory: Any, snapshots: Any, cases: Any) -> tuple[Any, ...]:
    """The brief's entries as ``scope._entries`` built them before the reuse: every label anew."""
    locale = str(getattr(directory, "locale", "en"))
    out = []
    for case in cases:
        snap = snapshots[case]
        definition = _REGISTRY.workflow(case.workflow).definition
        out.append(
            DirectoryEntry(case=case, label=definition.candidate_label(case, snap.state, locale))
        )
    return tuple(out)


@settings(max_examples=12, deadline=None)
@given(
    st.sampled_from(["one_act", "three_act", "click"]),
    st.integers(1, 12),
    st.sampled_from(["en", "pt-PT"]),
    st.sampled_from(["en", "pt-PT"]),
    st.booleans(),
)
@example("three_act", 3, "pt-PT", "en", True)
@example("click", 4, "en", "pt-PT", False)
def test_briefs_are_the_same_with_the_snapshots_labels_and_with_fresh_ones(
    shape: str, turns: int, turn_locale: str, directory_locale: str, memo: bool
) -> None:
    """The brief's labels come from the turn's snapshots (``TurnSnapshots.label``).

    The reference builds every listed record's label afresh in the directory's locale,
    as ``scope._entries`` did before. A turn in another locale than the directory's
    (a Portuguese turn, labels listed in English) must get the directory's labels, not
    the snapshot's: the log is byte-identical either way, with the memo or without.
    """

    def bench(fresh: bool) -> list[str]:
        runner, log = _bench(shape, SnapshotMemo() if memo else None)
        runner.runtime.app = replace(runner.runtime.app, default_locale=turn_locale)
        runner.runtime.directory.locale = directory_locale

        async def run() -> None:
            for _ in range(turns):
                _, result = await getattr(runner, shape)()
                log.append("blocks " + repr(to_json_value(list(result.blocks))))
                log.append("results " + repr(sorted(result.results.items())))

        if fresh:
            with patch.object(scope, "_entries", _fresh_entries):
                anyio.run(run)
        else:
            anyio.run(run)
        return log

    reused, fresh = bench(False), bench(True)
    assert any(line.startswith("brief ") for line in reused)
    assert reused == fresh
