"""``turnframe demo``: a guided tour of the travel sample through the real pipeline.

Offline and with no configuration: SQLite under the user's data directory, understanding
scripted (the tour says so), the real reducer, policy, store, cards and receipts.
``turnframe demo --app SPEC`` plays another application's tour instead: the scenario
file its ``Application.tour`` names (:mod:`turnframe.cli.tour`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import TextIO

import anyio

from turnframe.core import (
    Actor,
    CaseRef,
    Constraint,
    ConstraintKind,
    ConstraintScope,
    Interaction,
    InteractionResponse,
    Link,
    ProposedTarget,
    Question,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.core.errors import UsageError
from turnframe.runtime import Application, FixedClock, Runtime, TurnResult
from turnframe.samples.travel import (
    DEMO_RECORDS,
    complete_records,
    seed_order,
    seed_state,
    travel_application,
)
from turnframe.store.errors import StoreError
from turnframe.understand import Brief, ScriptedUnderstanding

__all__ = ["TRAVEL_LOCALES", "render_blocks", "run_demo"]

TRAVEL_LOCALES = ("en", "pt-PT")
"""The locales the travel tour is written for."""

TOUR_TODAY = date(2026, 5, 1)
"""The tour's fixed today: the seeded trips are in May and June 2026."""

Script = Callable[[Brief], Understanding]


def run_demo(
    db: str | None = None,
    locale: str | None = "en",
    out: TextIO | None = None,
    app: str | None = None,
) -> int:
    """Run a tour and print it; return the exit code.

    Without ``app`` (or with an application that has no tour of its own and is named
    ``travel``) the travel sample's built-in tour runs; otherwise the application's
    ``tour`` scenario file is played (:func:`turnframe.cli.tour.play_tour`).

    Args:
        db: the SQLite file; default ``demo.db`` under the user data directory (replaced).
        locale: the replies' locale (travel: ``en`` or ``pt-PT``; ``None``: ``en``, or the
            tour file's own locale).
        out: where to print (default standard output).
        app: ``--app SPEC``: ``module:attribute`` or an installed application's name.

    Returns:
        0 when the tour ran; 1 when a played tour's expectations failed; 2 when the
        database cannot be used, the application cannot be loaded, has no tour, or the
        locale is not one it serves (a one-line message on standard error).
    """
    from turnframe.runtime.loading import load_application

    stream = out or sys.stdout
    try:
        application = load_application(app) if app is not None else None
        if application is not None and application.tour is None and application.name == "travel":
            application = None  # the travel sample's tour is the built-in one below
        if application is None and (locale or "en") not in TRAVEL_LOCALES:
            raise UsageError(
                f"--locale {locale!r}: the travel tour is written in {', '.join(TRAVEL_LOCALES)}"
            )
        return anyio.run(_tour, db, locale, stream, application)
    except (StoreError, OSError) as exc:
        print(f"error: the demo database could not be used: {exc}", file=sys.stderr)
        return 2
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


async def _tour(db: str | None, locale: str | None, out: TextIO, app: Application | None) -> int:
    from turnframe.store.sqlite import SqliteStore, default_path

    path = Path(db) if db else default_path().with_name("demo.db")
    if db is None:
        # The default tour database is the demo's own file: each run starts it afresh.
        path.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
    elif path.exists():
        raise FileExistsError(
            f"{path} already exists; the tour needs a new file (it never overwrites one)"
        )
    if app is not None:
        from turnframe.cli.tour import play_tour

        return await play_tour(app, path, locale, out)
    store = await SqliteStore.open(path)
    try:
        tour = _Tour(store, locale or "en", out)
        await tour.run()
    finally:
        await store.close()
    print(f"\nThe tour's database is {path} (SQLite, WAL mode).", file=out)
    return 0


class _Tour:
    def __init__(self, store: object, locale: str, out: TextIO) -> None:
        self.understanding = ScriptedUnderstanding()
        self.runtime = Runtime(
            travel_application(),
            store,  # type: ignore[arg-type]
            self.understanding,
            clock=FixedClock(TOUR_TODAY),
        )
        self.actor = Actor(account="acme", user="maria", roles=frozenset({"customer"}))
        self.locale = locale
        self.out = out
        self.refs: dict[str, CaseRef] = {}
        self.names: dict[CaseRef, str] = {}
        self.cards: list[Interaction] = []
        self.step = 0

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def h(self, brief: Brief, key: str) -> str:
        return self.runtime.handle_for(brief.turn_id, self.refs[key])

    async def run(self) -> None:
        self.say("Turnframe demo: the travel sample, through the real pipeline.")
        self.say("Understanding is SCRIPTED in this tour: each message comes with the proposal a")
        self.say("model would have made, so no model is called. Everything after that is real:")
        self.say("target resolution, the whole-turn reducer, policy, cards, commits and receipts.")
        self.say(f"The tour's today is {TOUR_TODAY.isoformat()}.")
        await self._seed()
        await self._multi_act()
        await self._ambiguity()
        await self._confirmation()
        await self._correction()
        await self._standing_constraint()

    async def _seed(self) -> None:
        self.say("\nSeeded records:")
        for record in seed_order(complete_records(DEMO_RECORDS)):
            key = str(record["key"])
            workflow, state = seed_state(record, self.refs)
            case = await self.runtime.seed(self.actor.account, workflow, state)
            self.refs[key] = case
            self.names[case] = key
            definition = self.runtime.registry.workflow(workflow)
            label = definition.definition.candidate_label(
                case, definition.typed(state), self.locale
            )
            self.say(f"  {key:3} {workflow:9} {label}")

    async def _multi_act(self) -> None:
        def script(b: Brief) -> Understanding:
            return Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="trip.add_traveler",
                        target=ProposedTarget(handles=(self.h(b, "T3"),), mention="the Porto trip"),
                        args={"traveler": self.h(b, "P4")},
                    ),
                    SemanticAct(
                        id="a2",
                        operation="trip.change_dates",
                        target=ProposedTarget(handles=(self.h(b, "T3"),)),
                        args={"start": "2026-07-02", "end": "2026-07-06"},
                    ),
                ),
                questions=(
                    Question(
                        id="q1",
                        topic="baggage_allowance",
                        target=ProposedTarget(handles=(self.h(b, "D1"),)),
                    ),
                ),
            )

        await self._text(
            "A message with two acts and a question",
            "Put Rui on the Porto trip, 2 to 6 July. And what's the bag allowance on the TP manifest?",
            script,
        )

    async def _ambiguity(self) -> None:
        def script(b: Brief) -> Understanding:
            return Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="trip.add_extra",
                        target=ProposedTarget(
                            handles=(self.h(b, "T1"), self.h(b, "T2")), mention="the Lisbon trip"
                        ),
                        args={"kind": "seat"},
                    ),
                )
            )

        await self._text(
            "An ambiguous target: two trips are called Lisbon, so a card asks (never recency)",
            "Add a seat to the Lisbon trip.",
            script,
        )
        card = self.cards[-1]
        june = next(o for o in card.spec.options if o.case == self.refs["T2"])
        await self._click(
            "The user picks the June trip on the card: a click, no model call", card, june.id
        )

    async def _confirmation(self) -> None:
        def script(b: Brief) -> Understanding:
            return Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="trip.book_hotel",
                        target=ProposedTarget(handles=(self.h(b, "T2"),)),
                        args={"hotel": "Hotel Avenida", "nights": "3"},
                    ),
                )
            )

        await self._text(
            "A monetary act needs a confirmation card",
            "Book Hotel Avenida for 3 nights in June.",
            script,
        )
        card = self.cards[-1]
        await self._click("The user confirms on the card", card, "confirm")
        await self._click(
            "A double click on the same card: the original resolution, nothing runs twice",
            card,
            "confirm",
        )

    async def _correction(self) -> None:
        def script(b: Brief) -> Understanding:
            porto = (self.h(b, "T3"),)
            return Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="trip.rename",
                        target=ProposedTarget(handles=porto),
                        args={"name": "Oporto"},
                    ),
                    SemanticAct(id="a2", operation=None, target=ProposedTarget(handles=porto)),
                ),
                links=(Link(act="a2", cancels="a1"),),
            )

        await self._text(
            "A correction inside one turn: reduced before anything runs, so nothing changes",
            "Rename the Porto trip to Oporto... actually, leave it as it was.",
            script,
        )

    async def _standing_constraint(self) -> None:
        def script(b: Brief) -> Understanding:
            return Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="manifest.validate",
                        target=ProposedTarget(handles=(self.h(b, "D1"),)),
                    ),
                ),
                constraints=(
                    Constraint(
                        id="c1", kind=ConstraintKind.DO_NOT_SUBMIT, scope=ConstraintScope.STANDING
                    ),
                ),
            )

        await self._text(
            "A standing constraint: stored on the conversation, shown on every later reply",
            "Validate the TP manifest, but don't submit anything yet.",
            script,
        )

        def submit(b: Brief) -> Understanding:
            return Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="manifest.submit",
                        target=ProposedTarget(handles=(self.h(b, "D1"),)),
                    ),
                )
            )

        await self._text(
            "A later submission from text is blocked by the standing constraint",
            "Send the manifest.",
            submit,
        )

    # ------------------------------------------------------------------------ turns
    async def _text(self, title: str, text: str, script: Script) -> None:
        self.understanding.push(script)
        self._title(title)
        self.say(f'  user: "{text}"')
        result = await self.runtime.run_turn(
            self.actor, "demo", TurnInput(text=text, locale=self.locale)
        )
        self._show(result)

    async def _click(self, title: str, card: Interaction, option: str) -> None:
        self._title(title)
        label = next((o.label for o in card.spec.options if o.id == option), option)
        self.say(f"  user clicks [{label}] on card {card.id}")
        response = InteractionResponse(
            interaction_id=card.id, option_id=option, expected_revision=card.spec.bound_revision
        )
        result = await self.runtime.run_turn(
            self.actor, "demo", TurnInput(interaction_response=response, locale=self.locale)
        )
        self._show(result)

    def _title(self, title: str) -> None:
        self.step += 1
        self.say(f"\n── {self.step}. {title}")

    def _show(self, result: TurnResult) -> None:
        self.cards.extend(result.interactions_created)
        self.say("  results:")
        for item, res in result.results.items():
            where = f" on {self.names.get(res.case, res.case)}" if res.case else ""
            op = f" {res.operation}" if res.operation else ""
            self.say(f"    {item}:{op}{where} → {res.label}")
        events = result.events
        self.say(f"  committed events: {', '.join(f'{e.id} {e.type}' for e in events) or 'none'}")
        self.say(f"  model calls: {result.model_calls}")
        self.say("  reply:")
        for line in render_blocks(result):
            self.say(f"    {line}")


_TAGS = {"answer": "[answer]", "notice": "[notice]", "transition": "[next]"}
"""The tour's tag before a block's words, by kind (a receipt and a card add their ids)."""


def render_blocks(result: TurnResult) -> Sequence[str]:
    """Return a turn's reply blocks as the tour prints them, one line per block or option."""
    lines: list[str] = []
    for block in result.blocks:
        if block.kind == "receipt":
            events = ", ".join(block.receipt.event_ids)
            lines.append(f"[receipt] {block.text}  (events {events})")
        elif block.kind == "interaction":
            lines.append(f"[card {block.interaction_kind} {block.interaction_id}] {block.text}")
            for n, option in enumerate(block.options, start=1):
                lines.append(f"    {n}. {option.label}  (option {option.id})")
        else:
            lines.append(f"{_TAGS.get(block.kind, f'[{block.kind}]')} {block.text}")
    return lines
