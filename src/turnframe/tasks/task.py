"""A task: one narrow question under a strict schema built for the turn in hand.

See docs/architecture.md "Understanding".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import JSONObject
from turnframe.providers.base import Needs

__all__ = ["Check", "Task"]

Check = Callable[[Any], "str | None"]
"""A task's own check of a schema-valid answer: ``None`` when it passes, else the exact error."""


def _no_check(answer: Any) -> str | None:
    del answer
    return None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Task:
    """One model question, its schema, its check and how it is voted.

    Attributes:
        name: the task's name (``segment``, ``route``...).
        instructions: the domain-free instructions (system prompt).
        prompt_id: the prompt's name and content digest, for records.
        data: the task's input, sent as JSON and marked as data.
        schema: the strict output schema built for this turn.
        check: the task's own check, run after the schema passes.
        needs: what the task needs of a model.
        votes: how many independent reads to cast (majority decides).
        tiebreak: a split vote is read once more, shown the disagreeing answers.
        reasoning: a reasoning effort to ask for when the profile supports it.
        vote_key: what votes are compared on (default: the whole answer).
        escalate: a failing task may be read once by the stronger model.
    """

    name: str
    instructions: str
    prompt_id: str
    data: JSONObject
    schema: JSONObject
    check: Check = field(default=_no_check)
    needs: Needs = field(default_factory=Needs)
    votes: int = 1
    tiebreak: bool = False
    reasoning: str | None = None
    vote_key: Callable[[Any], Any] | None = None
    escalate: bool = True
