"""Step 5, check what the domain would refuse: the check understanding calls.

The check is built before understanding runs and handed to it in the brief, so a value
the domain refuses goes back to extraction with the domain's own sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from turnframe.core.acts import SemanticAct
from turnframe.core.ids import Actor, CaseRef
from turnframe.runtime.check import domain_refusal
from turnframe.runtime.copy import say
from turnframe.runtime.parts import RuntimeParts
from turnframe.runtime.plan import CaseSnapshot
from turnframe.runtime.records import record_args
from turnframe.understand.brief import DomainCheck

__all__ = ["DomainCheckInput", "domain_check"]


@dataclass(frozen=True, slots=True, kw_only=True)
class DomainCheckInput:
    """What the domain check reads.

    Attributes:
        actor: who acts.
        handles: handle → case, for the records in view.
        snapshots: the turn's snapshot cache (read, never extended).
        today: the turn's today.
        locale: the turn's locale (the refusal's sentence).
    """

    actor: Actor
    handles: dict[str, CaseRef]
    snapshots: Mapping[CaseRef, CaseSnapshot]
    today: date
    locale: str


async def domain_check(parts: RuntimeParts, data: DomainCheckInput) -> DomainCheck:
    """Return the domain check understanding may call before reduction.

    See docs/architecture.md "One turn" step 5.

    The returned check answers ``None`` (no objection, or not checkable: no operation,
    not exactly one handle in view, a bad record argument) or the domain's sentence
    refusing the act as it would compile (``runtime.check.domain_refusal``); a record
    argument naming a closed record is refused as ``record_closed``.
    """
    registry, handles, snapshots = parts.registry, data.handles, data.snapshots
    actor, today, locale = data.actor, data.today, data.locale

    async def check(act: SemanticAct) -> str | None:
        if act.operation is None or len(act.target.handles) != 1:
            return None
        case = handles.get(act.target.handles[0])
        if case is None or case not in snapshots:
            return None
        records, bad = record_args(act.args, registry, act.operation, handles)
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

    return check
