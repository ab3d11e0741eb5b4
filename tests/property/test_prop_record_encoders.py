"""The replay record's cheaper encoders write the bytes the reference dumps wrote (I20).

The defect class: a shortcut in ``runtime.replay.reduction_record`` (no dump run for an
empty card list, no waiting act, no click) or in ``core.canonical`` that changes what a
turn stores, so a stored record no longer compares equal to a new one, or a replay
compares another plan. The reference below is the record as built before the
shortcuts: every part through its pydantic dump, the plan through ``to_json_value``.
Every reduction the scenarios run is captured; Hypothesis then recombines their cards
on screen, linked cards, waiting acts and clicks (empty or not, with a card on screen
or not) and the text ``dumps_record`` stores must be the reference's, byte for byte.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core.canonical import to_json_value
from turnframe.runtime import replay
from turnframe.runtime.plan import Plan, ReductionInput
from turnframe.runtime.steps import journal
from turnframe.store import codec
from turnframe.testing.scenario.runner import load_scenario, run_scenario

SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "scenarios").rglob("*.yaml"))

Captured = tuple[ReductionInput, Plan, dict[str, str] | None]


def _reference(inp: ReductionInput, plan: Plan, versions: dict[str, str] | None) -> Any:
    """The record as ``reduction_record`` built it with a pydantic dump for every part."""
    by_id = {a.id: a for a in inp.understanding.acts}
    acts = replay._ACTS.dump_python(inp.acts, mode="json", exclude=replay._NO_ACT)
    for item, act in zip(acts, inp.acts, strict=True):
        same = by_id.get(act.act.id)
        same_act = same is not None and same == act.act
        item["act"] = act.act.id if same_act else replay._SEMANTIC.dump_python(act.act, mode="json")
    click: Any = replay._CLICK.dump_python(inp.click, mode="json")
    if inp.click is not None and inp.click.interaction in inp.cards_on_screen:
        click = replay._ONE_CLICK.dump_python(inp.click, mode="json", exclude={"interaction"})
        click["interaction"] = inp.click.interaction.id
    record: dict[str, Any] = {
        "input": {
            "turn_id": inp.turn_id,
            "actor": replay._ACTOR.dump_python(inp.actor, mode="json"),
            "today": inp.today.isoformat(),
            "locale": inp.locale,
            "understanding": to_json_value(inp.understanding),
            "acts": acts,
            "click": click,
            "cards_on_screen": replay._CARDS.dump_python(inp.cards_on_screen, mode="json"),
            "standing_do_not_submit": inp.standing_do_not_submit,
            "waiting": replay._WAITING.dump_python(inp.waiting, mode="json"),
            "linked_cards": replay._CARDS.dump_python(inp.linked_cards, mode="json"),
            "snapshots": [
                {
                    "case": {"workflow": s.case.workflow, "case_id": s.case.case_id},
                    "state": s.state_json,
                    "revision": s.revision,
                }
                for s in inp.snapshots.values()
            ],
        },
        "plan": to_json_value(plan),
    }
    if versions:
        record["input"]["versions"] = dict(versions)
    return record


def _captured() -> list[Captured]:
    """Return every reducer input, plan and versions the scenarios' turns recorded."""
    seen: list[Captured] = []
    real = journal.reduction_record

    def spy(inp: ReductionInput, plan: Plan, versions: Any = None) -> Any:
        seen.append((inp, plan, None if versions is None else dict(versions)))
        return real(inp, plan, versions)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(journal, "reduction_record", spy)
        for path in SCENARIOS:
            outcome = anyio.run(lambda p=path: run_scenario(load_scenario(p), str(p)))
            assert not outcome.failures
    return seen


CAPTURED = _captured()
CARDS = sorted(
    {id(c): c for inp, _, _ in CAPTURED for c in inp.cards_on_screen + inp.linked_cards}.values(),
    key=lambda c: c.id,
)
WAITING = [w for inp, _, _ in CAPTURED for w in inp.waiting]
CLICKS = [inp.click for inp, _, _ in CAPTURED if inp.click is not None]


def _stored(record: Any) -> str:
    return codec.dumps_record(record)


def test_the_scenarios_hold_every_shape_the_shortcuts_tell_apart() -> None:
    inputs = [inp for inp, _, _ in CAPTURED]
    assert any(not i.cards_on_screen for i in inputs) and any(i.cards_on_screen for i in inputs)
    assert any(i.click is None for i in inputs) and any(i.click is not None for i in inputs)
    assert WAITING and CARDS and any(i.linked_cards for i in inputs)
    assert any(p.batches for _, p, _ in CAPTURED)


def test_every_scenario_reduction_is_stored_as_the_reference_stores_it() -> None:
    for inp, plan, versions in CAPTURED:
        got = replay.reduction_record(inp, plan, versions)
        assert _stored(got) == _stored(_reference(inp, plan, versions))
        assert replay.plan_json(plan) == to_json_value(plan)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(CAPTURED),
    st.lists(st.sampled_from(CARDS), max_size=3, unique_by=lambda c: c.id),
    st.lists(st.sampled_from(CARDS), max_size=2),
    st.lists(st.sampled_from(WAITING), max_size=2) if WAITING else st.just([]),
    st.none() | st.sampled_from(CLICKS),
    st.booleans(),
)
def test_recombined_inputs_are_stored_as_the_reference_stores_them(
    captured: Captured,
    on_screen: list[Any],
    linked: list[Any],
    waiting: list[Any],
    click: Any,
    clicked_card_on_screen: bool,
) -> None:
    inp, plan, versions = captured
    if click is not None and click.interaction is not None and clicked_card_on_screen:
        on_screen = [*on_screen, click.interaction]
    drawn = replace(
        inp,
        cards_on_screen=tuple(on_screen),
        linked_cards=tuple(linked),
        waiting=tuple(waiting),
        click=click,
    )
    got = replay.reduction_record(drawn, plan, versions)
    assert _stored(got) == _stored(_reference(drawn, plan, versions))
