"""Merged reads: several steps of the chain asked in one call (low and medium effort).

``segment_route`` (medium) asks segmentation and routing at once; ``read`` (low) also
asks, for each operation a request unit names, its target (locate) and its values
(extract). A merged answer is split back into the parts each step would have answered
(:func:`split_answer`), and :mod:`turnframe.understand.pipeline` checks every part with
the very task the step-by-step chain would have asked (its full schema and its code
check) before anything uses it (docs/architecture.md "Effort").

The schema carries every rule a decoder can enforce without knowing the answer's own
units (docs/adr/0018-decoder-enforceable-schemas.md): unit ids, kinds, word pointers
bounded by the message, one branch per unit kind carrying only the route fields that
kind allows, the operations on offer, each operation's candidate handles, arguments,
choices and literals. What depends on the units the same answer gives (a value in
another unit's words, a unit linking to itself, a unit routed twice) is checked by
code with the step's own task (docs/architecture.md "Effort").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from turnframe.core.acts import ConstraintKind, ConstraintScope
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import JSONObject, JSONValue
from turnframe.core.operations import OperationSpec
from turnframe.providers.base import Needs
from turnframe.tasks import schema as s
from turnframe.tasks.task import Check, Task
from turnframe.understand.brief import Brief, BriefRecord
from turnframe.understand.effort import Merge
from turnframe.understand.prompts import composed_prompt
from turnframe.understand.units import (
    MAX_UNITS,
    UNIT_KINDS,
    card_data,
    operation_data,
    record_data,
    records_cut_data,
    target_schema,
    values_array,
    waiting_data,
)
from turnframe.understand.words import Words

__all__ = [
    "MERGED_TASKS",
    "ActOffer",
    "MergedAct",
    "MergedParts",
    "merged_task",
    "script_merge",
    "split_answer",
]

MERGED_TASKS = ("segment_route", "read")
"""The merged tasks' names: segmentation and routing; and the whole reading (low effort)."""

_NONE: JSONObject = {"type": "null"}
_EMPTY: JSONObject = s.array(_NONE, max_items=0)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ActOffer:
    """What the merged read asks for one operation on offer (low effort).

    Attributes:
        spec: the operation.
        candidates: the records its target may be, when the locate step would ask
            (``None``: code knows the target, a new record or the one candidate).
        record_candidates: record argument name → the records it may name.
    """

    spec: OperationSpec
    candidates: tuple[BriefRecord, ...] | None
    record_candidates: Mapping[str, Sequence[BriefRecord]] = field(default_factory=dict)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class MergedAct:
    """One operation a request unit of a merged read asks for, with its parts.

    Attributes:
        unit: the request unit's id.
        operation: the operation's key.
        target: the locate step's answer (``{"handles", "find"}``), or ``None``.
        values: the extract step's answer (``{"values": [...]}``).
    """

    unit: str
    operation: str
    target: dict[str, Any] | None
    values: dict[str, Any]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class MergedParts:
    """A merged answer as the answers of the steps it merges.

    Attributes:
        segment: the segment step's answer (``{"units": [...]}``).
        route: the route step's answer for every unit but ``other`` (``{"routes": [...]}``).
        acts: each request unit's operations in order, with their parts (``read`` only).
    """

    segment: dict[str, Any]
    route: dict[str, Any]
    acts: tuple[MergedAct, ...] = ()


_SEGMENT_FIELDS = ("id", "kind", "from", "to", "hypothetical", "continues")
_ROUTE_FIELDS = ("topic", "constraint", "card", "corrects", "cancels")


def merged_task(
    brief: Brief,
    words: Words,
    *,
    offers: Mapping[str, ActOffer] | None,
    check: Check,
    votes: int = 1,
    reasoning: str | None = None,
    glossary: Sequence[JSONValue] = (),
) -> Task:
    """Return the merged read of ``brief``'s message.

    Args:
        brief: the turn's brief.
        words: its message.
        offers: operation key → what to ask for it (``read``, low effort); ``None`` asks
            segmentation and routing only (``segment_route``, medium effort).
        check: the code check of a schema-valid answer: the pipeline's check of every
            part with the task the step-by-step chain would have asked.
        votes: reads to cast (a split vote is read once more).
        reasoning: the reasoning effort to ask for.
        glossary: the domain's words as the route and extract steps see them (data),
            sent under ``"glossary"`` when there are any.
    """
    name = "segment_route" if offers is None else "read"
    parts = ("segment", "route") if offers is None else ("segment", "route", "locate", "extract")
    instructions, prompt_id = composed_prompt(name, parts)
    most = max(1, min(MAX_UNITS, len(words)))
    ids = [f"u{n}" for n in range(1, most + 1)]
    links = ids + list(brief.pending_refs())
    offered = list(brief.offered_operations())
    kinds = [k for k in UNIT_KINDS if k != "card_answer" or brief.cards]
    cards = [
        s.obj(
            {"interaction": s.const(c.interaction_id), "option": s.enum([o for o, _ in c.options])}
        )
        for c in brief.cards
    ]
    constraint = s.obj(
        {
            "kind": s.enum([k.value for k in ConstraintKind]),
            "scope": s.enum([k.value for k in ConstraintScope]),
        }
    )
    pointer = s.pointer(len(words))

    def act(key: str, offer: ActOffer) -> JSONObject:
        return s.obj(
            {
                "operation": s.const(key),
                "target": (
                    target_schema([c.handle for c in offer.candidates], len(words))
                    if offer.candidates is not None
                    else _NONE
                ),
                "values": (
                    values_array(offer.spec, offer.record_candidates, range(len(words)))
                    if offer.spec.arguments
                    else _EMPTY
                ),
            }
        )

    def requested() -> JSONObject:
        if offers is None:
            return s.array(s.enum(offered), max_items=8, unique=True) if offered else _EMPTY
        branches = [act(k, offers[k]) for k in offered if k in offers]
        return s.array(s.any_of(branches), max_items=8) if branches else _EMPTY

    def branch(kind: str) -> JSONObject:
        # One branch per kind: the route fields that kind allows and nothing else.
        fields: dict[str, JSONObject] = {
            "id": s.enum(ids),
            "kind": s.const(kind),
            "from": pointer,
            "to": pointer,
            "hypothetical": s.boolean(),
            "continues": s.enum(ids, nullable=True),
            ("operations" if offers is None else "acts"): (
                requested() if kind == "request" else _EMPTY
            ),
            "topic": s.enum(brief.topics, nullable=True) if kind == "question" else _NONE,
            "constraint": constraint if kind == "constraint" else _NONE,
            "card": s.any_of(cards) if kind == "card_answer" and cards else _NONE,
            "corrects": s.enum(links, nullable=True) if kind == "request" else _NONE,
            "cancels": s.enum(links, nullable=True) if kind == "cancellation" else _NONE,
        }
        return s.obj(fields)

    notes = dict(brief.topic_notes)
    specs = [brief.operation(k) for k in offered]
    data: dict[str, Any] = {
        "message": words.numbered(),
        "locale": brief.locale,
        "last_reply_asked": brief.asked,
        "operations_on_offer": [operation_data(spec, brief.locale) for spec in specs if spec],
        "topics": [
            {"topic": t, **({"answers": notes[t]} if t in notes else {})} for t in brief.topics
        ],
        **({"glossary": list(glossary)} if glossary else {}),
        "data": {
            "records": record_data(brief.records),
            **records_cut_data(brief),
            "cards_on_screen": card_data(brief),
            **({"waiting_acts": waiting_data(brief)} if brief.waiting else {}),
        },
    }
    if offers is not None:
        data["data"]["targets"] = {
            k: [c.handle for c in o.candidates]
            for k, o in offers.items()
            if o.candidates is not None
        }
        # Handles only: each record is shown once, under "records".
        data["data"]["record_candidates"] = {
            k: {a: [r.handle for r in recs] for a, recs in o.record_candidates.items()}
            for k, o in offers.items()
            if o.record_candidates
        }
        data["data"]["allowed_words"] = {
            k: {a.name: list(a.literals) for a in o.spec.arguments if a.literals}
            for k, o in offers.items()
            if any(a.literals for a in o.spec.arguments)
        }
        asked = brief.asked_for
        if asked is not None and asked.operation:
            data["last_reply_asked_for"] = {
                "operation": asked.operation,
                "argument": asked.argument,
                "record": asked.record,
            }
    return Task(
        name=name,
        instructions=instructions,
        prompt_id=prompt_id,
        data=data,
        schema=s.obj({"units": s.array(s.any_of([branch(k) for k in kinds]), max_items=most)}),
        check=check,
        needs=Needs(),
        votes=votes,
        tiebreak=votes > 1,
        reasoning=reasoning,
    )


def split_answer(answer: Any) -> MergedParts:
    """Return a schema-valid merged answer as the answers of the steps it merges.

    The segment part keeps the units in the answer's order; the route part routes every
    unit but ``other`` (with ``read``, a request's operations are its acts' operations,
    in order); each act keeps its unit. Nothing is checked here: the pipeline checks
    each part with its step's own task.
    """
    units = answer["units"]
    segment = {"units": [{k: u[k] for k in _SEGMENT_FIELDS} for u in units]}
    routes = []
    acts: list[MergedAct] = []
    for u in units:
        if u["kind"] == "other":
            continue
        if "acts" in u:
            operations = [a["operation"] for a in u["acts"]]
            acts.extend(
                MergedAct(
                    unit=u["id"],
                    operation=a["operation"],
                    target=a["target"],
                    values={"values": a["values"]},
                )
                for a in u["acts"]
            )
        else:
            operations = list(u["operations"])
        routes.append(
            {"unit": u["id"], "operations": operations, **{k: u[k] for k in _ROUTE_FIELDS}}
        )
    return MergedParts(segment=segment, route={"routes": routes}, acts=tuple(acts))


def script_merge(provider: object) -> Merge | None:
    """Return ``Merge.NONE`` for a table of scripted answers that scripts the steps only.

    Such a table (a scenario's ``model_answers``, ``--model scripted:FILE``) has no
    answer for a merged read, so it is read step by step at every effort; any other
    provider (a function, a vendor, a table that scripts ``read`` or ``segment_route``)
    is read as its effort says (``None``; docs/architecture.md "Effort").
    """
    tasks = getattr(provider, "tasks", None)
    if isinstance(tasks, frozenset) and tasks and not tasks & set(MERGED_TASKS):
        return Merge.NONE
    return None
