"""Steps 10–11, execute and commit: the plan and every batch in one write; cards close.

Each batch commits atomically on its own (I12, I13), cards close by compare-and-set
(I16), all in the one transaction that stores the plan
(docs/adr/0024-four-writes-per-turn.md).

A lost race is reported as the card actually ended, never as this turn meant it
(docs/adr/0016-races-and-turn-ids.md, docs/adr/0012-links-across-turns.md). Idempotent:
recovery commits again by idempotency key.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from turnframe.core.dataclass_init import fast_init
from turnframe.core.events import DomainEvent
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import Interaction, InteractionResolution, InteractionStatus
from turnframe.core.results import PlannedActResult, ResultStatus
from turnframe.core.turn import TurnPhase
from turnframe.runtime.copy import say
from turnframe.runtime.errors import TurnInterrupted
from turnframe.runtime.observe import observe_batch
from turnframe.runtime.parts import RuntimeParts, rejected, with_status
from turnframe.runtime.plan import CardClose
from turnframe.runtime.turn import Committed, PreparedTurn
from turnframe.runtime.turn_writes import plan_commit
from turnframe.store.base import (
    CaseRow,
    CommitRefusal,
    CommitRequest,
    CommitResult,
    InteractionCas,
    PlanCommit,
    PlanOutcome,
)
from turnframe.store.errors import (
    IdempotencyKeyReused,
    InteractionAlreadyResolved,
    RevisionConflict,
    StoreError,
)

__all__ = ["CommitInput", "commit"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CommitInput:
    """What the commit step starts from.

    Attributes:
        prepared: the turn's plan.
        resumed: recovery is finishing a plan stored before: the write carries only
            the commits and closes, which replay by key and compare-and-set.
    """

    prepared: PreparedTurn
    resumed: bool = False


async def commit(parts: RuntimeParts, data: CommitInput) -> Committed:
    """Store the plan with every commit and card close in one write, then settle races.

    The write is ``TurnStore.commit_plan`` (docs/adr/0024-four-writes-per-turn.md): phase
    ``committing`` with the plan and the replay record's first part, each batch atomic
    on its own, then the card closes, withdrawals included (ADR 0012: they close in the
    transaction of the commits). A ``RevisionConflict`` rejects the batch's acts as
    ``conflict``, an ``InteractionAlreadyResolved`` as ``already_resolved``, unless
    another turn closed the batch's card first, when the card's own resolution is
    reported.

    Raises:
        TurnInterrupted: a store boundary failed (phase ``received`` when the plan was
            not stored, ``committing`` or ``committed`` after).
    """
    prepared, resumed = data.prepared, data.resumed
    turn_id = prepared.turn_id
    actor = prepared.actor
    results = {r.item_id: r for r in prepared.results}
    commits: list[CommitResult] = []
    lost: dict[str, Interaction] = {}  # cards another turn closed first (ADR 0016)
    commands: list[tuple[str, CaseRef]] = []
    committed_events: list[DomainEvent] = []
    # The rows this turn's commits wrote: the later steps read them here, not again from
    # the store (a replayed commit's row is read: it may have moved on since).
    rows: dict[CaseRef, CaseRow] = {}
    phase = TurnPhase.COMMITTING if resumed else TurnPhase.RECEIVED
    closes = [_close_cas(c, turn_id, actor.user) for c in prepared.closes]
    try:
        write = plan_commit(prepared, closes, resumed=resumed)
        own_commit = getattr(parts.executor, "commit", None) if parts.executor else None
        if callable(own_commit) and write.requests:
            # An adopter's executor writes its own records (docs/adr/0025-adopter-executors.md):
            # the plan is stored first (phase ``committing``), then each batch is its
            # executor's own transaction, then the card closes; recovery replays each
            # batch by idempotency key.
            if not resumed:
                await parts.store.commit_plan(replace(write, requests=(), closes=()))
            phase = TurnPhase.COMMITTING
            outcome = await _commit_each(parts, write, own_commit)
        else:
            outcome = await parts.store.commit_plan(write)
        phase = TurnPhase.COMMITTING
        if not resumed:
            parts.phase_changed(turn_id, phase)
        for batch, done in zip(prepared.batches, outcome.commits, strict=True):
            observe_batch(parts, batch.request, done)
            if isinstance(done, IdempotencyKeyReused):
                raise done
            if isinstance(done, RevisionConflict | InteractionAlreadyResolved):
                if await _lost(parts, prepared, batch.request.interaction, lost):
                    continue
                code, sentence = (
                    ("conflict", "conflict")
                    if isinstance(done, RevisionConflict)
                    else ("already_resolved", "unknown_card")
                )
                for act_id in batch.act_ids:
                    results[act_id] = rejected(
                        results[act_id], code, say(sentence, prepared.locale)
                    )
                continue
            for act_id in batch.act_ids:
                results[act_id] = with_status(results[act_id], ResultStatus.COMMITTED)
            committed_events.extend(done.events)
            request = batch.request
            if not done.replayed:
                rows[request.case] = CaseRow(
                    case=request.case,
                    account=request.account,
                    state=request.state,
                    revision=done.revision,
                )
            # A replayed commit is this turn's own when its events carry this turn's id
            # (recovery after "performed, then the acknowledgement was lost").
            own = bool(done.events) and all(e.turn_id == turn_id for e in done.events)
            if not done.replayed or own:
                commits.append(done)
                commands.extend((op, request.case) for op in request.operations)
        for item_id, result in list(results.items()):
            if result.status is ResultStatus.READY:
                results[item_id] = with_status(result, ResultStatus.COMMITTED)
        phase = TurnPhase.COMMITTED
        parts.phase_changed(turn_id, phase)
        unclosed = [
            (close, cas)
            for close, cas, closed in zip(prepared.closes, closes, outcome.closed, strict=True)
            if not closed
        ]
        for close, cas in unclosed:
            if close.status is not InteractionStatus.WITHDRAWN:
                await _lost(parts, prepared, cas, lost)
        unwithdrawn = await _withdrawals_lost(
            parts, prepared, [c for c, _ in unclosed if c.status is InteractionStatus.WITHDRAWN]
        )
    except StoreError as exc:
        raise TurnInterrupted(turn_id, phase.value, str(exc)) from exc

    notices = list(prepared.notices)
    if lost:
        prepared, results = _report_lost(prepared, results, lost, notices)
    if unwithdrawn:
        _untrue_withdrawals(prepared, unwithdrawn, results, notices)
    return Committed(
        prepared=prepared,
        results=results,
        notices=notices,
        commits=tuple(commits),
        commands=tuple(commands),
        events=tuple(committed_events),
        lost=lost,
        rows=rows,
        resumed=resumed,
    )


async def _commit_each(
    parts: RuntimeParts,
    write: PlanCommit,
    own_commit: Callable[[CommitRequest], Awaitable[CommitResult]],
) -> PlanOutcome:
    """Commit each request through the adopter executor's ``commit``, then the closes.

    A refusal the executor raises (``RevisionConflict``, ``InteractionAlreadyResolved``,
    ``IdempotencyKeyReused``) is returned in its slot, as ``TurnStore.commit_plan`` does.

    Raises:
        StoreError: a write failed (the batches before it stay committed; recovery
            replays them by key and commits the rest).
    """
    done: list[CommitResult | CommitRefusal] = []
    for request in write.requests:
        try:
            done.append(await own_commit(request))
        except (RevisionConflict, InteractionAlreadyResolved, IdempotencyKeyReused) as exc:
            done.append(exc)
    closed: tuple[bool, ...] = ()
    if write.closes:
        closes = PlanCommit(turn_id=write.turn_id, account=write.account, closes=write.closes)
        closed = (await parts.store.commit_plan(closes)).closed
    return PlanOutcome(commits=tuple(done), closed=closed)


async def _withdrawals_lost(
    parts: RuntimeParts, prepared: PreparedTurn, withdrawals: Sequence[CardClose]
) -> dict[str, Interaction | None]:
    """Return card id → the card as stored, for each withdrawal this turn did not make.

    ``withdrawals`` are those whose compare-and-set in the plan's write did not close
    the card: a card this turn withdrew before a crash is read back and found its own.

    A card another tab resolved first keeps its resolution (I16); the reply must then
    say what really happened to the acts it carried (ADR 0012).
    """
    lost: dict[str, Interaction | None] = {}
    for close in withdrawals:
        card = await parts.store.get_interaction(
            prepared.actor.account, prepared.conversation_id, close.interaction_id
        )
        if (
            card is None
            or card.status is not InteractionStatus.WITHDRAWN
            or card.resolution is None
            or card.resolution.turn_id != prepared.turn_id
        ):
            lost[close.interaction_id] = card
    return lost


async def _lost(
    parts: RuntimeParts,
    prepared: PreparedTurn,
    cas: InteractionCas | None,
    lost: dict[str, Interaction],
) -> bool:
    """Record in ``lost`` the card of ``cas`` when another turn closed it first (I16).

    A compare-and-set that fails on a card this turn did not close (its stored
    resolution names another turn, or it has none) lost a race; the card is read back
    so the reply reports what the card actually became. A card this turn closed
    itself (recovery finishing a turn again) or one still open (a revision conflict
    from an unrelated change) is not lost. Returns whether the card was lost.

    Raises:
        StoreError: the card cannot be read back.
    """
    if cas is None:
        return False
    card = await parts.store.get_interaction(
        prepared.actor.account, prepared.conversation_id, cas.interaction_id
    )
    if card is None or card.status is InteractionStatus.OPEN:
        return False
    if card.resolution is not None and card.resolution.turn_id == prepared.turn_id:
        return False
    lost[card.id] = card
    return True


def _close_cas(close: CardClose, turn_id: str, user: str) -> InteractionCas:
    return InteractionCas(
        interaction_id=close.interaction_id,
        status=close.status,
        resolution=InteractionResolution(
            option_id=close.option_id, turn_id=turn_id, user=user, results=dict(close.results)
        ),
    )


def _untrue_withdrawals(
    prepared: PreparedTurn,
    lost: dict[str, Interaction | None],
    results: dict[str, PlannedActResult],
    notices: list[tuple[str, str, str | None]],
) -> None:
    """Report the acts of cards this turn could not withdraw as they really ended."""
    gone: set[str] = set()
    for close in prepared.closes:
        if close.status is not InteractionStatus.WITHDRAWN or close.interaction_id not in lost:
            continue
        card = lost[close.interaction_id]
        for ref in close.results:
            act_id = ref.removeprefix(f"{close.interaction_id}:")
            done = (
                card is not None
                and card.status is InteractionStatus.RESOLVED
                and card.resolution is not None
                and ResultStatus.COMMITTED.value
                in (card.resolution.results.get(act_id), card.resolution.results.get(ref))
            )
            code = "already_committed" if done else "no_longer_pending"
            results[ref] = PlannedActResult(
                item_id=ref,
                status=ResultStatus.NO_CHANGE,
                code=code,
                sentence=say(f"link.{code}", prepared.locale),
                operation=results[ref].operation if ref in results else None,
            )
            gone.add(ref)
    for link in prepared.understanding.links:
        act = results.get(link.act)
        if link.cancels in gone and act is not None and act.code == "cancellation":
            others = [
                k.cancels
                for k in prepared.understanding.links
                if k.act == link.act and k.cancels and k.cancels not in gone
            ]
            if not others:
                results[link.act] = replace(act, code="nothing_cancelled", sentence=None)
    if len(lost) == sum(c.status is InteractionStatus.WITHDRAWN for c in prepared.closes):
        notices[:] = [n for n in notices if n[0] != "card_withdrawn"]


def _report_lost(
    prepared: PreparedTurn,
    results: dict[str, PlannedActResult],
    lost: dict[str, Interaction],
    notices: list[tuple[str, str, str | None]],
) -> tuple[PreparedTurn, dict[str, PlannedActResult]]:
    """Replace what this turn meant to do with lost cards by what the cards became (I16).

    For each card another turn closed first, the items this turn reported for it — the
    click, text answers to it, its pending acts, the acts of a commit that carried it —
    give way to the card's stored resolution, exactly as a second click reports it: the
    resolving turn's results (this turn's own items keep their own, I11) and the
    ``already_resolved`` notice. A card that went stale or was superseded without an
    answer rejects the click as no longer available. Cards this turn planned for the
    lost card's acts (a re-issue after "out of date", the next card of a chain) are not
    drawn: they would ask again for a command that already committed or was declined.
    docs/adr/0016-races-and-turn-ids.md.
    """
    out = dict(results)
    drop: set[str] = set()
    said = False
    for card_id, card in lost.items():
        anchors = {a.id for a in prepared.understanding.card_answers if a.interaction == card_id}
        if prepared.clicked == card_id:
            anchors.add("click")
        owned = set(anchors)
        for batch in prepared.batches:
            cas = batch.request.interaction
            if cas is not None and cas.interaction_id == card_id:
                owned.update(batch.act_ids)
        for close in prepared.closes:
            if close.interaction_id == card_id:
                owned.update(close.results)
        for pending in card.spec.pending:
            renamed = f"{card_id}:{pending.act.id}"
            owned.add(renamed if renamed in results else pending.act.id)
        drop.update(owned)
        for item in owned:
            out.pop(item, None)
        resolution = card.resolution
        if resolution is not None and resolution.option_id:
            for item in anchors - {"click"}:
                out[item] = PlannedActResult(
                    item_id=item, status=ResultStatus.NO_CHANGE, code="already_resolved"
                )
            for item, label in resolution.results.items():
                if item not in out:
                    status, _, code = label.partition(":")
                    out[item] = PlannedActResult(
                        item_id=item, status=ResultStatus(status), code=code or None
                    )
            if not said:
                notices.append(("already_resolved", say("already_resolved", prepared.locale), None))
                said = True
        else:
            for item in anchors or {"click"}:
                out[item] = PlannedActResult(
                    item_id=item,
                    status=ResultStatus.REJECTED,
                    code="not_found",
                    sentence=say("unknown_card", prepared.locale),
                )
    kept = [
        (card, card_id)
        for card, card_id in zip(prepared.cards, prepared.card_ids, strict=True)
        if not drop.intersection(card.item_ids)
    ]
    prepared = replace(
        prepared,
        cards=tuple(c for c, _ in kept),
        card_ids=tuple(i for _, i in kept),
        results=tuple(out.values()),
    )
    return prepared, out
