"""A click commits what its card showed, or nothing (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md rule 10).

The class: a workflow whose compiled arguments depend on something outside the case. Here
a test-only workflow on the authoring kit fills a quote's ``rate`` from a configuration
object (swapped between card and click, as a redeploy does) and its ``on`` from the
turn's ``today`` (moved by the clock). Hypothesis interleaves asks, clicks with and
without text, configuration swaps and days passing; for every click, either the
committed command's arguments are the card's ``ProposedCommand.arguments``, or nothing
commits and, when the card is re-issued, the fresh card shows the command as it would
compile now.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import event as tally
from hypothesis import strategies as st

from turnframe.core import (
    LOW,
    Actor,
    CaseRef,
    Command,
    CompileRequest,
    Execution,
    ExecutionContext,
    InteractionResponse,
    Op,
    ProposedTarget,
    RiskClass,
    SemanticAct,
    TurnInput,
    TypedCommand,
    Understanding,
    Workflow,
    WorkflowRegistry,
    arg,
    confirm,
)
from turnframe.core.interactions import Interaction, InteractionStatus
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.runtime.app import Application
from turnframe.store import InMemoryStore
from turnframe.understand import ScriptedUnderstanding

ACTOR = Actor(account="acme", user="ana", roles=frozenset({"manager"}))
START = date(2026, 3, 2)


@dataclass(slots=True)
class Config:
    """What the application reads outside any case: swapped between a card and its click."""

    rate: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Quote:
    """A quote: the rate and the day it was stamped with."""

    holder: str
    rate: int
    on: str
    note: str = ""
    status: str = "open"


class OpenQuote(TypedCommand, operation="quote.open", event="quote.opened"):
    """Open a quote at the configured rate, stamped today."""

    rate: int = arg(0, argument=False)
    on: str = arg("", argument=False)


class Restamp(TypedCommand, operation="quote.restamp", event="quote.restamped"):
    """Stamp an open quote again at the configured rate, today."""

    rate: int = arg(0, argument=False)
    on: str = arg("", argument=False)


class Note(TypedCommand, operation="quote.note", event="quote.noted"):
    """Write a note on the quote (low risk: it commits at once and changes the record)."""

    text: str = arg(description="the note")


class Send(TypedCommand, operation="quote.send", event="quote.sent"):
    """Send the quote at the configured rate, today: a Confirm, then a manager's Review."""

    rate: int = arg(0, argument=False)
    on: str = arg("", argument=False)


class QuoteWorkflow(Workflow[Quote]):
    """A quote whose commands read the configuration and the day (both outside the case)."""

    name = "quote"
    version = "quote/1"
    state_type = Quote
    nouns = {"en": "quote"}
    label_fields = ("rate", "on")
    search_fields = ("on",)
    table = (
        Op(OpenQuote, "Open a quote.", creates_case=True, policy=confirm(RiskClass.REVERSIBLE)),
        Op(Restamp, "Stamp the quote again.", policy=confirm(RiskClass.REVERSIBLE)),
        Op(Note, "Write a note on the quote.", policy=LOW),
        Op(
            Send,
            "Send the quote.",
            policy=confirm(RiskClass.REVERSIBLE, review_role="manager"),
        ),
    )
    offers = {"new": ("quote.open",), "open": ("quote.restamp", "quote.note", "quote.send")}
    receipts = {
        "en": {
            "quote.opened": "Opened a quote at rate {rate} on {on}.",
            "quote.restamped": "Stamped the quote again at rate {rate} on {on}.",
            "quote.noted": "Noted on the quote: {text}.",
            "quote.sent": "Sent the quote at rate {rate} on {on}.",
        }
    }

    def __init__(self, config: Config) -> None:
        self.config = config

    def build(self, request: CompileRequest[Quote]) -> Command:
        """Fill the rate from the configuration and the day from the turn."""
        command = super().build(request)
        if isinstance(command, Note):
            return command
        assert isinstance(command, OpenQuote | Restamp | Send)
        return replace(command, rate=self.config.rate, on=request.today.isoformat())

    def execute(
        self, state: Quote | None, command: Command, ctx: ExecutionContext
    ) -> Execution[Quote]:
        """Open or restamp the quote with the command's own rate and day."""
        if isinstance(command, OpenQuote):
            return self.emit(
                Quote(holder=ctx.actor.user, rate=command.rate, on=command.on), command
            )
        record = self.existing(state, command)
        if isinstance(command, Note):
            return self.emit(replace(record, note=command.text), command)
        assert isinstance(command, Restamp | Send)
        return self.emit(replace(record, rate=command.rate, on=command.on), command)


class Bench:
    """A runtime over the quote workflow, with its configuration and clock in reach."""

    def __init__(self) -> None:
        self.config = Config(rate=1)
        self.clock = FixedClock(START)
        self.store = InMemoryStore()
        self.script = ScriptedUnderstanding()
        app = Application(name="quotes", registry=WorkflowRegistry([QuoteWorkflow(self.config)]))
        self.runtime = Runtime(app, self.store, self.script, clock=self.clock, ids=SequentialIds())

    def _push(
        self, act_id: str, operation: str, case: CaseRef | None, args: dict[str, str] | None = None
    ) -> None:
        def read(brief: Any) -> Understanding:
            if case is None:
                target = ProposedTarget(new=True)
            else:
                handle = self.runtime.handle_for(brief.turn_id, case)
                target = ProposedTarget(handles=(handle,), mention="the quote")
            return Understanding(
                acts=(SemanticAct(id=act_id, operation=operation, target=target, args=args or {}),)
            )

        self.script.push(read)

    async def ask(self, operation: str, case: CaseRef | None, **args: str) -> Any:
        self._push("a1", operation, case, args)
        return await self.runtime.run_turn(ACTOR, "c1", TurnInput(text=f"please {operation}"))

    async def click(self, card: Interaction, text: str | None) -> Any:
        response = InteractionResponse(
            interaction_id=card.id,
            option_id="approve" if card.spec.kind.value == "review" else "confirm",
            expected_revision=card.spec.bound_revision or 0,
        )
        if text is None:
            return await self.runtime.run_turn(
                ACTOR, "c1", TurnInput(interaction_response=response)
            )
        if text == "note" and card.spec.case is not None:
            # The words write a note on the card's own record: it commits first, so the
            # card is stale under its click (ADR 0003).
            self._push("t1", "quote.note", card.spec.case, {"text": "beside the click"})
        else:
            # The words ask for another new quote: a card, never a commit.
            self._push("t1", "quote.open", None)
        return await self.runtime.run_turn(
            ACTOR, "c1", TurnInput(text=f"and {text}", interaction_response=response)
        )

    async def state(self, case: CaseRef) -> dict[str, Any]:
        """The stored state of ``case``."""
        row = await self.store.load_case(case)
        assert row is not None
        return dict(row.state)

    def now(self) -> dict[str, Any]:
        """The arguments a quote command compiles to now."""
        return {"rate": self.config.rate, "on": self.clock.today().isoformat()}


def _args(card: Interaction) -> dict[str, Any]:
    (proposed,) = card.spec.commands
    return {"rate": proposed.arguments["rate"], "on": proposed.arguments["on"]}


STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("open"), st.just(0)),
        st.tuples(st.just("restamp"), st.integers(0, 5)),
        st.tuples(st.just("send"), st.integers(0, 5)),
        st.tuples(st.just("note"), st.integers(0, 5)),
        st.tuples(st.just("click"), st.integers(0, 20)),
        st.tuples(st.just("click_text"), st.integers(0, 20)),
        st.tuples(st.just("click_note"), st.integers(0, 20)),
        st.tuples(st.just("config"), st.integers(1, 3)),
        st.tuples(st.just("day"), st.integers(0, 2)),
    ),
    min_size=2,
    max_size=24,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=STEPS)
def test_a_click_commits_what_its_card_showed_or_nothing(steps: list[tuple[str, int]]) -> None:
    """Every click commits the card's own arguments, or nothing and a fresh card shows the new ones."""

    async def main() -> None:
        bench = Bench()
        cards: list[Interaction] = []
        quotes: list[CaseRef] = []
        for kind, n in steps:
            if kind == "config":
                bench.config.rate = n
            elif kind == "day":
                bench.clock.advance(n)
            elif kind == "note":
                if quotes:
                    noted = await bench.ask("quote.note", quotes[n % len(quotes)], text=f"n{n}")
                    assert [op for op, _ in noted.commands] == ["quote.note"]
            elif kind in ("open", "restamp", "send"):
                target = quotes[n % len(quotes)] if kind != "open" and quotes else None
                asked = await bench.ask(f"quote.{kind}" if target else "quote.open", target)
                assert asked.commands == ()
                cards += asked.interactions_created
            elif cards:
                card = cards[n % len(cards)]
                text = {"click": None, "click_text": "open", "click_note": "note"}[kind]
                await _click_and_check(bench, card, text, cards, quotes)

    anyio.run(main)


async def _click_and_check(
    bench: Bench,
    card: Interaction,
    text: str | None,
    cards: list[Interaction],
    quotes: list[CaseRef],
) -> None:
    stored = await bench.store.get_interaction(ACTOR.account, "c1", card.id)
    assert stored is not None
    row = await bench.store.load_case(card.spec.case) if card.spec.case else None
    unchanged = row is None or row.revision == card.spec.bound_revision
    shown, now = _args(card), bench.now()
    clicked = await bench.click(card, text)
    cards += clicked.interactions_created
    noted = [c for c in clicked.commands if c[0] == "quote.note"]
    if noted:
        # The words' note committed on the card's record before the click.
        assert text == "note" and noted == [("quote.note", card.spec.case)]
        unchanged = False
    commands = [c for c in clicked.commands if c[0] != "quote.note"]
    events = [e for e in clicked.events if e.type != "quote.noted"]
    with_text = text is not None
    if commands:
        ((operation, case),) = commands
        assert stored.status is InteractionStatus.OPEN
        assert operation == card.spec.commands[0].operation
        assert card.spec.kind.value == ("review" if operation == "quote.send" else "confirm")
        (event,) = events
        assert {"rate": event.data["rate"], "on": event.data["on"]} == shown
        state = await bench.state(case)
        assert {"rate": state["rate"], "on": state["on"]} == shown == now
        if operation == "quote.open":
            quotes.append(case)
        tally(f"committed (text: {with_text})")
        return
    assert events == []
    if stored.status is not InteractionStatus.OPEN:
        tally("closed card: nothing runs")
        return  # a second click, or a card displaced by a newer one: nothing runs
    review = [
        c
        for c in clicked.interactions_created
        if c.spec.kind.value == "review" and card.id in c.spec.confirmed_by
    ]
    if review:
        # A confirmed send moves on to its Review card, which shows the same command.
        assert unchanged and shown == now and _args(review[0]) == shown
        tally(f"review card (text: {with_text})")
        return
    code = clicked.results["click"].code
    if not unchanged:
        assert code == "stale"
    elif shown != now:
        assert code == "card_changed"
    else:
        raise AssertionError(f"an open card showing what compiles now did not commit: {code}")
    tally(f"{code} (text: {with_text})")
    fresh = [c for c in clicked.interactions_created if c.spec.case == card.spec.case]
    (again,) = fresh
    assert _args(again) == now
    closed = await bench.store.get_interaction(ACTOR.account, "c1", card.id)
    assert closed is not None and closed.status is InteractionStatus.STALE
