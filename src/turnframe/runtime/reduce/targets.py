"""Targets and arguments: only an Exact target is compiled, never a guess (I8, ADR 0001 rule 5).

An ambiguous target or record argument plans a selection card; several parts named by
the words plan a Choice card; a missing target, a record that does not fit, a closed
(terminal) record or an unreadable value gets its own result. Only the acts that depend
on an ambiguity are blocked.
"""

from __future__ import annotations

from turnframe.core.acts import SemanticAct
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import InteractionOption, OptionMeaning, PendingAct
from turnframe.core.operations import ArgumentKind, OperationSpec
from turnframe.core.results import ResultStatus
from turnframe.core.targets import Ambiguous, Exact, NotFound, Unauthorized
from turnframe.core.workflow import ArgValue, Refusal
from turnframe.runtime.plan import ActInput, CaseSnapshot, WaitingAct
from turnframe.runtime.reduce.cards import plan_choice, plan_selection
from turnframe.runtime.reduce.results import clarify_arg, record, reject
from turnframe.runtime.reduce.state import Reduction
from turnframe.runtime.values import AmbiguousValue, InvalidValue, evaluate_argument

__all__ = ["argument_values", "closed_label", "resolve_part", "resolve_target", "target_snapshot"]


def resolve_target(r: Reduction, item: ActInput, act: SemanticAct) -> tuple[CaseRef, bool] | None:
    """Return the act's Exact target and whether it is a new record, else ``None``.

    An ambiguous target plans a selection card; a target not found (or not the
    actor's) gets ``target_not_found``. ``None`` means the act has its result.
    """
    resolution = item.resolution
    match resolution:
        case Ambiguous(candidates=candidates):
            r.ambiguous += 1
            options = tuple(
                InteractionOption(
                    id=f"o{n}", label=c.label, meaning=OptionMeaning.SELECT, case=c.case
                )
                for n, c in enumerate(candidates, start=1)
            )
            waiting = PendingAct(act=act, record_args=dict(item.record_args))
            plan_selection(r, options, waiting)
            record(
                r,
                act.id,
                ResultStatus.NEEDS_CLARIFICATION,
                code="ambiguous_target",
                operation=act.operation,
            )
            return None
        case NotFound(reason="no_fit", sentence=sentence):
            # The words name records, none of which offers the operation now.
            record(
                r,
                act.id,
                ResultStatus.NEEDS_CLARIFICATION,
                code="target_not_found",
                sentence=sentence or r.say("no_fitting_record"),
                operation=act.operation,
            )
            return None
        case NotFound() | Unauthorized() | None:
            record(
                r,
                act.id,
                ResultStatus.NEEDS_CLARIFICATION,
                code="target_not_found",
                sentence=r.say("target_not_found"),
                operation=act.operation,
            )
            return None
        case Exact(case=case, new=new):
            return case, new


def target_snapshot(
    r: Reduction, act: SemanticAct, spec: OperationSpec, case: CaseRef, new: bool
) -> CaseSnapshot | None:
    """Return the snapshot of an Exact target the operation may act on, else ``None``.

    The record must be of the operation's workflow, loaded, offer the operation to the
    actor and not be terminal (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md);
    otherwise the act gets its result and ``None`` is returned.
    """
    if case.workflow != spec.workflow or (new and not spec.creates_case):
        reject(r, act, "wrong_record", r.say("wrong_record"), case=case)
        return None
    snap = r.inp.snapshots.get(case)
    if snap is None:
        record(
            r,
            act.id,
            ResultStatus.NEEDS_CLARIFICATION,
            code="target_not_found",
            sentence=r.say("target_not_found"),
            operation=act.operation,
        )
        return None
    workflow = r.registry.workflow(spec.workflow)
    offered = (spec.creates_case and snap.state is None) or spec.key in workflow.definition.offered(
        snap.view, r.inp.actor
    )
    if not offered:
        reject(r, act, "not_offered", r.say("not_offered", label=snap.label), case=case)
        return None
    if not new and snap.state is not None and workflow.terminal(snap.view):
        # A terminal record is never a mutation's target, even where its workflow
        # still lists the operation (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).
        reject(r, act, "record_closed", r.say("record_closed", label=snap.label), case=case)
        return None
    return snap


def argument_values(
    r: Reduction,
    item: ActInput,
    act: SemanticAct,
    spec: OperationSpec,
    case: CaseRef,
    snap: CaseSnapshot,
) -> dict[str, ArgValue] | None:
    """Return the act's argument values, or ``None`` once the act has its result.

    Ambiguous record arguments plan a selection card; a record not registered yet makes
    the act wait for it (ADR 0007); closed records, invalid, missing or ambiguous values get
    a clarification or refusal, never a guess (I8).
    """
    values: dict[str, ArgValue] = {}
    for arg in spec.arguments:
        words = act.args.get(arg.name)
        if arg.name in item.choices:
            # Several records fit the words: a selection card asks which (never the
            # newest, first or most plausible one, I8).
            r.ambiguous += 1
            options = tuple(
                InteractionOption(
                    id=f"o{n}", label=c.label, meaning=OptionMeaning.SELECT, case=c.case
                )
                for n, c in enumerate(item.choices[arg.name], start=1)
            )
            waiting = PendingAct(
                act=act, case=case, record_args=dict(item.record_args), argument=arg.name
            )
            plan_selection(r, options, waiting)
            record(
                r,
                act.id,
                ResultStatus.NEEDS_CLARIFICATION,
                code=f"ambiguous_record:{arg.name}",
                operation=act.operation,
                case=case,
            )
            return None
        if arg.name in item.awaits and arg.record_workflow:
            # ADR 0007: the record the user named is not registered yet; the act waits for it.
            r.waiting.append(
                WaitingAct(
                    item_id=f"{r.inp.turn_id}:{act.id}",
                    pending=PendingAct(act=act, case=case, record_args=dict(item.record_args)),
                    argument=arg.name,
                    workflow=arg.record_workflow,
                    name=item.awaits[arg.name],
                )
            )
            record(
                r,
                act.id,
                ResultStatus.NEEDS_CLARIFICATION,
                code=f"record_not_found:{arg.name}",
                sentence=r.say("record_not_found"),
                operation=act.operation,
                case=case,
            )
            return None
        if item.bad_args.get(arg.name) == "closed":
            # Every record the words name is closed (terminal): none may fill it.
            reject(
                r,
                act,
                f"record_closed:{arg.name}",
                r.say("no_fitting_record"),
                case=case,
            )
            return None
        if arg.name in item.bad_args:
            clarify_arg(r, act, case, arg.name, "invalid")
            return None
        named = item.record_args.get(arg.name)
        if arg.kind is ArgumentKind.RECORD and named is not None:
            closed = closed_label(r, named)
            if closed is not None:
                # A terminal record (a Deleted traveler) is never the argument of a
                # mutation, whether found now or chosen on a card drawn before.
                reject(
                    r,
                    act,
                    f"record_closed:{arg.name}",
                    r.say("record_closed", label=closed),
                    case=case,
                )
                return None
        if arg.kind is ArgumentKind.PART and (
            arg.name in item.part_args or (isinstance(words, str) and words.strip())
        ):
            part = resolve_part(r, item, act, case, snap.state, spec, arg.name, str(words))
            if part is None:
                return None
            values[arg.name] = part
            continue
        if words is None or (isinstance(words, str) and not words.strip()):
            if arg.required:
                clarify_arg(r, act, case, arg.name, "missing")
                return None
            continue
        try:
            values[arg.name] = evaluate_argument(
                arg, words, r.inp.today, item.record_args.get(arg.name), r.inp.locale
            )
        except AmbiguousValue as exc:
            # Two plausible orders read the date differently: asked, never guessed (I8).
            clarify_arg(r, act, case, arg.name, "ambiguous", exc.readings)
            return None
        except InvalidValue:
            clarify_arg(r, act, case, arg.name, "invalid")
            return None
    return values


def closed_label(r: Reduction, case: CaseRef) -> str | None:
    """Return the label of ``case`` when its record is terminal, else ``None``."""
    snap = r.inp.snapshots.get(case)
    if snap is None or snap.state is None:
        return None
    if r.registry.workflow(case.workflow).terminal(snap.view):
        return snap.label
    return None


def resolve_part(
    r: Reduction,
    item: ActInput,
    act: SemanticAct,
    case: CaseRef,
    state: object,
    spec: OperationSpec,
    name: str,
    words: str,
) -> str | None:
    """Resolve a ``PART`` argument from the user's words, the way records are (no guess).

    A part chosen on a card (``item.part_args``) is taken as is: the domain's compile
    checks it still exists. Otherwise the target's workflow finds the parts the
    words name: one is used; several go on a Choice card; none is refused with the
    domain's sentence. Returns the part id, or ``None`` once the act has its result.
    """
    if name in item.part_args:
        return item.part_args[name]
    argument = spec.argument(name)
    assert argument is not None
    erased = r.registry.workflow(spec.workflow)
    found = erased.find_parts(state, spec, argument, words, r.inp.locale)
    if isinstance(found, Refusal) or not found:
        refusal = found if isinstance(found, Refusal) else None
        reject(
            r,
            act,
            refusal.code if refusal else f"part_not_found:{name}",
            refusal.sentence if refusal else r.say("part_not_found"),
            case=case,
        )
        return None
    if len(found) == 1:
        return found[0].id
    r.ambiguous += 1
    waiting = PendingAct(
        act=act,
        case=case,
        record_args=dict(item.record_args),
        argument=name,
        part_args=dict(item.part_args),
    )
    plan_choice(r, found, waiting)
    record(
        r,
        act.id,
        ResultStatus.NEEDS_CLARIFICATION,
        code=f"ambiguous_part:{name}",
        operation=act.operation,
        case=case,
    )
    return None
