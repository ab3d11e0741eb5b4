"""The domain check before reduction (guide §2 step 5): would the workflow refuse this act?

Pure. Evaluates the act's values as the reducer will and compiles it against the case's
snapshot; a refusal's own sentence goes back to extraction once (guide §5).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from turnframe.core.acts import SemanticAct
from turnframe.core.ids import Actor, CaseRef
from turnframe.core.workflow import ArgValue, CompileRequest, Refusal, WorkflowRegistry
from turnframe.runtime.plan import CaseSnapshot
from turnframe.runtime.values import AmbiguousValue, InvalidValue, evaluate_argument

__all__ = ["domain_refusal"]


def domain_refusal(
    registry: WorkflowRegistry,
    act: SemanticAct,
    snapshot: CaseSnapshot,
    record_args: Mapping[str, CaseRef],
    actor: Actor,
    today: date,
    locale: str,
) -> str | None:
    """Return the sentence the domain would refuse ``act`` with, or ``None`` when it passes.

    Missing values are not refusals (the user is asked for them later); a value whose
    words cannot be read as its kind is.
    """
    spec = registry.operation(act.operation or "")
    if spec is None:
        return None
    values: dict[str, ArgValue] = {}
    for arg in spec.arguments:
        words = act.args.get(arg.name)
        if words is None or not words.strip():
            if arg.required:
                return None
            continue
        try:
            values[arg.name] = evaluate_argument(
                arg, words, today, record_args.get(arg.name), locale
            )
        except AmbiguousValue:
            return None  # not a refusal: the reducer asks which date was meant (I8)
        except InvalidValue as exc:
            return str(exc)
    workflow = registry.workflow(spec.workflow).definition
    compiled = workflow.compile(
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
        refusal = workflow.validate(snapshot.state, command, today)
        if refusal is not None:
            return refusal.sentence
    return None
