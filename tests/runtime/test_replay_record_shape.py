"""The replay record stores each value once and reads records of either shape (I20).

The defect class: a compacted record (understanding in the reduction input only, acts and
a click's on-screen card by id) that reads back to another reducer input than the value
it replaced, or an older, expanded record that no longer reads.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnframe.core.ids import CaseRef
from turnframe.runtime.replay import recorded_understanding, reduction_input, replay_reduction
from turnframe.testing.scenario.runner import load_scenario, run_scenario

REFERENCED: list[str] = []
"""The kinds of by-id reference the scenarios' records held (both must occur)."""

SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "scenarios").rglob("*.yaml"))


def _expanded(record: dict[str, Any]) -> dict[str, Any]:
    """Return ``record`` in the shape written before each value was stored once."""
    inp = record["reduction"]["input"]
    acts = {a["id"]: a for a in inp["understanding"]["acts"]}
    cards = {c["id"]: c for c in inp["cards_on_screen"]}
    REFERENCED.extend("act" for a in inp["acts"] if isinstance(a["act"], str))
    old_acts = [
        {**a, "act": acts[a["act"]]} if isinstance(a["act"], str) else a for a in inp["acts"]
    ]
    click = inp["click"]
    if click is not None and isinstance(click["interaction"], str):
        REFERENCED.append("click")
        click = {**click, "interaction": cards[click["interaction"]]}
    old_input = {**inp, "acts": old_acts, "click": click}
    return {
        **record,
        "understanding": inp["understanding"],
        "reduction": {**record["reduction"], "input": old_input},
    }


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_each_value_is_stored_once_and_both_shapes_read_alike(path: Path) -> None:
    checked: list[str] = []
    problems: list[str] = []

    async def on_turn(run: Any, number: int, turn: Any, result: Any) -> None:
        record = await run.store.load_replay(run.actor.account, result.turn_id)
        if record is None or "reduction" not in record:
            return
        inp = record["reduction"]["input"]
        registry = run.runtime.registry
        checked.append(result.turn_id)
        if "understanding" in record:
            problems.append(f"turn {number}: the understanding is stored twice")
        ids = {a["id"] for a in inp["understanding"]["acts"]}
        for a in inp["acts"]:
            if isinstance(a["act"], dict) and a["act"]["id"] in ids:
                # Stored whole only when it differs from the understanding's act.
                same = next(u for u in inp["understanding"]["acts"] if u["id"] == a["act"]["id"])
                if same == a["act"]:
                    problems.append(f"turn {number}: act {a['act']['id']} stored twice")
        old = _expanded(record)
        if recorded_understanding(old) != recorded_understanding(record):
            problems.append(f"turn {number}: the understanding reads differently")
        if reduction_input(old["reduction"]["input"], registry) != reduction_input(inp, registry):
            problems.append(f"turn {number}: the two shapes read to different inputs")
        for shape in (record, old):
            same, again = replay_reduction(shape["reduction"], registry)
            if not same:
                problems.append(f"turn {number}: {shape['reduction']['plan']} != {again}")
        if len(json.dumps(old)) < len(json.dumps(record)):
            problems.append(f"turn {number}: the compact record is longer")

    outcome = anyio.run(lambda: run_scenario(load_scenario(path), str(path), on_turn=on_turn))
    assert not outcome.failures
    assert problems == []
    assert checked


def test_the_scenarios_hold_both_kinds_of_reference() -> None:
    REFERENCED.clear()

    async def on_turn(run: Any, number: int, turn: Any, result: Any) -> None:
        record = await run.store.load_replay(run.actor.account, result.turn_id)
        if record is not None and "reduction" in record:
            _expanded(record)

    for path in SCENARIOS:
        anyio.run(partial(run_scenario, load_scenario(path), str(path), on_turn=on_turn))
    assert {"act", "click"} <= set(REFERENCED)


def test_a_reference_to_nothing_is_a_key_error() -> None:
    data = {
        "turn_id": "t",
        "actor": {"account": "a", "user": "u", "roles": []},
        "today": "2026-05-01",
        "locale": "en",
        "understanding": {"acts": []},
        "acts": [{"act": "a9", "resolution": None}],
        "click": None,
        "cards_on_screen": [],
        "standing_do_not_submit": False,
        "waiting": [],
        "snapshots": [],
    }
    with pytest.raises(KeyError):
        reduction_input(data, None)  # type: ignore[arg-type]


def test_a_case_ref_hashes_as_its_pair_in_every_copy() -> None:
    import copy
    import pickle
    from dataclasses import replace

    ref = CaseRef("trip", "t1")
    for other in (
        CaseRef("trip", "t1"),
        pickle.loads(pickle.dumps(ref)),
        copy.deepcopy(ref),
        replace(CaseRef("trip", "x"), case_id="t1"),
    ):
        assert other == ref and hash(other) == hash(ref) == hash(("trip", "t1"))
    assert pickle.dumps(ref) == pickle.dumps(CaseRef("trip", "t1"))
    assert sorted([CaseRef("trip", "t2"), ref]) == [ref, CaseRef("trip", "t2")]


@given(
    st.tuples(st.text(max_size=4), st.text(max_size=4)),
    st.tuples(st.text(max_size=4), st.text(max_size=4)),
)
def test_a_case_ref_compares_and_hashes_as_its_pair(a: tuple[str, str], b: tuple[str, str]) -> None:
    import pickle

    x, y = CaseRef(*a), CaseRef(*b)
    assert hash(x) == hash(a) and hash(pickle.loads(pickle.dumps(x))) == hash(a)
    assert (x == y) == (a == b) and (x < y) == (a < b) and (x <= y) == (a <= b)
    assert ({x, y} == {x}) == (a == b)
