"""A bounded brief resolves every mention as the whole account would (docs/adr/0020-what-a-brief-shows.md).

For generated accounts of travelers with shared first and last names (some deleted), a
conversation that was on one of them, and a generated mention, the same turn is run
twice: once with the whole account briefed (``in_view=None`` with
``BriefLimits.recent`` above the account's size: the default view is the whole account)
and once with a bounded brief: ``in_view`` a random subset of the records the mention
does not name, or ``in_view=None`` with a default view smaller or larger than the
account after records were changed in a random order (so the default view is not the
creation order), small ``BriefLimits.found`` so the words often name more records than
a brief may add. The understander is faithful to what it is shown: it names the handles
of every listed record whose label holds the mention's words, and when none is listed it
gives the words to find. The outcome (committed on which record, ambiguous between
which, not found) is identical: a record is never resolved because it happened to be
listed alone (the no-guess rule, I8).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import replace
from datetime import date
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.core import Actor, CaseRef, TurnInput
from turnframe.core.acts import ProposedTarget, SemanticAct, Understanding
from turnframe.core.events import EventDraft
from turnframe.core.workflow import Execution
from turnframe.runtime import BriefLimits, FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import complete_records, seed_order, seed_state, travel_application
from turnframe.store import InMemoryStore
from turnframe.store.search import MAX_PAGE
from turnframe.understand import Brief, ScriptedUnderstanding

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
FIRST = ("Ana", "Kim", "Li", "Jo")
LAST = ("Silva", "Costa", "Lopes")
"""No name is a substring of another, so a label's words and the directory's rule agree.
Two names are shorter than ``BriefLimits.word_chars`` (drawn, default 3), so a mention
the brief does not look up by words is generated too."""

travelers = st.lists(
    st.tuples(st.sampled_from(FIRST), st.sampled_from(LAST), st.booleans()),
    min_size=1,
    max_size=9,
)


def _faithful(mention: str, email: str, seen: list[Brief]) -> Any:
    """An understander that names every listed traveler the mention's words fit."""
    words = mention.lower().split()

    def read(brief: Brief) -> Understanding:
        seen.append(brief)
        named = tuple(
            r.handle
            for r in brief.records
            if r.workflow == "traveler"
            and all(w in r.label.lower().replace("(", " ").split() for w in words)
        )
        target = ProposedTarget(handles=named) if named else ProposedTarget(find=mention)
        return Understanding(
            acts=(
                SemanticAct(
                    id="a1",
                    operation="traveler.update_email",
                    target=target,
                    args={"email": email},
                    evidence={"email": email},
                ),
            )
        )

    return read


async def _run(
    people: list[tuple[str, str, bool]],
    earlier: int | None,
    mention: str,
    in_view: list[int] | None,
    limits: BriefLimits,
    touched: tuple[int, ...] = (),
    seen: list[Brief] | None = None,
    wrap: str | Callable[[str], str] = "{}",
) -> tuple[Any, ...]:
    """Run the mention's turn; return its outcome (``seen`` gets the turn's brief).

    ``touched``: travelers changed after seeding, in order (their change order, which
    the default view follows, is then not their creation order). ``wrap``: how the
    message writes the mention (``"{},"``: followed by a comma); the understander reads
    the mention itself.
    """
    app = replace(travel_application(), brief_limits=limits)
    understanding = ScriptedUnderstanding()
    runtime = Runtime(
        app, InMemoryStore(), understanding, clock=FixedClock(TODAY), ids=SequentialIds()
    )
    records: list[dict[str, Any]] = [
        {
            "key": f"P{n}",
            "workflow": "traveler",
            "full_name": f"{first} {last}",
            "birth_date": f"19{70 + n}-01-02",
            **({"status": "deleted"} if deleted else {}),
        }
        for n, (first, last, deleted) in enumerate(people)
    ]
    refs: dict[str, CaseRef] = {}
    for record in seed_order(complete_records(records)):
        workflow, state = seed_state(record, refs)
        refs[str(record["key"])] = await runtime.seed(
            "acme", workflow, state, case_id=str(record["key"]).lower()
        )
    cases = [refs[f"P{n}"] for n in range(len(people))]
    for n, i in enumerate(touched):
        await runtime.external_update(
            "acme",
            cases[i],
            source="test",
            reference=f"touch-{n}",
            transition=lambda state: Execution(
                state=state,
                events=(EventDraft(type="traveler.touched", data={}, operation="test.touch"),),
            ),
        )
    if earlier is not None:
        # The conversation was on one traveler (named by its handle, shown in view).
        chosen = cases[earlier]

        def first_turn(brief: Brief) -> Understanding:
            return Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="traveler.update_email",
                        target=ProposedTarget(handles=(runtime.handle_for(brief.turn_id, chosen),)),
                        args={"email": "first@example.pt"},
                        evidence={"email": "first@example.pt"},
                    ),
                )
            )

        understanding.push(first_turn)
        await runtime.run_turn(ACTOR, "c1", TurnInput(text="first"), in_view=[chosen])
    understanding.push(_faithful(mention, "new@example.pt", [] if seen is None else seen))
    result = await runtime.run_turn(
        ACTOR,
        "c1",
        TurnInput(text=f"change the email of {_written(wrap, mention)} to new@example.pt"),
        in_view=None if in_view is None else [cases[i] for i in in_view],
    )
    outcome = result.results["a1"]
    candidates = frozenset(
        str(o.case) for card in result.interactions_created for o in card.spec.options if o.case
    )
    return (outcome.status, outcome.code, str(outcome.case), candidates)


def _written(wrap: str | Callable[[str], str], mention: str) -> str:
    return wrap.format(mention) if isinstance(wrap, str) else wrap(mention)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), people=travelers)
def test_a_bounded_brief_resolves_every_mention_as_the_whole_account(
    data: st.DataObject, people: list[tuple[str, str, bool]]
) -> None:
    n = len(people)
    earlier = data.draw(st.none() | st.integers(0, n - 1), label="conversation was on")
    first = data.draw(st.sampled_from(FIRST))
    last = data.draw(st.sampled_from(LAST))
    mention = data.draw(st.sampled_from((first, last, f"{first} {last}")), label="mention")
    # Records on screen are the surface's choice (ADR 0020 rule 2): those drawn here
    # share no word with the mention, so the whole account is the reference.
    words = set(mention.split())
    unrelated = [i for i, (f, la, _) in enumerate(people) if not words & {f, la}]
    in_view = data.draw(
        st.lists(st.sampled_from(unrelated), unique=True) if unrelated else st.just([]),
        label="in view",
    )
    limits = BriefLimits(
        found=data.draw(st.integers(0, 4), label="found"),
        word_chars=data.draw(st.integers(1, 4), label="word_chars"),
    )
    whole = anyio.run(_run, people, earlier, mention, None, replace(limits, recent=MAX_PAGE))
    bounded = anyio.run(_run, people, earlier, mention, in_view, limits)
    assert bounded == whole


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), people=travelers)
def test_the_default_brief_resolves_every_mention_as_the_whole_account(
    data: st.DataObject, people: list[tuple[str, str, bool]]
) -> None:
    """``in_view=None``: a default view smaller or larger than the account changes no outcome."""
    n = len(people)
    earlier = data.draw(st.none() | st.integers(0, n - 1), label="conversation was on")
    first = data.draw(st.sampled_from(FIRST))
    last = data.draw(st.sampled_from(LAST))
    mention = data.draw(st.sampled_from((first, last, f"{first} {last}")), label="mention")
    touched = tuple(
        data.draw(st.lists(st.integers(0, n - 1), max_size=6), label="changed, in order")
    )
    limits = BriefLimits(
        found=data.draw(st.integers(0, 4), label="found"),
        word_chars=data.draw(st.integers(1, 4), label="word_chars"),
        recent=data.draw(st.integers(0, n + 1), label="recent"),
    )
    whole_seen: list[Brief] = []
    seen: list[Brief] = []
    whole = anyio.run(
        _run, people, earlier, mention, None, replace(limits, recent=MAX_PAGE), touched, whole_seen
    )
    default = anyio.run(_run, people, earlier, mention, None, limits, touched, seen)
    # The reference briefs the whole account; the default brief says when it does not.
    assert len(whole_seen[-1].records) == n and not whole_seen[-1].records_cut
    assert seen[-1].records_cut == (n > limits.recent)
    if n <= limits.recent:
        assert seen[-1].records == whole_seen[-1].records
    assert default == whole


def test_a_short_first_name_of_the_conversations_record_is_not_resolved_alone() -> None:
    """Two travelers named "Li", the conversation on one: "Li" is ambiguous in both briefs."""
    people = [("Li", "Silva", False), ("Li", "Costa", False)]
    limits = BriefLimits(found=4)  # word_chars 3: "li" is shorter
    whole = anyio.run(_run, people, 0, "Li", None, replace(limits, recent=MAX_PAGE))
    bounded = anyio.run(_run, people, 0, "Li", [], limits)
    default = anyio.run(_run, people, 0, "Li", None, replace(limits, recent=1))
    assert whole[1] == "ambiguous_target"
    assert bounded == whole
    assert default == whole


WRAPS = (
    "{},",
    "{}.",
    "({})",
    "{}'s",
    "{}\u2019s",
    "\u00ab{}\u00bb",
    '"{}"',
    "{}?",
    "{}'s,",
    "{}\U0001f642",
    "\u200f{}\u200b",
)
"""How a message may write a name: punctuation, a symbol or an invisible mark around
it, an English possessive."""


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), people=travelers)
def test_punctuation_around_a_name_changes_no_outcome(
    data: st.DataObject, people: list[tuple[str, str, bool]]
) -> None:
    """``"Ana,"``, ``"(Ana)"`` or ``"Ana's"``: the default view lists no Ana alone.

    The directory finds no record by ``"ana,"`` (its rule is a substring of the search
    text), but the understander reads the name; so the brief looks up the bare word
    too, and a default view smaller than the account, in any change order, resolves the
    mention as the whole account does (docs/adr/0020-what-a-brief-shows.md rule 2, I8).
    """
    n = len(people)
    earlier = data.draw(st.none() | st.integers(0, n - 1), label="conversation was on")
    first = data.draw(st.sampled_from(FIRST))
    last = data.draw(st.sampled_from(LAST))
    mention = data.draw(st.sampled_from((first, last)), label="mention")
    wrap = data.draw(st.sampled_from(WRAPS), label="written as")
    touched = tuple(
        data.draw(st.lists(st.integers(0, n - 1), max_size=6), label="changed, in order")
    )
    limits = BriefLimits(
        found=data.draw(st.integers(1, 4), label="found"),
        word_chars=data.draw(st.integers(1, 3), label="word_chars"),
        recent=data.draw(st.integers(0, n + 1), label="recent"),
    )
    whole = anyio.run(
        _run, people, earlier, mention, None, replace(limits, recent=MAX_PAGE), touched, None, wrap
    )
    default = anyio.run(_run, people, earlier, mention, None, limits, touched, None, wrap)
    assert default == whole


def test_a_name_followed_by_a_comma_is_not_resolved_to_the_newest_record() -> None:
    """Eleven travelers, two named Ana: "Ana," is ambiguous, not the one changed last."""
    people = [("Ana", "Costa", False), ("Ana", "Silva", False)]
    people += [("Kim", "Lopes", False)] * 9
    outcome = anyio.run(_run, people, None, "Ana", None, BriefLimits(), (), None, "{},")
    assert outcome[:2] == ("needs_clarification", "ambiguous_target")
    assert outcome[3] == frozenset({"traveler/p0", "traveler/p1"})


@pytest.mark.parametrize("form", ["NFC", "NFD"])
def test_a_name_typed_in_another_unicode_form_is_not_resolved_alone(form: str) -> None:
    """ "José" typed decomposed (or composed) finds both Josés, stored the other way."""
    stored = "NFD" if form == "NFC" else "NFC"
    jose = unicodedata.normalize(stored, "Jos\u00e9")
    people = [(jose, "Costa", False), (jose, "Silva", False)]
    people += [("Kim", "Lopes", False)] * 9
    typed = lambda m: unicodedata.normalize(form, m)  # noqa: E731
    outcome = anyio.run(_run, people, None, jose, None, BriefLimits(), (), None, typed)
    assert outcome[:2] == ("needs_clarification", "ambiguous_target")
    assert outcome[3] == frozenset({"traveler/p0", "traveler/p1"})
