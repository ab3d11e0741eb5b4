"""Each act's chain from the stored records: resolution → result → commands → events → receipts.

Pure functions over the replay record's JSON (docs/inspector.md "Acts"); the store reads
are :mod:`turnframe.runtime.inspection`'s. Every reader takes a possibly old or partial
record and returns empty parts for what it lacks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from turnframe.core.events import DomainEvent
from turnframe.core.results import ResultStatus
from turnframe.runtime.inspection_calls import Pointers
from turnframe.runtime.inspection_models import (
    CandidateView,
    CommandView,
    EventView,
    EvidenceSpan,
    JournalView,
    ReceiptView,
    ResolutionView,
    ResultView,
)
from turnframe.runtime.inspection_spans import char_range, locate
from turnframe.runtime.records import HANDLE
from turnframe.understand.words import Words

__all__ = [
    "as_dict",
    "as_list",
    "case_text",
    "commands_of",
    "event_view",
    "evidence_of",
    "journal_view",
    "receipts_citing",
    "resolution_of",
    "result_of",
]


def as_dict(value: Any) -> dict[str, Any]:
    """Return ``value`` when it is a JSON object, else ``{}``."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """Return ``value`` when it is a JSON array, else ``[]``."""
    return value if isinstance(value, list) else []


def as_int(value: Any) -> int:
    """Return ``value`` when it is a JSON integer (not a boolean), else ``0``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def case_text(value: Any) -> str | None:
    """Return a case as ``workflow/case_id`` from either stored shape (string or object)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "workflow" in value:
        return f"{value.get('workflow')}/{value.get('case_id')}"
    return None


def _strings(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in as_dict(value).items()}


def result_of(raw: Any) -> ResultView | None:
    """Return a stored ``PlannedActResult`` (JSON) as a view; ``None`` when unreadable."""
    data = as_dict(raw)
    status = data.get("status")
    if not isinstance(status, str):
        return None
    code = data.get("code") if isinstance(data.get("code"), str) else None
    label = f"rejected:{code}" if status == ResultStatus.REJECTED.value and code else status
    return ResultView(
        status=status,
        label=label,
        code=code,
        sentence=data.get("sentence") if isinstance(data.get("sentence"), str) else None,
        operation=data.get("operation") if isinstance(data.get("operation"), str) else None,
        case=case_text(data.get("case")),
        interaction_id=(
            data.get("interaction_id") if isinstance(data.get("interaction_id"), str) else None
        ),
        asks=data.get("asks") if isinstance(data.get("asks"), str) else None,
    )


def resolution_of(act: Mapping[str, Any], act_input: Mapping[str, Any] | None) -> ResolutionView:
    """Return the act's proposed target and, when recorded, how it resolved."""
    target = as_dict(act.get("target"))
    resolution = as_dict((act_input or {}).get("resolution"))
    kind = resolution.get("kind")
    candidates = [
        CandidateView(case=case_text(c.get("case")) or "", label=str(c.get("label", "")))
        for c in as_list(resolution.get("candidates"))
        if isinstance(c, dict)
    ]
    mention, find = target.get("mention"), target.get("find")
    return ResolutionView(
        handles=[str(h) for h in as_list(target.get("handles"))],
        mention=mention if isinstance(mention, str) else None,
        find=find if isinstance(find, str) else None,
        new=bool(target.get("new")),
        status=kind if isinstance(kind, str) else None,
        case=case_text(resolution.get("case")),
        candidates=candidates,
        reason=resolution.get("reason") if isinstance(resolution.get("reason"), str) else None,
        record_args={
            k: case_text(v) or str(v)
            for k, v in as_dict((act_input or {}).get("record_args")).items()
        },
        bad_args=_strings((act_input or {}).get("bad_args")),
    )


def evidence_of(
    text: str | None, act: Mapping[str, Any], pointers: Pointers, units: Sequence[Any]
) -> list[EvidenceSpan]:
    """Return the act's evidence words (and its target's words) located in ``text``.

    The target's words first (``source="target"``), then each argument's recorded
    evidence (``SemanticAct.evidence``), else its value when the act records no evidence
    for it, the value is not a handle and the message has it (``source="value"``); each
    placed by :func:`~turnframe.runtime.inspection_spans.locate`, with the accepted
    answer's word pointer and the act's unit as hints. ``[]`` for a turn without text.
    """
    if not text:
        return []
    act_id = str(act.get("id", ""))
    words = Words.of(text)
    within = None
    for unit in units:
        if isinstance(unit, dict) and unit.get("id") == pointers.unit:
            start, end = unit.get("from"), unit.get("to")
            if isinstance(start, int) and isinstance(end, int):
                within = char_range(words, start, end)
    out: list[EvidenceSpan] = []
    target = as_dict(act.get("target"))
    said = target.get("mention") or target.get("find")
    if isinstance(said, str) and said.strip():
        hint = pointers.target
        at = (hint[1], hint[2]) if hint is not None and hint[0].strip() else None
        span = locate(text, act_id, "target", said, pointer=at, within=within)
        out.append(span.model_copy(update={"source": "target"}))
    evidence, args = _strings(act.get("evidence")), _strings(act.get("args"))
    for name, value in args.items():
        hint = pointers.values.get(name)
        at = (hint[1], hint[2]) if hint is not None else None
        said = evidence.get(name)
        if said is not None:
            out.append(locate(text, act_id, name, said, pointer=at, within=within))
        elif not HANDLE.match(value.strip()):
            # No evidence recorded (a scripted act): the value is the user's words when
            # the message has them; a handle or a normalised value ("2026-07-02") is not.
            span = locate(text, act_id, name, value, pointer=at, within=within)
            if span.match != "absent":
                out.append(span.model_copy(update={"source": "value"}))
    for name, said in evidence.items():
        if name not in args:
            out.append(locate(text, act_id, name, said, within=within))
    return out


def commands_of(
    plan: Mapping[str, Any], act_id: str, operation: str | None
) -> list[tuple[CommandView, str]]:
    """Return the act's planned command envelopes, each with its batch's commit key.

    The plan's canonical JSON keeps a command's arguments only; its operation is the
    act's (``operation``), which compiled it.
    """
    out: list[tuple[CommandView, str]] = []
    for batch in as_list(plan.get("batches")):
        envelopes = [e for e in as_list(as_dict(batch).get("envelopes")) if isinstance(e, dict)]
        if not envelopes:
            continue
        batch_key = str(envelopes[0].get("idempotency_key", ""))
        for envelope in envelopes:
            if envelope.get("act_id") != act_id:
                continue
            policy = as_dict(envelope.get("policy"))
            out.append(
                (
                    CommandView(
                        operation=_operation(envelope) or operation or "",
                        case=case_text(envelope.get("case")) or "",
                        arguments=envelope.get("command"),
                        origin=envelope.get("origin"),
                        expected_revision=as_int(envelope.get("expected_revision")),
                        idempotency_key=str(envelope.get("idempotency_key", "")),
                        risk=policy.get("risk") if isinstance(policy.get("risk"), str) else None,
                        batch_key=batch_key,
                    ),
                    batch_key,
                )
            )
    return out


def _operation(envelope: Mapping[str, Any]) -> str | None:
    """Return an envelope's operation when its JSON names one (an older record may)."""
    op = envelope.get("operation")
    return op if isinstance(op, str) else None


def journal_view(result: Any) -> JournalView:
    """Return a journal row's ``CommitResult`` as a view."""
    return JournalView(
        revision=int(getattr(result, "revision", 0)),
        event_ids=[e.id for e in getattr(result, "events", ())],
        outbox_ids=list(getattr(result, "outbox_ids", ())),
    )


def event_view(event: DomainEvent) -> EventView:
    """Return a committed event as a view."""
    return EventView(
        id=event.id,
        case=str(event.case),
        revision=event.revision,
        type=event.type,
        operation=event.operation,
        data=event.data,
        turn_id=event.turn_id,
        idempotency_key=event.idempotency_key,
    )


def receipts_citing(receipts: Sequence[ReceiptView], event_ids: set[str]) -> list[ReceiptView]:
    """Return the receipts that cite any of ``event_ids``."""
    return [r for r in receipts if event_ids & set(r.event_ids)]
