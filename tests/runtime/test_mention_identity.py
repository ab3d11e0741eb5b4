"""Words that name only the kind of record, and function words, identify nothing (I8).

"the ticket", "the Oslo trip", "o viajante Kim": the directory drops the function words
of every language it knows and the words that name a workflow's kind; every identifying
word must still match (docs/adr/0001-ambiguous-target.md). With nothing identifying
left, the mention names every record of the kind (one: resolved; several: a card).
"""

from __future__ import annotations

from datetime import date

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core import ProposedTarget, SemanticAct, TurnInput, Understanding
from turnframe.core.ids import Actor, CaseRef
from turnframe.runtime import FixedClock, Runtime, SequentialIds, StoredCaseDirectory
from turnframe.runtime.mention_identity import (
    FUNCTION_WORDS,
    identify,
    kind_words,
    plural_forms,
)
from turnframe.samples.travel import seed_all, travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import ScriptedUnderstanding

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
_APP = travel_application()
_REGISTRY = _APP.registry
_NOISE = sorted(set().union(*FUNCTION_WORDS.values()) | kind_words(_REGISTRY, "traveler"))
_NOT_IDENTIFYING = set(_NOISE)

_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6).filter(
    lambda w: w not in _NOT_IDENTIFYING
)


async def _directory(names: list[str]) -> tuple[StoredCaseDirectory, list[CaseRef]]:
    store = InMemoryStore()
    runtime = Runtime(
        _APP, store, ScriptedUnderstanding(), clock=FixedClock(TODAY), ids=SequentialIds()
    )
    records = [
        {"key": f"K{i}", "workflow": "traveler", "full_name": name, "birth_date": "1980-04-02"}
        for i, name in enumerate(names)
    ]
    refs = []
    for key, case, state in seed_all(records):
        refs.append(await runtime.seed(ACTOR.account, case.workflow, state, case_id=key))
    return StoredCaseDirectory(_REGISTRY, store), refs


def _spell(word: str, style: int) -> str:
    return (word, word.upper(), word.capitalize(), f"{word},")[style]


@settings(max_examples=80, deadline=None)
@given(
    names=st.lists(st.lists(_word, min_size=1, max_size=3).map(" ".join), min_size=1, max_size=5),
    identifying=st.lists(_word, min_size=1, max_size=3),
    noise=st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from(_NOISE), st.integers(0, 3)), max_size=4
    ),
)
def test_noise_words_change_nothing_found_by_identifying_words(
    names: list[str], identifying: list[str], noise: list[tuple[int, str, int]]
) -> None:
    """found(identifying + function/kind words) == found(identifying), and still all must match."""
    mention = list(identifying)
    for at, word, style in noise:
        mention.insert(min(at, len(mention)), _spell(word, style))

    async def main() -> None:
        directory, refs = await _directory(names)
        alone = await directory.find(ACTOR, "traveler", " ".join(identifying), today=TODAY)
        mixed = await directory.find(ACTOR, "traveler", " ".join(mention), today=TODAY)
        assert list(mixed) == list(alone), (mention, names)
        # Every identifying word must still match (the rule is not weakened).
        expected = [
            ref for ref, name in zip(refs, names, strict=True)
            if all(w in name for w in identifying)
        ]  # fmt: skip
        assert list(alone) == expected

    anyio.run(main)


@settings(max_examples=40, deadline=None)
@given(
    count=st.integers(0, 4),
    noise=st.lists(st.sampled_from(sorted(set().union(*FUNCTION_WORDS.values()))), max_size=3),
    kind=st.sampled_from(sorted(kind_words(_REGISTRY, "traveler"))),
)
def test_a_mention_of_the_kind_alone_names_every_record_of_it(
    count: int, noise: list[str], kind: str
) -> None:
    async def main() -> None:
        directory, refs = await _directory([f"Person{'x' * i}" for i in range(count)])
        found = await directory.find(ACTOR, "traveler", " ".join([*noise, kind]), today=TODAY)
        assert list(found) == refs
        # Function words alone name nothing.
        assert list(await directory.find(ACTOR, "traveler", " ".join(noise), today=TODAY)) == []
        # A kind word of another workflow does not name the travelers.
        assert list(await directory.find(ACTOR, "traveler", "the trip", today=TODAY)) == []

    anyio.run(main)


def test_identify_splits_kind_function_and_identifying_words() -> None:
    mention = identify(_REGISTRY, "the Oslo trip's", "trip")
    assert mention.identifying == ("oslo",) and mention.kind and mention.every is None
    assert identify(_REGISTRY, "os viajantes").every == "traveler"
    assert identify(_REGISTRY, "the trips", "trip").every == "trip"
    # With no workflow asked for, one kind word narrows the search to its workflow.
    narrowed = identify(_REGISTRY, "the Porto trip")
    assert narrowed.workflow == "trip" and narrowed.identifying == ("porto",)
    # Two kinds named: no narrowing, and no word is a kind word.
    both = identify(_REGISTRY, "the trip manifest")
    assert both.workflow is None and both.identifying == ("trip", "manifest")
    # A kind word of another workflow still identifies (a traveler "Ana Trip" is no Ana).
    assert identify(_REGISTRY, "Ana Trip", "traveler").identifying == ("ana", "trip")
    # Prepositions are parts of names: they identify.
    assert identify(_REGISTRY, "Ana da Silva", "traveler").identifying == ("ana", "da", "silva")
    assert identify(_REGISTRY, "the", "trip").every is None
    assert plural_forms("viagem") >= {"viagem", "viagens"}
    assert plural_forms("city") >= {"cities"}


def test_a_kind_word_of_another_workflow_is_not_dropped() -> None:
    async def main() -> None:
        directory, refs = await _directory(["Ana Costa", "Ana Trip"])
        found = await directory.find(ACTOR, "traveler", "Ana Trip", today=TODAY)
        assert list(found) == [refs[1]]  # not Ana Costa alone, as dropping "trip" would give

    anyio.run(main)


def _act(find: str, operation: str) -> SemanticAct:
    return SemanticAct(id="a1", operation=operation, target=ProposedTarget(find=find))


def test_the_trip_resolves_the_only_one_and_offers_a_card_for_several() -> None:
    """End to end: "cancel the trip" with one trip is that trip; with two, a card (I8)."""

    async def run(names: list[str]) -> list[tuple[str, int]]:
        store = InMemoryStore()
        understanding = ScriptedUnderstanding(
            [Understanding(acts=(_act("the trip", "trip.cancel"),))]
        )
        runtime = Runtime(_APP, store, understanding, clock=FixedClock(TODAY), ids=SequentialIds())
        records = [
            {"key": f"T{i}", "workflow": "trip", "name": n, "start": "2026-07-01",
             "end": "2026-07-04"}
            for i, n in enumerate(names)
        ]  # fmt: skip
        for key, case, state in seed_all(records):
            await runtime.seed(ACTOR.account, case.workflow, state, case_id=key)
        result = await runtime.run_turn(ACTOR, "c", TurnInput(text="cancel the trip"))
        return [
            (b.interaction_kind, len(b.options)) for b in result.blocks if b.kind == "interaction"
        ]

    assert anyio.run(run, ["Porto"])[0][0] == "confirm"
    kind, options = anyio.run(run, ["Porto", "Oslo"])[0]
    assert kind == "select_target" and options >= 2
