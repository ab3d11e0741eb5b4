"""A turn's write budget on SQLite, counted (docs/adr/0024-four-writes-per-turn.md).

Counts come from :meth:`SqliteStore.tally` (statements, ``BEGIN IMMEDIATE`` transactions,
payload bytes), never from time: a text turn that commits writes three transactions
(``begin_turn``, the plan with all its commits, the reply), four when it also draws a
card; a click writes three. The plan is written once and holds no replay-only field;
re-projection reads no row the turn has just committed.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import anyio

from turnframe.core import (
    Actor,
    CaseRef,
    InteractionResponse,
    ProposedTarget,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.runtime import FixedClock, Runtime, TurnResult
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application
from turnframe.store._sqlite_tally import StatementTally
from turnframe.store.sqlite import SqliteStore
from turnframe.understand import Brief, ScriptedUnderstanding

ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))


class _World:
    def __init__(self, store: SqliteStore) -> None:
        self.store = store
        self.script = ScriptedUnderstanding()
        self.runtime = Runtime(
            travel_application(), store, self.script, clock=FixedClock(date(2026, 5, 1))
        )
        self.refs: dict[str, CaseRef] = {}

    async def seed(self) -> None:
        for key, case, state in seed_all(DEMO_RECORDS):
            self.refs[key] = await self.runtime.seed(
                ACTOR.account, case.workflow, state, case_id=case.case_id
            )

    async def text(
        self, *acts: tuple[str, str, dict[str, str]]
    ) -> tuple[TurnResult, StatementTally]:
        def read(brief: Brief) -> Understanding:
            return Understanding(
                acts=tuple(
                    SemanticAct(
                        id=f"a{n}",
                        operation=operation,
                        target=ProposedTarget(
                            handles=(self.runtime.handle_for(brief.turn_id, self.refs[key]),)
                        ),
                        args=dict(args),
                        evidence=dict(args),
                    )
                    for n, (key, operation, args) in enumerate(acts, 1)
                )
            )

        self.script.push(read)
        with self.store.tally() as tally:
            result = await self.runtime.run_turn(ACTOR, "c1", TurnInput(text="do these"))
        return result, tally


def _after_last_commit(tally: StatementTally) -> list[str]:
    last = max(i for i, sql in enumerate(tally.sql) if sql.startswith("INSERT INTO journal"))
    return tally.sql[last + 1 :]


async def _budget(tmp: Path) -> None:
    store = await SqliteStore.open(tmp / "budget.db")
    world = _World(store)
    await world.seed()

    three, tally = await world.text(
        ("T1", "trip.add_extra", {"kind": "seat", "payer": "company"}),
        ("T1", "trip.rename", {"name": "Lisbon in May"}),
        ("T3", "trip.rename", {"name": "Porto in May"}),
    )
    assert len(three.commits) == 2
    assert tally.write_transactions == 3, tally.sql
    assert not any("FROM cases" in sql for sql in _after_last_commit(tally)), tally.sql
    turn = await store.get_turn(ACTOR.account, three.turn_id)
    assert turn is not None and turn.phase == "replied"
    replay = await store.load_replay(ACTOR.account, three.turn_id)
    assert replay is not None and "reduction" in replay and "results" in replay
    # The plan and the replay record are each written once: one UPDATE of the turn row
    # carrying the plan, one insert of the replay record's first part; its second part
    # goes in the turn row with the reply (the first part's row is not rewritten).
    plan_writes = [s for s in tally.sql if s.startswith("UPDATE turns")]
    replay_writes = [s for s in tally.sql if "replays" in s]
    assert len(plan_writes) == 2, tally.sql  # committing, replied (with replay_outcome)
    assert "replay_outcome" in plan_writes[1], tally.sql
    assert len(replay_writes) == 1 and replay_writes[0].startswith("INSERT INTO replays")

    carded, tally = await world.text(
        ("T1", "trip.add_extra", {"kind": "baggage", "payer": "company"}),
        ("T2", "trip.book_hotel", {"hotel": "Avenida", "nights": "3"}),
    )
    (card,) = carded.interactions_created
    assert len(carded.commits) == 1
    assert tally.write_transactions == 4, tally.sql

    click = TurnInput(
        interaction_response=InteractionResponse(
            interaction_id=card.id, option_id="confirm", expected_revision=card.spec.bound_revision
        )
    )
    with store.tally() as tally:
        clicked = await world.runtime.run_turn(ACTOR, "c1", click)
    assert [e.operation for e in clicked.events] == ["trip.book_hotel"]
    assert tally.write_transactions == 3, tally.sql
    await store.close()


def test_a_turn_writes_at_most_four_transactions_and_its_plan_once(tmp_path: Path) -> None:
    anyio.run(_budget, tmp_path)
