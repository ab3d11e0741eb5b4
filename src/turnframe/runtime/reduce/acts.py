"""One act: checks, target, arguments, compile (domain check), policy; one result each.

A hypothetical act never becomes an action; an ungrounded one is rejected (ADR 0005). Only an
Exact target is compiled (I8); an act whose policy the origin satisfies is ready to
commit, any other waits on its record's Confirm card (ADR 0004) or, once confirmed, on a
Review card.
"""

from __future__ import annotations

from turnframe.core.acts import EvidenceSource
from turnframe.core.authoring.base import compile_validates
from turnframe.core.commands import CommandPolicy, ConfirmedInteraction, Origin
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import InteractionKind, PendingAct
from turnframe.core.operations import ArgumentKind
from turnframe.core.results import ResultStatus
from turnframe.core.workflow import Compiled, CompileRequest, Refusal
from turnframe.runtime.plan import ActInput
from turnframe.runtime.policy import origin_satisfies
from turnframe.runtime.reduce.cards import plan_review_card, propose
from turnframe.runtime.reduce.constraints import submission_blocked
from turnframe.runtime.reduce.links import reduce_cancellation
from turnframe.runtime.reduce.results import record, reject
from turnframe.runtime.reduce.state import Awaiting, Ready, Reduction
from turnframe.runtime.reduce.targets import argument_values, resolve_target, target_snapshot

__all__ = ["reduce_act"]


def reduce_act(
    r: Reduction,
    item: ActInput,
    *,
    origin: Origin | None,
    card: tuple[str, str] | None,
    reissue: bool = False,
) -> None:
    """Reduce one act: resolve, evaluate, compile (domain check), policy; one result.

    ``reissue``: the act comes from a stale card and is compiled again against the
    record as it is now; whatever passes goes on a fresh Confirm card (never runs
    from the stale click), whatever the domain now refuses gets its refusal
    (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).
    """
    act = item.act
    if act.operation is None:
        reduce_cancellation(r, act)
        return
    if act.hypothetical:
        record(
            r,
            act.id,
            ResultStatus.NO_CHANGE,
            code="hypothetical",
            sentence=r.say("hypothetical"),
            operation=act.operation,
        )
        return
    if act.evidence_source is not EvidenceSource.USER:
        reject(r, act, "ungrounded", r.say("ungrounded"))
        return
    spec = r.registry.operation(act.operation)
    if spec is None:
        reject(r, act, "unknown_operation", r.say("unknown_operation"))
        return
    target = resolve_target(r, item, act)
    if target is None:
        return
    case, new = target
    snap = target_snapshot(r, act, spec, case, new)
    if snap is None:
        return
    workflow = r.registry.workflow(spec.workflow)
    if submission_blocked(r, spec, origin, reissue=reissue):
        reject(r, act, "do_not_submit", r.say("do_not_submit"), case=case)
        return
    values = argument_values(r, item, act, spec, case, snap)
    if values is None:
        return
    compiled = workflow.definition.compile(
        CompileRequest(
            act=act,
            operation=spec,
            case=case,
            state=snap.state,
            view=snap.view,
            values=values,
            prior=tuple(r.prior[case]),
            actor=r.inp.actor,
            today=r.inp.today,
            locale=r.inp.locale,
            replayed=r.carried.get(case),
            turn_id=r.inp.turn_id,
        )
    )
    if isinstance(compiled, Refusal):
        reject(r, act, compiled.code, compiled.sentence, case=case)
        return
    if not compiled.commands:
        record(
            r,
            act.id,
            ResultStatus.NO_CHANGE,
            code="already_so",
            sentence=r.say("already_so"),
            operation=act.operation,
            case=case,
        )
        return
    # A compilation's ``validated`` stands only for a definition whose ``validate`` is
    # the rules that compilation checked (``compile_validates``): a definition that hands
    # ``compile`` to a kit workflow but keeps a ``validate`` of its own is asked here.
    if not r.prior[case] and not (compiled.validated and compile_validates(workflow.raw)):
        # With commands planned earlier on the case, compile judged these against the
        # planned state (ADR 0004); a refusal on the stored state alone would not stand.
        for command in compiled.commands:
            refusal = workflow.definition.validate(snap.state, command, r.inp.today, r.inp.locale)
            if refusal is not None:
                reject(r, act, refusal.code, refusal.sentence, case=case)
                return
    if card is not None:
        # What the click compiled, for the comparison with what the card showed
        # (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md rule 10).
        r.compiled.setdefault(card, []).append((act.id, compiled.commands))
    policies = tuple(workflow.policy(snap.state, c) for c in compiled.commands)
    chosen = origin or r.direct_act()
    if _excluded_review(chosen, policies):
        # A card drawn before its policy excluded this reviewer (or stored without the
        # field): the recomputed policy still refuses the click (ADR 0014 rule 9).
        reject(r, act, "reviewer_excluded", r.say("reviewer_excluded"), case=case)
        return
    if not reissue and all(origin_satisfies(p, chosen) for p in policies):
        _plan(r, case, compiled)
        r.ready.append(
            Ready(
                act_id=act.id,
                case=case,
                new_case=new,
                commands=compiled.commands,
                policies=policies,
                origin=chosen,
                card=card,
            )
        )
        record(r, act.id, ResultStatus.READY, operation=act.operation, case=case)
        return
    # ADR 0004: later acts on this case are checked against these commands too.
    _plan(r, case, compiled)
    review = next((p.review_role for p in policies if p.review_role), None)
    excluded = tuple(dict.fromkeys(u for p in policies for u in p.excluded_reviewers))
    parts = {
        a.name: str(values[a.name])
        for a in spec.arguments
        if a.kind is ArgumentKind.PART and a.name in values
    }
    pending = PendingAct(
        act=act,
        case=case,
        record_args=dict(item.record_args),
        new_case=new,
        part_args=parts,
    )
    confirmed_first = isinstance(origin, ConfirmedInteraction) and (
        origin.interaction_kind == InteractionKind.CONFIRM.value
    )
    proposed = propose(r, workflow, snap.state, compiled.commands)
    if review and confirmed_first:
        assert isinstance(origin, ConfirmedInteraction)
        plan_review_card(
            r, pending, compiled.commands, review, origin, snap.label, proposed, excluded
        )
        record(
            r,
            act.id,
            ResultStatus.AWAITING_CONFIRMATION,
            code="awaiting_review",
            operation=act.operation,
            case=case,
        )
        return
    r.awaiting.setdefault(case, []).append(
        Awaiting(
            pending=pending,
            operations=tuple(c.operation for c in compiled.commands),
            review_role=review,
            commands=proposed,
            excluded_reviewers=excluded,
        )
    )
    record(
        r,
        act.id,
        ResultStatus.AWAITING_CONFIRMATION,
        code="reissued" if reissue else None,
        operation=act.operation,
        case=case,
    )


def _plan(r: Reduction, case: CaseRef, compiled: Compiled) -> None:
    """Add ``compiled``'s commands to the case's planned ones and carry its replayed state.

    The carried state is handed, unread, to the case's next compilation in the turn,
    which uses it only if it fits (:meth:`~turnframe.core.workflow.Replayed.fits`); a
    compilation that returned none drops what was carried. What the compilation executed
    (:attr:`~turnframe.core.workflow.Compiled.executed`) goes to the plan, for the
    policy step.
    """
    r.prior[case].extend(compiled.commands)
    r.executed.extend(compiled.executed)
    if compiled.replayed is None:
        r.carried.pop(case, None)
    else:
        r.carried[case] = compiled.replayed


def _excluded_review(origin: Origin, policies: tuple[CommandPolicy, ...]) -> bool:
    """Whether ``origin`` is a Review click by a user one of ``policies`` excludes (I17)."""
    return (
        isinstance(origin, ConfirmedInteraction)
        and origin.interaction_kind == InteractionKind.REVIEW.value
        and any(origin.clicked_by in p.excluded_reviewers for p in policies)
    )
