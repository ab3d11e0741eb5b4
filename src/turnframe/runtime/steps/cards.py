"""Persist required interactions: the plan's cards, bound to the post-commit revision (I5, I6).

A card is persisted before any reply text refers to it; when persisting fails, nothing
mentions it (``card_failed``). docs/adr/0001-ambiguous-target.md,
docs/adr/0013-cards-show-what-they-do.md (the prompt is rebuilt at the bound revision).
"""

from __future__ import annotations

from dataclasses import replace

from turnframe.core.errors import DomainError
from turnframe.core.interactions import Interaction, InteractionKind
from turnframe.core.results import PlannedActResult
from turnframe.runtime.copy import say
from turnframe.runtime.parts import RuntimeParts, log, with_status
from turnframe.runtime.reduce import card_prompt
from turnframe.runtime.steps.after_commit import report_failure
from turnframe.runtime.turn import Committed, PersistedCards
from turnframe.store.errors import StoreError

__all__ = ["persist_cards"]


async def persist_cards(parts: RuntimeParts, committed: Committed) -> PersistedCards:
    """Persist planned cards bound to the post-commit revision (I5, I6). Idempotent.

    A card already stored under its minted id (recovery) is taken as it is, and its
    acts point at it. A Confirm or Review card's prompt shows the record at the
    revision it is bound to (ADR 0003); a case this turn committed is not read again.

    Raises:
        StoreError: reading a case or an existing card failed (a failed create is
            reported as ``card_failed`` instead).
    """
    prepared = committed.prepared
    results: dict[str, PlannedActResult] = dict(committed.results)
    notices = list(committed.notices)
    created: list[Interaction] = []
    actor = prepared.actor
    store, registry = parts.store, parts.registry
    for planned, card_id in zip(prepared.cards, prepared.card_ids, strict=True):
        spec = planned.spec
        # Only a resumed plan can find its card stored already (the ids are minted for
        # this turn): a fresh run does not read.
        existing = (
            await store.get_interaction(actor.account, prepared.conversation_id, card_id)
            if committed.resumed
            else None
        )
        if existing is not None:
            # Recovery: the card exists; its acts point at it as in the first run.
            created.append(existing)
            for item in planned.item_ids:
                if item in results:
                    results[item] = with_status(
                        results[item], results[item].status, interaction_id=existing.id
                    )
            continue
        label = ""
        if spec.case is not None:
            row = committed.rows.get(spec.case) or await parts.load_row(spec.case)
            erased = registry.workflow(spec.case.workflow)
            try:
                label = erased.definition.candidate_label(
                    spec.case, erased.typed(row.state if row else None), prepared.locale
                )
            except DomainError as exc:
                # After commit the domain's words never wedge the turn: the card is
                # still stored, named by the record's id (runtime/steps/after_commit.py).
                report_failure(parts, prepared.turn_id, "persist_cards", exc)
                label = str(spec.case)
        if spec.case is not None and not spec.independent:
            spec = replace(spec, bound_revision=row.revision if row else 0)
            if spec.kind in (InteractionKind.CONFIRM, InteractionKind.REVIEW):
                # ADR 0003: the prompt shows the record at the revision the card is bound to.
                try:
                    prompt = card_prompt(
                        registry,
                        spec.kind,
                        label,
                        spec.operations,
                        prepared.locale,
                        spec.commands,
                    )
                    spec = replace(spec, prompt=prompt)
                except DomainError as exc:
                    report_failure(parts, prepared.turn_id, "persist_cards", exc)
        try:
            others = [
                c
                for c in await store.open_interactions(actor.account, prepared.conversation_id)
                if spec.case is not None and c.spec.case == spec.case
            ]
            card = await store.create_interaction(
                Interaction(
                    id=card_id,
                    account=actor.account,
                    conversation_id=prepared.conversation_id,
                    turn_id=prepared.turn_id,
                    spec=spec,
                    payload_hash=spec.payload_hash(),
                )
            )
        except StoreError as exc:
            # I6: the card does not exist, so no text may refer to it.
            log.warning("card not persisted in turn %s: %s", prepared.turn_id, exc)
            notices.append(("card_failed", say("card_failed", prepared.locale), None))
            for item in planned.item_ids:
                if item in results:
                    results[item] = with_status(
                        results[item], results[item].status, code="card_failed"
                    )
            continue
        if others:
            # I5: the new card displaced the case's open one, deliberately and said so.
            notices.append(
                ("card_replaced", say("card_replaced", prepared.locale, label=label), None)
            )
        created.append(card)
        for item in planned.item_ids:
            if item in results:
                results[item] = with_status(
                    results[item], results[item].status, interaction_id=card.id
                )
    return PersistedCards(created=tuple(created), results=results, notices=notices)
