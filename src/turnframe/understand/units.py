"""Units of a message and the records a task may see, as data (shared by the task modules)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from turnframe.core.ids import JSONObject, JSONValue
from turnframe.core.operations import OperationSpec
from turnframe.understand.brief import BRIEFING_CUT_MARK, Brief, BriefRecord
from turnframe.understand.words import Words

__all__ = [
    "UNIT_KINDS",
    "Unit",
    "card_data",
    "operation_data",
    "owned_by_other",
    "record_data",
]

UNIT_KINDS = ("request", "question", "constraint", "card_answer", "cancellation", "other")
"""What one unit of a message does."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Unit:
    """A contiguous run of a message's words doing one thing.

    Attributes:
        id: ``u1``, ``u2``... in message order.
        kind: one of :data:`UNIT_KINDS`.
        start: first word number.
        end: last word number (inclusive).
        hypothetical: asks only what would happen.
        continues: the unit it adds details to, if any.
    """

    id: str
    kind: str
    start: int
    end: int
    hypothetical: bool = False
    continues: str | None = None

    def holds(self, n: int) -> bool:
        """Return whether word ``n`` is this unit's."""
        return self.start <= n <= self.end

    def text(self, words: Words) -> str:
        """Return the unit's words."""
        return words.text(self.start, self.end)


def owned_by_other(unit: Unit, units: Sequence[Unit], start: int, end: int) -> Unit | None:
    """Return the other unit whose words ``start``..``end`` touch, if any.

    A value is its unit's when it lies in the unit's own words, the words it continues,
    or words no other unit holds (guide §5).
    """
    mine = {unit.id}
    if unit.continues:
        mine.add(unit.continues)
    for other in units:
        if other.id in mine:
            continue
        if any(other.holds(n) for n in range(start, end + 1)):
            return other
    return None


def record_data(records: Iterable[BriefRecord], *, briefing: bool = True) -> list[JSONValue]:
    """Return records as a task sees them: handle, label, phase, open items (all data).

    With ``briefing``, a record's briefing too; one the :class:`BriefingBudget` cut ends
    with :data:`BRIEFING_CUT_MARK` and says how much is not shown
    (docs/adr/0020-what-a-brief-shows.md).
    """
    out: list[JSONValue] = []
    for r in records:
        item: JSONObject = {
            "handle": r.handle,
            "kind_of_record": r.workflow,
            "label": r.label,
            "phase": r.phase,
            "open": list(r.obligations),
        }
        if briefing and (r.briefing or r.briefing_cut):
            # A cut is marked where the task reads it, never silent (BriefingBudget).
            item["briefing"] = r.briefing + (BRIEFING_CUT_MARK if r.briefing_cut else "")
            if r.briefing_cut:
                item["briefing_cut"] = f"{r.briefing_cut} characters not shown"
        out.append(item)
    return out


def operation_data(spec: OperationSpec, locale: str) -> JSONObject:
    """Return an operation as a task sees it: key, summary in the turn's language, arguments."""
    return {
        "key": spec.key,
        "summary": spec.summary_in(locale),
        "arguments": [
            {
                "name": a.name,
                "label": a.labels.get(locale) or a.labels.get(locale[:2]) or a.label or a.name,
                "description": a.description,
                "kind": a.kind.value,
                "required": a.required,
                **({"choices": list(a.choices)} if a.choices else {}),
            }
            for a in spec.arguments
        ],
    }


def card_data(brief: Brief) -> list[JSONValue]:
    """Return the cards on screen as data."""
    return [
        {
            "card": c.interaction_id,
            "kind": c.kind,
            "prompt": c.prompt,
            "options": [{"option": o, "label": label} for o, label in c.options],
            **(
                {"pending_acts": [{"id": a.ref, "does": a.summary} for a in c.acts]}
                if c.acts
                else {}
            ),
        }
        for c in brief.cards
    ]


def waiting_data(brief: Brief) -> list[JSONValue]:
    """Return the earlier turns' acts waiting for a record, as data (ADR 0012)."""
    return [{"id": w.ref, "does": w.summary} for w in brief.waiting]
