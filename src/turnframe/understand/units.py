"""Units of a message and the records a task may see, as data (shared by the task modules)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import JSONObject, JSONValue
from turnframe.core.operations import ArgumentKind, OperationSpec
from turnframe.tasks import schema as s
from turnframe.understand.brief import BRIEFING_CUT_MARK, RECORDS_CUT_NOTE, Brief, BriefRecord
from turnframe.understand.words import Words

__all__ = [
    "MAX_UNITS",
    "UNIT_KINDS",
    "Unit",
    "card_data",
    "operation_data",
    "owned_by_other",
    "record_data",
    "records_cut_data",
    "target_schema",
    "values_array",
    "values_schema",
]

MAX_UNITS = 24
"""The most units one message is split into."""

UNIT_KINDS = ("request", "question", "constraint", "card_answer", "cancellation", "other")
"""What one unit of a message does."""


@fast_init
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
    or words no other unit holds (docs/architecture.md "Understanding").
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


def records_cut_data(brief: Brief) -> JSONObject:
    """Return ``{"records_cut": RECORDS_CUT_NOTE}`` when the brief's records were cut, else ``{}``.

    Shown beside ``records`` wherever a task reads the brief's records, so a default view
    cut at ``BriefLimits.recent`` is never silent (docs/adr/0020-what-a-brief-shows.md).
    """
    return {"records_cut": RECORDS_CUT_NOTE} if brief.records_cut else {}


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


def target_schema(handles: Sequence[str], words: int) -> JSONObject:
    """Return the schema of a located target: the candidate handles, or the words naming another.

    ``handles``: the candidates on offer (none: the only choice is ``find``); ``words``:
    the message's length, bounding the pointer (I2, docs/adr/0018-decoder-enforceable-schemas.md).
    Shared by the locate task and the merged low-effort read.
    """
    pointer = s.obj(
        {
            "from": s.pointer(words),
            "to": s.pointer(words),
            "copy": s.string(max_length=200),
        }
    )
    return s.obj(
        {
            # No record in view: the only choice is none of them, then ``find``.
            "handles": (
                s.array(s.enum(handles), max_items=len(handles), unique=True)
                if handles
                else s.array({"type": "null"}, max_items=0)
            ),
            "find": s.any_of([pointer], nullable=True),
        }
    )


def values_schema(
    spec: OperationSpec, candidates: Mapping[str, Sequence[BriefRecord]], words: Iterable[int]
) -> JSONObject:
    """Return the schema of an extraction's answer ``{"values": [...]}`` (:func:`values_array`)."""
    return s.obj({"values": values_array(spec, candidates, words)})


def values_array(
    spec: OperationSpec, candidates: Mapping[str, Sequence[BriefRecord]], words: Iterable[int]
) -> JSONObject:
    """Return the schema of an extraction's values for ``spec`` (one ``anyOf`` branch per argument).

    ``candidates``: record argument name → the records it may name; ``words``: the word
    numbers a value may point at (I2, docs/adr/0018-decoder-enforceable-schemas.md).
    Shared by the extract task and the merged low-effort read.
    """
    allowed = list(words)
    options = []
    for arg in spec.arguments:
        props: dict[str, JSONObject] = {
            "argument": s.const(arg.name),
            "from": s.word_set(allowed),
            "to": s.word_set(allowed),
            "copy": s.string(max_length=200),
        }
        if arg.kind is ArgumentKind.CHOICE:
            props["choice"] = s.enum(arg.choices)
        if arg.kind is ArgumentKind.RECORD:
            props["record"] = s.enum(
                [c.handle for c in candidates.get(arg.name, ())], nullable=True
            )
            props["literal"] = s.enum(arg.literals, nullable=True)
        options.append(s.obj(props))
    return s.array(s.any_of(options), max_items=max(1, len(options)))
