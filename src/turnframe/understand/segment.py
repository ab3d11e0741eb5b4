"""Segment: split a message into units (task 1 of the chain).

See docs/architecture.md "Understanding".
"""

from __future__ import annotations

import re
from typing import Any

from turnframe.providers.base import Needs
from turnframe.tasks import schema as s
from turnframe.tasks.task import Task
from turnframe.understand.brief import Brief
from turnframe.understand.prompts import prompt
from turnframe.understand.units import MAX_UNITS, UNIT_KINDS, Unit, card_data
from turnframe.understand.words import Words

__all__ = ["MAX_UNITS", "read_units", "segment_task"]

_ID = re.compile(r"^u[1-9][0-9]*$")


def segment_task(
    brief: Brief, words: Words, *, votes: int = 1, reasoning: str | None = None
) -> Task:
    """Return the segment task for ``brief``'s message."""
    kinds = [k for k in UNIT_KINDS if k != "card_answer" or brief.cards]
    # Every rule a decoder can enforce is in the schema (I2, docs/adr/0018): unit ids are
    # the enum u1..uN, ``continues`` names one of them, word numbers lie in the message.
    most = max(1, min(MAX_UNITS, len(words)))
    ids = [f"u{n}" for n in range(1, most + 1)]
    unit = s.obj(
        {
            "id": s.enum(ids),
            "kind": s.enum(kinds),
            "from": s.pointer(len(words)),
            "to": s.pointer(len(words)),
            "hypothetical": s.boolean(),
            "continues": s.enum(ids, nullable=True),
        }
    )
    instructions, prompt_id = prompt("segment")
    last = len(words) - 1

    def check(answer: Any) -> str | None:
        units = answer["units"]
        if not units and len(words):
            return "the message has words, so it has at least one unit"
        seen: list[str] = []
        taken: dict[int, str] = {}
        for n, u in enumerate(units):
            where = f"units[{n}]"
            if not _ID.match(u["id"]) or u["id"] in seen:
                return f"{where}.id {u['id']!r} must be a new id of the form u1, u2, ..."
            if u["from"] > u["to"] or u["to"] > last:
                return f"{where} spans words {u['from']}-{u['to']}; the message has words 0-{last}"
            for i in range(u["from"], u["to"] + 1):
                if i in taken:
                    return f"{where} overlaps {taken[i]} at word {i}"
                taken[i] = u["id"]
            if u["continues"] is not None and u["continues"] not in seen:
                return f"{where}.continues must name an earlier unit, not {u['continues']!r}"
            seen.append(u["id"])
        return None

    return Task(
        name="segment",
        instructions=instructions,
        prompt_id=prompt_id,
        data={
            "message": words.numbered(),
            "locale": brief.locale,
            "last_reply_asked": brief.asked,
            "data": {"cards_on_screen": card_data(brief)},
        },
        schema=s.obj({"units": s.array(unit, max_items=most)}),
        check=check,
        needs=Needs(),
        votes=votes,
        tiebreak=votes > 1,
        reasoning=reasoning,
    )


def read_units(answer: Any) -> tuple[Unit, ...]:
    """Return the units of a checked segment answer, in message order."""
    units = [
        Unit(
            id=u["id"],
            kind=u["kind"],
            start=u["from"],
            end=u["to"],
            hypothetical=bool(u["hypothetical"]),
            continues=u["continues"],
        )
        for u in answer["units"]
    ]
    return tuple(sorted(units, key=lambda u: u.start))
