"""Cross-check (high effort): look over the whole reading for one step of one act gone wrong.

A finding sends that step of that act back once with the finding; the verifier then
decides on the new reading. The check alone holds nothing (docs/architecture.md "Effort").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import JSONObject
from turnframe.providers.base import Needs
from turnframe.tasks import schema as s
from turnframe.tasks.task import Task
from turnframe.understand.prompts import prompt
from turnframe.understand.words import Words

__all__ = ["STEPS", "CrossFinding", "cross_check_task", "read_findings"]

STEPS = ("locate", "extract")
"""The steps a finding may send back."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CrossFinding:
    """One step of one act to read again, with the exact finding."""

    act: str
    step: str
    note: str


def cross_check_task(
    words: Words,
    acts: Sequence[JSONObject],
    *,
    steps: dict[str, tuple[str, ...]],
    reasoning: str | None = None,
) -> Task:
    """Return the cross-check task over ``acts`` (each: id, unit words, operation, record, values).

    Args:
        words: the message.
        acts: the acts as read, as data.
        steps: act id → the steps that can be sent back for it.
        reasoning: the reasoning effort to ask for.
    """
    instructions, prompt_id = prompt("cross_check")
    ids = [str(a["id"]) for a in acts]
    # One branch per act that has a step to send back, offering only its steps (I2).
    finding = s.any_of(
        [
            s.obj(
                {
                    "act": s.const(act),
                    "step": s.enum(steps[act]),
                    "note": s.string(max_length=300),
                }
            )
            for act in ids
            if steps.get(act)
        ]
    )
    senders = sum(len(steps.get(act, ())) for act in ids)

    def check(answer: Any) -> str | None:
        seen: set[tuple[str, str]] = set()
        for n, f in enumerate(answer["findings"]):
            key = (f["act"], f["step"])
            if key in seen:
                return f"findings[{n}]: {f['act']} {f['step']} is given twice; give it once"
            seen.add(key)
            if f["step"] not in steps.get(f["act"], ()):
                allowed = ", ".join(steps.get(f["act"], ())) or "no step"
                return f"findings[{n}]: act {f['act']} can send back {allowed}, not {f['step']}"
        return None

    return Task(
        name="cross_check",
        instructions=instructions,
        prompt_id=prompt_id,
        data={"message": words.numbered(), "data": {"acts": list(acts)}},
        schema=s.obj({"findings": s.array(finding, max_items=senders)}),
        check=check,
        needs=Needs(),
        reasoning=reasoning,
    )


def read_findings(answer: Any) -> tuple[CrossFinding, ...]:
    """Return the findings of a checked cross-check answer."""
    return tuple(
        CrossFinding(act=f["act"], step=f["step"], note=f["note"]) for f in answer["findings"]
    )
