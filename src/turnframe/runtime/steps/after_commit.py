"""After commit, a domain failure never wedges a turn (docs/invariants.md I11, I15).

Once the commit step has stored a turn's commits, the steps that follow (persist
cards, re-project with the domain's receipts and questions, compose the words) only
report what happened. A failure of the domain's code there (a receipt template that
raises, a label that raises) must not leave the turn in ``committing``: recovery would
run the same code and fail the same way forever. :func:`fallback_reply` builds the
reply the turn records instead: one generic receipt per committed (case, operation)
that cites its events, and a notice that the domain's words failed. The failure is
logged (logger ``turnframe.runtime``, with ``turn_id``, ``workflow``, ``method`` and
``step`` in the record's ``extra``) and counted (:data:`POST_COMMIT_FAILURES`).

A store failure is not handled here: it still interrupts the turn, which recovery
resumes (docs/architecture.md "Recovery and concurrency").
"""

from __future__ import annotations

from collections.abc import Sequence

from turnframe.core.errors import DomainError
from turnframe.core.events import DomainEvent, Receipt
from turnframe.core.interactions import Interaction
from turnframe.core.reply import NoticeBlock, ReceiptBlock, ReplyBlock
from turnframe.runtime.compose import compose_reply
from turnframe.runtime.copy import say
from turnframe.runtime.parts import RuntimeParts, log
from turnframe.runtime.turn import Committed, Composed, Reprojected

__all__ = ["DOMAIN_WORDS_FAILED", "POST_COMMIT_FAILURES", "fallback_reply", "report_failure"]

POST_COMMIT_FAILURES = "turn_post_commit_failures"
"""The :class:`~turnframe.runtime.metrics.Metrics` counter of domain failures after commit
(labels ``workflow``, ``method``, ``step``)."""

DOMAIN_WORDS_FAILED = "domain_words_failed"
"""The notice code of a reply whose domain words failed after commit."""


def report_failure(parts: RuntimeParts, turn_id: str, step: str, exc: BaseException) -> None:
    """Log ``exc`` (with its trace) and count it under :data:`POST_COMMIT_FAILURES`.

    ``workflow`` and ``method`` come from a :class:`~turnframe.core.errors.DomainError`;
    another exception is counted as workflow ``"?"`` and method its type's name.
    """
    workflow, method = (
        (exc.workflow, exc.method) if isinstance(exc, DomainError) else ("?", type(exc).__name__)
    )
    log.error(
        "turn %s: %s failed after commit (%s.%s); replying with generic receipts",
        turn_id,
        step,
        workflow,
        method,
        exc_info=exc,
        extra={"turn_id": turn_id, "workflow": workflow, "method": method, "step": step},
    )
    parts.metrics.count(
        POST_COMMIT_FAILURES, labels={"workflow": workflow, "method": method, "step": step}
    )


def generic_receipts(parts: RuntimeParts, committed: Committed, locale: str) -> tuple[Receipt, ...]:
    """Return one code-worded receipt per committed (case, operation), citing its events.

    The record is named by the workflow's candidate label when that still works, else by
    its id (the label is domain code too). Every receipt cites only events of this
    turn's commits, so the claim guard proves it (I15).
    """
    grouped: dict[tuple[object, str], list[DomainEvent]] = {}
    for commit in committed.commits:
        for event in commit.events:
            grouped.setdefault((event.case, event.operation), []).append(event)
    receipts = []
    for events in grouped.values():
        first = events[0]
        receipts.append(
            Receipt(
                case=first.case,
                operation=first.operation,
                text=say(
                    "generic_receipt",
                    locale,
                    event=", ".join(dict.fromkeys(e.type for e in events)),
                    record=_record_name(parts, committed, first, locale),
                ),
                event_ids=tuple(e.id for e in events),
                locale=locale,
            )
        )
    return tuple(receipts)


def _record_name(parts: RuntimeParts, committed: Committed, event: DomainEvent, locale: str) -> str:
    try:
        erased = parts.registry.workflow(event.case.workflow)
        row = committed.rows.get(event.case)
        state = erased.typed(row.state) if row is not None else None
        if state is not None:
            return erased.definition.candidate_label(event.case, state, locale)
    except Exception:  # the label is domain code: the id says it safely
        pass
    return str(event.case)


def fallback_reply(
    parts: RuntimeParts,
    committed: Committed,
    cards: Sequence[Interaction],
    projected: Reprojected | None,
) -> tuple[Reprojected, Composed]:
    """Return the re-projection and reply a turn records when its domain words failed.

    ``projected`` is the re-project step's output when only composing failed (its
    results are kept), ``None`` when re-projecting failed (the commit step's results).
    The reply: a generic receipt per committed (case, operation), the turn's notices,
    the :data:`DOMAIN_WORDS_FAILED` notice and the cards persisted (shown by code).
    """
    locale = committed.prepared.locale
    receipts = generic_receipts(parts, committed, locale)
    notice = (DOMAIN_WORDS_FAILED, say(DOMAIN_WORDS_FAILED, locale), None)
    reprojected = Reprojected(
        results=dict(projected.results if projected is not None else committed.results),
        notices=[*committed.notices, notice],
        receipts=receipts,
        answers=(),
        ask_next=None,
    )
    try:
        blocks = compose_reply(
            results=list(reprojected.results.values()),
            receipts=list(receipts),
            notices=reprojected.notices,
            answers=[],
            cards=list(cards),
            ask_next=None,
        )
    except Exception:  # the plainest reply still reports the commits
        plain: list[ReplyBlock] = [ReceiptBlock(receipt=r) for r in receipts]
        plain.append(NoticeBlock(code=notice[0], text=notice[1]))
        blocks = tuple(plain)
    return reprojected, Composed(blocks=blocks, refused=(), record={})
