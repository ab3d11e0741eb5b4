"""An AMOUNT argument is evaluated in the turn's locale end to end (ADR 0015).

A test double of the trip workflow registers one extra operation whose ``price`` is an
``AMOUNT``; the runtime reads "1.250,50 €" in pt-PT as 1250.50 EUR and hands the domain
an :class:`Amount` (compile sees the typed value, never the words), while the same
words on an en turn are no amount and the user is asked again.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import anyio

from turnframe.core import (
    Actor,
    Amount,
    ArgumentKind,
    ArgumentSpec,
    CompileRequest,
    Op,
    OperationSpec,
    ProposedTarget,
    SemanticAct,
    TurnInput,
    TypedCommand,
    Understanding,
    WorkflowRegistry,
    arg,
)
from turnframe.runtime import Application, FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import (
    ManifestWorkflow,
    RenameTrip,
    TravelerWorkflow,
    TripWorkflow,
    seed_state,
)
from turnframe.store import InMemoryStore
from turnframe.understand import ScriptedUnderstanding

PRICE = OperationSpec(
    key="trip.note_price",
    workflow="trip",
    summary="Note the trip's price.",
    summaries={"pt-PT": "Registar o preço da viagem."},
    arguments=(
        ArgumentSpec(
            name="price",
            kind=ArgumentKind.AMOUNT,
            required=True,
            label="price",
            labels={"pt-PT": "preço"},
        ),
    ),
)


class _NotePrice(TypedCommand, operation="trip.note_price", event="trip.price_noted"):
    """The added operation's command: its typed field is the amount argument."""

    price: Amount = arg(label="price", labels={"pt-PT": "preço"})


class _PricedTrip(TripWorkflow):
    """The trip workflow plus ``trip.note_price``, compiled as a rename to the amount's words.

    Its table row and silent event keep registration's checks whole (a command for every
    offered operation, a receipt or a silent declaration for every event type).
    """

    table = (
        *TripWorkflow.table,
        Op(_NotePrice, PRICE.summary, summaries={"pt-PT": "Registar o preço da viagem."}),
    )
    silent = (*TripWorkflow.silent, "trip.price_noted")
    seen: list[Any]

    def __init__(self) -> None:
        super().__init__()
        self.seen = []

    def operations(self) -> tuple[OperationSpec, ...]:
        return (*super().operations(), PRICE)

    def offered(self, view: Any, actor: Actor) -> tuple[str, ...]:
        return (*super().offered(view, actor), PRICE.key)

    def compile(self, request: CompileRequest[Any]) -> Any:
        if request.operation.key != PRICE.key:
            return super().compile(request)
        price = request.values["price"]
        self.seen.append(price)
        assert isinstance(price, Amount)
        return super().compile(
            CompileRequest(
                act=SemanticAct(id=request.act.id, operation="trip.rename"),
                operation=next(o for o in super().operations() if o.key == "trip.rename"),
                case=request.case,
                state=request.state,
                view=request.view,
                values={"name": f"{price.value} {price.currency}"},
                prior=request.prior,
                actor=request.actor,
                today=request.today,
                locale=request.locale,
            )
        )


async def _run(locale: str, words: str) -> tuple[str, list[Any], Any]:
    trip_wf = _PricedTrip()
    app = Application(
        name="priced",
        registry=WorkflowRegistry([trip_wf, TravelerWorkflow(), ManifestWorkflow()]),
    )
    store = InMemoryStore()
    script = ScriptedUnderstanding()
    runtime = Runtime(app, store, script, clock=FixedClock(date(2026, 5, 1)), ids=SequentialIds())
    workflow, state = seed_state({"key": "T1", "workflow": "trip", "name": "Lisboa"}, {})
    trip = await runtime.seed("acme", workflow, state, case_id="t1")
    script.push(
        lambda brief: Understanding(
            acts=(
                SemanticAct(
                    id="a1",
                    operation=PRICE.key,
                    target=ProposedTarget(handles=(runtime.handle_for(brief.turn_id, trip),)),
                    args={"price": words},
                ),
            )
        )
    )
    result = await runtime.run_turn(
        Actor(account="acme", user="u1"), "c1", TurnInput(text=words, locale=locale)
    )
    row = await store.load_case(trip)
    assert row is not None
    r = result.results["a1"]
    return f"{r.status.value}:{r.code}", trip_wf.seen, row.state["name"]


def test_an_amount_in_pt_pt_reaches_the_domain_typed() -> None:
    outcome, seen, name = anyio.run(_run, "pt-PT", "1.250,50 €")
    assert outcome == "committed:None"
    assert seen == [Amount(value=Decimal("1250.50"), currency="EUR")]
    assert name == "1250.50 EUR"
    assert RenameTrip.OPERATION == "trip.rename"


def test_the_same_words_are_no_amount_in_english() -> None:
    outcome, seen, name = anyio.run(_run, "en", "1.250,50 €")
    assert outcome == "needs_clarification:invalid:price" and seen == [] and name == "Lisboa"
    outcome, seen, _ = anyio.run(_run, "en", "€1,250.50")
    assert outcome == "committed:None" and seen == [
        Amount(value=Decimal("1250.50"), currency="EUR")
    ]
