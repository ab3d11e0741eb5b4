"""The runtime's counters on OpenTelemetry and in the Metrics sink alike (docs/telemetry.md "Metrics")."""

from __future__ import annotations

from typing import Any

import anyio
from telemetry_kit import Recorded, travel

from turnframe.core.acts import ProposedTarget, SemanticAct, Understanding
from turnframe.core.turn import TurnInput
from turnframe.providers.scripted import ScriptedProvider
from turnframe.runtime.metrics import (
    AMBIGUOUS_TARGET,
    CLAIM_GUARD_REFUSALS,
    COMMITS,
    IDEMPOTENT_REPLAYS,
    NOTICES,
    REPAIRS,
    RESENDS,
    REVISION_CONFLICTS,
    VOTES,
)
from turnframe.samples.travel import travel_application
from turnframe.tasks.run import TaskModels, TaskRunner
from turnframe.tasks.task import Task
from turnframe.testing.hostile_reply import HostileReplyProvider
from turnframe.understand import Brief, UnderstandingResult
from turnframe.understand.reply import ModelReplyWriter

SCHEMA = {
    "type": "object",
    "properties": {"x": {"type": "string"}},
    "required": ["x"],
    "additionalProperties": False,
}


def _both(recorded: Recorded, metrics: Any, name: str) -> tuple[int, int]:
    return recorded.total(name), metrics.total(name)


def test_a_three_act_turn_counts_its_commits_and_duration(recorded: Recorded) -> None:
    async def run() -> Any:
        app = await travel(recorded.telemetry)
        await app.three_acts()
        again = await app.three_acts()  # the same turn id, the same input: replayed
        return app, again

    app, again = anyio.run(run)
    assert again.turn_id == "t-1"
    assert _both(recorded, app.metrics, COMMITS) == (2, 2)
    assert recorded.metrics()[COMMITS] == [({"workflow": "trip"}, 2)]
    assert recorded.metrics()[IDEMPOTENT_REPLAYS] == [({"kind": "turn"}, 1)]
    assert app.metrics.total(IDEMPOTENT_REPLAYS) == 1
    turns = recorded.metrics()["turnframe.turn.duration"]
    assert sum(point.count for _, point in turns) == 2
    assert all(labels == {"turnframe.turn.entry": "run"} for labels, _ in turns)


def test_an_ambiguous_target_is_counted_by_workflow_and_operation(recorded: Recorded) -> None:
    async def run() -> Any:
        app = await travel(recorded.telemetry)

        def build(brief: Brief) -> Understanding:
            both = tuple(app.runtime.handle_for(brief.turn_id, app.refs[k]) for k in ("T1", "T3"))
            act = SemanticAct(
                id="a1",
                operation="trip.rename",
                target=ProposedTarget(handles=both),
                args={"name": "Summer"},
                evidence={"name": "Summer"},
            )
            return Understanding(acts=(act,))

        app.script.push(build)
        await app.runtime.run_turn(app.actor, "conv", TurnInput(text="rename it to Summer"))
        return app

    app = anyio.run(run)
    assert recorded.metrics()[AMBIGUOUS_TARGET] == [
        ({"workflow": "trip", "operation": "trip.rename"}, 1)
    ]
    assert (
        app.metrics.counts[(AMBIGUOUS_TARGET, (("operation", "trip.rename"), ("workflow", "trip")))]
        == 1
    )


class VotingUnderstander:
    """Reads every turn as nothing, after a voted task, a resend and a repair (call records)."""

    def __init__(self) -> None:
        answers = {"vote": '{"x": "a"}', "fix": ["", '{"y": 1}', '{"x": "ok"}']}
        self.runner_models = TaskModels(ScriptedProvider(answers))

    async def understand(self, brief: Brief) -> UnderstandingResult:
        runner = TaskRunner(self.runner_models)
        task = Task(name="vote", instructions="i", prompt_id="p", data={}, schema=SCHEMA, votes=3)
        await runner.run(task)
        await runner.run(Task(name="fix", instructions="i", prompt_id="p", data={}, schema=SCHEMA))
        records = tuple(r.to_json() for r in runner.records)
        return UnderstandingResult(
            understanding=Understanding(), model_calls=len(records), calls=records
        )


def test_repairs_resends_votes_and_notices_are_counted_by_task_and_code(
    recorded: Recorded,
) -> None:
    async def run() -> Any:
        app = await travel(recorded.telemetry, understander=VotingUnderstander())
        result = await app.runtime.run_turn(app.actor, "conv", TurnInput(text="hmm"))
        return app, result

    app, result = anyio.run(run)
    got = recorded.metrics()
    assert got[VOTES] == [({"task": "vote"}, 3)]
    assert got[RESENDS] == [({"task": "fix"}, 1)]
    assert got[REPAIRS] == [({"task": "fix"}, 1)]
    assert _both(recorded, app.metrics, VOTES) == (3, 3)
    codes = {labels["code"] for labels, _ in got[NOTICES]}
    assert codes == {b.code.split(":")[0] for b in result.blocks if hasattr(b, "code")}
    assert codes  # a turn that understood nothing says so
    # the task spans and their calls hang under the understand step
    spans = {s.context.span_id: s for s in recorded.spans()}
    votes = [s for s in spans.values() if s.name == "chat scripted"]
    assert len(votes) == 6  # 3 votes + first, resend, repair of "fix"
    for call in votes:
        task = spans[call.parent.span_id]  # type: ignore[union-attr]
        step = spans[task.parent.span_id]  # type: ignore[union-attr]
        assert task.name.startswith("turnframe.task.")
        assert step.name == "turnframe.step.understand"


def test_claim_guard_refusals_are_counted(recorded: Recorded) -> None:
    async def run() -> Any:
        writer = HostileReplyProvider(travel_application().registry, 7, honest_share=0.0)
        app = await travel(recorded.telemetry)
        app.runtime.reply_writer = ModelReplyWriter(writer)
        for n in range(6):
            app.script.push(lambda brief: Understanding())
            await app.runtime.run_turn(app.actor, "conv", TurnInput(text=f"status {n}"))
        return app

    app = anyio.run(run)
    refused = recorded.total(CLAIM_GUARD_REFUSALS)
    assert refused > 0
    assert app.metrics.total(CLAIM_GUARD_REFUSALS) == refused
    guards = [s for s in recorded.spans() if s.name == "turnframe.claim_guard"]
    assert (
        sum(
            int(s.attributes["turnframe.claims.refused"])
            + int(s.attributes["turnframe.claims.words_dropped"])
            for s in guards
        )
        == refused
    )
    assert {labels["guard"] for labels, _ in recorded.metrics()[CLAIM_GUARD_REFUSALS]} <= {
        "blocks",
        "words",
    }


def test_a_revision_conflict_and_a_replayed_commit_are_counted(recorded: Recorded) -> None:
    """The store answers the first batch with a conflict and the second as a replay."""
    from dataclasses import replace

    from turnframe.store.errors import RevisionConflict

    async def run() -> Any:
        app = await travel(recorded.telemetry)
        store = app.runtime.store
        original = store.commit_plan

        async def commit_plan(write: Any) -> Any:
            outcome = await original(write)
            first, second = outcome.commits
            moved = RevisionConflict(first.case, expected=first.revision - 1, actual=first.revision)
            return replace(outcome, commits=(moved, replace(second, replayed=True)))

        store.commit_plan = commit_plan  # type: ignore[method-assign]
        await app.three_acts()
        return app

    app = anyio.run(run)
    assert recorded.metrics()[REVISION_CONFLICTS] == [({"workflow": "trip"}, 1)]
    assert recorded.metrics()[IDEMPOTENT_REPLAYS] == [({"kind": "commit"}, 1)]
    assert app.metrics.total(REVISION_CONFLICTS) == 1
    outcomes = [
        s.attributes["turnframe.commit.outcome"]
        for s in recorded.spans()
        if s.name == "turnframe.commit.batch"
    ]
    assert outcomes == ["RevisionConflict", "replayed"]
