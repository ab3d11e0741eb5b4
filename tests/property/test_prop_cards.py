"""A card shows what it does (ADR 0003, I7; docs/adr/0013-cards-show-what-they-do.md).

* For random commands with random arguments of EVERY travel operation, in every locale the
  workflow declares: the proposed command stored on a card carries the command's own
  arguments (``to_json()``), renders every argument that has a value, and its text, the
  card's prompt and its payload contain every rendered value (a traveler by its candidate
  label, a date written out, nights counted); two commands that differ in any argument
  give cards with different payload hashes.
* Through the pure reducer, a direct act on every confirmable travel operation plans a
  Confirm card whose prompt shows the command's arguments as the domain renders them.
* A workflow without ``render_command`` (or one whose words leave an argument out) still
  gets a card that shows every argument; selection cards are worded by the domain.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core import (
    Actor,
    Ambiguous,
    CaseRef,
    Command,
    CommandText,
    Exact,
    InteractionKind,
    InteractionSpec,
    RenderedArgument,
    SemanticAct,
    TargetCandidate,
    Understanding,
    WorkflowRegistry,
)
from turnframe.runtime.plan import ActInput, CaseSnapshot, ReductionInput
from turnframe.runtime.reduce import card_prompt, reduce_turn
from turnframe.samples.travel import DEMO_RECORDS, copy, seed_all, travel_application
from turnframe.samples.travel.manifest_model import (
    AddPassenger,
    RemovePassenger,
    SubmitManifest,
    ValidateManifest,
)
from turnframe.samples.travel.traveler import (
    DeleteTraveler,
    RegisterTraveler,
    UpdateTravelerEmail,
)
from turnframe.samples.travel.trip_model import (
    EXTRA_KINDS,
    AddExtra,
    AddTraveler,
    BookHotel,
    CancelTrip,
    ChangeTripDates,
    ConfirmTrip,
    RemoveExtra,
    RenameTrip,
    SetExtraPayer,
    StartTrip,
)

TODAY = date(2026, 5, 1)
REGISTRY = travel_application().registry
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
LOCALES = sorted({loc for n in REGISTRY.names() for loc in REGISTRY.workflow(n).locales})


def _snapshots(locale: str) -> dict[CaseRef, CaseSnapshot]:
    out = {}
    for n, (_, case, state) in enumerate(seed_all(DEMO_RECORDS)):
        erased = REGISTRY.workflow(case.workflow)
        typed = erased.typed(state)
        out[case] = CaseSnapshot(
            case=case,
            state=typed,
            state_json=state,
            revision=1 + n,
            view=erased.definition.project(typed, TODAY),
            label=erased.definition.candidate_label(case, typed, locale),
        )
    return out


SNAPSHOTS = {locale: _snapshots(locale) for locale in LOCALES}
TRAVELERS = [c for c in SNAPSHOTS["en"] if c.workflow == "traveler"]
TARGET = {"trip": CaseRef("trip", "T1"), "traveler": CaseRef("traveler", "P1")}
TARGET["manifest"] = CaseRef("manifest", "D1")

WORDS = (
    st.text(
        alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzÁÉãçõ ABCXYZ0123456789-'"),
        min_size=1,
        max_size=18,
    )
    .map(str.strip)
    .filter(bool)
)
DATES = st.dates(date(1930, 1, 1), date(2030, 12, 31))
OPT_DATES = st.none() | DATES
REFS = st.sampled_from(TRAVELERS)
PAYERS = st.none() | REFS | st.just("company")
EXTRA_IDS = st.sampled_from(["E1", "E2", "E7", "E12"])
EMAILS = st.builds(
    lambda a, b: f"{a}@{b}.example",
    st.from_regex(r"[a-z]{1,8}", fullmatch=True),
    st.from_regex(r"[a-z]{1,8}", fullmatch=True),
)

COMMANDS: dict[str, st.SearchStrategy[Any]] = {
    "trip.start": st.builds(
        StartTrip, name=WORDS, destination=st.none() | WORDS, start=OPT_DATES, end=OPT_DATES
    ),
    "trip.rename": st.builds(RenameTrip, name=WORDS),
    "trip.change_dates": st.builds(ChangeTripDates, start=DATES, end=DATES),
    "trip.add_traveler": st.builds(AddTraveler, traveler=REFS),
    "trip.add_extra": st.builds(
        AddExtra, kind=st.sampled_from(EXTRA_KINDS), details=st.none() | WORDS, payer=PAYERS
    ),
    "trip.set_extra_payer": st.builds(
        SetExtraPayer, extra=EXTRA_IDS, payer=REFS | st.just("company")
    ),
    "trip.remove_extra": st.builds(RemoveExtra, extra=EXTRA_IDS),
    "trip.book_hotel": st.builds(BookHotel, hotel=WORDS, nights=st.integers(1, 400)),
    "trip.confirm": st.just(ConfirmTrip()),
    "trip.cancel": st.just(CancelTrip()),
    "traveler.register": st.builds(
        RegisterTraveler, full_name=WORDS, birth_date=OPT_DATES, email=st.none() | EMAILS
    ),
    "traveler.update_email": st.builds(UpdateTravelerEmail, email=EMAILS),
    "traveler.delete": st.just(DeleteTraveler()),
    "manifest.add_passenger": st.builds(AddPassenger, traveler=REFS, birth_date=OPT_DATES),
    "manifest.remove_passenger": st.builds(RemovePassenger, traveler=REFS),
    "manifest.validate": st.just(ValidateManifest()),
    "manifest.submit": st.just(SubmitManifest()),
}


def test_every_travel_operation_has_a_command_strategy() -> None:
    keys = {op.key for n in REGISTRY.names() for op in REGISTRY.workflow(n).operations()}
    assert keys == set(COMMANDS)


def _card(command: Command, locale: str) -> tuple[InteractionSpec, Any]:
    workflow = command.operation.split(".")[0]
    case = TARGET[workflow]
    snaps = SNAPSHOTS[locale]
    labels = {c: s.label for c, s in snaps.items()}
    proposed = REGISTRY.workflow(workflow).propose(snaps[case].state, command, locale, labels)
    spec = InteractionSpec(
        kind=InteractionKind.CONFIRM,
        case=case,
        prompt=card_prompt(
            REGISTRY,
            InteractionKind.CONFIRM,
            snaps[case].label,
            (command.operation,),
            locale,
            (proposed,),
        ),
        options=(),
        operations=(command.operation,),
        commands=(proposed,),
    )
    return spec, proposed


@settings(max_examples=250, deadline=None)
@given(
    data=st.data(),
    operation=st.sampled_from(sorted(COMMANDS)),
    locale=st.sampled_from(LOCALES),
)
def test_a_card_shows_and_hashes_every_argument(data: Any, operation: str, locale: str) -> None:
    command = data.draw(COMMANDS[operation], label="command")
    spec, proposed = _card(command, locale)
    arguments = command.to_json()
    assert proposed.arguments == arguments
    given_args = {k for k, v in arguments.items() if v is not None}
    assert {a.name for a in proposed.rendered} >= given_args
    labels = {c: s.label for c, s in SNAPSHOTS[locale].items()}
    for rendered in proposed.rendered:
        assert rendered.value and rendered.value in proposed.text, (rendered, proposed.text)
        assert rendered.value in spec.prompt, (rendered, spec.prompt)
        value = arguments[rendered.name]
        if isinstance(value, str) and value.startswith("traveler/"):
            # Which passenger / traveler: shown by its candidate label, never an id.
            ref = CaseRef("traveler", value.split("/", 1)[1])
            assert rendered.value == labels[ref]
    other = data.draw(COMMANDS[operation], label="other command")
    other_spec, _ = _card(other, locale)
    if other.to_json() != arguments:
        assert other_spec.payload_hash() != spec.payload_hash()
    else:
        assert other_spec.payload_hash() == spec.payload_hash()


def _reduce(act: SemanticAct, case: CaseRef, locale: str) -> Any:
    return reduce_turn(
        ReductionInput(
            turn_id="t1",
            actor=ACTOR,
            today=TODAY,
            locale=locale,
            understanding=Understanding(acts=(act,)),
            acts=(ActInput(act=act, resolution=Exact(case=case)),),
            snapshots=SNAPSHOTS[locale],
        ),
        REGISTRY,
    )


@settings(max_examples=150, deadline=None)
@given(hotel=WORDS, nights=st.integers(1, 60), locale=st.sampled_from(LOCALES))
def test_a_booking_card_shows_the_hotel_and_the_nights(
    hotel: str, nights: int, locale: str
) -> None:
    case = CaseRef("trip", "T2")
    act = SemanticAct(
        id="a1", operation="trip.book_hotel", args={"hotel": hotel, "nights": str(nights)}
    )
    plan = _reduce(act, case, locale)
    (card,) = plan.cards
    assert card.spec.kind is InteractionKind.CONFIRM
    assert hotel in card.spec.prompt
    assert copy.count(locale, "night", nights) in card.spec.prompt
    (command,) = card.spec.commands
    assert command.arguments == {"hotel": hotel, "nights": nights}
    other = _reduce(
        SemanticAct(
            id="a1", operation="trip.book_hotel", args={"hotel": hotel, "nights": str(nights + 1)}
        ),
        case,
        locale,
    )
    assert other.cards[0].spec.payload_hash() != card.spec.payload_hash()


def test_every_confirmable_operation_names_what_it_changes() -> None:
    expect = {
        ("trip.cancel", CaseRef("trip", "T1")): ["Lisbon"],
        ("trip.confirm", CaseRef("trip", "T2")): [],  # obligations open → refused, no card
        ("traveler.delete", CaseRef("traveler", "P3")): ["Kim Lee"],
    }
    for (operation, case), words in expect.items():
        for locale in LOCALES:
            plan = _reduce(SemanticAct(id="a1", operation=operation), case, locale)
            for card in plan.cards:
                assert card.spec.commands, operation
                for word in words:
                    assert word in card.spec.commands[0].text
                    assert word in card.spec.prompt


def test_the_default_rendering_never_omits_an_argument() -> None:
    from turnframe.core import ErasedWorkflow

    trip = REGISTRY.workflow("trip").definition

    class NoRender:
        def __getattr__(self, name: str) -> Any:
            if name == "render_command":
                raise AttributeError(name)
            return getattr(trip, name)

    class Omits(NoRender):
        def render_command(self, state: Any, command: Any, locale: str, labels: Any) -> Any:
            return CommandText(text="Book something", arguments=())

    class WrongValue(NoRender):
        def render_command(self, state: Any, command: Any, locale: str, labels: Any) -> Any:
            return CommandText(
                text="Book a room",
                arguments=(RenderedArgument(name="nights", label="nights", value="three"),),
            )

    command = BookHotel(hotel="Hotel Avenida", nights=3)
    for definition in (NoRender(), Omits(), WrongValue()):
        proposed = ErasedWorkflow(definition).propose(None, command, "pt-PT", {})  # type: ignore[arg-type]
        assert "Hotel Avenida" in proposed.text, proposed.text
        assert ("3" in proposed.text) or ("three" in proposed.text), proposed.text
        assert {a.name for a in proposed.rendered} == {"hotel", "nights"}


def test_selection_cards_are_worded_by_the_domain() -> None:
    for locale in LOCALES:
        snaps = SNAPSHOTS[locale]
        cands = tuple(
            TargetCandidate(case=c, label=snaps[c].label)
            for c in (CaseRef("trip", "T1"), CaseRef("trip", "T2"))
        )
        act = SemanticAct(id="a1", operation="trip.rename", args={"name": "Faro"})
        plan = reduce_turn(
            ReductionInput(
                turn_id="t1",
                actor=ACTOR,
                today=TODAY,
                locale=locale,
                understanding=Understanding(acts=(act,)),
                acts=(ActInput(act=act, resolution=Ambiguous(candidates=cands)),),
                snapshots=snaps,
            ),
            REGISTRY,
        )
        (card,) = plan.cards
        assert card.spec.prompt == copy.text(locale, "select.trip")
        assert "record" not in card.spec.prompt and "registo" not in card.spec.prompt


def test_registration_needs_every_declared_locale() -> None:
    from dataclasses import replace

    import pytest

    from turnframe.core import RegistryError

    trip = REGISTRY.workflow("trip").definition

    class Untranslated:
        def __getattr__(self, name: str) -> Any:
            return getattr(trip, name)

        def operations(self) -> Any:
            ops = trip.operations()
            return (replace(ops[0], summaries={"en": ops[0].summary}), *ops[1:])

    with pytest.raises(RegistryError, match="no summary in declared locale 'pt-PT'"):
        WorkflowRegistry([Untranslated()])  # type: ignore[list-item]


def _shows(text: str, value: str) -> bool:
    import re

    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text) is not None


@settings(max_examples=200, deadline=None)
@given(
    stem=st.sampled_from(["Hotel", "Suites", "Casa", "Pousada"]),
    number=st.integers(0, 2000),
    nights=st.integers(1, 60),
    shown=st.sampled_from(["hotel", "nights", "none"]),
)
def test_a_value_inside_another_value_is_not_taken_as_shown(
    stem: str, number: int, nights: int, shown: str
) -> None:
    """A domain's words that show one argument never stand in for another (a digit of a
    hotel's name is not the number of nights): every argument is shown as whole words."""
    from turnframe.core import ErasedWorkflow

    trip = REGISTRY.workflow("trip").definition
    hotel = f"{stem} {number}"
    command = BookHotel(hotel=hotel, nights=nights)

    class Partial:
        def __getattr__(self, name: str) -> Any:
            return getattr(trip, name)

        def render_command(self, state: Any, command: Any, locale: str, labels: Any) -> Any:
            values = command.to_json()
            words = {"hotel": f"Book {values['hotel']}", "nights": f"Stay {values['nights']}"}
            return CommandText(text=words.get(shown, "Book a room"))

    proposed = ErasedWorkflow(Partial()).propose(None, command, "en", {})  # type: ignore[arg-type]
    remaining = proposed.text
    for value in sorted((hotel, str(nights)), key=len, reverse=True):
        assert _shows(remaining, value), (proposed.text, value)
        remaining = remaining.replace(value, "\0", 1)
