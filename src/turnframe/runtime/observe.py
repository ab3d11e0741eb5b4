"""What a turn reports to metrics and to its spans (docs/telemetry.md "Metrics").

Counted from the turn's own records, once, when the reply is recorded: repairs, resends
and votes from the call records (understanding's and the reply words'), notices by code
from the reply, commits by workflow from the commits. Only names and codes are used:
no user text, no case content.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from turnframe.core.ids import JSONObject
from turnframe.core.reply import NoticeBlock
from turnframe.runtime.metrics import (
    COMMITS,
    IDEMPOTENT_REPLAYS,
    NOTICES,
    REPAIRS,
    RESENDS,
    REVISION_CONFLICTS,
    VOTES,
)
from turnframe.runtime.parts import RuntimeParts
from turnframe.runtime.turn import Composed, PreparedTurn, TurnResult
from turnframe.store.base import CommitRefusal, CommitRequest, CommitResult
from turnframe.store.errors import RevisionConflict

__all__ = ["observe_batch", "observe_turn"]


def _calls(records: Iterable[object]) -> Counter[tuple[str, str]]:
    """Return ``(metric, task) → count`` over call records (``CallRecord.to_json``)."""
    counts: Counter[tuple[str, str]] = Counter()
    for record in records:
        if not isinstance(record, dict):
            continue
        task = str(record.get("task", "?"))
        if record.get("attempt") == "repair":
            counts[(REPAIRS, task)] += 1
        if record.get("attempt") == "vote":
            counts[(VOTES, task)] += 1
        if str(record.get("verdict", "")).startswith("resend"):
            counts[(RESENDS, task)] += 1
    return counts


def observe_turn(
    parts: RuntimeParts, prepared: PreparedTurn, composed: Composed, result: TurnResult
) -> None:
    """Count the finished turn's metrics and describe its span (effort, workflows, operations)."""
    reply_calls = composed.record.get("calls", ())
    calls = [*prepared.calls, *(reply_calls if isinstance(reply_calls, list) else ())]
    for (name, task), n in _calls(calls).items():
        parts.metrics.count(name, n, {"task": task})
    for block in result.blocks:
        if isinstance(block, NoticeBlock):
            parts.metrics.count(NOTICES, labels={"code": block.code.split(":", 1)[0]})
    for done in result.commits:
        parts.metrics.count(COMMITS, labels={"workflow": done.case.workflow})
    if not parts.telemetry.enabled:
        return
    reading: JSONObject = prepared.reading if isinstance(prepared.reading, dict) else {}
    effort = prepared.effort or reading.get("effort")
    # Only the application's own operation names: an act's ``operation`` is what the
    # model proposed, and an unknown one (refused ``unknown_operation``) is model text.
    specs = [parts.registry.operation(r.operation) for r in result.results.values() if r.operation]
    known = [spec for spec in specs if spec is not None]
    operations = sorted({spec.key for spec in known})
    workflows = sorted(
        {r.case.workflow for r in result.results.values() if r.case is not None}
        | {spec.workflow for spec in known}
    )
    parts.telemetry.describe_turn(
        {
            "turnframe.turn.phase": "replied",
            "turnframe.turn.effort": str(effort or "none"),
            "turnframe.workflows": workflows,
            "turnframe.operations": operations,
            "turnframe.turn.model_calls": result.model_calls + result.reply_calls,
        }
    )


def observe_batch(
    parts: RuntimeParts, request: CommitRequest, done: CommitResult | CommitRefusal
) -> None:
    """Record one batch's span (``turnframe.commit.batch``) and count conflicts and replays.

    The store writes every batch in the plan's one transaction (docs/adr/0024): the span
    marks the batch's outcome (``committed``, ``replayed`` or the refusal's class) with its
    workflow and operation names. With telemetry off (``Telemetry.enabled`` false, as
    :func:`observe_turn` reads it) only the counters are counted: no span attributes are
    built.
    """
    workflow = request.case.workflow
    outcome = type(done).__name__ if not isinstance(done, CommitResult) else "committed"
    if isinstance(done, CommitResult) and done.replayed:
        outcome = "replayed"
        parts.metrics.count(IDEMPOTENT_REPLAYS, labels={"kind": "commit"})
    if isinstance(done, RevisionConflict):
        parts.metrics.count(REVISION_CONFLICTS, labels={"workflow": workflow})
    if not parts.telemetry.enabled:
        return
    attributes = {
        "turnframe.workflow": workflow,
        "turnframe.operations": list(request.operations),
        "turnframe.commit.outcome": outcome,
    }
    with parts.telemetry.span("commit.batch", attributes):
        pass
