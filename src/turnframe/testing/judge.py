"""A scripted reply judge: a provider that answers the judge's checklist by rules or a script.

See docs/evals.md "The scripted judge".

``turnframe eval run --judge`` asks a model to grade a turn's reply against a yes/no
checklist (the ``judge`` task; :mod:`turnframe.eval.judge` builds it). Tests and offline
runs need a judge that calls no network and answers that task's strict schema the way a
test wants: always yes, always no, a vote that splits, an answer that is not JSON. This
module sits below the evaluation layer, so it knows the judge only by the wire: the
request's data holds ``checklist`` (check id → statement) and the answer is
``{"checks": {id: {"holds": bool, "reason": str}}}``.

Script entries, one per vote (vote ``n`` answers with entry ``n % len(script)``; the vote
is read from the request's sampling seed, so concurrent votes and their repair rounds get
their own entry whatever order they run in):

* ``True`` / ``False``: every check holds / fails;
* a mapping ``check id → bool``: those checks as given, every other check by the rules;
* a string: sent as the raw answer text (``"{not json"`` is a malformed answer, so the
  vote is recorded as invalid after its repair round).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

from turnframe.core.errors import UsageError
from turnframe.providers.base import Capabilities, ModelRequest
from turnframe.providers.scripted import ScriptedProvider

__all__ = ["JUDGE_TASK", "JudgeRule", "JudgeScript", "ScriptedJudge", "judge_request_data"]

JUDGE_TASK = "judge"
"""The task name the judge's requests carry (``turnframe.eval.judge`` uses the same)."""

JudgeRule: TypeAlias = Callable[[Mapping[str, Any]], "bool | tuple[bool, str]"]
"""A rule for one check: the judge's request data → holds (and optionally a reason)."""

JudgeScript: TypeAlias = "bool | Mapping[str, bool] | str"
"""One vote's scripted answer (see the module docstring)."""


def judge_request_data(request: ModelRequest) -> dict[str, Any]:
    """Return the JSON data a judge request carries (its last user message).

    Raises:
        UsageError: the request is not a judge request or its data is not a JSON object.
    """
    if request.task != JUDGE_TASK:
        raise UsageError(f"the scripted judge answers only the {JUDGE_TASK!r} task")
    for message in request.messages:
        if message.role != "user":
            continue
        try:
            data = json.loads(message.content)
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("checklist"), dict):
            return data
    raise UsageError("a judge request carries its data, with a checklist, as JSON")


class ScriptedJudge(ScriptedProvider):
    """A judge provider for tests: answers each check by a script entry, a rule or a default.

    Args:
        script: one entry per vote (see the module docstring); ``()``: every vote by rules.
        rules: check id → a rule of the request data; a check with no entry and no rule
            holds when ``default`` is true.
        default: the verdict of a check no script entry or rule decides.
        model: the model name its profile reports.
        capabilities: its declared capabilities (default: a scripted provider's, which
            take a seed, so each vote is its own request).

    Attributes:
        votes_seen: the vote number of each request answered, in order (repairs included).

    Raises:
        UsageError: from :meth:`complete` for a request that is not a judge request.
    """

    def __init__(
        self,
        script: Sequence[JudgeScript] = (),
        *,
        rules: Mapping[str, JudgeRule] | None = None,
        default: bool = True,
        model: str = "scripted-judge",
        capabilities: Capabilities | None = None,
    ) -> None:
        super().__init__(self._answer, model=model, capabilities=capabilities)
        self.script = list(script)
        self.rules = dict(rules or {})
        self.default = default
        self.votes_seen: list[int] = []

    def _answer(self, request: ModelRequest) -> Any:
        data = judge_request_data(request)
        vote = int(request.seed or 0)
        self.votes_seen.append(vote)
        entry: JudgeScript | None = self.script[vote % len(self.script)] if self.script else None
        if isinstance(entry, str):
            return entry
        checks: dict[str, Any] = {}
        for check in data["checklist"]:
            holds, reason = self._verdict(str(check), entry, data)
            checks[str(check)] = {"holds": holds, "reason": reason}
        return {"checks": checks}

    def _verdict(
        self, check: str, entry: bool | Mapping[str, bool] | None, data: Mapping[str, Any]
    ) -> tuple[bool, str]:
        if isinstance(entry, bool):
            return entry, f"scripted: {'holds' if entry else 'fails'}"
        if isinstance(entry, Mapping) and check in entry:
            holds = bool(entry[check])
            return holds, f"scripted: {'holds' if holds else 'fails'}"
        rule = self.rules.get(check)
        if rule is not None:
            out = rule(data)
            if isinstance(out, tuple):
                return bool(out[0]), str(out[1])
            return bool(out), f"rule: {'holds' if out else 'fails'}"
        return self.default, f"default: {'holds' if self.default else 'fails'}"
