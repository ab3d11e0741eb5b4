"""A turn's reduction, recorded so it can be re-run from its inputs (I20).

The replay record holds what the reducer read (the proposal, the resolved acts, each
case's stored state and revision, the click, the cards on screen, the standing constraint
and the waiting acts) and the plan it returned. :func:`replay_reduction` rebuilds the
input (projecting each stored state again with the workflow's own pure projector), runs
the reducer again and compares the plans: a recorded turn replays to the same plan.

Each value is stored once (docs/adr/0024-four-writes-per-turn.md): the understanding
lives in ``input.understanding`` only (the record's top level no longer repeats it, see
:func:`recorded_understanding`); an act equal to the understanding's act of the same id
is stored as that id (``"act": "a1"``); a click's card that is also on screen is stored as
its id (``"interaction": "card-…"``). A reader tells the two shapes apart by type (a
string is a reference, an object the value), so records written before keep reading.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from pydantic import TypeAdapter

from turnframe.core.acts import SemanticAct, Understanding
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
from turnframe.understand.brief import Brief, brief_from_json

__all__ = [
    "plan_json",
    "recorded_brief",
    "recorded_seen",
    "recorded_understanding",
    "reduction_input",
    "recorded_registry",
    "reduction_record",
    "replay_reduction",
]

_ACTOR: TypeAdapter[Actor] = TypeAdapter(Actor)
_CASE: TypeAdapter[CaseRef] = TypeAdapter(CaseRef)
_UNDERSTANDING: TypeAdapter[Understanding] = TypeAdapter(Understanding)
_ACTS: TypeAdapter[tuple[ActInput, ...]] = TypeAdapter(tuple[ActInput, ...])
_SEMANTIC: TypeAdapter[SemanticAct] = TypeAdapter(SemanticAct)
_NO_ACT = {"__all__": {"act"}}
_CLICK: TypeAdapter[ClickInput | None] = TypeAdapter(ClickInput | None)
_ONE_CLICK: TypeAdapter[ClickInput] = TypeAdapter(ClickInput)
_CARDS: TypeAdapter[tuple[Interaction, ...]] = TypeAdapter(tuple[Interaction, ...])
_WAITING: TypeAdapter[tuple[WaitingAct, ...]] = TypeAdapter(tuple[WaitingAct, ...])


def plan_json(plan: Plan) -> JSONValue:
    """Return ``plan`` as canonical JSON (what two runs of the reducer are compared on)."""
    return to_json_value(plan)


def reduction_record(
    inp: ReductionInput, plan: Plan, versions: Mapping[str, str] | None = None
) -> JSONObject:
    """Return the reducer's input and the plan it returned, as JSON for the replay record.

    Each value once: ``input.understanding`` is the canonical JSON of the understanding
    (what the record's top level held before); an act equal to the understanding's act
    of its id, and a click's card equal to a card on screen, are stored by id.
    ``versions`` (workflow name → the version the turn ran) is kept as
    ``input.versions``, so a replay reads the turn with the versions it ran under
    (:func:`recorded_registry`; docs/guides/canary-and-rollback.md "Replay under the recorded version").
    """
    understanding = to_json_value(inp.understanding)
    cards = _cards_json(inp.cards_on_screen)
    record: JSONObject = {
        "input": {
            "turn_id": inp.turn_id,
            "actor": _ACTOR.dump_python(inp.actor, mode="json"),
            "today": inp.today.isoformat(),
            "locale": inp.locale,
            "understanding": understanding,
            "acts": _acts_json(inp.acts, inp.understanding),
            "click": _click_json(inp.click, inp.cards_on_screen),
            "cards_on_screen": cards,
            "standing_do_not_submit": inp.standing_do_not_submit,
            "waiting": _WAITING.dump_python(inp.waiting, mode="json") if inp.waiting else [],
            "linked_cards": _cards_json(inp.linked_cards),
            "snapshots": [
                {
                    "case": {"workflow": snap.case.workflow, "case_id": snap.case.case_id},
                    "state": snap.state_json,
                    "revision": snap.revision,
                }
                for snap in inp.snapshots.values()
            ],
        },
        "plan": plan_json(plan),
    }
    if versions:
        recorded = record["input"]
        assert isinstance(recorded, dict)
        recorded["versions"] = dict(versions)
    return record


def recorded_registry(data: Any, registry: WorkflowRegistry) -> WorkflowRegistry:
    """Return ``registry`` pinned to the versions a reduction input recorded.

    ``data`` is a record's ``input``. A record with no ``versions`` (written before
    versions were recorded) reads with the registry's live versions.

    Raises:
        RegistryError: a recorded version is no longer registered (the replay would
            not be the turn's; register that version again to replay it).
    """
    versions = data.get("versions") if isinstance(data, Mapping) else None
    if not versions:
        return registry
    known = {str(k): str(v) for k, v in versions.items() if k in registry.names()}
    return registry.pinned(known)


def _cards_json(cards: tuple[Interaction, ...]) -> list[JSONValue]:
    """Return ``cards`` as pydantic's JSON of them; no cards: ``[]``, with no dump to run.

    A turn usually has no card on screen and none linked: the empty array is what the
    dump gives for an empty tuple, without its call.
    """
    if not cards:
        return []
    out = _CARDS.dump_python(cards, mode="json")
    assert isinstance(out, list)
    return out


def _acts_json(acts: tuple[ActInput, ...], understanding: Understanding) -> list[JSONValue]:
    """Return ``acts`` as JSON; an act's ``act`` is its id when the understanding holds it."""
    by_id = {a.id: a for a in understanding.acts}
    out = _ACTS.dump_python(acts, mode="json", exclude=_NO_ACT)
    assert isinstance(out, list)
    for item, act in zip(out, acts, strict=True):
        same = by_id.get(act.act.id)
        if same is not None and (same is act.act or same == act.act):
            item["act"] = act.act.id
        else:
            item["act"] = _SEMANTIC.dump_python(act.act, mode="json")
    return out


def _click_json(click: ClickInput | None, on_screen: tuple[Interaction, ...]) -> JSONValue:
    """Return ``click`` as JSON; its card is the id when that card is on screen, unchanged."""
    whole: JSONValue
    if click is None:  # what the dump gives for no click, without its call
        return None
    if click.interaction is None:
        whole = _CLICK.dump_python(click, mode="json")
        return whole
    card = click.interaction
    if not any(c is card or c == card for c in on_screen):
        whole = _CLICK.dump_python(click, mode="json")
        return whole
    out = _ONE_CLICK.dump_python(click, mode="json", exclude={"interaction"})
    assert isinstance(out, dict)
    out["interaction"] = card.id
    return out


def recorded_understanding(record: Any) -> Any:
    """Return the understanding a replay record holds (canonical JSON), or ``None``.

    A record holds it at its top level (a turn that did not reduce, or a record written
    before each value was stored once) or in its reduction's input.
    """
    if "understanding" in record:
        return record["understanding"]
    reduction = record.get("reduction") or {}
    return (reduction.get("input") or {}).get("understanding")


def recorded_brief(record: Any) -> Brief | None:
    """Return the :class:`Brief` the recorded understanding read, or ``None``.

    A turn read by the model chain records its brief in ``reading.brief`` (I20); a turn
    read by a scripted understander, a click-only turn or a record without a reading
    holds none. The runtime's callbacks (the domain check, the step listener) are not
    data and come back unset.

    Raises:
        KeyError: a recorded brief lacks a field :func:`brief_from_json` needs.
    """
    reading = record.get("reading") if isinstance(record, dict) else None
    data = reading.get("brief") if isinstance(reading, dict) else None
    return brief_from_json(data) if isinstance(data, dict) else None


def recorded_seen(record: Any) -> dict[CaseRef, int]:
    """Return case → revision for every case the turn loaded, as its record says.

    The record's optional ``seen`` is a list of ``["workflow/case_id", revision]`` pairs
    (revision 0: the case did not exist yet). A record without it (every record written
    before it, docs/shadow.md "Outside the record") or with a malformed pair gives what
    it can read: an item that is not such a pair is left out, never guessed.
    """
    raw = record.get("seen") if isinstance(record, dict) else None
    out: dict[CaseRef, int] = {}
    for item in raw if isinstance(raw, list) else ():
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
            continue
        workflow, _, case_id = item[0].partition("/")
        revision = item[1]
        if workflow and case_id and isinstance(revision, int) and not isinstance(revision, bool):
            out[CaseRef(workflow, case_id)] = revision
    return out


def _expanded(data: Any) -> Any:
    """Return a reduction input's JSON with every by-id reference replaced by its value."""
    acts_by_id = {a.get("id"): a for a in (data.get("understanding") or {}).get("acts", [])}
    acts = [
        {**a, "act": acts_by_id[a["act"]]} if isinstance(a.get("act"), str) else a
        for a in data["acts"]
    ]
    click = data["click"]
    if isinstance(click, dict) and isinstance(click.get("interaction"), str):
        cards = {c.get("id"): c for c in data["cards_on_screen"]}
        click = {**click, "interaction": cards[click["interaction"]]}
    return {**data, "acts": acts, "click": click}


def reduction_input(data: Any, registry: WorkflowRegistry) -> ReductionInput:
    """Return the reducer's input a replay record holds, each state projected again.

    Raises:
        pydantic.ValidationError: when the record does not hold a reduction input.
        KeyError: when a by-id reference names no act of the understanding or no card
            on screen.
        RegistryError: when a recorded case's workflow is not registered.
    """
    registry = recorded_registry(data, registry)
    data = _expanded(data)
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
    registry = recorded_registry(record["input"], registry)
    plan = reduce_turn(reduction_input(record["input"], registry), registry)
    again = plan_json(plan)
    return again == record["plan"], again
