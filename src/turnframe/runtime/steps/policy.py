"""Step 9, apply policy: each planned batch's commands are applied, unwritten (I4, I14, I17).

The executor's ``apply`` (the store-backed ``StoredStateExecutor`` by default, an
adopter's ``WorkflowExecutor`` when the runtime has one, docs/adr/0025-adopter-executors.md)
checks every envelope's origin against its policy
(``runtime.policy.origin_satisfies``) and validates it against the snapshot's typed state
(no case is typed twice in a turn); a batch the domain rejects rejects every act it
carries. Nothing is written here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from turnframe.core.canonical import digest, to_json_value
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import Actor, CaseRef
from turnframe.core.interactions import InteractionResolution, InteractionStatus
from turnframe.core.ports import LoadedCase, WorkflowExecutor
from turnframe.core.results import ResultStatus
from turnframe.runtime.errors import CommandRejected
from turnframe.runtime.executor import StoredStateExecutor, search_text_of
from turnframe.runtime.parts import RuntimeParts, rejected
from turnframe.runtime.plan import CaseSnapshot, Plan
from turnframe.runtime.transition import IndexedTransition
from turnframe.runtime.turn import BatchRequest, Compiled
from turnframe.store.base import CommitRequest, InteractionCas

__all__ = ["PolicyInput", "apply_policy"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PolicyInput:
    """The plan to apply.

    Attributes:
        turn_id: the turn (stamped on the events).
        actor: who acts.
        today: the turn's today.
        locale: the turn's locale (the domain's refusals).
        plan: the reducer's plan.
        snapshots: the turn's snapshots (each batch's case has one).
    """

    turn_id: str
    actor: Actor
    today: date
    locale: str
    plan: Plan
    snapshots: Mapping[CaseRef, CaseSnapshot]


async def apply_policy(parts: RuntimeParts, data: PolicyInput) -> Compiled:
    """Apply each batch's commands to its snapshot and build its commit request.

    Each request carries the batch's expected revision, the first envelope's idempotency
    key and a hash of the commands and origins (I12, I13); a batch answering a card
    carries the card's compare-and-set to ``resolved``.

    Raises:
        InvariantBroken: an envelope's origin does not satisfy its policy (I4, I17).
    """
    plan, turn_id, actor = data.plan, data.turn_id, data.actor
    stored: StoredStateExecutor | None = None
    adopter: WorkflowExecutor | None = parts.executor
    if adopter is None:
        stored = StoredStateExecutor(parts.registry, parts.store, data.today)
        stored.turn_id = turn_id
        stored.locale = data.locale
        stored.know_executed(plan.executed)
    else:
        for_turn = getattr(adopter, "for_turn", None)
        if callable(for_turn):
            adopter = for_turn(today=data.today, turn_id=turn_id, locale=data.locale)
    results = {r.item_id: r for r in plan.results}
    batches: list[BatchRequest] = []
    origins: dict[int, tuple[object, object]] = {}  # id → (origin, its JSON), this call only
    for batch in plan.batches:
        snap = data.snapshots[batch.case]
        loaded = LoadedCase(case=batch.case, state=snap.state_json, revision=snap.revision)
        try:
            if stored is not None:
                stored.know(batch.case, snap.state_json, snap.state)
                transition = await stored.apply(loaded, batch.envelopes)
            else:
                assert adopter is not None
                transition = await adopter.apply(loaded, batch.envelopes)
        except CommandRejected as exc:
            for act_id in batch.act_ids:
                results[act_id] = rejected(results[act_id], exc.code, exc.sentence)
            continue
        cas = None
        if batch.card is not None:
            cas = InteractionCas(
                interaction_id=batch.card[0],
                status=InteractionStatus.RESOLVED,
                resolution=InteractionResolution(
                    option_id=batch.card[1],
                    turn_id=turn_id,
                    user=actor.user,
                    results={a: ResultStatus.COMMITTED.value for a in batch.act_ids},
                ),
            )
        request = CommitRequest(
            account=actor.account,
            case=batch.case,
            expected_revision=batch.expected_revision,
            state=transition.state,
            events=transition.events,
            outbox=transition.outbox,
            idempotency_key=batch.envelopes[0].idempotency_key,
            request_hash=digest(
                (
                    batch.expected_revision,
                    [e.command.to_json() for e in batch.envelopes],
                    [e.operation for e in batch.envelopes],
                    [_origin_json(e.origin, origins) for e in batch.envelopes],
                )
            ),
            turn_id=turn_id,
            operations=tuple(e.operation for e in batch.envelopes),
            interaction=cas,
            search_text=search_text_of(transition),
            workflow_version=parts.registry.workflow(batch.case.workflow).version,
        )
        typed = transition.typed if isinstance(transition, IndexedTransition) else None
        batches.append(BatchRequest(request=request, act_ids=batch.act_ids, typed=typed))
    return Compiled(results=results, batches=tuple(batches))


def _origin_json(origin: object, seen: dict[int, tuple[object, object]]) -> object:
    """Return ``to_json_value(origin)``, encoded once per origin object in one policy step.

    Envelopes of one act share their origin object; ``seen`` (made fresh for each call of
    :func:`apply_policy`, holding each origin so its id is not reused) keeps its JSON for
    the very same object, never for an equal one.
    """
    kept = seen.get(id(origin))
    if kept is not None and kept[0] is origin:
        return kept[1]
    encoded = to_json_value(origin)
    seen[id(origin)] = (origin, encoded)
    return encoded
