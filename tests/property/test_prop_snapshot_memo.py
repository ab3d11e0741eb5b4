"""The cross-turn snapshot memo answers what a fresh snapshot answers (ADR 0020 rule 8).

``SnapshotMemo`` (``turnframe/runtime/case_snapshots.py``) reuses the typed state, view
and label of a row that comes back unchanged. Generated here: any interleaving of turns
(two accounts, two definitions of the same workflow, two days, two locales, any memo
capacity, either read path) with renames, commits, rollbacks to an earlier JSON at the
same revision, and rewrites of a value to another JSON type at the same revision
(``1``, ``1.0``, ``True``). Every snapshot a memoised turn takes must equal the one a
turn without the memo takes from the same rows; a definition whose state holds a list
has its served states mutated (as a faulty step would) and must never be served one.

Each check of the memo is needed by one of these draws: without the definition identity
check the other definition's label is served; without ``same_json`` (``==`` instead) a
retyped value is served stale; without the day or the locale in the key the other
day's view or locale's label is served; without ``immutable_state`` a mutated state is
served; without eviction the capacity is exceeded.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, replace
from datetime import date
from types import SimpleNamespace
from typing import Any

import anyio
from hypothesis import example, given, settings
from hypothesis import strategies as st

from turnframe.core.events import EventDraft
from turnframe.core.ids import CaseRef
from turnframe.core.view import Obligation, WorkflowView
from turnframe.core.workflow import ErasedWorkflow, Execution
from turnframe.runtime.case_snapshots import SnapshotMemo, immutable_state, same_json
from turnframe.runtime.snapshots import TurnSnapshots
from turnframe.store import codec
from turnframe.store.base import CaseRow, with_stored_text

DAYS = (date(2026, 5, 1), date(2026, 6, 1))
"""The turns' days; a probe due on 2026-05-15 is ``overdue`` on the second only."""
LOCALES = ("en", "pt-PT")
ACCOUNTS = ("acme", "globex")
COUNTS: tuple[Any, ...] = (1, 1.0, True, 2)
"""The values a probe's ``count`` is rewritten to: equal under ``==``, not by type."""


@dataclass(frozen=True, slots=True)
class Probe:
    """A probe's typed state; ``tags`` a tuple, or a list for the mutable definition."""

    name: str
    count: Any
    due: date | None
    tags: Any


class ProbeWorkflow:
    """A minimal definition whose view reads ``today`` and whose label reads the locale.

    ``tag`` tells two definitions of the same workflow apart (their labels differ);
    ``mutable`` loads ``tags`` as a list (a frozen state holding a mutable container).
    """

    name = "probe"

    def __init__(self, tag: str, *, mutable: bool = False, version: str = "probe/1") -> None:
        self.tag = tag
        self.mutable = mutable
        self.version = version

    def operations(self) -> tuple[Any, ...]:
        return ()

    def load_state(self, data: dict[str, Any]) -> Probe:
        due = data.get("due")
        tags = list(data["tags"]) if self.mutable else tuple(data["tags"])
        return Probe(
            name=data["name"],
            count=data["count"],
            due=date.fromisoformat(due) if isinstance(due, str) else None,
            tags=tags,
        )

    def project(self, state: Probe | None, today: date) -> WorkflowView:
        if state is None:
            return WorkflowView(workflow="probe", version=self.version, phase="new", exists=False)
        late = state.due is not None and today > state.due
        return WorkflowView(
            workflow="probe",
            version=self.version,
            phase="overdue" if late else "open",
            obligations=tuple(Obligation(id=f"tag:{t}", kind="tag") for t in state.tags),
        )

    def candidate_label(self, case: CaseRef, state: Probe | None, locale: str) -> str:
        if state is None:
            return f"{self.tag}:absent:{locale}"
        return f"{self.tag}:{state.name}:{state.count!r}:{list(state.tags)}:{locale}"


class Registry:
    """The two members of ``WorkflowRegistry`` snapshots read."""

    def __init__(self, definition: ProbeWorkflow) -> None:
        self.erased = ErasedWorkflow(definition)  # type: ignore[arg-type]

    def workflow(self, name: str) -> ErasedWorkflow:
        assert name == "probe"
        return self.erased


class Store:
    """Rows by case, written any way a test likes (same revision included)."""

    def __init__(self) -> None:
        self.rows: dict[CaseRef, CaseRow] = {}

    async def load_case(self, case: CaseRef) -> CaseRow | None:
        return self.rows.get(case)

    async def list_cases_page(
        self, account: str, *, cases: list[CaseRef], limit: int
    ) -> SimpleNamespace:
        found = [self.rows[c] for c in cases if c in self.rows]
        return SimpleNamespace(rows=[r for r in found if r.account == account][:limit])


def _state(name: str, count: Any, tags: tuple[str, ...]) -> dict[str, Any]:
    return {"name": name, "count": count, "due": "2026-05-15", "tags": list(tags)}


_CASES = [CaseRef("probe", f"p{i}") for i in range(4)]
_ACTION = st.one_of(
    st.tuples(st.just("rename"), st.integers(0, 3), st.sampled_from(["Ana", "Bo", "Cy"])),
    st.tuples(st.just("commit"), st.integers(0, 3), st.sampled_from(["a", "b"])),
    st.tuples(st.just("retype"), st.integers(0, 3), st.integers(0, len(COUNTS) - 1)),
    st.tuples(st.just("rollback"), st.integers(0, 3), st.just(0)),
    st.tuples(
        st.just("turn"),
        st.integers(0, 1),  # account
        st.integers(0, 2),  # definition: tag A, tag B, mutable
        st.integers(0, 3),  # day and locale
    ),
)


def _same_snapshot(memoised: Any, fresh: Any) -> None:
    assert memoised.case == fresh.case
    assert memoised.state == fresh.state
    assert type(memoised.state.count) is type(fresh.state.count)
    assert same_json(memoised.state_json, fresh.state_json)
    assert memoised.revision == fresh.revision
    assert memoised.view == fresh.view
    assert memoised.label == fresh.label


@settings(max_examples=250, deadline=None)
@given(
    st.lists(_ACTION, min_size=1, max_size=40),
    st.sampled_from([1, 2, 3, 4096]),
    st.booleans(),
    st.booleans(),
)
# One draw per check of the memo, so each is exercised on every run (besides the search):
@example([("turn", 0, 0, 0), ("turn", 0, 0, 1)], 4096, False, False)  # another day
@example([("turn", 0, 0, 0), ("turn", 0, 0, 2)], 4096, False, False)  # another locale
@example([("turn", 0, 0, 0), ("turn", 0, 1, 0)], 4096, False, False)  # another definition
@example([("turn", 0, 0, 0), ("retype", 0, 1), ("turn", 0, 0, 0)], 4096, False, False)  # 1 → 1.0
@example([("turn", 0, 0, 0), ("retype", 0, 1), ("turn", 0, 0, 0)], 4096, True, True)  # as text
@example(
    [
        ("turn", 0, 0, 0),
        ("rollback", 0, 0),
        ("commit", 0, "a"),
        ("rollback", 0, 0),
        ("turn", 0, 0, 0),
    ],
    2,
    True,
    True,
)
@example([("turn", 0, 2, 0), ("turn", 0, 2, 0), ("turn", 0, 2, 0)], 4096, False, False)  # a list
@example([("turn", 0, 0, 0), ("turn", 1, 0, 0)], 1, True, False)  # capacity 1, other account
def test_memoised_snapshots_equal_fresh_ones_under_any_interleaving(
    actions: list[tuple[str, int, Any] | tuple[str, int, int, int]],
    capacity: int,
    rows: bool,
    texts: bool,
) -> None:
    """Every memoised snapshot equals the fresh one of the same rows; never over capacity.

    With ``texts`` the rows carry their stored text (``CaseRow.state_text``, as the SQLite
    store's do), which the memo compares instead of the JSON's fingerprint.
    """

    def with_text(row: CaseRow, state: dict[str, Any]) -> CaseRow:
        return with_stored_text(row, codec.dumps(state)) if texts else row

    registries = [
        Registry(ProbeWorkflow("A")),
        Registry(ProbeWorkflow("B")),
        Registry(ProbeWorkflow("M", mutable=True)),
    ]
    store = Store()
    history: dict[CaseRef, list[dict[str, Any]]] = {}
    for i, case in enumerate(_CASES):
        state = _state("Ana", 1, ())
        store.rows[case] = with_text(
            CaseRow(case=case, account=ACCOUNTS[i % 2], state=state, revision=1), state
        )
        history[case] = [state]
    memo = SnapshotMemo(capacity)

    async def turn(account: str, registry: Registry, day: date, locale: str) -> None:
        memoised = TurnSnapshots(registry, store, account, day, locale, memo=memo)  # type: ignore[arg-type]
        fresh = TurnSnapshots(registry, store, account, day, locale)  # type: ignore[arg-type]
        if rows:
            got, want = await memoised.load_rows(_CASES), await fresh.load_rows(_CASES)
            assert list(got) == list(want)
            assert all(store.rows[c].account == account for c in got)  # never another's
        else:
            got = {c: await memoised.load(c) for c in _CASES}
            want = {c: await fresh.load(c) for c in _CASES}
        for case, snap in got.items():
            _same_snapshot(snap, want[case])
            if isinstance(snap.state.tags, list):
                snap.state.tags.append("mutated")  # a faulty step: never seen again
        assert len(memo) <= capacity

    async def run() -> None:
        for action in actions:
            kind = action[0]
            if kind == "turn":
                _, who, which, when = action
                await turn(ACCOUNTS[who], registries[which], DAYS[when % 2], LOCALES[when // 2])
                continue
            case = _CASES[action[1]]
            row = store.rows[case]
            state = copy.deepcopy(row.state)
            revision = row.revision
            if kind == "rename":
                state["name"], revision = action[2], revision + 1
            elif kind == "commit":
                state["tags"], revision = [*state["tags"], action[2]], revision + 1
            elif kind == "retype":  # the same revision, a value of another JSON type
                state["count"] = COUNTS[action[2]]
            else:  # rollback: an earlier JSON back at the same revision
                state = copy.deepcopy(history[case][0])
            history[case].append(state)
            # ``replace`` drops the text (it is no constructor argument): a rewritten row
            # never carries the text of the state it replaced.
            changed = replace(row, state=state, revision=revision)
            assert changed.state_text is None
            store.rows[case] = with_text(changed, state)

    anyio.run(run)


def test_a_rename_by_a_second_runtime_on_the_same_store_is_seen() -> None:
    """Runtime A memoised a trip; runtime B renames it; A's next snapshot shows the new name."""
    from turnframe.runtime import Runtime
    from turnframe.samples.travel import travel_application
    from turnframe.store import InMemoryStore
    from turnframe.understand import ScriptedUnderstanding

    trip = {
        "name": "Lisbon",
        "destination": "Lisbon",
        "start": "2026-05-12",
        "end": "2026-05-15",
        "travelers": [],
        "extras": [],
        "status": "planning",
        "next_extra": 1,
    }

    async def run() -> None:
        store = InMemoryStore()
        first = Runtime(travel_application(), store, ScriptedUnderstanding())
        second = Runtime(travel_application(), store, ScriptedUnderstanding())
        case = await first.seed("acme", "trip", trip, "t1")

        async def label(runtime: Runtime) -> str:
            snaps = TurnSnapshots(
                runtime.registry,
                store,
                "acme",
                DAYS[0],
                "en",
                memo=runtime.snapshot_memo,
            )
            return (await snaps.load(case)).label

        before = await label(first)
        assert await label(first) == before
        assert first.snapshot_memo.hits == 1  # the second read was served from the memo

        def rename(state: Any) -> Execution[Any]:
            event = EventDraft(type="trip.renamed", data={"name": "Porto"}, operation="trip.rename")
            return Execution(state=replace(state, name="Porto"), events=(event,))

        await second.external_update("acme", case, source="test", reference="r1", transition=rename)
        after = await label(first)
        assert "Porto" in after and after != before

    anyio.run(run)


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False, allow_infinity=False, width=16)
    | st.sampled_from(["", "a", "1"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)
    ),
    max_leaves=12,
)


def _same(a: Any, b: Any) -> bool:
    """The reference: the same exact types, values and key order at every depth."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return bool(a == b)


@settings(max_examples=400, deadline=None)
@given(_JSON, _JSON)
def test_same_json_compares_by_type_as_well_as_value(a: Any, b: Any) -> None:
    """``same_json`` is the type-strict comparison; a copy (a store's parse) is the same."""
    assert same_json(a, b) is _same(a, b)
    assert same_json(a, copy.deepcopy(a))


def test_one_one_point_oh_and_true_are_three_values() -> None:
    """``==`` says equal; ``same_json`` does not, at the top and deep inside."""
    for x, y in ((1, 1.0), (1, True), (1.0, True), (0, False)):
        assert x == y
        assert not same_json(x, y)
        assert not same_json({"k": [x]}, {"k": [y]})
    assert not same_json([1], (1,))
    assert same_json({"k": [1, 1.0, True]}, {"k": [1, 1.0, True]})


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.integers() | st.text(max_size=3), lambda s: st.lists(s, max_size=3)))
def test_a_mutable_container_inside_a_frozen_state_is_never_memoisable(value: Any) -> None:
    """A list at any depth of a frozen state makes it mutable; tuples of atoms do not."""

    def freeze(v: Any) -> Any:
        return tuple(freeze(x) for x in v) if isinstance(v, list) else v

    frozen = Probe(name="n", count=1, due=None, tags=(freeze(value),))
    assert immutable_state(frozen)
    holding = Probe(name="n", count=1, due=None, tags=(freeze(value), [value]))
    assert not immutable_state(holding)
    deep = Probe(name="n", count=1, due=None, tags=(Probe("m", {"k": 1}, None, ()),))
    assert not immutable_state(deep)
