"""Replay a turn's reduction from its record and show the plan diff (docs/inspector.md "Replay").

:func:`replay_view` re-runs the recorded reduction (:func:`turnframe.runtime.replay.
replay_reduction`: the recorded input, each stored state projected again, the reducer run
again) and compares the plans structurally (:func:`plan_diff`), so a change in the reducer,
a projector or the record itself shows as JSON pointers (I20).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from turnframe.core.ids import JSONObject
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.inspection_trace import PlanDifference, ReplayView
from turnframe.runtime.replay import replay_reduction

__all__ = ["plan_diff", "pointer", "replay_view"]

NO_REDUCTION = "the turn did not reduce (a refused or unreadable message records no reduction)"
"""The reason given for a record without a reduction."""

NO_RECORD = "no replay record is stored: the turn did not reach its commit, or predates them"
"""The reason given when there is no record at all."""

_MISSING = object()


def pointer(parts: tuple[str | int, ...]) -> str:
    """Return the JSON pointer (RFC 6901) of ``parts``: ``("a", 0, "b/c")`` → ``/a/0/b~1c``."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def plan_diff(recorded: Any, replayed: Any) -> list[PlanDifference]:
    """Return every structural difference between two JSON values, in document order.

    Objects are compared key by key (the recorded keys in order, then the replayed
    ones), arrays index by index; a key or item present on one side only is ``removed``
    (recorded only) or ``added`` (replayed only). Two equal values give ``[]``.
    """
    return list(_walk((), recorded, replayed))


def _walk(at: tuple[str | int, ...], a: Any, b: Any) -> Iterator[PlanDifference]:
    if a is _MISSING:
        yield PlanDifference(path=pointer(at), replayed=b, change="added")
    elif b is _MISSING:
        yield PlanDifference(path=pointer(at), recorded=a, change="removed")
    elif isinstance(a, dict) and isinstance(b, dict):
        keys = list(a) + [k for k in b if k not in a]
        for key in keys:
            yield from _walk((*at, str(key)), a.get(key, _MISSING), b.get(key, _MISSING))
    elif isinstance(a, list) and isinstance(b, list):
        for n in range(max(len(a), len(b))):
            left = a[n] if n < len(a) else _MISSING
            right = b[n] if n < len(b) else _MISSING
            yield from _walk((*at, n), left, right)
    elif type(a) is not type(b) or a != b:
        yield PlanDifference(path=pointer(at), recorded=a, replayed=b, change="changed")


def replay_view(record: JSONObject, registry: WorkflowRegistry, turn_id: str = "") -> ReplayView:
    """Re-run the reduction ``record`` (a turn's replay record) holds; compare the plans.

    Args:
        record: the turn's replay record (``TurnStore.load_replay``), possibly old or partial.
        registry: the application's workflows (each stored state is projected again).
        turn_id: the id to report (default: the record's own ``turn_id``).

    Returns:
        ``same`` true with an empty diff when the plans are equal; false with the
        differences; ``None`` with a ``reason`` when the record holds no reduction or it
        cannot be re-run (a workflow no longer registered, a malformed record). Never raises
        for a bad record.
    """
    name = turn_id or str(record.get("turn_id") or "")
    if not record:
        return ReplayView(turn_id=name, same=None, reason=NO_RECORD)
    reduction = record.get("reduction")
    if not isinstance(reduction, dict) or "input" not in reduction or "plan" not in reduction:
        return ReplayView(turn_id=name, same=None, reason=NO_REDUCTION)
    recorded = reduction["plan"]
    try:
        _, again = replay_reduction(reduction, registry)
    except Exception as exc:
        # The record is read as data: a malformed one (KeyError, ValidationError...), a
        # workflow gone (RegistryError) or a projector that no longer reads an old state
        # (whatever it raises) is what replay reports, never a crash of the inspector.
        reason = f"the recorded reduction could not be re-run: {type(exc).__name__}: {exc}"
        return ReplayView(turn_id=name, same=None, reason=reason, recorded_plan=recorded)
    diff = plan_diff(recorded, again)
    return ReplayView(
        turn_id=name, same=not diff, recorded_plan=recorded, replayed_plan=again, diff=diff
    )
