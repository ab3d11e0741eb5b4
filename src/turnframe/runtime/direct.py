"""Commits outside a turn: seeding a case and a verified external callback (I4).

``Runtime.seed`` and ``Runtime.external_update`` delegate here; neither runs the turn
pipeline (docs/architecture.md "External effects").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from turnframe.core.canonical import digest, to_json_value
from turnframe.core.commands import PolicyDecision, VerifiedCallback
from turnframe.core.errors import UsageError
from turnframe.core.events import EventDraft
from turnframe.core.ids import CaseRef, JSONObject
from turnframe.core.workflow import Execution
from turnframe.runtime.parts import RuntimeParts
from turnframe.runtime.snapshots import row_state
from turnframe.store.base import CommitRequest, CommitResult

__all__ = ["external_update", "seed"]


async def seed(
    parts: RuntimeParts, account: str, workflow: str, state: JSONObject, case_id: str | None
) -> CaseRef:
    """Create a case directly from a JSON state (seeding; origin: a policy decision).

    Returns:
        The new case (``case_id``, or a minted id).

    Raises:
        RegistryError: for an unknown workflow.
        RevisionConflict: when the case already exists.
    """
    erased = parts.registry.workflow(workflow)
    typed = erased.typed(state)
    case = CaseRef(workflow, case_id or parts.ids.new_id(workflow))
    request = CommitRequest(
        account=account,
        case=case,
        expected_revision=0,
        state=erased.definition.dump_state(typed),
        events=(EventDraft(type=f"{workflow}.seeded", data=state, operation="seed"),),
        idempotency_key=digest(("seed", account, str(case))),
        request_hash=digest((to_json_value(PolicyDecision(rule="seed")), state)),
        turn_id="",
        operations=("seed",),
        search_text=erased.definition.search_text(typed),
        workflow_version=erased.version,
    )
    await _commit(parts, request)
    return case


async def external_update(
    parts: RuntimeParts,
    account: str,
    case: CaseRef,
    *,
    source: str,
    reference: str,
    transition: Callable[[Any], Execution[Any]],
) -> CommitResult:
    """Commit a verified external callback's effect on a case (origin VerifiedCallback, I4).

    The idempotency key is derived from the account, source, reference, case and the
    revision the transition was applied to.

    Raises:
        RevisionConflict: when the case changed concurrently.
        UsageError: when the case does not exist.
    """
    row = await parts.store.load_case(case)
    if row is None or row.account != account:
        raise UsageError(f"no case {case} for this account")
    if parts.executor is not None:
        # An adopter's executor holds the record: its state and revision (the store's
        # row above only said whose it is).
        own = await parts.load_row(case)
        if own is None:
            raise UsageError(f"no case {case} for this account")
        row = own
    erased = parts.registry.workflow(case.workflow)
    execution = transition(row_state(parts.registry, case, row))
    request = CommitRequest(
        account=account,
        case=case,
        expected_revision=row.revision,
        state=erased.definition.dump_state(execution.state),
        events=execution.events,
        outbox=execution.outbox,
        idempotency_key=digest(("callback", account, source, reference, str(case), row.revision)),
        request_hash=digest(
            (
                to_json_value(VerifiedCallback(source=source, reference=reference)),
                execution.events,
            )
        ),
        turn_id="",
        operations=tuple(dict.fromkeys(e.operation for e in execution.events)),
        search_text=None
        if execution.state is None
        else erased.definition.search_text(execution.state),
        workflow_version=erased.version,
    )
    return await _commit(parts, request)


async def _commit(parts: RuntimeParts, request: CommitRequest) -> CommitResult:
    """Commit through the adopter executor's ``commit`` when it has one, else the store."""
    own = getattr(parts.executor, "commit", None) if parts.executor is not None else None
    if callable(own):
        result: CommitResult = await own(request)
        return result
    return await parts.store.commit(request)
