"""The understander's contract is enforced at the boundary (issue 8 item 13, ADR 0015).

Off-contract output of every kind from a custom understander (non-string argument values,
duplicate and reserved ids, unknown argument names, wrong shapes) is a typed
``OffContractUnderstanding`` (a ``UsageError``) naming the item, raised before anything
is resolved or committed: no commit, ``recover()`` ends with the same typed error, and the
conversation's next turn runs normally. The model chain drops the item at fault instead
and says so with an ``unreadable`` notice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import date
from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.core import (
    Actor,
    CardAnswer,
    Constraint,
    ConstraintKind,
    ProposedTarget,
    Question,
    SemanticAct,
    TurnframeError,
    TurnInput,
    Understanding,
    UsageError,
)
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import seed_state, travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import UnderstandingResult
from turnframe.understand.brief import Brief
from turnframe.understand.contract import (
    OffContractUnderstanding,
    contract_violations,
    on_contract,
)

ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
APP = travel_application()
Make = Callable[[str], Any]
"""A function of the trip's handle returning what the understander hands back."""


def _rename(handle: str, act_id: str = "a1", **kw: Any) -> SemanticAct:
    fields: dict[str, Any] = {
        "id": act_id,
        "operation": "trip.rename",
        "target": ProposedTarget(handles=(handle,)),
        "args": {"name": "Summer"},
    }
    fields.update(kw)
    return SemanticAct(**fields)


NOT_WORDS = st.one_of(
    st.integers(),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False),
    st.lists(st.text(max_size=3), max_size=2),
    st.dictionaries(st.text(max_size=2), st.text(max_size=2), max_size=1),
    st.binary(max_size=3),
    st.dates(),
)
IDS = st.sampled_from(["a1", "a2", "q1", "k1", "c1"])


@st.composite
def off_contract(draw: st.DrawFn) -> tuple[str, str, Make]:
    """Return (kind, the item id the error must name or "", a maker of the bad output)."""
    kind = draw(
        st.sampled_from(
            [
                "non-string value",
                "non-string evidence",
                "duplicate act ids",
                "act id reused by another item",
                "reserved id",
                "separator in id",
                "unknown argument",
                "arguments on a cancellation",
                "handles not a tuple",
                "act not a SemanticAct",
                "not an Understanding",
                "not an UnderstandingResult",
                "blank id",
            ]
        )
    )
    value = draw(NOT_WORDS)
    other = draw(IDS.filter(lambda i: i != "a1"))
    with_valid = draw(st.booleans())

    def make(handle: str) -> Any:
        valid = (_rename(handle, "a9", args={"name": "Kept"}),) if with_valid else ()
        match kind:
            case "non-string value":
                acts = (
                    _rename(
                        handle, operation="trip.book_hotel", args={"hotel": "H", "nights": value}
                    ),
                )
            case "non-string evidence":
                acts = (_rename(handle, evidence={"name": value}),)
            case "duplicate act ids":
                acts = (_rename(handle), _rename(handle, args={"name": "Winter"}))
            case "act id reused by another item":
                u = Understanding(
                    acts=(*valid, _rename(handle, other)),
                    questions=(Question(id=other, topic="baggage_allowance"),),
                    card_answers=(CardAnswer(id=other, interaction="x", option="y"),),
                    constraints=(Constraint(id=other, kind=ConstraintKind.DO_NOT_SUBMIT),),
                )
                return UnderstandingResult(understanding=u)
            case "reserved id":
                acts = (_rename(handle, "click"),)
            case "separator in id":
                acts = (_rename(handle, "card-1:a1"),)
            case "unknown argument":
                acts = (_rename(handle, args={"name": "X", draw_name: "y"}),)
            case "arguments on a cancellation":
                acts = (_rename(handle, operation=None, args={"name": "X"}),)
            case "handles not a tuple":
                acts = (_rename(handle, target=ProposedTarget(handles=handle)),)  # type: ignore[arg-type]
            case "act not a SemanticAct":
                acts = ({"id": "a1", "operation": "trip.rename"},)  # type: ignore[assignment]
            case "not an Understanding":
                return UnderstandingResult(understanding={"acts": []})  # type: ignore[arg-type]
            case "not an UnderstandingResult":
                return Understanding(acts=(_rename(handle),))
            case "blank id":
                acts = (_rename(handle, " "),)
        return UnderstandingResult(understanding=Understanding(acts=(*valid, *acts)))

    draw_name = draw(st.sampled_from(["colour", "nights", "Name", "name "]))
    names = {
        "non-string value": "a1",
        "non-string evidence": "a1",
        "duplicate act ids": "a1",
        "act id reused by another item": other,
        "reserved id": "click",
        "separator in id": "card-1:a1",
        "unknown argument": "a1",
        "arguments on a cancellation": "a1",
        "handles not a tuple": "a1",
    }
    return kind, names.get(kind, ""), make


class _Custom:
    """An adopter's understander: the first turn is off contract, the next ones are fine."""

    def __init__(self, runtime: Runtime, trip: Any, bad: Make) -> None:
        self.runtime, self.trip, self.bad = runtime, trip, bad
        self.bad_left = 2  # the turn and its recovery read the same bad output

    async def understand(self, brief: Brief) -> Any:
        handle = self.runtime.handle_for(brief.turn_id, self.trip)
        if self.bad_left:
            self.bad_left -= 1
            return self.bad(handle)
        return UnderstandingResult(
            understanding=Understanding(acts=(_rename(handle, args={"name": "Autumn"}),))
        )


async def _run(bad: Make) -> tuple[BaseException | None, BaseException | None, list[str], Any]:
    store = InMemoryStore()
    runtime = Runtime(APP, store, None, clock=FixedClock(date(2026, 5, 1)), ids=SequentialIds())
    workflow, state = seed_state({"key": "T1", "workflow": "trip", "name": "Lisbon"}, {})
    trip = await runtime.seed("acme", workflow, state, case_id="t1")
    runtime.understander = _Custom(runtime, trip, bad)
    raised: BaseException | None = None
    try:
        await runtime.run_turn(ACTOR, "c1", TurnInput(text="rename it"), turn_id="turn-x")
    except Exception as exc:
        raised = exc
    recovered: BaseException | None = None
    with anyio.fail_after(10):
        try:
            await runtime.recover(ACTOR, "turn-x")
        except Exception as exc:
            recovered = exc
    events = [e.type for e in await store.case_events(trip)]
    after = await runtime.run_turn(ACTOR, "c1", TurnInput(text="rename it to Autumn"))
    row = await store.load_case(trip)
    assert row is not None
    return (
        raised,
        recovered,
        events,
        (after, row.state, [e.type for e in await store.case_events(trip)]),
    )


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=off_contract())
def test_off_contract_output_is_a_typed_error_and_nothing_commits(
    case: tuple[str, str, Make],
) -> None:
    kind, item, make = case
    raised, recovered, events, (after, state, later) = anyio.run(_run, make)
    assert isinstance(raised, OffContractUnderstanding), (kind, raised)
    assert isinstance(raised, UsageError) and isinstance(raised, TurnframeError)
    if item:
        assert f"item {item!r}" in str(raised), (kind, str(raised))
    # Nothing of the turn was resolved or committed (seeding is the only event).
    assert events == ["trip.seeded"], (kind, events)
    # recover() ends, with the same typed error (the Recoverer counts it as a failed attempt).
    assert isinstance(recovered, OffContractUnderstanding), (kind, recovered)
    # The conversation is not wedged: the next turn commits exactly once.
    assert after.results["a1"].status.value == "committed"
    assert state["name"] == "Autumn" and later == ["trip.seeded", "trip.renamed"]


@settings(max_examples=150, deadline=None)
@given(case=off_contract())
def test_the_model_chain_drops_what_breaks_the_contract(case: tuple[str, str, Make]) -> None:
    kind, item, make = case
    made = make("h0123456789")
    if not isinstance(made, UnderstandingResult) or not isinstance(
        made.understanding, Understanding
    ):
        return  # a whole-proposal fault: the chain always builds an Understanding
    u = made.understanding
    if not isinstance(u.acts, tuple) or not all(isinstance(a, SemanticAct) for a in u.acts):
        return
    kept = on_contract(u, APP.registry.operation)
    assert contract_violations(kept, APP.registry.operation) == ()
    assert "unreadable" in kept.notices
    assert item not in kept.item_ids()
    # An item on contract beside the fault is kept.
    assert ("a9" in kept.item_ids()) == ("a9" in u.item_ids())


def test_on_contract_output_is_untouched() -> None:
    u = Understanding(acts=(_rename("h0123456789"),), notices=("not_on_offer",))
    assert on_contract(u, APP.registry.operation) is u
    assert contract_violations(u, APP.registry.operation) == ()


def test_the_error_names_the_act_and_the_field() -> None:
    bad = Understanding(
        acts=(_rename("h0", operation="trip.book_hotel", args={"hotel": "H", "nights": 3}),)
    )
    try:
        from turnframe.understand.contract import require_on_contract

        require_on_contract(bad, APP.registry.operation)
    except OffContractUnderstanding as exc:
        assert "item 'a1'" in str(exc) and "'nights' is int" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("no error")
    assert replace(bad, acts=()) == Understanding()
