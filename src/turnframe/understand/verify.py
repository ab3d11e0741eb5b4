"""Verify: check one act against the user's words (task 6); the one check before a command."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from turnframe.core.dataclass_init import fast_init
from turnframe.core.glossary import GlossaryEntry
from turnframe.core.ids import JSONObject
from turnframe.core.operations import OperationSpec
from turnframe.providers.base import Needs
from turnframe.tasks import schema as s
from turnframe.tasks.task import Task
from turnframe.understand.glossary import glossary_data
from turnframe.understand.prompts import prompt
from turnframe.understand.units import Unit
from turnframe.understand.words import Words

__all__ = ["PROBLEMS", "VALUE_PROBLEMS", "Verdict", "read_verdict", "verify_task"]

PROBLEMS = (
    "too_much",
    "too_little",
    "wrong_value",
    "wrong_operation",
    "wrong_record",
    "not_requested",
)
"""What a finding may say."""

VALUE_PROBLEMS = ("too_much", "too_little", "wrong_value")
"""Findings about one value: they send extraction back once with the finding."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """The verifier's judgement of one act."""

    ok: bool
    grounding: str
    findings: tuple[tuple[str, str | None, str], ...] = ()

    def value_findings(self) -> tuple[tuple[str, str | None, str], ...]:
        """Return the findings about a value."""
        return tuple(f for f in self.findings if f[0] in VALUE_PROBLEMS and f[1])

    def text(self) -> str:
        """Return the findings as one exact sentence for a re-read."""
        return "; ".join(
            f"{problem}{f' ({arg})' if arg else ''}: {note}" for problem, arg, note in self.findings
        )


REASONING_CHARS = 600
"""The bound of the verifier's reasoning field, when the schema carries one."""


def verify_task(
    words: Words,
    unit: Unit,
    spec: OperationSpec,
    locale: str,
    record: str | Sequence[str],
    values: dict[str, tuple[str, str]],
    *,
    asked: str | None,
    hypothetical: bool,
    reasoning: str | None = "low",
    votes: int = 1,
    key: str = "",
    continues: Unit | None = None,
    labels: Mapping[str, str] | None = None,
    think_field: bool = False,
    glossary: Sequence[GlossaryEntry] = (),
) -> Task:
    """Return the verify task for one act, scoped to the act's own unit (docs/adr/0018).

    The verifier sees the unit's words (and the words of the unit it continues), never
    the rest of the message: a correction or a withdrawal said elsewhere is linked by
    route, so judging against the whole message would call a corrected act "not
    requested" (a second reading of the same words).

    Args:
        words: the message.
        unit: the act's unit.
        spec: its operation.
        locale: the turn's language.
        record: the target's label, or the labels of the records it may be (data; the
            user is asked which one).
        values: argument name → (value, the words it was copied from).
        asked: what the last reply asked for.
        hypothetical: the act was read as hypothetical.
        reasoning: the reasoning effort (the verifier always reasons a little).
        votes: reads to cast.
        key: the act this verification is for.
        continues: the unit this act's unit adds details to, if any.
        labels: record handle → label, for a value that names a record.
        think_field: put a bounded ``reasoning`` field first in the schema (for a model
            with no vendor reasoning setting, so the verifier reasons at every effort).
        glossary: the domain's words the act was read with
            (:func:`~turnframe.understand.glossary.act_glossary`).
    """
    instructions, prompt_id = prompt("verify")
    names_of = dict(labels or {})
    names = [a.name for a in spec.arguments]
    finding = s.obj(
        {
            "problem": s.enum(PROBLEMS),
            "argument": s.enum(names, nullable=True),
            "note": s.string(max_length=300),
        }
    )

    def check(answer: Any) -> str | None:
        if answer["verdict"] == "ok" and answer["findings"]:
            return "an ok verdict has no findings"
        if answer["verdict"] == "fault" and not answer["findings"]:
            return "a fault verdict names at least one finding"
        for n, f in enumerate(answer["findings"]):
            if f["problem"] in VALUE_PROBLEMS and f["argument"] is None:
                return f"findings[{n}]: a {f['problem']} finding names its argument"
        return None

    return Task(
        name="verify",
        instructions=instructions,
        prompt_id=prompt_id,
        data={
            "unit": {
                "id": unit.id,
                "words": " | ".join(
                    words.numbered(u.start, u.end) for u in (unit, continues) if u is not None
                ),
            },
            "act": {
                "operation": spec.key,
                "summary": spec.summary_in(locale),
                "hypothetical": hypothetical,
                "values": {
                    k: {
                        "value": v,
                        "words": w,
                        **({"record_label": names_of[v]} if v in names_of else {}),
                    }
                    for k, (v, w) in values.items()
                },
            },
            **({"glossary": glossary_data(glossary)} if glossary else {}),
            "last_reply_asked": asked,
            "data": {"record": _record(record)},
            **({"for": key} if key else {}),
        },
        schema=s.obj(
            {
                **({"reasoning": s.string(max_length=REASONING_CHARS)} if think_field else {}),
                "verdict": s.enum(["ok", "fault"]),
                "grounding": s.enum(["user", "asked", "record", "attachment"]),
                "findings": s.array(finding, max_items=8),
            }
        ),
        check=check,
        needs=Needs(),
        reasoning=reasoning,
        votes=votes,
        vote_key=lambda a: a["verdict"],
    )


def _record(record: str | Sequence[str]) -> JSONObject:
    if isinstance(record, str):
        return {"label": record}
    if len(record) == 1:
        return {"label": record[0]}
    return {
        "one_of": list(record),
        "meaning": "the words fit each of these records; the user will be asked which one",
    }


def read_verdict(answer: Any) -> Verdict:
    """Return the verdict of a checked verify answer."""
    return Verdict(
        ok=answer["verdict"] == "ok",
        grounding=answer["grounding"],
        findings=tuple((f["problem"], f["argument"], f["note"]) for f in answer["findings"]),
    )
