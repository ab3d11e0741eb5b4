"""A damaged replay record makes its turn ``skipped`` with the reason, never a traceback.

A replay record is data (docs/shadow.md "What is compared"): a record an older
Turnframe wrote, or one damaged by hand, is a finding about that turn. The shadow read
the record's ``reading``/``calls`` outside its guard, so ``calls: 5``, ``reading.effort:
"ultra"`` or a record that is a JSON array escaped as a ``TypeError``/``ValueError``
traceback and stopped the whole run. Hypothesis now damages the recorded text turn at a
random place with a random JSON value: the run always ends with a report, the other
turns are still read, and the file is not written.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import anyio
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from shadow_traffic import ACTOR, TURNS, file_digest, row_counts

from turnframe.eval.models import provider_from_spec
from turnframe.eval.shadow import recorded_calls, shadow_turns
from turnframe.samples.travel import travel_application
from turnframe.store.readonly import open_sqlite_readonly

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2)
    ),
    max_leaves=4,
)
_PLACES = [
    (),
    ("calls",),
    ("calls", 0),
    ("calls", 0, "model"),
    ("reading",),
    ("reading", "effort"),
    ("reading", "merge"),
    ("reading", "checks"),
    ("reading", "units"),
    ("reading", "brief"),
    ("seen",),
    ("reduction",),
    ("reduction", "input"),
    ("reduction", "plan"),
]


def _damage(record: Any, place: tuple[Any, ...], value: Any) -> Any:
    if not place:
        return value
    node = record
    for key in place[:-1]:
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        else:
            return record
    last = place[-1]
    if isinstance(node, dict) or (
        isinstance(node, list) and isinstance(last, int) and last < len(node)
    ):
        node[last] = value
    return record


def _run(path: Path, provider: Any) -> Any:
    async def go() -> Any:
        store = open_sqlite_readonly(path)
        try:
            return await shadow_turns(
                travel_application(), store, provider, list(TURNS), account=ACTOR.account
            )
        finally:
            await store.close()

    return anyio.run(go)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    place=st.sampled_from(_PLACES),
    value=_JSON,
    raw=st.booleans(),
    recorded=st.booleans(),
)
# A recorded plan that is not an object once reached the plan comparison and failed an
# assertion there; every CI run tries it.
@example(place=("reduction", "plan"), value=True, raw=False, recorded=False)
def test_a_damaged_record_is_a_skipped_turn(
    recorded_file: Path, place: tuple[Any, ...], value: Any, raw: bool, recorded: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "turns.db"
        shutil.copyfile(recorded_file, path)
        with sqlite3.connect(path) as conn:
            (text,) = conn.execute(
                "SELECT record FROM replays WHERE turn_id = 't-rename'"
            ).fetchone()
            damaged = "not json {" if raw else json.dumps(_damage(json.loads(text), place, value))
            conn.execute("UPDATE replays SET record = ? WHERE turn_id = 't-rename'", (damaged,))
        conn.close()
        digest, counts = file_digest(path), row_counts(path)
        provider = recorded_calls if recorded else provider_from_spec("hostile:1")
        report = _run(path, provider)
        by_turn = {t.turn_id: t for t in report.turns}
        assert [t.turn_id for t in report.turns] == list(TURNS)
        assert all(t.status in ("same", "different", "outside", "skipped") for t in report.turns)
        if recorded:  # the undamaged text turns still read the same over their own calls
            assert by_turn["t-start"].status == "same"
        assert file_digest(path) == digest and row_counts(path) == counts


def test_the_damages_that_crashed_are_skipped_with_the_reason(recorded_db: Path) -> None:
    cases = {
        "[]": "could not be read",  # the store merges the outcome into it and fails
        "not json {": "stored text is not JSON",
    }
    with sqlite3.connect(recorded_db) as conn:
        (text,) = conn.execute("SELECT record FROM replays WHERE turn_id = 't-rename'").fetchone()
    conn.close()
    record = json.loads(text)
    for place, value, reason in [
        (("calls",), 5, "calls is not a list of objects"),
        (("reading", "effort"), "ultra", "'ultra' is not a valid Effort"),
        (("reading",), 3, "reading is a int"),
    ]:
        cases[json.dumps(_damage(json.loads(json.dumps(record)), place, value))] = reason
    for damaged, reason in cases.items():
        with sqlite3.connect(recorded_db) as conn:
            conn.execute("UPDATE replays SET record = ? WHERE turn_id = 't-rename'", (damaged,))
        conn.close()
        report = _run(recorded_db, recorded_calls)
        (turn,) = [t for t in report.turns if t.turn_id == "t-rename"]
        assert turn.status == "skipped"
        assert turn.reason is not None and "the record could not be read" in turn.reason
        assert reason in turn.reason
