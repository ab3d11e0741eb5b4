"""Compiling with the turn's carried state equals compiling from scratch (ADR 0004).

- For any sequence of trip acts on one case, compiling each with the previous
  compilation's :class:`~turnframe.core.workflow.Replayed` gives the same answer
  (commands or refusal, and the state after them) as compiling it with the earlier
  commands replayed from the stored state.
- A carried replay that does not fit the request (an equal-looking but other stored
  state object, other command objects, another case, actor or day) is never used: the
  answer is the from-scratch one even when the carried state is a different trip. Each
  check of ``Replayed.fits`` has its own mismatch; removing it fails this test.
- ``Compiled.validated`` is said only when ``validate`` on the stored state agrees
  (returns no refusal) and only when nothing was replayed onto it.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from datetime import date, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core import Actor, CaseRef, Command, CompileRequest, SemanticAct
from turnframe.core.workflow import Compiled, Refusal, Replayed
from turnframe.samples.travel import TripWorkflow
from turnframe.samples.travel.trip_model import TripState

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
CASE = CaseRef("trip", "t1")
WF = TripWorkflow()
OPS = {op.key: op for op in WF.operations()}
TRAVELERS = [CaseRef("traveler", f"p{n}") for n in range(3)]
PAYERS: list[Any] = [*TRAVELERS, "company"]

act_values = st.one_of(
    st.tuples(st.just("trip.rename"), st.fixed_dictionaries({"name": st.sampled_from(["A", "B"])})),
    st.tuples(
        st.just("trip.change_dates"),
        st.builds(
            lambda a, b: {"start": TODAY + timedelta(days=a), "end": TODAY + timedelta(days=b)},
            st.integers(-2, 6),
            st.integers(-2, 6),
        ),
    ),
    st.tuples(
        st.just("trip.add_traveler"),
        st.fixed_dictionaries({"traveler": st.sampled_from(TRAVELERS)}),
    ),
    st.tuples(
        st.just("trip.add_extra"),
        st.fixed_dictionaries(
            {"kind": st.sampled_from(["hotel", "seat", "meal"])},
            optional={"payer": st.sampled_from(PAYERS)},
        ),
    ),
    st.tuples(
        st.just("trip.set_extra_payer"),
        st.fixed_dictionaries(
            {"extra": st.sampled_from(["E1", "E2", "E3"]), "payer": st.sampled_from(PAYERS)}
        ),
    ),
    st.tuples(
        st.just("trip.remove_extra"),
        st.fixed_dictionaries({"extra": st.sampled_from(["E1", "E2"])}),
    ),
    st.tuples(
        st.just("trip.book_hotel"),
        st.fixed_dictionaries(
            {"hotel": st.sampled_from(["Avenida", "Sol"]), "nights": st.integers(0, 3)}
        ),
    ),
    st.tuples(st.just("trip.confirm"), st.just({})),
    st.tuples(st.just("trip.cancel"), st.just({})),
)

stored_states = st.builds(
    TripState,
    name=st.sampled_from(["Lisbon", "Porto"]),
    destination=st.none(),
    start=st.sampled_from([None, TODAY + timedelta(days=2)]),
    end=st.sampled_from([None, TODAY + timedelta(days=4)]),
    travelers=st.lists(st.sampled_from(TRAVELERS), unique=True, max_size=2).map(tuple),
    status=st.sampled_from(["planning", "confirmed"]),
)


def _request(
    key: str,
    values: dict[str, Any],
    state: TripState | None,
    prior: tuple[Command, ...],
    replayed: Replayed | None,
    *,
    case: CaseRef = CASE,
    actor: Actor = ACTOR,
    today: date = TODAY,
) -> CompileRequest[TripState]:
    return CompileRequest(
        act=SemanticAct(id="a1", operation=key),
        operation=OPS[key],
        case=case,
        state=state,
        view=WF.project(state, today),
        values=values,
        prior=prior,
        actor=actor,
        today=today,
        replayed=replayed,
    )


def _same(carried: Compiled | Refusal, fresh: Compiled | Refusal) -> None:
    assert carried == fresh
    if isinstance(fresh, Compiled):
        assert isinstance(carried, Compiled)
        assert (carried.replayed is None) == (fresh.replayed is None)
        if fresh.replayed is not None and carried.replayed is not None:
            assert carried.replayed.state == fresh.replayed.state
            assert carried.replayed.commands == fresh.replayed.commands


@settings(max_examples=150, deadline=None)
@given(state=stored_states, acts=st.lists(act_values, min_size=1, max_size=6))
def test_compiling_with_the_carried_state_equals_compiling_from_scratch(
    state: TripState, acts: list[tuple[str, dict[str, Any]]]
) -> None:
    prior: tuple[Command, ...] = ()
    carried: Replayed | None = None
    for key, values in acts:
        with_carried = WF.compile(_request(key, values, state, prior, carried))
        from_scratch = WF.compile(_request(key, values, state, prior, None))
        _same(with_carried, from_scratch)
        if isinstance(with_carried, Compiled) and with_carried.commands:
            # What the reducer does when the act is planned (``reduce/acts._plan``).
            prior = (*prior, *with_carried.commands)
            carried = with_carried.replayed


@settings(max_examples=150, deadline=None)
@given(
    state=stored_states,
    first=act_values,
    then=act_values,
    mismatch=st.sampled_from(["base", "commands", "case", "actor", "today"]),
)
def test_a_carried_state_that_does_not_fit_is_never_used(
    state: TripState,
    first: tuple[str, dict[str, Any]],
    then: tuple[str, dict[str, Any]],
    mismatch: str,
) -> None:
    planned = WF.compile(_request(*first, state, (), None))
    if not isinstance(planned, Compiled) or planned.replayed is None:
        return
    prior = planned.commands
    good = planned.replayed
    # A carried state that is visibly another trip: used by mistake, it changes answers.
    wrong_state = replace(good.state, name="Elsewhere", status="cancelled", extras=(), travelers=())
    bad = replace(good, state=wrong_state)
    request = _request(*then, state, prior, None)
    if mismatch == "base":
        bad = replace(bad, base=copy.deepcopy(state))  # equal-looking, not the same object
        assert bad.base == state
    elif mismatch == "commands":
        bad = replace(bad, commands=tuple(copy.deepcopy(c) for c in good.commands))
        assert bad.commands == prior
    elif mismatch == "case":
        bad = replace(bad, case=CaseRef("trip", "t2"))
    elif mismatch == "actor":
        bad = replace(bad, actor=Actor(account="other", user="u1", roles=ACTOR.roles))
    else:
        bad = replace(bad, today=TODAY + timedelta(days=1))
    assert not bad.fits(replace(request, replayed=bad))
    _same(WF.compile(replace(request, replayed=bad)), WF.compile(request))
    # The fitting one, for contrast, is used (and agrees).
    assert good.fits(replace(request, replayed=good))
    _same(WF.compile(replace(request, replayed=good)), WF.compile(request))


@settings(max_examples=150, deadline=None)
@given(state=st.one_of(st.none(), stored_states), act=act_values, planned=act_values)
def test_validated_is_said_only_when_validate_agrees_and_nothing_was_replayed(
    state: TripState | None, act: tuple[str, dict[str, Any]], planned: tuple[str, dict[str, Any]]
) -> None:
    compiled = WF.compile(_request(*act, state, (), None))
    if isinstance(compiled, Compiled) and compiled.validated:
        for command in compiled.commands:
            assert WF.validate(state, command, TODAY) is None
    first = WF.compile(_request(*planned, state, (), None))
    if isinstance(first, Compiled) and first.commands:
        later = WF.compile(_request(*act, state, first.commands, first.replayed))
        assert not (isinstance(later, Compiled) and later.validated)
