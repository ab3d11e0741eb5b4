"""Extract: each argument's value as the user's words, pointed at by word number (task 5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from turnframe.core.glossary import GlossaryEntry
from turnframe.core.ids import JSONObject
from turnframe.core.operations import ArgumentKind, OperationSpec
from turnframe.providers.base import Needs
from turnframe.tasks import schema as s
from turnframe.tasks.task import Task
from turnframe.understand.brief import BriefRecord
from turnframe.understand.glossary import glossary_data
from turnframe.understand.prompts import prompt
from turnframe.understand.units import Unit, operation_data, owned_by_other, record_data
from turnframe.understand.words import Words, strip_edges

__all__ = ["extract_task", "read_values"]


def _value_schema(
    spec: OperationSpec, candidates: Mapping[str, Sequence[BriefRecord]], words: Sequence[int]
) -> JSONObject:
    # ``words``: the word numbers a value may point at (I2, docs/adr/0018).
    options = []
    for arg in spec.arguments:
        props: dict[str, JSONObject] = {
            "argument": s.const(arg.name),
            "from": s.word_set(words),
            "to": s.word_set(words),
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
    return s.obj({"values": s.array(s.any_of(options), max_items=max(1, len(options)))})


def extract_task(
    words: Words,
    unit: Unit,
    units: Sequence[Unit],
    spec: OperationSpec,
    locale: str,
    candidates: Mapping[str, Sequence[BriefRecord]],
    *,
    finding: str | None = None,
    key: str = "",
    asked: tuple[str | None, str] | None = None,
    glossary: Sequence[GlossaryEntry] = (),
) -> Task:
    """Return the extract task for one act of ``unit`` under operation ``spec``.

    Args:
        words: the message.
        unit: the act's unit.
        units: every unit (a value in another unit's words is read again, told whose).
        spec: the routed operation.
        locale: the turn's language (argument labels in it).
        candidates: record argument name → the records in view it may name.
        finding: a verifier's finding or the domain's refusal to read again against.
        key: the act this extraction is for (distinguishes requests in records).
        asked: (the last reply's question, the argument it asked for) when this act
            takes the answer.
        glossary: the domain's words the act is read with
            (:func:`~turnframe.understand.glossary.act_glossary`).
    """
    instructions, prompt_id = prompt("extract")
    own = [unit] + [u for u in units if u.id == unit.continues]
    # A value lies in the unit's own words, the words it continues, or words no unit holds.
    allowed = [
        n
        for n in range(len(words))
        if any(u.holds(n) for u in own) or not any(u.holds(n) for u in units)
    ]

    def check(answer: Any) -> str | None:
        seen: set[str] = set()
        for n, v in enumerate(answer["values"]):
            where = f"values[{n}] ({v['argument']})"
            if v["argument"] in seen:
                return f"{where}: the argument is given twice"
            seen.add(v["argument"])
            problem = words.pointer_error(v["copy"], v["from"], v["to"])
            if problem:
                return f"{where}: {problem}"
            other = owned_by_other(unit, units, v["from"], v["to"])
            if other is not None:
                return (
                    f"{where}: words {v['from']}-{v['to']} belong to unit {other.id} "
                    f"({other.text(words)!r}), not to this request; take values from its own words"
                )
            if "record" in v and v["record"] is not None and v["literal"] is not None:
                return f"{where}: give a record or an allowed word, not both"
        return None

    data: dict[str, Any] = {
        "message": words.numbered(),
        "unit": {
            "id": unit.id,
            "words": " | ".join(words.numbered(u.start, u.end) for u in own),
        },
        "operation": operation_data(spec, locale),
        **({"glossary": glossary_data(glossary)} if glossary else {}),
        "data": {
            "record_candidates": {
                name: record_data(recs, briefing=False) for name, recs in candidates.items()
            },
            "allowed_words": {a.name: list(a.literals) for a in spec.arguments if a.literals},
        },
        **({"for": key} if key else {}),
    }
    if asked:
        data["last_reply_asked"] = {"question": asked[0], "argument": asked[1]}
    if finding:
        data["read_again"] = finding
    return Task(
        name="extract",
        instructions=instructions,
        prompt_id=prompt_id,
        data=data,
        schema=_value_schema(spec, candidates, allowed),
        check=check,
        needs=Needs(),
    )


def read_values(answer: Any, words: Words) -> tuple[dict[str, str], dict[str, str]]:
    """Return ``(args, evidence)`` of a checked extract answer.

    A choice's value is the choice, a record's its handle (or allowed word); any other
    value is the user's own words at the span the answer points at (``words``), without
    the sentence punctuation at its edges (:func:`strip_edges`), which code evaluates
    (dates, amounts) in the turn's locale. The model's copy only has to repeat them
    loosely; it is never the stored value (docs/adr/0015-values-in-the-turns-locale.md,
    docs/adr/0018).
    """
    args: dict[str, str] = {}
    evidence: dict[str, str] = {}
    for v in answer["values"]:
        name = v["argument"]
        said = v["copy"]
        if words.repeats(v["copy"], v["from"], v["to"]):
            said = words.span(v["copy"], v["from"], v["to"])
        evidence[name] = said
        if "choice" in v:
            args[name] = v["choice"]
        elif "record" in v and (v["record"] or v["literal"]):
            args[name] = v["record"] or v["literal"]
        else:
            # The user's words at the pointed span, without the sentence punctuation a
            # numbered word carries ("Costa," → "Costa"): docs/adr/0015, docs/adr/0018.
            args[name] = strip_edges(said)
    return args, evidence
