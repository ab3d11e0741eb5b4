"""Clicks and card answers: a structured click binds more strongly than inferred words.

Text acts are reduced before a click on the same case (ADR 0003): if they commit, the card is
stale and a fresh one is issued. Inferred text may decline a card but never confirm a
high-risk one (ADR 0006) nor answer a card of another kind; a second click returns the card's
first resolution and commits nothing; a commit resolves one card (I16).
"""

from __future__ import annotations

from dataclasses import replace

from turnframe.core.canonical import canonical_json
from turnframe.core.commands import Command, ConfirmedInteraction, Origin
from turnframe.core.interactions import (
    Interaction,
    InteractionKind,
    InteractionOption,
    InteractionSpec,
    InteractionStatus,
    OptionMeaning,
)
from turnframe.core.results import ResultStatus
from turnframe.core.targets import Exact
from turnframe.runtime.plan import ActInput, CardClose, ClickInput
from turnframe.runtime.reduce.acts import reduce_act
from turnframe.runtime.reduce.constraints import lift_for_click
from turnframe.runtime.reduce.results import full_label, record
from turnframe.runtime.reduce.stale import STALE_SENTENCES, StaleReason, stale_reason
from turnframe.runtime.reduce.state import Reduction

__all__ = ["reduce_card_answer", "reduce_click"]


def reduce_click(r: Reduction, click: ClickInput) -> None:
    """Reduce the turn's structured click on a card (ADR 0003, ADR 0006, I16).

    An unknown or withdrawn card gets its result; a second click on a closed card
    replays the card's first resolution (``r.replayed``) and commits nothing.
    """
    card = click.interaction
    if card is None:
        record(r, "click", ResultStatus.REJECTED, code="not_found", sentence=r.say("unknown_card"))
        return
    if card.id in r.withdrawn:
        # This turn's own words cancelled or corrected what the card would do.
        record(
            r,
            "click",
            ResultStatus.NO_CHANGE,
            code="withdrawn",
            sentence=r.say("already_withdrawn"),
        )
        return
    if card.status is not InteractionStatus.OPEN:
        # A second click returns the card's original resolution, whatever it was
        # (resolved, declined, stale or withdrawn), and commits nothing.
        if card.resolution is not None:
            r.replayed = dict(card.resolution.results)
            r.replayed_status = card.status.value
            return
        # Displaced by a newer card on its case (I5): never answered.
        record(
            r,
            "click",
            ResultStatus.REJECTED,
            code=card.status.value,
            sentence=r.say("card_superseded"),
        )
        return
    option = card.spec.option(click.response.option_id)
    if option is None:
        record(r, "click", ResultStatus.REJECTED, code="not_found", sentence=r.say("unknown_card"))
        return
    _answer_card(r, card, option, click.pending, click, structured=True, item_id="click")


def reduce_card_answer(r: Reduction, item_id: str, interaction_id: str, option_id: str) -> None:
    """Reduce an inferred card answer ``item_id`` (text choosing ``option_id`` on a card).

    A click on the same card binds more strongly; conflicting or repeated answers
    apply none or once; inferred text never confirms or approves (ADR 0006, I17).
    """
    click = r.inp.click
    if click is not None and click.response.interaction_id == interaction_id:
        record(r, item_id, ResultStatus.SUPERSEDED, code="click_binds_stronger")
        return
    card = next((c for c in r.inp.cards_on_screen if c.id == interaction_id), None)
    option = card.spec.option(option_id) if card else None
    if card is not None and card.id in r.withdrawn:
        record(
            r,
            item_id,
            ResultStatus.NO_CHANGE,
            code="withdrawn",
            sentence=r.say("already_withdrawn"),
        )
        return
    if card is None or option is None or card.status is not InteractionStatus.OPEN:
        record(
            r,
            item_id,
            ResultStatus.REJECTED,
            code="unknown_card",
            sentence=r.say("unknown_card"),
        )
        return
    answers = [
        a
        for a in r.inp.understanding.card_answers
        if a.interaction == interaction_id and card.spec.option(a.option) is not None
    ]
    if len({a.option for a in answers}) > 1:
        # Different answers to one card: taking the first would break the tie by list
        # order (I8), so none applies and the card stays open.
        record(
            r,
            item_id,
            ResultStatus.NEEDS_CLARIFICATION,
            code="conflicting_answers",
            sentence=r.say("conflicting_answers"),
        )
        return
    if answers[0].id != item_id:
        # The same answer twice is one answer; running it again would double its effect.
        record(r, item_id, ResultStatus.NO_CHANGE, code="duplicate_answer")
        return
    if _refused_reviewer(r, card.spec, item_id):
        # Someone who may not resolve the card at all is told so, as their click would
        # be: "use the button" would send them to a button that refuses them (I17).
        return
    if option.meaning in (OptionMeaning.CONFIRM, OptionMeaning.APPROVE):
        # ADR 0006 / I17: inferred text never confirms a high-risk card or answers a review.
        record(
            r,
            item_id,
            ResultStatus.REJECTED,
            code="needs_click",
            sentence=r.say("needs_click"),
        )
        return
    pending = _pending_inputs(r, card, option)
    _answer_card(r, card, option, pending, None, structured=False, item_id=item_id)


def _pending_inputs(
    r: Reduction, card: Interaction, option: InteractionOption
) -> tuple[ActInput, ...]:
    out = []
    for p in card.spec.pending:
        if p.argument is not None and option.value is not None and p.case is not None:
            # A Choice option fills a part argument; the domain re-checks the part.
            out.append(
                ActInput(
                    act=p.act,
                    resolution=Exact(case=p.case, new=p.new_case),
                    record_args=p.record_args,
                    part_args={**p.part_args, p.argument: option.value},
                )
            )
            continue
        if p.argument is not None and option.case is not None and p.case is not None:
            # The option fills a record argument; the target stays the act's own.
            out.append(
                ActInput(
                    act=p.act,
                    resolution=Exact(case=p.case, new=p.new_case),
                    record_args={**p.record_args, p.argument: option.case},
                )
            )
            continue
        case = option.case if option.meaning is OptionMeaning.SELECT else p.case
        resolution = Exact(case=case, new=p.new_case) if case is not None else None
        out.append(
            ActInput(
                act=p.act,
                resolution=resolution,
                record_args=p.record_args,
                part_args=p.part_args,
            )
        )
    return tuple(out)


def _answer_card(
    r: Reduction,
    card: Interaction,
    option: InteractionOption,
    pending: tuple[ActInput, ...],
    click: ClickInput | None,
    *,
    structured: bool,
    item_id: str,
) -> None:
    spec = card.spec
    pending = _resumed(r, card, pending)
    item_results: dict[str, str] = {}
    if option.meaning in (OptionMeaning.DECLINE, OptionMeaning.REJECT):
        code = "declined" if option.meaning is OptionMeaning.DECLINE else "review_rejected"
        status = (
            ResultStatus.NO_CHANGE
            if option.meaning is OptionMeaning.DECLINE
            else ResultStatus.REJECTED
        )
        if _refused_reviewer(r, spec, item_id):
            return
        for p in pending:
            record(r, p.act.id, status, code=code, sentence=r.say(code))
            item_results[p.act.id] = full_label(r.results[p.act.id])
        if not structured:
            record(r, item_id, ResultStatus.NO_CHANGE, code=code)
        r.closes.append(
            CardClose(
                interaction_id=card.id,
                status=InteractionStatus.DECLINED,
                option_id=option.id,
                results=item_results,
            )
        )
        return
    if _refused_reviewer(r, spec, item_id):
        return
    reason = stale_reason(spec, click, (x.case for x in r.ready))
    if reason is not None:
        # The record moved, this message asks to change it, or the client sent another
        # revision: the card cannot run, and the sentence says which (ADR 0003 rule 2).
        _stale(r, card, pending, item_id=item_id, reason=reason)
        return
    origin: Origin | None = None
    saved = r.checkpoint()
    if option.meaning in (OptionMeaning.CONFIRM, OptionMeaning.APPROVE):
        origin = ConfirmedInteraction(
            interaction_id=card.id,
            option_id=option.id,
            interaction_kind=spec.kind.value,
            payload_hash=card.payload_hash,
            confirmed_by=spec.confirmed_by,
            clicked_by=r.inp.actor.user,
        )
        lift_for_click(r, card)
    targets = {p.resolution.case for p in pending if isinstance(p.resolution, Exact)}
    if any(x.card is not None and x.card[0] != card.id and x.case in targets for x in r.ready):
        # A commit resolves one card (I16): another card's acts already commit on this
        # record in this turn, so this card stays open, to be answered again.
        record(r, item_id, ResultStatus.REJECTED, code="card_busy", sentence=r.say("card_busy"))
        return
    ref = (card.id, option.id)
    before = len(r.ready)
    for item in pending:
        reduce_act(r, item, origin=origin, card=ref)
    r.lift_for_click = False
    if origin is not None and _changed(spec, pending, r.compiled.get(ref, [])):
        # The click compiled commands other than those the card showed and hashed (a
        # redeploy, a configuration, a later day, ...): nothing of it commits, and the
        # card is re-issued showing what would run now (ADR 0014 rule 10).
        r.restore(saved)
        _stale(r, card, pending, item_id=item_id, reason="card_changed")
        return
    if not structured:
        progressed = len(r.ready) > before
        record(r, item_id, ResultStatus.READY if progressed else ResultStatus.NO_CHANGE)
    if len(r.ready) == before:
        # Nothing to commit. A selection is resolved by the answer alone; a Confirm or
        # Review card only when its authority moved on to a next card (a Review awaiting
        # an agent). A card whose acts were refused stays open: it authorised a command
        # that did not commit (I16).
        for p in pending:
            result = r.results.get(p.act.id)
            if result is not None:
                item_results[p.act.id] = result.label
        if spec.kind in (InteractionKind.CONFIRM, InteractionKind.REVIEW) and not all(
            r.results.get(p.act.id) is not None
            and r.results[p.act.id].status is ResultStatus.AWAITING_CONFIRMATION
            for p in pending
        ):
            return
        r.closes.append(
            CardClose(
                interaction_id=card.id,
                status=InteractionStatus.RESOLVED,
                option_id=option.id,
                results=item_results,
            )
        )


def _refused_reviewer(r: Reduction, spec: InteractionSpec, item_id: str) -> bool:
    """Record and return whether this turn's actor may not answer a card of ``spec`` (I17).

    A card with a ``required_role`` needs a holder of it (``not_authorized``), and no
    user its ``excluded_reviewers`` names may answer it, holder or not
    (``reviewer_excluded``, docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md
    rule 9). A refused click leaves the card open for another reviewer.
    """
    actor = r.inp.actor
    if spec.required_role and not actor.has_role(spec.required_role):
        code, sentence = "not_authorized", r.say("not_authorized", role=spec.required_role)
    elif actor.user in spec.excluded_reviewers:
        code, sentence = "reviewer_excluded", r.say("reviewer_excluded")
    else:
        return False
    record(r, item_id, ResultStatus.REJECTED, code=code, sentence=sentence)
    return True


def _resumed(
    r: Reduction, card: Interaction, pending: tuple[ActInput, ...]
) -> tuple[ActInput, ...]:
    """Return a card's pending acts under ids no other item of this turn uses (I11).

    A resumed act reports under its own id unless this turn's understanding, the click
    or an earlier card already took it; then under ``<card id>:<act id>``, so neither
    result replaces the other and no commit is reported under another act's id.
    """
    taken = {*r.inp.understanding.item_ids(), "click", *r.results}
    return tuple(
        replace(p, act=replace(p.act, id=f"{card.id}:{p.act.id}")) if p.act.id in taken else p
        for p in pending
    )


def _changed(
    spec: InteractionSpec,
    pending: tuple[ActInput, ...],
    compiled: list[tuple[str, tuple[Command, ...]]],
) -> bool:
    """Whether a click compiled commands the card did not show (ADR 0014 rule 10).

    Commands compare by operation and the canonical JSON of ``to_json()``, the form the
    card's payload hash covers (``ProposedCommand.arguments``, ADR 0013 rule 1). When
    every pending act compiled, the compiled commands must be the card's, in order.
    When the domain refused some act, those that compiled must still be, in order,
    among the card's: a refused act adds nothing, so it cannot excuse a changed one.
    """
    shown = [(p.operation, canonical_json(p.arguments)) for p in spec.commands]
    got = [(c.operation, canonical_json(c.to_json())) for _, cs in compiled for c in cs]
    if {act_id for act_id, _ in compiled} >= {p.act.id for p in pending}:
        return got != shown
    rest = iter(shown)
    return not all(command in rest for command in got)


def _stale(
    r: Reduction,
    card: Interaction,
    pending: tuple[ActInput, ...],
    *,
    item_id: str,
    reason: StaleReason,
) -> None:
    """Close ``card`` as stale and re-issue its Confirm or Review acts on a fresh card.

    ``reason`` (``reduce/stale.py``) chooses the sentence: ``moved``, ``touched`` and
    ``claimed`` share the code ``stale`` (ADR 0003 rule 2, ADR 0014 rule 7), each with
    its own true sentence; ``card_changed`` is its own code (what the card would do
    changed, ADR 0014 rule 10). The click's result and the card's stored resolution carry
    the code, so a second click reports it again (``steps/reproject.py``).
    """
    spec = card.spec
    reissue = spec.kind in (InteractionKind.CONFIRM, InteractionKind.REVIEW)
    code = "card_changed" if reason == "card_changed" else "stale"
    record(r, item_id, ResultStatus.REJECTED, code=code, sentence=r.say(STALE_SENTENCES[reason]))
    r.closes.append(
        CardClose(
            interaction_id=card.id,
            status=InteractionStatus.STALE,
            option_id="",
            results={"click": f"{ResultStatus.REJECTED.value}:{code}"},
        )
    )
    if not reissue or spec.case is None:
        return
    if spec.case not in r.inp.snapshots:
        return
    # ADR 0003: a fresh card for the same acts; the runtime binds it to the revision after
    # this turn's commits, so the user never confirms content they did not see. A stale
    # Review restarts the chain with a Confirm: the earlier confirmation was given on
    # content that has since changed, so it cannot carry over (I16, I17). Each act is
    # compiled again against the record as it is now and goes through the domain
    # check and policy again: the fresh card never offers what the domain would now
    # refuse (ADR 0004 rule 3; docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).
    for item in pending:
        reduce_act(r, item, origin=None, card=None, reissue=True)
