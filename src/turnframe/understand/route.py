"""Route: each unit's operations from the closed catalog, topic, constraint or card (task 3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from turnframe.core.acts import ConstraintKind, ConstraintScope
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import JSONObject
from turnframe.providers.base import Needs
from turnframe.tasks import schema as s
from turnframe.tasks.task import Task
from turnframe.understand.brief import Brief
from turnframe.understand.glossary import glossary_data, offered_glossary
from turnframe.understand.prompts import prompt
from turnframe.understand.units import (
    Unit,
    card_data,
    operation_data,
    record_data,
    records_cut_data,
    waiting_data,
)
from turnframe.understand.words import Words

__all__ = ["Route", "read_routes", "route_task"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Route:
    """How one unit was routed."""

    unit: str
    operations: tuple[str, ...] = ()
    topic: str | None = None
    constraint: tuple[str, str] | None = None
    card: tuple[str, str] | None = None
    corrects: str | None = None
    cancels: str | None = None


def route_task(
    brief: Brief,
    words: Words,
    units: Sequence[Unit],
    everyone: Sequence[Unit],
    *,
    votes: int = 1,
    reasoning: str | None = None,
    note: str | None = None,
) -> Task:
    """Return the route task for ``units`` (``everyone``: all the message's units, for links)."""
    offered = brief.offered_operations()
    ids = [u.id for u in units]
    # A link may also name a pending act of an earlier turn, by an id the brief offers
    # (on a card on screen, or waiting for a record) — like a handle (ADR 0012).
    all_ids = [u.id for u in everyone] + [r for r in brief.pending_refs() if r not in ids]
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
    none: JSONObject = {"type": "null"}

    def item(unit: Unit) -> JSONObject:
        # One branch per unit: what its kind allows and nothing else, and links only to
        # the message's other units (I2, docs/adr/0018-decoder-enforceable-schemas.md).
        kind = unit.kind
        others = [i for i in all_ids if i != unit.id]
        return s.obj(
            {
                "unit": s.const(unit.id),
                "operations": (
                    s.array(s.enum(offered), max_items=8 if kind == "request" else 0, unique=True)
                    if offered
                    else s.array(none, max_items=0)
                ),
                "topic": s.enum(brief.topics, nullable=True) if kind == "question" else none,
                "constraint": constraint if kind == "constraint" else none,
                # Never an empty choice: an unsatisfiable schema is one a decoder cannot
                # compile, and llama.cpp then decodes with no grammar at all.
                "card": s.any_of(cards) if kind == "card_answer" and cards else none,
                "corrects": s.enum(others, nullable=True) if kind == "request" else none,
                "cancels": s.enum(others) if kind == "cancellation" and others else none,
            }
        )

    kinds = {u.id: u.kind for u in units}
    notes = dict(brief.topic_notes)
    instructions, prompt_id = prompt("route")

    def check(answer: Any) -> str | None:
        seen: set[str] = set()
        for n, r in enumerate(answer["routes"]):
            where = f"routes[{n}]"
            unit = r["unit"]
            if unit in seen:
                return f"{where}: unit {unit} is routed twice"
            seen.add(unit)
            kind = kinds[unit]
            if r["operations"] and kind != "request":
                return f"{where}: a {kind} unit takes no operations"
            if r["constraint"] is not None and kind != "constraint":
                return f"{where}: only a constraint unit has a constraint"
            if kind == "constraint" and r["constraint"] is None:
                return f"{where}: a constraint unit needs its constraint"
            if r["card"] is not None and kind != "card_answer":
                return f"{where}: only a card_answer unit answers a card"
            if kind == "card_answer" and r["card"] is None:
                return f"{where}: a card_answer unit needs its card and option"
            if r["topic"] is not None and kind != "question":
                return f"{where}: only a question unit has a topic"
            if kind == "cancellation" and r["cancels"] is None and len(all_ids) > 1:
                # With nothing else to cancel, the cancellation stands alone and the
                # reducer says nothing was changed.
                return f"{where}: a cancellation unit needs the unit it cancels"
            if r["cancels"] is not None and kind != "cancellation":
                return f"{where}: only a cancellation unit cancels"
            if unit in (r["corrects"], r["cancels"]):
                return f"{where}: a unit cannot correct or cancel itself"
        missing = [i for i in ids if i not in seen]
        if missing:
            return f"every unit must be routed; missing: {', '.join(missing)}"
        return None

    specs = [brief.operation(k) for k in offered]
    data: dict[str, Any] = {
        "units": [
            {
                "id": u.id,
                "kind": u.kind,
                "hypothetical": u.hypothetical,
                "words": u.text(words),
            }
            for u in units
        ],
        "other_units": [
            {"id": u.id, "kind": u.kind, "words": u.text(words)}
            for u in everyone
            if u.id not in ids
        ],
        "operations_on_offer": [operation_data(spec, brief.locale) for spec in specs if spec],
        "topics": [
            {"topic": t, **({"answers": notes[t]} if t in notes else {})} for t in brief.topics
        ],
        **({"glossary": glossary_data(glossary)} if (glossary := offered_glossary(brief)) else {}),
        "last_reply_asked": brief.asked,
        "data": {
            "records": record_data(brief.records),
            **records_cut_data(brief),
            "cards_on_screen": card_data(brief),
            **({"waiting_acts": waiting_data(brief)} if brief.waiting else {}),
        },
    }
    if note:
        data["note"] = note
    return Task(
        name="route",
        instructions=instructions,
        prompt_id=prompt_id,
        data=data,
        schema=s.obj(
            {
                "routes": s.array(
                    s.any_of([item(u) for u in units]),
                    max_items=max(1, len(units)),
                    min_items=len(units),
                )
            }
        ),
        check=check,
        needs=Needs(),
        votes=votes,
        tiebreak=votes > 1,
        reasoning=reasoning,
    )


def read_routes(answer: Any) -> dict[str, Route]:
    """Return unit id → route for a checked route answer."""
    out: dict[str, Route] = {}
    for r in answer["routes"]:
        constraint = r["constraint"]
        card = r["card"]
        out[r["unit"]] = Route(
            unit=r["unit"],
            operations=tuple(r["operations"]),
            topic=r["topic"],
            constraint=(constraint["kind"], constraint["scope"]) if constraint else None,
            card=(card["interaction"], card["option"]) if card else None,
            corrects=r["corrects"],
            cancels=r["cancels"],
        )
    return out
