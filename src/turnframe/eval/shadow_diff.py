"""How two plans of one turn differ, per dimension (docs/shadow.md "What is compared").

Each side of a turn (the recorded reading and the shadow reading) is cut into items of
four dimensions, every item a small JSON object:

* ``acts``: each act's operation, arguments and ``hypothetical`` flag, and each unit the
  reading cut the message into (kind and word span);
* ``targets``: each act's :class:`~turnframe.core.targets.TargetResolution` (kind, case,
  candidates, reason);
* ``results``: each :class:`~turnframe.core.results.PlannedActResult`'s item, operation,
  status, code and case;
* ``commands``: each planned :class:`~turnframe.core.commands.CommandEnvelope`'s
  operation, case and arguments (the command's fields).

:func:`plan_differences` compares the two sides as multisets per dimension: an item of
the recorded side only is ``removed``, of the shadow side only ``added``; equal sides
give no difference, whatever the order of the items.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from turnframe.core.canonical import to_json_value
from turnframe.core.ids import JSONValue
from turnframe.runtime.plan import ActInput, Plan
from turnframe.runtime.replay import plan_json

__all__ = ["DIMENSIONS", "PlanSide", "ShadowDifference", "plan_differences", "plan_side"]

DIMENSIONS: tuple[str, ...] = ("acts", "targets", "results", "commands")
"""The dimensions a shadow reading is compared on, in report order."""


class ShadowDifference(BaseModel):
    """One item one side of a turn has and the other has not.

    Attributes:
        dimension: one of :data:`DIMENSIONS`.
        change: ``removed`` (the recorded reading only) or ``added`` (the shadow only).
        item: the item (a JSON object; its keys depend on the dimension).
    """

    model_config = ConfigDict(frozen=True)

    dimension: str
    change: str
    item: Any


PlanSide = dict[str, list[JSONValue]]
"""Dimension → items, for one reading of one turn."""


def _acts(acts: Iterable[Any], units: Iterable[Any]) -> list[JSONValue]:
    out: list[JSONValue] = [
        {
            "act": a.id,
            "operation": a.operation,
            "args": {k: str(v) for k, v in sorted(a.args.items())},
            "hypothetical": a.hypothetical,
        }
        for a in acts
    ]
    out += [
        {"unit": u.get("kind"), "from": u.get("from"), "to": u.get("to")}
        for u in units
        if isinstance(u, dict)
    ]
    return out


def _targets(acts: Sequence[ActInput]) -> list[JSONValue]:
    return [
        {"operation": a.act.operation, "target": to_json_value(a.resolution)}
        for a in acts
        if a.act.operation is not None
    ]


def _results(plan: Mapping[str, Any]) -> list[JSONValue]:
    return [
        {
            "item": r.get("item_id"),
            "operation": r.get("operation"),
            "status": r.get("status"),
            "code": r.get("code"),
            "case": r.get("case"),
        }
        for r in plan.get("results", [])
    ]


def _commands(plan: Mapping[str, Any]) -> list[JSONValue]:
    operations = {r.get("item_id"): r.get("operation") for r in plan.get("results", [])}
    return [
        {
            "operation": operations.get(e.get("act_id")),
            "case": e.get("case"),
            "arguments": e.get("command"),
        }
        for b in plan.get("batches", [])
        for e in b.get("envelopes", [])
    ]


def plan_side(
    understanding: Any, acts: Sequence[ActInput], units: Iterable[Any], plan: Plan | Any
) -> PlanSide:
    """Return one reading's items per dimension.

    Args:
        understanding: the reading's :class:`~turnframe.core.acts.Understanding`.
        acts: the reducer's act inputs (each with its resolution).
        units: the reading trace's ``units`` (``{"kind", "from", "to"}`` objects).
        plan: the reducer's :class:`Plan`, or its canonical JSON (the recorded plan).
    """
    data = plan if isinstance(plan, dict) else plan_json(plan)
    assert isinstance(data, dict)
    return {
        "acts": _acts(understanding.acts, units),
        "targets": _targets(acts),
        "results": _results(data),
        "commands": _commands(data),
    }


def _key(item: JSONValue) -> str:
    return json.dumps(item, sort_keys=True, ensure_ascii=False)


def plan_differences(
    recorded: PlanSide, shadow: PlanSide, dimensions: Sequence[str] = DIMENSIONS
) -> list[ShadowDifference]:
    """Return every item of ``dimensions`` one side has more often than the other.

    Items are compared as canonical JSON (keys sorted); the recorded side's extra items
    come first (``removed``), in its order, then the shadow side's (``added``).
    """
    out: list[ShadowDifference] = []
    for dim in dimensions:
        left, right = recorded.get(dim, []), shadow.get(dim, [])
        extra_left = Counter(map(_key, left)) - Counter(map(_key, right))
        extra_right = Counter(map(_key, right)) - Counter(map(_key, left))
        for items, extra, change in ((left, extra_left, "removed"), (right, extra_right, "added")):
            for item in items:
                k = _key(item)
                if extra[k] > 0:
                    extra[k] -= 1
                    out.append(ShadowDifference(dimension=dim, change=change, item=item))
    return out
