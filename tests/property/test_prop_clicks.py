"""Clicks re-checked, candidates that fit, parts named by words (ADR 0014; I8, I16, I17).

Three generated classes, each over the real runtime on the in-memory store:

* **Clicks after the record changed or was deleted.** A card is drawn (a selection of a
  traveler for ``trip.add_traveler``, a Confirm card to book a hotel, a Confirm card to
  cancel the trip), then random state changes happen in other turns (a traveler deleted,
  a hotel extra added, the trip renamed, cancelled or given a traveler), then a random
  option of the old card is clicked. Checked: no command of the click's turn is one the
  domain would now refuse, no terminal record (a Deleted traveler) is ever the target or
  argument of a mutation, and every card the click's turn draws (a re-issued card) offers
  only acts the domain accepts on the record as it now is.
* **Candidates fit the operation.** Random directories of homonym trips and travelers in
  random statuses; an act names them by words. Only records on which the operation is on
  offer may be candidates: two or more fitting → a selection card over exactly those; one
  → used; none → nothing runs and no card. Run with the default directory and with a
  directory written before ``find`` took the operation (the runtime filters its answer).
* **Parts named by words.** A trip with 0, 1 or several extras the words name ("the
  baggage") among others: none → the domain's refusal; one → that extra changes; several
  → a choice card over exactly those, and the option clicked is the one that changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

import anyio
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from turnframe.core import (
    Actor,
    CaseRef,
    InteractionKind,
    InteractionResponse,
    InteractionStatus,
    OptionMeaning,
    ProposedTarget,
    ResultStatus,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.runtime import FixedClock, Runtime, SequentialIds, StoredCaseDirectory, TurnResult
from turnframe.runtime.check import domain_refusal
from turnframe.samples.travel import seed_all, travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import ScriptedUnderstanding

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
CONVERSATION = "c"
_APP = travel_application()
_REGISTRY = _APP.registry


class _LegacyDirectory:
    """A directory written before ``find`` was told the operation: it returns every match."""

    def __init__(self, inner: StoredCaseDirectory) -> None:
        self._inner = inner

    async def list_for_actor(self, actor: Actor) -> Sequence[Any]:
        return await self._inner.list_for_actor(actor)

    async def find(self, actor: Actor, workflow: str | None, words: str) -> Sequence[CaseRef]:
        return await self._inner.find(actor, workflow, words)

    async def authorize(self, actor: Actor, case: CaseRef) -> bool:
        return await self._inner.authorize(actor, case)


class _World:
    """The runtime over a fresh store, seeded with ``records`` (scenario record shape)."""

    def __init__(self, legacy: bool = False) -> None:
        self.store = InMemoryStore()
        self.understander = ScriptedUnderstanding()
        stored = StoredCaseDirectory(_REGISTRY, self.store)
        self.runtime = Runtime(
            _APP,
            self.store,
            self.understander,
            clock=FixedClock(TODAY),
            ids=SequentialIds(),
            directory=_LegacyDirectory(stored) if legacy else stored,  # type: ignore[arg-type]
        )
        self.refs: dict[str, CaseRef] = {}
        self.keys: dict[CaseRef, str] = {}
        self.n = 0

    async def seed(self, records: list[dict[str, Any]]) -> None:
        for key, case, state in seed_all(records):
            ref = await self.runtime.seed(ACTOR.account, case.workflow, state, case_id=key)
            self.refs[key] = ref
            self.keys[ref] = key

    async def act(
        self,
        operation: str,
        target: tuple[str, ...] | str,
        args: dict[str, str],
        click: InteractionResponse | None = None,
    ) -> TurnResult:
        """Run one text act; ``target`` is record keys (handles) or words (``find``)."""
        self.n += 1
        act_id = f"a{self.n}"

        def read(brief: Any) -> Understanding:
            def handle(key: str) -> str:
                return self.runtime.handle_for(brief.turn_id, self.refs[key])

            proposed = (
                ProposedTarget(find=target)
                if isinstance(target, str)
                else ProposedTarget(handles=tuple(handle(k) for k in target))
            )
            values = {k: handle(v) if v in self.refs else v for k, v in args.items()}
            return Understanding(
                acts=(SemanticAct(id=act_id, operation=operation, target=proposed, args=values),)
            )

        self.understander.push(read)
        return await self.runtime.run_turn(
            ACTOR, CONVERSATION, TurnInput(text="words", interaction_response=click)
        )

    async def click(self, card: str, option: str) -> TurnResult:
        response = InteractionResponse(interaction_id=card, option_id=option)
        return await self.runtime.run_turn(
            ACTOR, CONVERSATION, TurnInput(interaction_response=response)
        )

    async def confirm_last(self, result: TurnResult) -> TurnResult | None:
        """Click Confirm on the Confirm card ``result`` drew, if it drew one."""
        cards = [c for c in result.interactions_created if c.spec.kind is InteractionKind.CONFIRM]
        return await self.click(cards[-1].id, "confirm") if cards else None

    async def state(self, key: str) -> dict[str, Any]:
        row = await self.store.load_case(self.refs[key])
        assert row is not None
        return dict(row.state)

    async def terminal(self, case: CaseRef) -> bool:
        row = await self.store.load_case(case)
        if row is None:
            return False
        erased = _REGISTRY.workflow(case.workflow)
        return erased.terminal(erased.definition.project(erased.typed(row.state), TODAY))


def _run(body: Any) -> None:
    anyio.run(body)


_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)

# --------------------------------------------------------------------------------------
# 1. clicks after the record changed or was deleted

_CLICK_RECORDS: list[dict[str, Any]] = [
    {"key": "T1", "workflow": "trip", "name": "Porto", "start": "2026-07-01",
     "end": "2026-07-04", "travelers": ["K1"]},
    {"key": "K1", "workflow": "traveler", "full_name": "Kim Lee", "birth_date": "1980-04-02"},
    {"key": "A1", "workflow": "traveler", "full_name": "Ana Silva", "birth_date": "1991-02-10"},
    {"key": "A2", "workflow": "traveler", "full_name": "Ana Silva", "birth_date": "1975-09-30"},
    {"key": "A3", "workflow": "traveler", "full_name": "Ana Silva", "birth_date": "1960-11-11"},
]  # fmt: skip
_CARDS = ("select_traveler", "book_hotel", "cancel_trip", "payer_choice")
_CHANGES = (
    ("delete", "A1"),
    ("delete", "A2"),
    ("delete", "A3"),
    ("hotel", "T1"),
    ("rename", "T1"),
    ("cancel", "T1"),
    ("add", "A1"),
    ("add", "A2"),
)


async def _draw_card(world: _World, kind: str) -> TurnResult:
    if kind == "select_traveler":
        return await world.act("trip.add_traveler", ("T1",), {"traveler": "Ana Silva"})
    if kind == "book_hotel":
        return await world.act(
            "trip.book_hotel", ("T1",), {"hotel": "Hotel Avenida", "nights": "2"}
        )
    if kind == "cancel_trip":
        return await world.act("trip.cancel", ("T1",), {})
    # A travelers' selection filling the payer of an extra: add two baggages first.
    await world.act("trip.add_extra", ("T1",), {"kind": "baggage", "details": "cabin bag"})
    await world.act("trip.add_extra", ("T1",), {"kind": "baggage", "details": "checked bag"})
    for key in ("A1", "A2", "A3"):
        await world.act("trip.add_traveler", ("T1",), {"traveler": key})
    return await world.act(
        "trip.set_extra_payer", ("T1",), {"extra": "baggage", "payer": "Ana Silva"}
    )


async def _change(world: _World, change: tuple[str, str]) -> None:
    what, key = change
    if what == "delete":
        await world.confirm_last(await world.act("traveler.delete", (key,), {}))
    elif what == "hotel":
        await world.act("trip.add_extra", (key,), {"kind": "hotel", "details": "Hotel Miramar"})
    elif what == "rename":
        await world.act("trip.rename", (key,), {"name": f"Porto {world.n}"})
    elif what == "cancel":
        # The cancel card on the trip displaces an open card on it (I5), then commits.
        await world.confirm_last(await world.act("trip.cancel", ("T1",), {}))
    else:
        await world.act("trip.add_traveler", ("T1",), {"traveler": key})


async def _click_violations(world: _World, result: TurnResult) -> list[str]:
    """What the click's turn did that the domain, as the records now are, would refuse."""
    out: list[str] = []
    for event in result.events:
        # No terminal record is ever named by a mutation's event (a Deleted traveler
        # added, made a payer) or changed by one.
        for name in ("traveler", "payer"):
            value = event.data.get(name)
            if isinstance(value, str) and value.startswith("traveler/"):
                workflow, _, case_id = value.partition("/")
                if await world.terminal(CaseRef(workflow, case_id)):
                    out.append(f"{event.type} names terminal {value}")
    for card in result.interactions_created:
        for pending in card.spec.pending:
            act = pending.act
            spec = _REGISTRY.operation(act.operation or "")
            assert spec is not None
            if card.spec.kind is InteractionKind.SELECT_TARGET:
                for option in card.spec.options:
                    if option.case is not None and await world.terminal(option.case):
                        out.append(f"re-drawn selection offers terminal {option.case}")
                continue
            assert pending.case is not None
            row = await world.store.load_case(pending.case)
            erased = _REGISTRY.workflow(pending.case.workflow)
            typed = erased.typed(row.state if row else None)
            view = erased.definition.project(typed, TODAY)
            if not erased.fits(view, ACTOR, spec.key):
                out.append(f"card offers {spec.key} on {pending.case} in phase {view.phase}")
                continue
            from turnframe.runtime.plan import CaseSnapshot

            snap = CaseSnapshot(
                case=pending.case,
                state=typed,
                state_json=row.state if row else None,
                revision=row.revision if row else 0,
                view=view,
                label="",
            )
            args = {**act.args, **pending.part_args}
            refused = domain_refusal(
                _REGISTRY,
                SemanticAct(id=act.id, operation=act.operation, target=act.target, args=args),
                snap,
                pending.record_args,
                ACTOR,
                TODAY,
                "en",
            )
            if refused is not None:
                out.append(f"card offers {spec.key} the domain refuses: {refused}")
            for ref in pending.record_args.values():
                if await world.terminal(ref):
                    out.append(f"card offers {spec.key} with terminal argument {ref}")
    return out


@_SETTINGS
@given(
    kind=st.sampled_from(_CARDS),
    changes=st.lists(st.sampled_from(_CHANGES), max_size=3),
    option=st.integers(min_value=0, max_value=2),
    second=st.booleans(),
)
def test_a_click_after_the_record_changed_never_runs_or_offers_what_the_domain_refuses(
    kind: str, changes: list[tuple[str, str]], option: int, second: bool
) -> None:
    async def body() -> None:
        world = _World()
        await world.seed(_CLICK_RECORDS)
        drawn = await _draw_card(world, kind)
        cards = [c for c in drawn.interactions_created]
        assert cards, f"{kind} drew no card: {drawn.results}"
        card = cards[-1]
        for change in changes:
            await _change(world, change)
        options = [o for o in card.spec.options if o.meaning is not OptionMeaning.DECLINE]
        chosen = options[option % len(options)]
        note(f"card {card.spec.kind} changes {changes} click {chosen.id}")
        clicked = await world.click(card.id, chosen.id)
        found = await _click_violations(world, clicked)
        # A re-issued card is itself a click target: its click must hold too.
        fresh = [c for c in clicked.interactions_created if c.status is InteractionStatus.OPEN]
        if second and fresh:
            again = await world.click(fresh[-1].id, fresh[-1].spec.options[0].id)
            found += await _click_violations(world, again)
        assert not found, found

    _run(body)


# --------------------------------------------------------------------------------------
# 2. candidates fit the operation

_TRIP_OPS = {
    "trip.rename": {"name": "Renamed"},
    "trip.add_extra": {"kind": "insurance"},
    "trip.cancel": {},
    "trip.confirm": {},
}
_TRIP_STATUSES = ("planning", "confirmed", "cancelled", "completed")


def _trip(key: str, status: str, month: int) -> dict[str, Any]:
    return {
        "key": key,
        "workflow": "trip",
        "name": "Lisbon",
        "start": f"2026-{month:02d}-03",
        "end": f"2026-{month:02d}-06",
        "travelers": ["K1"],
        "status": status,
    }


@_SETTINGS
@given(
    statuses=st.lists(st.sampled_from(_TRIP_STATUSES), max_size=4),
    operation=st.sampled_from(tuple(_TRIP_OPS)),
    by=st.sampled_from(("find", "handles")),
    legacy=st.booleans(),
)
def test_only_trips_on_which_the_operation_is_on_offer_are_candidates(
    statuses: list[str], operation: str, by: str, legacy: bool
) -> None:
    async def body() -> None:
        world = _World(legacy=legacy)
        keys = [f"T{n}" for n in range(1, len(statuses) + 1)]
        records = [_trip(k, s, 6 + n) for n, (k, s) in enumerate(zip(keys, statuses, strict=True))]
        records.append(
            {
                "key": "K1",
                "workflow": "traveler",
                "full_name": "Kim Lee",
                "birth_date": "1980-04-02",
            }
        )
        records.append(_trip("T9", "planning", 5) | {"name": "Faro"})
        await world.seed(records)
        erased = _REGISTRY.workflow("trip")
        fits = set()
        for key in keys:
            typed = erased.typed(await world.state(key))
            if erased.fits(erased.definition.project(typed, TODAY), ACTOR, operation):
                fits.add(key)
        if by == "handles" and len(keys) < 2:
            return
        target: tuple[str, ...] | str = "Lisbon" if by == "find" else tuple(keys)
        result = await world.act(operation, target, _TRIP_OPS[operation])
        (act,) = [r for r in result.results.values() if r.item_id.startswith("a")]
        selections = [
            c for c in result.interactions_created if c.spec.kind is InteractionKind.SELECT_TARGET
        ]
        note(f"statuses {statuses} fits {sorted(fits)} → {act.label} {result.commands}")
        for card in selections:
            offered = {world.keys[o.case] for o in card.spec.options if o.case is not None}
            assert offered == fits, f"selection offers {sorted(offered)}, fitting {sorted(fits)}"
        if len(fits) >= 2:
            assert selections and act.code == "ambiguous_target"
            assert not result.commands
        elif len(fits) == 1:
            (key,) = fits
            assert not selections
            assert act.case == world.refs[key], act
            assert act.status in (ResultStatus.COMMITTED, ResultStatus.AWAITING_CONFIRMATION), act
            assert all(case == world.refs[key] for _, case in result.commands)
        else:
            assert not selections and not result.commands
            assert act.status in (ResultStatus.NEEDS_CLARIFICATION, ResultStatus.REJECTED), act
            if len(keys) >= 2:
                assert act.code == "target_not_found" and act.sentence, act
        # Faro is never a candidate for words naming Lisbon.
        assert all(case != world.refs["T9"] for _, case in result.commands)

    _run(body)


@_SETTINGS
@given(
    statuses=st.lists(st.sampled_from(("active", "deleted")), max_size=4),
    legacy=st.booleans(),
    click=st.integers(min_value=0, max_value=3),
)
def test_a_terminal_traveler_is_never_a_candidate_or_the_argument_of_a_mutation(
    statuses: list[str], legacy: bool, click: int
) -> None:
    async def body() -> None:
        world = _World(legacy=legacy)
        keys = [f"A{n}" for n in range(1, len(statuses) + 1)]
        records: list[dict[str, Any]] = [
            {
                "key": k,
                "workflow": "traveler",
                "full_name": "Ana Silva",
                "birth_date": f"{1960 + n}-01-15",
                "status": s,
            }
            for n, (k, s) in enumerate(zip(keys, statuses, strict=True))
        ]
        records.append(
            {"key": "T1", "workflow": "trip", "name": "Porto", "start": "2026-07-01",
             "end": "2026-07-04"}
        )  # fmt: skip
        await world.seed(records)
        active = {k for k, s in zip(keys, statuses, strict=True) if s == "active"}
        result = await world.act("trip.add_traveler", ("T1",), {"traveler": "Ana Silva"})
        (act,) = [r for r in result.results.values() if r.item_id.startswith("a")]
        note(f"statuses {statuses} → {act.label}")
        selections = list(result.interactions_created)
        for card in selections:
            offered = {world.keys[o.case] for o in card.spec.options if o.case is not None}
            assert offered == active, f"selection offers {sorted(offered)}, active {sorted(active)}"
        travelers = (await world.state("T1"))["travelers"]
        if len(active) == 1:
            assert travelers == [str(world.refs[next(iter(active))])]
        elif len(active) >= 2:
            assert selections and travelers == []
            option = selections[0].spec.options[click % len(selections[0].spec.options)]
            await world.click(selections[0].id, option.id)
            assert (await world.state("T1"))["travelers"] == [str(option.case)]
        else:
            assert travelers == [] and not selections
            if statuses:
                assert act.status is ResultStatus.REJECTED, act
                assert act.code == "record_closed:traveler" and act.sentence, act

    _run(body)


# --------------------------------------------------------------------------------------
# 3. parts named by words

_OTHER_EXTRAS = st.sampled_from(
    ({"kind": "insurance"}, {"kind": "seat", "details": "window"}, {"kind": "meal"})
)


@_SETTINGS
@given(
    named=st.integers(min_value=0, max_value=3),
    others=st.lists(_OTHER_EXTRAS, max_size=3),
    order=st.randoms(use_true_random=False),
    operation=st.sampled_from(("trip.set_extra_payer", "trip.remove_extra")),
    words=st.sampled_from(("the baggage", "baggage", "a bagagem")),
    click=st.integers(min_value=0, max_value=3),
)
def test_parts_named_by_words_follow_the_no_guess_rule(
    named: int,
    others: list[dict[str, str]],
    order: Any,
    operation: str,
    words: str,
    click: int,
) -> None:
    async def body() -> None:
        world = _World()
        extras = [{"kind": "baggage", "details": f"bag {n}"} for n in range(named)] + others
        order.shuffle(extras)
        await world.seed(
            [
                {"key": "T1", "workflow": "trip", "name": "Lisbon", "start": "2026-05-12",
                 "end": "2026-05-15", "travelers": ["K1"], "extras": extras},
                {"key": "K1", "workflow": "traveler", "full_name": "Kim Lee"},
            ]
        )  # fmt: skip
        before = (await world.state("T1"))["extras"]
        baggage = [e["id"] for e in before if e["kind"] == "baggage"]
        args = {"extra": words} | ({"payer": "company"} if operation.endswith("payer") else {})
        result = await world.act(operation, ("T1",), args)
        (act,) = [r for r in result.results.values() if r.item_id.startswith("a")]
        note(f"extras {before} → {act.label}")

        def changed(after: list[dict[str, Any]]) -> set[str]:
            now = {e["id"]: e for e in after}
            return {e["id"] for e in before if now.get(e["id"]) != e}

        after = (await world.state("T1"))["extras"]
        if named == 0:
            assert act.status is ResultStatus.REJECTED and act.code == "no_such_extra", act
            assert not result.commands and not result.interactions_created
            assert after == before
        elif named == 1:
            assert act.status is ResultStatus.COMMITTED, act
            assert changed(after) == set(baggage)
        else:
            assert act.status is ResultStatus.NEEDS_CLARIFICATION, act
            assert act.code == "ambiguous_part:extra", act
            assert after == before and not result.commands
            (card,) = result.interactions_created
            assert card.spec.kind is InteractionKind.CHOICE
            assert [o.value for o in card.spec.options] == baggage
            option = card.spec.options[click % len(card.spec.options)]
            clicked = await world.click(card.id, option.id)
            assert clicked.commands, clicked.results
            assert changed((await world.state("T1"))["extras"]) == {option.value}

    _run(body)


@_SETTINGS
@given(
    travelers=st.lists(
        st.tuples(st.sampled_from(("active", "deleted")), st.booleans()), min_size=1, max_size=4
    ),
    legacy=st.booleans(),
)
def test_record_argument_candidates_are_those_the_domain_accepts(
    travelers: list[tuple[str, bool]], legacy: bool
) -> None:
    """Of homonyms, only passengers fit "remove <name> from the manifest" (when any does)."""

    async def body() -> None:
        world = _World(legacy=legacy)
        keys = [f"A{n}" for n in range(1, len(travelers) + 1)]
        records: list[dict[str, Any]] = [
            {
                "key": k,
                "workflow": "traveler",
                "full_name": "Ana Costa",
                "birth_date": f"{1960 + n}-01-15",
                "status": status,
            }
            for n, (k, (status, _)) in enumerate(zip(keys, travelers, strict=True))
        ]
        listed = [k for k, (_, on) in zip(keys, travelers, strict=True) if on]
        records += [
            {"key": "T1", "workflow": "trip", "name": "Porto", "start": "2026-07-01",
             "end": "2026-07-04"},
            {"key": "D1", "workflow": "manifest", "trip": "T1", "airline": "TP",
             "passengers": listed},
        ]  # fmt: skip
        await world.seed(records)
        active = [k for k, (s, _) in zip(keys, travelers, strict=True) if s == "active"]
        fitting = [k for k in active if k in listed] or active
        result = await world.act("manifest.remove_passenger", ("D1",), {"traveler": "Ana Costa"})
        (act,) = [r for r in result.results.values() if r.item_id.startswith("a")]
        note(f"travelers {travelers} → {act.label}")
        offered = {
            world.keys[o.case]
            for c in result.interactions_created
            for o in c.spec.options
            if o.case is not None
        }
        passengers = (await world.state("D1"))["passengers"]
        if len(fitting) >= 2:
            assert offered == set(fitting) and not result.commands, (offered, fitting)
        elif len(fitting) == 1 and fitting[0] in listed:
            assert act.status is ResultStatus.COMMITTED, act
            assert str(world.refs[fitting[0]]) not in passengers
        else:
            assert not result.commands and not offered, result.results
            assert act.status in (ResultStatus.REJECTED, ResultStatus.NEEDS_CLARIFICATION), act

    _run(body)
