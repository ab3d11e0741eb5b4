"""Coverage: check that the units missed nothing the user wanted (task 2).

See docs/architecture.md "Understanding".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from turnframe.core.ids import JSONObject
from turnframe.providers.base import Needs
from turnframe.tasks import schema as s
from turnframe.tasks.task import Task
from turnframe.understand.prompts import prompt
from turnframe.understand.units import UNIT_KINDS, Unit
from turnframe.understand.words import Words, normalize

__all__ = ["coverage_task", "gaps", "read_missed"]


def gaps(words: Words, units: Sequence[Unit]) -> list[tuple[int, int]]:
    """Return the runs of words no unit holds that carry any letter or digit (code decides)."""
    held = {n for u in units for n in range(u.start, u.end + 1)}
    runs: list[tuple[int, int]] = []
    start: int | None = None
    for n in range(len(words) + 1):
        free = n < len(words) and n not in held
        if free and start is None:
            start = n
        elif not free and start is not None:
            if any(normalize(words.tokens[i]) for i in range(start, n)):
                runs.append((start, n - 1))
            start = None
    return runs


NOTHING: JSONObject = {"type": "null"}
"""The item schema of a list that must stay empty."""


def coverage_task(
    words: Words,
    units: Sequence[Unit],
    runs: Sequence[tuple[int, int]],
    *,
    reasoning: str | None = None,
    cards: bool = True,
) -> Task:
    """Return the coverage task over the uncovered ``runs``.

    ``cards``: a card is on screen (else ``card_answer`` is not a kind on offer). The
    schema carries every rule a decoder can enforce (I2, docs/adr/0018): a missed unit's
    word numbers are words of an uncovered run.
    """
    instructions, prompt_id = prompt("coverage")
    free = [n for a, b in runs for n in range(a, b + 1)]
    kinds = [k for k in UNIT_KINDS if k != "other" and (cards or k != "card_answer")]
    missed = s.obj(
        {
            "from": s.word_set(free),
            "to": s.word_set(free),
            "kind": s.enum(kinds),
        }
    )

    def check(answer: Any) -> str | None:
        for n, m in enumerate(answer["missed"]):
            if not any(a <= m["from"] <= m["to"] <= b for a, b in runs):
                return (
                    f"missed[{n}] spans words {m['from']}-{m['to']}, which is not inside an "
                    f"uncovered run ({', '.join(f'{a}-{b}' for a, b in runs)})"
                )
        return None

    return Task(
        name="coverage",
        instructions=instructions,
        prompt_id=prompt_id,
        data={
            "message": words.numbered(),
            "units": [{"id": u.id, "kind": u.kind, "words": f"{u.start}-{u.end}"} for u in units],
            "uncovered": [f"{a}-{b}: {words.text(a, b)}" for a, b in runs],
        },
        # With no uncovered word nothing can be missed: the only answer is an empty list
        # (an item schema of empty enums would be one no decoder can compile).
        schema=s.obj(
            {"missed": s.array(missed, max_items=12) if free else s.array(NOTHING, max_items=0)}
        ),
        check=check,
        needs=Needs(),
        reasoning=reasoning,
    )


def read_missed(answer: Any, units: Sequence[Unit]) -> tuple[Unit, ...]:
    """Return the missed units as new units numbered after ``units``."""
    taken = {u.id for u in units}
    n = len(units)
    found: list[Unit] = []
    for m in answer["missed"]:
        n += 1
        while f"u{n}" in taken:
            n += 1
        found.append(Unit(id=f"u{n}", kind=m["kind"], start=m["from"], end=m["to"]))
    return tuple(found)
