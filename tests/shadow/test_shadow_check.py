"""The shadow reading's domain check is the runtime's: the same act gets the same answer.

The domain-check step and ``eval.shadow_input.recorded_check`` both call
``runtime.check.act_refusal``; this generates acts of every travel operation (handles in
view, unknown and several; values the domain accepts and refuses; record arguments by
handle and by words) and asks the step's check and the shadow's on the same snapshots
(docs/architecture.md "One turn" step 5, docs/shadow.md "What is compared").
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shadow_traffic import ACTOR, TODAY

from turnframe.core import CaseRef, ProposedTarget, SemanticAct, Understanding
from turnframe.eval import shadow_input
from turnframe.eval.shadow_input import recorded_check
from turnframe.runtime import check as check_module
from turnframe.runtime.parts import RuntimeParts, handle
from turnframe.runtime.plan import CaseSnapshot
from turnframe.runtime.replay import recorded_seen, reduction_input
from turnframe.runtime.snapshots import snapshot_of
from turnframe.runtime.steps import domain_check as step_module
from turnframe.runtime.steps.domain_check import DomainCheckInput, domain_check
from turnframe.samples.travel import travel_application
from turnframe.store.readonly import open_sqlite_readonly

REGISTRY = travel_application().registry
OPERATIONS = [
    op for name in REGISTRY.names() for op in REGISTRY.workflow(name).definition.operations()
]
WORDS = [
    "",
    "Summer",
    "2026-04-01",
    "2026-06-10",
    "2026-05-20",
    "tomorrow",
    "soon",
    "-2",
    "3",
    "a@b.example",
    "not an email",
    "breakfast",
    "parking",
    "yes",
]


@pytest.fixture(scope="module")
def view(recorded_file: Path) -> Iterator[tuple[Any, dict[str, CaseRef], dict[CaseRef, Any]]]:
    """The last recorded turn's input, its handle table and a snapshot of every case it saw."""

    async def go() -> tuple[Any, dict[str, CaseRef], dict[CaseRef, CaseSnapshot]]:
        store = open_sqlite_readonly(recorded_file)
        try:
            record: Any = await store.load_replay(ACTOR.account, "t-start")
            recorded = reduction_input(record["reduction"]["input"], REGISTRY)
            snaps: dict[CaseRef, CaseSnapshot] = {}
            for case in recorded_seen(record):
                row = await store.load_case(case)
                snaps[case] = snapshot_of(REGISTRY, case, row, TODAY, recorded.locale)
        finally:
            await store.close()
        return recorded, {handle(recorded.turn_id, c): c for c in snaps}, snaps

    yield anyio.run(go)


BY_KIND = {
    "text": ["Summer", "", "Hotel Lux"],
    "date": ["2026-04-01", "2026-06-10", "2026-05-20", "tomorrow", "soon"],
    "integer": ["-2", "0", "3", "many"],
    "email": ["a@b.example", "not an email"],
    "choice": ["breakfast", "parking", "lunch"],
    "part": ["breakfast", "parking", "the first one"],
}


def acts(table: dict[str, CaseRef]) -> st.SearchStrategy[SemanticAct]:
    """Acts of every operation, mostly aimed at one record of its workflow in view."""
    handles = sorted(table) + ["hzzzzzzzzz"]
    stray = st.sampled_from(WORDS + handles)

    @st.composite
    def build(draw: st.DrawFn) -> SemanticAct:
        spec = draw(st.sampled_from([*OPERATIONS, None]))
        own = [h for h in sorted(table) if spec is not None and table[h].workflow == spec.workflow]
        target = draw(
            st.lists(st.sampled_from(handles), max_size=2)
            if not own
            else st.one_of(
                st.lists(st.sampled_from(own), min_size=1, max_size=1),
                st.lists(st.sampled_from(handles), max_size=2),
            )
        )
        args: dict[str, str] = {}
        for arg in spec.arguments if spec is not None else ():
            if not draw(st.integers(0, 9)):
                continue  # a value left out
            fitting = [
                h for h in handles if table.get(h, CaseRef("", "")).workflow == arg.record_workflow
            ]
            choices = fitting if arg.record_workflow else BY_KIND.get(arg.kind.value, WORDS)
            args[arg.name] = draw(st.sampled_from(choices) | stray)
        if draw(st.booleans()):
            args[draw(st.sampled_from(["name", "extra", "zzz"]))] = draw(stray)
        operation = spec.key if spec is not None else None
        if operation is not None and not draw(st.integers(0, 19)):
            operation = "trip.nope"
        return SemanticAct(
            id="a1", operation=operation, target=ProposedTarget(handles=tuple(target)), args=args
        )

    return build()


def _answers(view: Any, act: SemanticAct) -> tuple[str | None, str | None]:
    recorded, table, snaps = view
    shadow_side = replace(recorded, snapshots=snaps, understanding=Understanding())
    parts = cast(RuntimeParts, SimpleNamespace(registry=REGISTRY))
    data = DomainCheckInput(
        actor=recorded.actor, handles=table, snapshots=snaps, today=recorded.today, locale="en"
    )

    async def go() -> tuple[str | None, str | None]:
        step = await domain_check(parts, data)
        shadow = recorded_check(shadow_side, table, REGISTRY, {})
        return await step(act), await shadow(act)

    return anyio.run(go)


def test_the_step_and_the_shadow_call_the_one_check() -> None:
    assert step_module.act_refusal is shadow_input.act_refusal is check_module.act_refusal


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_the_shadow_check_answers_as_the_runtime_step(view: Any, data: st.DataObject) -> None:
    act = data.draw(acts(view[1]))
    step, shadow = _answers(view, act)
    assert shadow == step


def test_the_generated_acts_reach_refusals_and_passes(view: Any) -> None:
    """The property's acts are not all ``None``: the domain refuses some and passes some."""
    recorded, table, _ = view
    trip = next(h for h, c in table.items() if c == CaseRef("trip", "t3"))
    dates = SemanticAct(
        id="a1",
        operation="trip.change_dates",
        target=ProposedTarget(handles=(trip,)),
        args={"start": "2026-06-10", "end": "2026-06-01"},
    )
    fine = SemanticAct(
        id="a1",
        operation="trip.rename",
        target=ProposedTarget(handles=(trip,)),
        args={"name": "Summer"},
    )
    refused, again = _answers(view, dates)
    assert refused is not None and refused == again
    assert _answers(view, fine) == (None, None)
