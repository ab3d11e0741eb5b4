"""The reply's side of a turn's inspection: receipts, cards, questions, notices, the reduction.

Pure readers of the stored reply blocks (JSON) and the replay record's reduction
(docs/inspector.md); each returns empty parts for what an old or partial record lacks.
"""

from __future__ import annotations

from typing import Any

from turnframe.runtime.inspection_chain import as_dict, as_list, case_text
from turnframe.runtime.inspection_models import (
    CardShown,
    NoticeView,
    QuestionView,
    ReceiptView,
    ResultView,
)
from turnframe.runtime.inspection_trace import ReductionView

__all__ = ["act_id_of", "card_of", "notices_of", "questions_of", "receipt_of", "reduction_of"]


def act_id_of(act_input: dict[str, Any]) -> str:
    """Return the id of a recorded ``ActInput``: its ``act`` is the id or the act itself."""
    act = act_input.get("act")
    return act if isinstance(act, str) else str(as_dict(act).get("id", ""))


def receipt_of(block: dict[str, Any]) -> ReceiptView:
    """Return a receipt block (JSON) as a view."""
    receipt = as_dict(block.get("receipt"))
    return ReceiptView(
        text=str(receipt.get("text", "")),
        operation=str(receipt.get("operation", "")),
        case=case_text(receipt.get("case")) or "",
        event_ids=[str(e) for e in as_list(receipt.get("event_ids"))],
    )


def card_of(block: dict[str, Any]) -> CardShown:
    """Return a card block (JSON) as the card shown."""
    revision = block.get("expected_revision")
    return CardShown(
        interaction_id=str(block.get("interaction_id", "")),
        interaction_kind=str(block.get("interaction_kind", "")),
        prompt=str(block.get("prompt", block.get("text", ""))),
        options=[
            {"id": str(o.get("id", "")), "label": str(o.get("label", ""))}
            for o in as_list(block.get("options"))
            if isinstance(o, dict)
        ],
        expected_revision=revision if isinstance(revision, int) else None,
    )


def questions_of(
    understanding: dict[str, Any], results: dict[str, ResultView], blocks: list[dict[str, Any]]
) -> list[QuestionView]:
    """Return the understanding's questions, each with its result and answer block."""
    answers = {b.get("question_id"): b.get("text") for b in blocks if b.get("kind") == "answer"}
    out = []
    for q in as_list(understanding.get("questions")):
        q = as_dict(q)
        qid = str(q.get("id", ""))
        answer = answers.get(qid)
        out.append(
            QuestionView(
                id=qid,
                topic=str(q.get("topic", "")),
                basis=str(q.get("basis") or "current_state"),
                result=results.get(qid),
                answer=answer if isinstance(answer, str) else None,
            )
        )
    return out


STANDING = "a standing “do not submit” holds on this conversation (ADR 0002)"
"""Why the standing notice is shown."""


def notices_of(
    blocks: list[dict[str, Any]],
    plan: dict[str, Any],
    inp: dict[str, Any],
    errors: list[dict[str, str]],
    error: str | None,
    results: dict[str, ResultView],
) -> list[NoticeView]:
    """Return the reply's notices, each with what the records say caused it.

    *Why*: the error that ended the reading (``model_unreachable:*``,
    ``budget_exceeded``), the failed steps' exact errors (``unreadable*``), the standing
    constraint in the reduction (``standing_do_not_submit``), the item's result, or that
    the plan carries it; ``None`` when the records say nothing more.
    """
    planned = {
        (str(n[0]), n[2])
        for n in as_list(plan.get("notices"))
        if isinstance(n, list) and len(n) > 2
    }
    standing = bool(inp.get("standing_do_not_submit")) or plan.get("standing_do_not_submit") is True
    out = []
    for block in blocks:
        if block.get("kind") != "notice":
            continue
        code, item = str(block.get("code", "")), block.get("item_id")
        why: str | None = None
        if code.startswith("model_unreachable") or code == "budget_exceeded":
            why = error
        elif code.startswith("unreadable") and errors:
            why = "; ".join(f"{e['step']}: {e['error']}" for e in errors)
        elif code == "standing_do_not_submit" and standing:
            why = STANDING
        elif isinstance(item, str) and item in results:
            r = results[item]
            why = " ".join(x for x in (item, r.operation, "→", r.label) if x)
        elif (code, item) in planned:
            why = "the reducer's plan carries it"
        out.append(
            NoticeView(
                code=code,
                text=str(block.get("text", "")),
                item_id=item if isinstance(item, str) else None,
                why=why,
            )
        )
    return out


def reduction_of(
    reduction: dict[str, Any], inp: dict[str, Any], plan: dict[str, Any]
) -> ReductionView:
    """Return the reduction record: its input summarised and the recorded plan."""
    if not reduction:
        return ReductionView()
    click = as_dict(inp.get("click"))
    summary: dict[str, Any] = {
        "turn_id": inp.get("turn_id"),
        "today": inp.get("today"),
        "locale": inp.get("locale"),
        "acts": [act_id_of(a) for a in as_list(inp.get("acts")) if isinstance(a, dict)],
        "snapshots": [
            {"case": case_text(as_dict(s).get("case")), "revision": as_dict(s).get("revision")}
            for s in as_list(inp.get("snapshots"))
        ],
        "cards_on_screen": [as_dict(c).get("id") for c in as_list(inp.get("cards_on_screen"))],
        "click": as_dict(click.get("response")) or None,
        "standing_do_not_submit": inp.get("standing_do_not_submit"),
        "waiting": [as_dict(w).get("item_id") for w in as_list(inp.get("waiting"))],
        "linked_cards": [as_dict(c).get("id") for c in as_list(inp.get("linked_cards"))],
    }
    return ReductionView(recorded=True, summary=summary, plan=plan)
