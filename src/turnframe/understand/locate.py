"""Locate: which record a unit is about, when several could be meant (task 4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from turnframe.core.acts import ProposedTarget
from turnframe.providers.base import Needs
from turnframe.tasks.task import Task
from turnframe.understand.brief import BriefRecord
from turnframe.understand.prompts import prompt
from turnframe.understand.units import Unit, record_data, target_schema
from turnframe.understand.words import Words

__all__ = ["locate_task", "read_target"]


def locate_task(
    words: Words,
    unit: Unit,
    subject: str,
    candidates: Sequence[BriefRecord],
    *,
    reasoning: str | None = None,
    key: str = "",
    asked: tuple[str | None, str] | None = None,
    finding: str | None = None,
) -> Task:
    """Return the locate task for ``unit`` (``subject``: what is to be done or asked).

    ``asked`` is (the last reply's question, the handle of the record it was about) when
    that record is a candidate: a unit answering it and naming no record is about it.
    """
    handles = [c.handle for c in candidates]
    instructions, prompt_id = prompt("locate")

    def check(answer: Any) -> str | None:
        if not answer["handles"] and answer["find"] is None:
            return "give the candidates the words could mean, or point at the words naming another record"
        find = answer["find"]
        if find is not None:
            problem = words.pointer_error(find["copy"], find["from"], find["to"])
            if problem:
                return f"find: {problem}"
        return None

    return Task(
        name="locate",
        instructions=instructions,
        prompt_id=prompt_id,
        data={
            "message": words.numbered(),
            "unit": {"id": unit.id, "words": words.numbered(unit.start, unit.end)},
            "wanted": subject,
            "data": {"candidates": record_data(candidates, briefing=False)},
            **({"for": key} if key else {}),
            **(
                {"last_reply_asked": {"question": asked[0], "record": asked[1]}}
                if asked and asked[1] in handles
                else {}
            ),
            **({"read_again": finding} if finding else {}),
        },
        schema=target_schema(handles, len(words)),
        check=check,
        needs=Needs(),
        reasoning=reasoning,
    )


def read_target(answer: Any, words: Words, unit: Unit) -> ProposedTarget:
    """Return the proposed target of a checked locate answer."""
    find = answer["find"]
    if answer["handles"]:
        return ProposedTarget(handles=tuple(answer["handles"]), mention=unit.text(words))
    assert find is not None
    return ProposedTarget(find=words.text(find["from"], find["to"]), mention=find["copy"])
