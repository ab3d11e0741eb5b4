"""Links: cancellations and corrections, within the turn and to earlier turns (ADR 0012).

A cancellation supersedes the act it cancels; a correction supersedes the act it
corrects only when understanding linked them, never guessed from a repeated operation.
A link may name a pending act of an earlier turn (``<card id>:<act id>`` on a card on
screen, or a carried waiting act's id): it is superseded and its card withdrawn; the
card's other acts go on a fresh card. A link to an act no longer pending gets
``no_change`` with a code.
"""

from __future__ import annotations

from dataclasses import replace

from turnframe.core.acts import SemanticAct
from turnframe.core.interactions import Interaction, InteractionKind, InteractionStatus, PendingAct
from turnframe.core.results import ResultStatus
from turnframe.core.targets import Exact
from turnframe.runtime.plan import ActInput, CardClose, PlannedCard
from turnframe.runtime.reduce.results import record
from turnframe.runtime.reduce.state import Reduction

__all__ = ["read_links", "reduce_cancellation", "reissue_remaining", "supersede_earlier"]


def read_links(r: Reduction) -> dict[str, str]:
    """Return this turn's act id → ``cancelled``/``corrected`` for the acts it supersedes.

    A link end that is not an act of this turn names an act of an earlier turn; it
    is kept in ``r.earlier`` for :func:`supersede_earlier` (ADR 0012).
    """
    ids = {a.act.id for a in r.inp.acts}
    out: dict[str, str] = {}
    for link in r.inp.understanding.links:
        if link.act not in ids:
            continue
        if link.cancels and link.cancels != link.act:
            if link.cancels in ids:
                out[link.cancels] = "cancelled"
            else:
                r.earlier[link.cancels] = "cancelled"
        if link.corrects and link.corrects != link.act:
            if link.corrects in ids:
                out.setdefault(link.corrects, "corrected")
            else:
                r.earlier.setdefault(link.corrects, "corrected")
    r.superseded.update(out)
    return out


def supersede_earlier(r: Reduction) -> None:
    """Supersede the earlier turns' pending acts this turn's links name.

    A pending act on a card on screen is superseded and its card withdrawn (closed
    in the same store transaction as the turn's first commit; the card's other acts
    go on a fresh card). A carried waiting act (ADR 0007) is superseded and no longer
    carried. A link to anything else gets ``no_change`` with ``already_committed``
    (the card that held it committed it) or ``no_longer_pending`` and its sentence:
    never silently ignored (I11).
    """
    if not r.earlier:
        return
    on_cards: dict[str, tuple[Interaction, PendingAct]] = {}
    for card in r.inp.cards_on_screen:
        for p in card.spec.pending:
            on_cards[f"{card.id}:{p.act.id}"] = (card, p)
    waiting = {w.item_id: w for w in r.inp.waiting}
    taken = {*r.inp.understanding.item_ids(), "click"}
    withdrawn: dict[str, list[str]] = {}
    for ref, code in r.earlier.items():
        pending: PendingAct | None = None
        if ref in on_cards:
            card, pending = on_cards[ref]
            withdrawn.setdefault(card.id, []).append(ref)
        elif ref in waiting:
            pending = waiting[ref].pending
            r.dropped_waiting.add(ref)
        if pending is not None:
            r.superseded.add(ref)
            record(
                r,
                ref,
                ResultStatus.SUPERSEDED,
                code=code,
                operation=pending.act.operation,
                case=pending.case,
            )
            continue
        gone = _gone(r, ref)
        record(
            r,
            ref if ref not in taken else f"link:{ref}",
            ResultStatus.NO_CHANGE,
            code=gone,
            sentence=r.say(f"link.{gone}"),
        )
    for card in r.inp.cards_on_screen:
        refs = withdrawn.get(card.id)
        if not refs:
            continue
        r.withdrawn.add(card.id)
        r.closes.append(
            CardClose(
                interaction_id=card.id,
                status=InteractionStatus.WITHDRAWN,
                option_id="",
                results={ref: f"{ResultStatus.SUPERSEDED.value}:{r.earlier[ref]}" for ref in refs},
            )
        )
        left = tuple(p for p in card.spec.pending if f"{card.id}:{p.act.id}" not in refs)
        r.remaining.append((card, left))
    if withdrawn:
        r.notices.append(("card_withdrawn", r.say("card_withdrawn"), None))


def _gone(r: Reduction, ref: str) -> str:
    """Return why a linked earlier act is not pending: its card committed it, or not."""
    card_id, _, act_id = ref.partition(":")
    card = next((c for c in r.inp.linked_cards if c.id == card_id), None)
    if (
        card is not None
        and card.status is InteractionStatus.RESOLVED
        and card.resolution is not None
        and ResultStatus.COMMITTED.value
        in (card.resolution.results.get(act_id), card.resolution.results.get(ref))
    ):
        return "already_committed"
    return "no_longer_pending"


def reissue_remaining(r: Reduction) -> tuple[ActInput, ...]:
    """Put a withdrawn card's acts that were not superseded on a fresh card (I11, I16).

    They report under ``<card id>:<act id>``; nothing is committed for them in this
    turn (the user did not ask for them again). A Confirm card's acts are returned, for
    the caller to compile again with ``reissue=True``: they join this turn's Confirm
    card on the same record (ADR 0004) showing the commands they compile to now
    (docs/adr/0013-cards-show-what-they-do.md rule 1), or get the domain's refusal.
    """
    again: list[ActInput] = []
    for card, left in r.remaining:
        if not left:
            continue
        spec = card.spec
        renamed = tuple(replace(p, act=replace(p.act, id=f"{card.id}:{p.act.id}")) for p in left)
        if spec.kind is InteractionKind.CONFIRM and spec.case in r.inp.snapshots:
            again += (
                ActInput(
                    act=p.act,
                    resolution=Exact(case=p.case, new=p.new_case) if p.case else None,
                    record_args=p.record_args,
                    part_args=p.part_args,
                )
                for p in renamed
            )
            continue
        fresh = replace(
            spec, pending=renamed, operations=tuple(p.act.operation or "" for p in renamed)
        )
        r.cards.append(PlannedCard(spec=fresh, item_ids=tuple(p.act.id for p in renamed)))
        for p in renamed:
            if spec.kind is InteractionKind.SELECT_TARGET:
                status = ResultStatus.NEEDS_CLARIFICATION
                code = (
                    "ambiguous_target" if p.argument is None else f"ambiguous_record:{p.argument}"
                )
            else:
                status, code = ResultStatus.AWAITING_CONFIRMATION, "reissued"
            record(r, p.act.id, status, code=code, operation=p.act.operation, case=p.case)
    return tuple(again)


def reduce_cancellation(r: Reduction, act: SemanticAct) -> None:
    """Give an act without an operation its result: a cancellation, or nothing to do.

    A cancellation whose every target had already gone gets ``nothing_cancelled``
    (the linked items' own results say why, ADR 0012).
    """
    targets = [
        link.cancels for link in r.inp.understanding.links if link.act == act.id and link.cancels
    ]
    if targets and not any(t in r.superseded for t in targets):
        # Everything it names had already gone (ADR 0012): the linked items' own
        # results say why; "that change was not made" would not be true.
        record(r, act.id, ResultStatus.NO_CHANGE, code="nothing_cancelled")
        return
    code = "cancellation" if targets else "nothing_to_do"
    sentence = r.say("cancelled" if targets else "nothing_to_do")
    record(r, act.id, ResultStatus.NO_CHANGE, code=code, sentence=sentence)
