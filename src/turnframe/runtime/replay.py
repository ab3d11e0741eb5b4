"""A turn's reduction, recorded so it can be re-run from its inputs (I20).

The replay record holds what the reducer read (the proposal, the resolved acts, each
case's stored state and revision, the click, the cards on screen, the standing constraint
and the waiting acts) and the plan it returned. :func:`replay_reduction` rebuilds the
input (projecting each stored state again with the workflow's own pure projector), runs
the reducer again and compares the plans: a recorded turn replays to the same plan.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import TypeAdapter

from turnframe.core.acts import Understanding
from turnframe.core.canonical import to_json_value
from turnframe.core.ids import Actor, CaseRef, JSONObject, JSONValue
from turnframe.core.interactions import Interaction
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.plan import (
    ActInput,
    CaseSnapshot,
    ClickInput,
    Plan,
    ReductionInput,
    WaitingAct,
)
from turnframe.runtime.reduce import reduce_turn

__all__ = ["plan_json", "reduction_input", "reduction_record", "replay_reduction"]

_ACTOR: TypeAdapter[Actor] = TypeAdapter(Actor)
_CASE: TypeAdapter[CaseRef] = TypeAdapter(CaseRef)
_UNDERSTANDING: TypeAdapter[Understanding] = TypeAdapter(Understanding)
_ACTS: TypeAdapter[tuple[ActInput, ...]] = TypeAdapter(tuple[ActInput, ...])
_CLICK: TypeAdapter[ClickInput | None] = TypeAdapter(ClickInput | None)
_CARDS: TypeAdapter[tuple[Interaction, ...]] = TypeAdapter(tuple[Interaction, ...])
_WAITING: TypeAdapter[tuple[WaitingAct, ...]] = TypeAdapter(tuple[WaitingAct, ...])


def plan_json(plan: Plan) -> JSONValue:
    """Return ``plan`` as canonical JSON (what two runs of the reducer are compared on)."""
    return to_json_value(plan)


def reduction_record(inp: ReductionInput, plan: Plan) -> JSONObject:
    """Return the reducer's input and the plan it returned, as JSON for the replay record."""
    record: JSONObject = {
        "input": {
            "turn_id": inp.turn_id,
            "actor": _ACTOR.dump_python(inp.actor, mode="json"),
            "today": inp.today.isoformat(),
            "locale": inp.locale,
            "understanding": _UNDERSTANDING.dump_python(inp.understanding, mode="json"),
            "acts": _ACTS.dump_python(inp.acts, mode="json"),
            "click": _CLICK.dump_python(inp.click, mode="json"),
            "cards_on_screen": _CARDS.dump_python(inp.cards_on_screen, mode="json"),
            "standing_do_not_submit": inp.standing_do_not_submit,
            "waiting": _WAITING.dump_python(inp.waiting, mode="json"),
            "linked_cards": _CARDS.dump_python(inp.linked_cards, mode="json"),
            "snapshots": [
                {
                    "case": _CASE.dump_python(snap.case, mode="json"),
                    "state": snap.state_json,
                    "revision": snap.revision,
                }
                for snap in inp.snapshots.values()
            ],
        },
        "plan": plan_json(plan),
    }
    return record


def reduction_input(data: Any, registry: WorkflowRegistry) -> ReductionInput:
    """Return the reducer's input a replay record holds, each state projected again.

    Raises:
        pydantic.ValidationError: when the record does not hold a reduction input.
        RegistryError: when a recorded case's workflow is not registered.
    """
    today = date.fromisoformat(str(data["today"]))
    locale = str(data["locale"])
    snapshots: dict[CaseRef, CaseSnapshot] = {}
    for item in data["snapshots"]:
        case = _CASE.validate_python(item["case"])
        erased = registry.workflow(case.workflow)
        typed = erased.typed(item["state"])
        snapshots[case] = CaseSnapshot(
            case=case,
            state=typed,
            state_json=item["state"],
            revision=int(item["revision"]),
            view=erased.definition.project(typed, today),
            label=erased.definition.candidate_label(case, typed, locale),
        )
    return ReductionInput(
        turn_id=str(data["turn_id"]),
        actor=_ACTOR.validate_python(data["actor"]),
        today=today,
        locale=locale,
        understanding=_UNDERSTANDING.validate_python(data["understanding"]),
        acts=_ACTS.validate_python(data["acts"]),
        snapshots=snapshots,
        click=_CLICK.validate_python(data["click"]),
        cards_on_screen=_CARDS.validate_python(data["cards_on_screen"]),
        standing_do_not_submit=bool(data["standing_do_not_submit"]),
        waiting=_WAITING.validate_python(data["waiting"]),
        linked_cards=_CARDS.validate_python(data.get("linked_cards", [])),
    )


def replay_reduction(record: Any, registry: WorkflowRegistry) -> tuple[bool, JSONValue]:
    """Re-run a recorded reduction; return whether the plan is identical, and the new plan.

    Raises:
        KeyError: when the record holds no reduction.
    """
    plan = reduce_turn(reduction_input(record["input"], registry), registry)
    again = plan_json(plan)
    return again == record["plan"], again
