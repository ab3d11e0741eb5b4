"""Step 2, load and project: the records in view, their snapshots and the turn's context.

Each case is projected into its workflow view (``CaseSnapshot.view``); the records in
view get per-turn opaque handles (I1, docs/architecture.md "One turn").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from turnframe.core.acts import Understanding
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import Actor, CaseRef
from turnframe.core.interactions import Interaction
from turnframe.core.turn import TurnInput
from turnframe.runtime.parts import ASKED, STANDING, WAITING, RuntimeParts, handle
from turnframe.runtime.scope import brief_scope, remembered_cases
from turnframe.runtime.serial import load_waiting
from turnframe.runtime.snapshots import TurnSnapshots
from turnframe.runtime.turn import Loaded

__all__ = ["LinkedInput", "LoadInput", "load", "load_linked_cards"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class LoadInput:
    """What the load step needs.

    Attributes:
        actor: who acts (the listing is scoped to the account).
        conversation_id: the conversation (its state and open cards).
        turn: the turn's input (only text turns read what the last reply asked).
        turn_id: the turn (mints the handles).
        today: the turn's today (projection).
        locale: the turn's locale (labels).
        in_view: the records on screen (``None``: the surface says nothing, and the
            brief adds the default view of docs/adr/0020-what-a-brief-shows.md, the
            actor's newest records).
    """

    actor: Actor
    conversation_id: str
    turn: TurnInput
    turn_id: str
    today: date
    locale: str
    in_view: Sequence[CaseRef] | None


async def load(parts: RuntimeParts, data: LoadInput) -> Loaded:
    """Read the conversation state and open cards; take the snapshots of the records in view.

    The records are those a turn can be about
    (:func:`~turnframe.runtime.scope.brief_scope`; with ``in_view=None`` also the
    default view, the actor's newest records, which is the whole account when the
    account is that small): the cost follows them, not the account
    (docs/adr/0020-what-a-brief-shows.md). Every snapshot is taken once, in the turn's
    :class:`~turnframe.runtime.snapshots.TurnSnapshots`.

    Raises:
        StoreError: a read failed (the turn is still ``received``).
    """
    actor, today, locale = data.actor, data.today, data.locale
    conversation = await parts.store.get_conversation_state(actor.account, data.conversation_id)
    standing_before = bool(conversation.get(STANDING, False))
    asked = conversation.get(ASKED) if data.turn.text else None
    waiting = load_waiting(conversation.get(WAITING))
    snapshots = TurnSnapshots(
        parts.registry,
        parts.store,
        actor.account,
        today,
        locale,
        parts.executor,
        memo=parts.snapshot_memo,
    )
    cards = tuple(await parts.store.open_interactions(actor.account, data.conversation_id))
    scope = await brief_scope(
        directory=parts.directory,
        snapshots=snapshots,
        actor=actor,
        text=data.turn.text or "",
        in_view=data.in_view,
        conversation=remembered_cases(conversation),
        cards=cards,
        waiting=waiting,
        limits=parts.app.brief_limits,
    )
    entries = list(scope.entries)
    handles = {handle(data.turn_id, e.case): e.case for e in entries}
    labels = {e.case: e.label for e in entries}
    for carried in waiting:
        for case in (carried.pending.case, *carried.pending.record_args.values()):
            if case is not None:
                await snapshots.load(case)
    return Loaded(
        standing_before=standing_before,
        asked=asked,
        waiting=waiting,
        entries=entries,
        handles=handles,
        labels=labels,
        snapshots=snapshots,
        cards=cards,
        unlisted=scope.unlisted,
        records_cut=scope.cut,
    )


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class LinkedInput:
    """What loading the cards this turn's links name needs.

    Attributes:
        actor: who acts.
        conversation_id: the conversation.
        understanding: the turn's proposal (its links).
        loaded: the load step's output (cards on screen, the snapshot cache to extend).
        today: the turn's today.
        locale: the turn's locale.
    """

    actor: Actor
    conversation_id: str
    understanding: Understanding
    loaded: Loaded
    today: date
    locale: str


async def load_linked_cards(parts: RuntimeParts, data: LinkedInput) -> tuple[Interaction, ...]:
    """Return the closed cards this turn's links name; load the linked cards' cases.

    A link end ``<card id>:<act id>`` that is not an act of this turn names a pending
    act of an earlier turn (ADR 0012). A card on screen needs its cases snapshotted
    (its other acts go on a fresh card); a card no longer open tells the reducer
    whether the act already committed.

    Raises:
        StoreError: a read failed.
    """
    understanding, snapshots = data.understanding, data.loaded.snapshots
    own = {a.id for a in understanding.acts}
    named = {
        end.partition(":")[0]
        for link in understanding.links
        for end in (link.corrects, link.cancels)
        if end and end not in own and ":" in end
    }
    if not named:
        return ()
    out: list[Interaction] = []
    on_screen = {c.id: c for c in data.loaded.cards}
    for card_id in sorted(named):
        card = on_screen.get(card_id)
        if card is None:
            found = await parts.store.get_interaction(
                data.actor.account, data.conversation_id, card_id
            )
            if found is not None:
                out.append(found)
            continue
        for p in card.spec.pending:
            for case in (p.case, card.spec.case, *p.record_args.values()):
                if case is not None and case not in snapshots:
                    await snapshots.load(case)
    return tuple(out)
