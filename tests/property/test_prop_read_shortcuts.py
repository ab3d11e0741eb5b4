"""The read side's shortcuts answer exactly what the long way answers (I1, ADR 0020).

* ``parts.handle`` is memoised and writes the canonical JSON of its three strings by
  hand: for any turn id and case, it equals ``"h" + digest(("handle", turn_id,
  str(case)))[:10]``, the definition, however often and in whatever order it is asked.
* ``records.authorized`` answers from a row read this turn instead of reading the case
  again: for any mix of own, foreign and absent cases, read through any of the
  snapshot cache's paths, it answers what ``StoredCaseDirectory.authorize`` answers.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import anyio
from hypothesis import example, given, settings
from hypothesis import strategies as st

from turnframe.core.canonical import digest
from turnframe.core.ids import Actor, CaseRef
from turnframe.runtime import Runtime
from turnframe.runtime.parts import handle
from turnframe.runtime.records import authorized
from turnframe.samples.travel import travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import ScriptedUnderstanding

_TEXT = st.text(max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_TEXT, _TEXT, _TEXT), min_size=1, max_size=8), st.randoms())
def test_handle_is_the_digest_of_its_canonical_json(
    asks: list[tuple[str, str, str]], rnd: Any
) -> None:
    """Every (repeated, shuffled) ask answers the digest definition of the handle."""
    asks = asks + [rnd.choice(asks) for _ in range(len(asks))]
    rnd.shuffle(asks)
    for turn_id, workflow, case_id in asks:
        case = CaseRef(workflow, case_id)
        assert handle(turn_id, case) == "h" + digest(("handle", turn_id, str(case)))[:10]


_TRIP: dict[str, Any] = {
    "name": "Lisbon",
    "destination": "Lisbon",
    "start": "2026-05-12",
    "end": "2026-05-15",
    "travelers": [],
    "extras": [],
    "status": "planning",
    "next_extra": 1,
}


class _Parts:
    """The two fields ``authorized`` reads of ``RuntimeParts``."""

    def __init__(self, directory: Any, store: Any) -> None:
        self.directory = directory
        self.store = store


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["own", "foreign", "absent"]), min_size=1, max_size=6),
    st.lists(st.sampled_from(["load", "rows", "listing", "none"]), min_size=1, max_size=6),
)
def test_authorized_answers_what_the_directory_reads(kinds: list[str], paths: list[str]) -> None:
    """Own cases are authorised, foreign and absent ones never, whichever way they were read."""
    from turnframe.runtime.executor import StoredCaseDirectory
    from turnframe.runtime.snapshots import TurnSnapshots

    async def run() -> None:
        app = travel_application()
        store = InMemoryStore()
        runtime = Runtime(app, store, ScriptedUnderstanding())
        directory = StoredCaseDirectory(app.registry, store)
        parts: Any = _Parts(directory, store)
        actor = Actor(account="acme", user="u")
        cases = []
        for i, kind in enumerate(kinds):
            case = CaseRef("trip", f"t{i}")
            if kind != "absent":
                account = "acme" if kind == "own" else "other"
                await runtime.seed(account, "trip", dict(_TRIP), case.case_id)
            cases.append(case)
        snaps = TurnSnapshots(app.registry, store, "acme", date(2026, 5, 1), "en")
        for i, case in enumerate(cases):
            path = paths[i % len(paths)]
            if path == "load":
                await snaps.load(case)
            elif path == "rows":
                await snaps.load_rows([case])
            elif path == "listing":
                page = await directory.page_with_states(actor, cases=[case])
                for _, row, typed in page.items:
                    snaps.add_row(row, typed)
        for case in cases:
            expected = await directory.authorize(actor, case)
            assert await authorized(parts, actor, case, snaps) is expected
            other = Actor(account="other", user="v")
            assert await authorized(parts, other, case, snaps) is await directory.authorize(
                other, case
            )

    anyio.run(run)


_DAYS = st.none() | st.dates()
_REFS = st.builds(lambda i: CaseRef("traveler", i), st.text(min_size=1, max_size=6))


def _extras() -> st.SearchStrategy[tuple[Any, ...]]:
    from turnframe.samples.travel.trip_model import EXTRA_KINDS, Extra

    extra = st.builds(
        Extra,
        id=st.integers(1, 99).map(lambda n: f"E{n}"),
        kind=st.sampled_from(EXTRA_KINDS),
        details=st.none() | _TEXT,
        payer=st.none() | st.just("company") | _REFS,
        nights=st.none() | st.integers(1, 400),
    )
    return st.lists(extra, max_size=4).map(tuple)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_dump_trip_is_the_generic_json_of_the_state(data: st.DataObject) -> None:
    """``dump_trip`` (written field by field) equals ``to_json_value``; it loads back equal."""
    from turnframe.core.canonical import to_json_value
    from turnframe.samples.travel.trip_model import TRIP_STATUSES, TripState, dump_trip, load_trip

    state = TripState(
        name=data.draw(_TEXT),
        destination=data.draw(st.none() | _TEXT),
        start=data.draw(_DAYS),
        end=data.draw(_DAYS),
        travelers=tuple(data.draw(st.lists(_REFS, max_size=3))),
        extras=data.draw(_extras()),
        status=data.draw(st.sampled_from(TRIP_STATUSES)),
        next_extra=data.draw(st.integers(1, 100)),
    )
    dumped = dump_trip(state)
    assert dumped == to_json_value(state)
    assert list(dumped) == list(to_json_value(state))  # type: ignore[arg-type]
    assert load_trip(dumped) == state


_ANSWERS = st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=4) | st.dictionaries(
    st.text(max_size=3), st.integers(0, 3) | st.text(max_size=3), max_size=3
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_ANSWERS, min_size=1, max_size=6), st.randoms())
def test_glossary_answers_are_checked_as_if_never_remembered(
    answers: list[dict[str, Any]], rnd: Any
) -> None:
    """Whatever a hook answers from call to call, the workflow returns that answer checked."""
    from turnframe.core.errors import RegistryError
    from turnframe.core.glossary import checked_glossary
    from turnframe.core.workflow import ErasedWorkflow
    from turnframe.samples.travel.trip import TripWorkflow

    answers = answers + [rnd.choice(answers) for _ in range(len(answers))]
    rnd.shuffle(answers)
    served = iter(answers)

    class Hooked(TripWorkflow):
        def glossary(self, locale: str) -> Any:
            return next(served)

    erased = ErasedWorkflow(Hooked())
    for answer in answers:
        try:
            expected: Any = checked_glossary("trip", answer)
        except RegistryError as exc:
            expected = type(exc)
        try:
            got: Any = erased.glossary("en")
        except RegistryError as exc:
            got = type(exc)
        assert got == expected


_LOOSE = (
    st.none()
    | st.booleans()
    | st.integers(-2, 3)
    | st.floats(0, 2, allow_nan=False)
    | st.sampled_from(["E1", "E2", "e1", "hotel", "seat", "company", "traveler/p1", "trip/x", ""])
)
_EXTRA_JSON = st.one_of(
    _LOOSE,
    st.fixed_dictionaries(
        {
            "id": st.sampled_from(["E1", "E2"]) | _LOOSE,
            "kind": st.sampled_from(["hotel", "seat"]) | _LOOSE,
        },
        optional={
            "details": st.none() | st.just("Avenida") | _LOOSE,
            "payer": st.sampled_from(["company", "traveler/p1"]) | _LOOSE,
            "nights": st.integers(0, 2) | st.booleans() | _LOOSE,
        },
    ),
)


def _swap(value: Any) -> list[Any]:
    """Values equal to ``value`` (and hashing alike) of another type: True/1/1.0, False/0/0.0."""
    if isinstance(value, bool | int | float) and value in (0, 1):
        return [v for v in (bool(value), int(value), float(value)) if type(v) is not type(value)]
    return []


def _twins(extras: list[Any]) -> list[list[Any]]:
    out = []
    for n, extra in enumerate(extras):
        if isinstance(extra, dict):
            for key, value in extra.items():
                for other in _swap(value):
                    out.append([*extras[:n], {**extra, key: other}, *extras[n + 1 :]])
    return out


def _outcome(read: Any, data: Any) -> Any:
    try:
        return ("ok", read(data))
    except ValueError as exc:
        return ("refused", str(exc))


@settings(max_examples=400, deadline=None)
@given(st.lists(_EXTRA_JSON, max_size=4), st.lists(_LOOSE, max_size=3))
@example(extras=[{"id": "E1", "kind": "hotel", "nights": True}], travelers=[])
@example(extras=[{"id": "E1", "kind": "seat", "payer": "company", "nights": 1.0}], travelers=[])
def test_a_memoised_trip_reads_as_one_read_field_by_field(
    extras: list[Any], travelers: list[Any]
) -> None:
    """``load_trip`` (memoised extras and references) answers what the checks answer.

    The reference reads every extra with the field-by-field checks and every traveler
    with ``ref_from_json``; a bool for an int, a float for an int or a non-string id must
    be refused the same way however often an equal-looking value was read before.
    """
    from turnframe.samples.travel import trip_model
    from turnframe.samples.travel._common import ref_from_json

    def reference(data: dict[str, Any]) -> Any:
        refs = tuple(ref_from_json(t, "traveler") for t in data["travelers"])
        checked = [trip_model._checked_extra(e) for e in data["extras"]]
        return trip_model.TripState(name=data["name"], travelers=refs, extras=tuple(checked))

    data = {"name": "Lisbon", "travelers": travelers, "extras": extras}
    for twin in _twins(extras):  # equal values of other types, read first
        _outcome(trip_model.load_trip, {**data, "extras": twin})
    for _ in range(2):  # cold and warm
        got = _outcome(trip_model.load_trip, data)
        assert got == _outcome(reference, data)
        if got[0] == "ok":
            assert [type(e.nights) for e in got[1].extras] == [
                type(e.get("nights")) for e in extras if isinstance(e, dict)
            ]


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=8),
    st.none() | st.text(max_size=8),
    _DAYS,
    _DAYS,
    st.sampled_from(["planning", "confirmed", "completed", "cancelled"]),
    st.none() | st.dates(),
    st.none() | st.text(max_size=8),
    st.sampled_from(["active", "deleted"]),
    st.sampled_from(["en", "pt-PT", "pt", "PT-br", "fr"]),
)
def test_memoised_labels_are_the_labels_of_the_state(
    name: str,
    destination: str | None,
    start: Any,
    end: Any,
    status: Any,
    born: Any,
    email: str | None,
    person_status: Any,
    locale: str,
) -> None:
    """A trip's and a traveler's label (memoised on their fields) is the one written fresh."""
    from turnframe.samples.travel import traveler, trip
    from turnframe.samples.travel.traveler import TravelerState, TravelerWorkflow
    from turnframe.samples.travel.trip import TripWorkflow
    from turnframe.samples.travel.trip_model import TripState

    trips, people = TripWorkflow(), TravelerWorkflow()
    case = CaseRef("trip", "t1")
    state = TripState(name=name, destination=destination, start=start, end=end, status=status)
    fresh = trip._label.__wrapped__(name, destination, start, end, status, locale)
    for _ in range(2):
        assert trips.candidate_label(case, state, locale) == fresh
    person = TravelerState(full_name=name, birth_date=born, email=email, status=person_status)
    year = born.year if born is not None else None
    fresh = traveler._label.__wrapped__(name, year, email, person_status, locale)
    for _ in range(2):
        assert people.candidate_label(CaseRef("traveler", "p1"), person, locale) == fresh
