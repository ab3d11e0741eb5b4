"""A domain failure after commit never wedges a turn (runtime/steps/after_commit.py).

The turn reaches ``replied`` with a generic receipt citing the committed events and a
notice; the state is committed once; ``recover()`` afterwards returns the stored reply
and commits nothing; the failure is counted.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core import (
    Actor,
    CaseRef,
    ProposedTarget,
    ResultStatus,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.core.turn import TurnPhase, TurnPhaseChanged
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime import FixedClock, InMemoryMetrics, Runtime, SequentialIds
from turnframe.runtime.steps.after_commit import DOMAIN_WORDS_FAILED, POST_COMMIT_FAILURES
from turnframe.samples.travel import seed_order, seed_state, travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import Brief, UnderstandingResult

ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
RECORDS = [
    {"key": "T1", "workflow": "trip", "name": "Lisbon", "start": "2026-05-12", "end": "2026-05-15"},
]


class _Breaking:
    """The trip workflow, whose member ``method`` raises once ``armed`` is set."""

    def __init__(self, inner: Any, method: str) -> None:
        self._inner = inner
        self._method = method
        self.armed = False
        self.raised = 0

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if name == self._method:

            def boom(*args: Any, **kwargs: Any) -> Any:
                if self.armed:
                    self.raised += 1
                    raise RuntimeError(f"template bug in {name}")
                return value(*args, **kwargs)

            return boom
        return value


class _AddInsurance:
    def __init__(self, holder: list[Runtime], refs: dict[str, CaseRef]) -> None:
        self.holder, self.refs = holder, refs

    async def understand(self, brief: Brief) -> UnderstandingResult:
        t1 = self.holder[0].handle_for(brief.turn_id, self.refs["T1"])
        act = SemanticAct(
            id="a1",
            operation="trip.add_extra",
            target=ProposedTarget(handles=(t1,)),
            args={"kind": "insurance"},
        )
        return UnderstandingResult(understanding=Understanding(acts=(act,)))


async def _run(method: str) -> int:
    app = travel_application()
    breaking = _Breaking(app.registry.workflow("trip").raw, method)
    definitions = [
        breaking if n == "trip" else app.registry.workflow(n).raw for n in app.registry.names()
    ]
    app = replace(app, registry=WorkflowRegistry(definitions))
    store = InMemoryStore()
    refs: dict[str, CaseRef] = {}
    holder: list[Runtime] = []
    metrics = InMemoryMetrics()
    runtime = Runtime(
        app,
        store,
        _AddInsurance(holder, refs),
        clock=FixedClock(date(2026, 5, 1)),
        ids=SequentialIds(),
        metrics=metrics,
    )
    holder.append(runtime)
    for record in seed_order(RECORDS):
        workflow, state = seed_state(record, refs)
        refs[str(record["key"])] = await runtime.seed("acme", workflow, state)

    def arm(event: object) -> None:
        if isinstance(event, TurnPhaseChanged) and event.phase is TurnPhase.COMMITTING:
            breaking.armed = True

    runtime.subscribe(arm)
    result = await runtime.run_turn(ACTOR, "c1", TurnInput(text="Add insurance to Lisbon."))
    assert breaking.armed, method

    assert result.results["a1"].status is ResultStatus.COMMITTED, method
    receipts = [b for b in result.blocks if b.kind == "receipt"]
    assert len(receipts) == 1, (method, result.blocks)
    (event,) = [e for e in result.events if e.operation == "trip.add_extra"]
    assert receipts[0].receipt.event_ids == (event.id,)  # type: ignore[attr-defined]
    notices = [b.code for b in result.blocks if b.kind == "notice"]  # type: ignore[attr-defined]
    if breaking.raised:
        # The domain's words failed after commit: the code's words cite the event.
        assert event.type in receipts[0].receipt.text  # type: ignore[attr-defined]
        assert notices == [DOMAIN_WORDS_FAILED]
        assert metrics.total(POST_COMMIT_FAILURES) >= 1
    else:
        # The hook was not called after commit this turn: the domain's reply stands.
        assert DOMAIN_WORDS_FAILED not in notices
        assert metrics.total(POST_COMMIT_FAILURES) == 0
    record = await store.get_turn("acme", result.turn_id)
    assert record is not None and record.phase == TurnPhase.REPLIED.value, method

    # Recovery afterwards is a no-op: the stored reply, nothing committed again.
    again = await runtime.recover(ACTOR, result.turn_id)
    assert again.blocks == result.blocks
    events = [e for e in await store.case_events(refs["T1"]) if e.operation == "trip.add_extra"]
    assert len(events) == 1, method
    row = await store.load_case(refs["T1"])
    assert row is not None
    assert [e["kind"] for e in row.state["extras"]] == ["insurance"]  # type: ignore[index,union-attr]
    return breaking.raised


def test_a_receipt_template_bug_gives_a_generic_receipt_and_the_turn_replies() -> None:
    assert anyio.run(_run, "render_receipt") > 0


@settings(max_examples=12)
@given(
    st.sampled_from(
        ["render_receipt", "candidate_label", "project", "load_state", "ask_obligation"]
    )
)
def test_any_post_commit_hook_that_raises_never_wedges_the_turn(method: str) -> None:
    anyio.run(_run, method)
