"""The domain check before reduction: would the workflow refuse this act?

See docs/architecture.md "One turn" step 5.

Pure. Evaluates the act's values as the reducer will and compiles it against the case's
snapshot; a refusal's own sentence goes back to extraction once (docs/architecture.md
"Understanding"). :func:`act_refusal` is the whole check on a turn's handles and
snapshots, the one the domain-check step and the shadow reading
(``turnframe.eval.shadow_input``) both call.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from turnframe.core.acts import SemanticAct
from turnframe.core.ids import Actor, CaseRef
from turnframe.core.operations import ArgumentKind
from turnframe.core.workflow import ArgValue, CompileRequest, Refusal, WorkflowRegistry
from turnframe.runtime.copy import say
from turnframe.runtime.plan import CaseSnapshot
from turnframe.runtime.records import record_args as handle_records
from turnframe.runtime.values import AmbiguousValue, InvalidValue, evaluate_argument

__all__ = ["act_refusal", "domain_refusal"]


def act_refusal(
    registry: WorkflowRegistry,
    act: SemanticAct,
    handles: Mapping[str, CaseRef],
    snapshots: Mapping[CaseRef, CaseSnapshot],
    actor: Actor,
    today: date,
    locale: str,
) -> str | None:
    """Return the sentence the domain would refuse ``act`` with on these snapshots, or ``None``.

    ``None`` also means not checkable: no operation, not exactly one handle, a handle
    not in ``handles`` or whose case has no snapshot, or a record argument that names no
    record of its workflow by a handle. A record argument naming a terminal record is
    refused as ``record_closed`` (in ``locale``); otherwise the answer is
    :func:`domain_refusal` on the target's snapshot (docs/architecture.md "One turn"
    step 5). Reads only its arguments; raises nothing for any act.
    """
    if act.operation is None or len(act.target.handles) != 1:
        return None
    case = handles.get(act.target.handles[0])
    if case is None or case not in snapshots:
        return None
    records, bad = handle_records(act.args, registry, act.operation, dict(handles))
    if bad:
        return None
    closed = {
        ref: say("record_closed", locale, label=snap.label)
        for ref in records.values()
        if (snap := snapshots.get(ref)) is not None
        and snap.state is not None
        and registry.workflow(ref.workflow).terminal(snap.view)
    }
    return domain_refusal(registry, act, snapshots[case], records, actor, today, locale, closed)


def domain_refusal(
    registry: WorkflowRegistry,
    act: SemanticAct,
    snapshot: CaseSnapshot,
    record_args: Mapping[str, CaseRef],
    actor: Actor,
    today: date,
    locale: str,
    closed: Mapping[CaseRef, str] | None = None,
) -> str | None:
    """Return the sentence the domain would refuse ``act`` with, or ``None`` when it passes.

    Missing values are not refusals (the user is asked for them later); a value whose
    words cannot be read as its kind is. ``closed`` maps the record arguments' cases that
    are terminal to the refusal sentence naming them (a terminal record never fills an
    argument of a mutation); a ``PART`` argument is named by the target's workflow
    (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).
    """
    closed = closed or {}
    spec = registry.operation(act.operation or "")
    if spec is None or spec.workflow != snapshot.case.workflow:
        # An unknown operation, or one aimed at a record of another workflow, is not the
        # domain's to refuse: the reducer answers it (``unknown_operation``/``wrong_record``).
        return None
    values: dict[str, ArgValue] = {}
    workflow = registry.workflow(spec.workflow)
    for arg in spec.arguments:
        words = act.args.get(arg.name)
        if words is None or not words.strip():
            if arg.required:
                return None
            continue
        named = record_args.get(arg.name)
        if arg.kind is ArgumentKind.RECORD and named is not None and named in closed:
            return closed[named]
        if arg.kind is ArgumentKind.PART:
            # The domain names the part from the words, as the reducer will: no part is its
            # refusal; several are not a refusal (a choice card will ask).
            parts = workflow.find_parts(snapshot.state, spec, arg, words, locale)
            if isinstance(parts, Refusal):
                return parts.sentence
            if len(parts) != 1:
                return None
            values[arg.name] = parts[0].id
            continue
        try:
            values[arg.name] = evaluate_argument(
                arg, words, today, record_args.get(arg.name), locale
            )
        except AmbiguousValue:
            return None  # not a refusal: the reducer asks which date was meant (I8)
        except InvalidValue as exc:
            return str(exc)
    definition = workflow.definition
    compiled = definition.compile(
        CompileRequest(
            act=act,
            operation=spec,
            case=snapshot.case,
            state=snapshot.state,
            view=snapshot.view,
            values=values,
            prior=(),
            actor=actor,
            today=today,
            locale=locale,
        )
    )
    if isinstance(compiled, Refusal):
        return compiled.sentence
    for command in compiled.commands:
        refusal = definition.validate(snapshot.state, command, today, locale)
        if refusal is not None:
            return refusal.sentence
    return None
