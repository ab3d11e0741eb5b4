"""Step 5, check what the domain would refuse: the check understanding calls.

The check is built before understanding runs and handed to it in the brief, so a value
the domain refuses goes back to extraction with the domain's own sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from turnframe.core.acts import SemanticAct
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import Actor, CaseRef
from turnframe.runtime.check import act_refusal
from turnframe.runtime.parts import RuntimeParts
from turnframe.runtime.plan import CaseSnapshot
from turnframe.understand.brief import DomainCheck

__all__ = ["DomainCheckInput", "domain_check"]


@fast_init
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
    refusing the act as it would compile; a record argument naming a closed record is
    refused as ``record_closed`` (``runtime.check.act_refusal``).
    """
    registry, handles, snapshots = parts.registry, data.handles, data.snapshots
    actor, today, locale = data.actor, data.today, data.locale

    async def check(act: SemanticAct) -> str | None:
        return act_refusal(registry, act, handles, snapshots, actor, today, locale)

    return check
