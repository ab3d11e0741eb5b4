"""Recorded traffic for the shadow tests: travel turns run through the real runtime.

Each text turn is read by the model chain over a scripted provider (the shipped chat
script's answers), so its replay record holds the brief, the calls and the reduction;
the recorded conversation has a commit, an ambiguity card, a click on it, a confirmation
click (a commit and a card resolved) and a new record.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Awaitable, Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import pytest

from turnframe.cli.chat_script import load_script
from turnframe.core import Actor, CaseRef, InteractionResponse, TurnInput
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.runtime.parts import handle
from turnframe.samples.travel import (
    DEMO_RECORDS,
    complete_records,
    seed_order,
    seed_state,
    travel_application,
)
from turnframe.understand import ModelUnderstanding
from turnframe.understand.merged import script_merge

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="maria", roles=frozenset({"customer"}))
RENAME = "Rename the Porto trip to Summer Offsite"
CANCEL = "Cancel the Lisbon trip"
START = "Start a trip called Oslo Summit"
TURNS = ("t-rename", "t-cancel", "t-click", "t-confirm", "t-start")
"""The recorded turns, in conversation order (``t-click`` chooses the trip on
``t-cancel``'s card, ``t-confirm`` confirms the cancellation: a commit)."""


async def record_turns(
    store: Any, before: Callable[[str], Awaitable[None]] | None = None
) -> dict[str, CaseRef]:
    """Seed the travel records into ``store`` and run :data:`TURNS`; return the seeded refs.

    ``before`` is awaited with each turn's id just before the turn runs.
    """
    runtime = Runtime(
        travel_application(), store, None, clock=FixedClock(TODAY), ids=SequentialIds()
    )
    refs: dict[str, CaseRef] = {}
    for record in seed_order(complete_records(DEMO_RECORDS)):
        workflow, state = seed_state(record, refs)
        key = str(record["key"])
        refs[key] = await runtime.seed("acme", workflow, state, case_id=key.lower())
    script = load_script("example")
    assert script is not None

    async def run(turn_id: str, turn: TurnInput, **kwargs: Any) -> Any:
        if before is not None:
            await before(turn_id)
        return await runtime.run_turn(ACTOR, "c1", turn, turn_id=turn_id, **kwargs)

    async def say(text: str, turn_id: str) -> Any:
        provider = script.provider_for(text)
        assert provider is not None
        model = ModelUnderstanding(provider, merge=script_merge(provider))
        return await run(turn_id, TurnInput(text=text), understander=model)

    await say(RENAME, "t-rename")
    asked = await say(CANCEL, "t-cancel")
    card = next(b for b in asked.blocks if b.kind == "interaction")
    click = InteractionResponse(
        interaction_id=card.interaction_id, option_id=card.options[0].id, expected_revision=None
    )
    done = await run("t-click", TurnInput(interaction_response=click))
    confirm = next(b for b in done.blocks if b.kind == "interaction")
    yes = InteractionResponse(
        interaction_id=confirm.interaction_id,
        option_id="confirm",
        expected_revision=confirm.expected_revision,
    )
    done = await run("t-confirm", TurnInput(interaction_response=yes))
    assert any(r.status.value == "committed" for r in done.results.values())
    await say(START, "t-start")
    return refs


def handle_of(turn_id: str, key: str) -> str:
    """Return the handle the brief of ``turn_id`` showed the seeded record ``key`` by."""
    return handle(turn_id, CaseRef("trip" if key.startswith("T") else "traveler", key.lower()))


@pytest.fixture(scope="session")
def recorded_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file holding :data:`TURNS` (closed: its WAL is checkpointed)."""
    from turnframe.store.sqlite import SqliteStore

    path = tmp_path_factory.mktemp("recorded") / "turns.db"

    async def go() -> None:
        store = await SqliteStore.open(path)
        try:
            await record_turns(store)
        finally:
            await store.close()

    anyio.run(go)
    return path


@pytest.fixture
def recorded_db(recorded_file: Path, tmp_path: Path) -> Iterator[Path]:
    """A private copy of :func:`recorded_file` (a test may hash or damage it)."""
    copy = tmp_path / "turns.db"
    copy.write_bytes(recorded_file.read_bytes())
    yield copy


def file_digest(path: Path) -> str:
    """Return the SHA-256 of the file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def row_counts(path: Path) -> dict[str, int]:
    """Return every table's row count, read through a read-only connection."""
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        return {n: conn.execute(f'SELECT COUNT(*) FROM "{n}"').fetchone()[0] for n in names}
    finally:
        conn.close()
