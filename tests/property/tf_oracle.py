"""Independent invariant oracles for the property tests (I1, I4–I6, I8, I11, I15–I17, ADR 0002).

Nothing here trusts the runtime's own reporting. The oracles observe three seams:

* the reducer, by wrapping ``turnframe.runtime.steps.reduction.reduce_turn``: its input (the
  resolutions) and its plan (the batches) are checked for I8 (only an Exact resolution
  compiles), I11 (one result per item, a batched act reported under its own operation and
  case) and I16 (a commit carries the acts of at most one card, since it resolves one);
* the executor, by wrapping ``StoredStateExecutor.apply``: every ``CommandEnvelope`` is
  recorded with its origin and policy and checked for I4/I9/I17 (one of the four origins,
  the workflow's own policy, a confirmation only from the card clicked in this turn, as it
  was stored, open, before it) and ADR 0002 (no submission under "do not submit");
* the store, by subclassing ``InMemoryStore``: every ``CommitRequest`` that reaches
  ``commit`` is matched with the envelopes the executor saw, so a commit whose origins
  were never observed (or are not server-issued) is a violation; a confirmation commits
  only on the revision its card was bound to, a review only after a given confirmation.

After each turn, ``Oracle.finish`` checks the ``TurnResult`` against what the store
really holds: one result per item and one answer per question (I11), no result claiming a
commit that did not happen and receipts citing journaled events of their case and
operation (I15), the reply persisted as returned, cards in it persisted (I6), one open
card per case (I5), and a card resolved as committed only by a commit that carried it
(I16). ``tf_hostile.brief_violations`` checks the brief (I1).

Every checker is a plain function returning a list of violation strings, so the tests in
``test_prop_oracle.py`` can feed them planted violations and prove they fire.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from turnframe.core import (
    Actor,
    AnswerBlock,
    CaseRef,
    CommandEnvelope,
    ConfirmedInteraction,
    ConstraintKind,
    DirectUserAct,
    DomainEvent,
    Exact,
    Interaction,
    InteractionBlock,
    InteractionKind,
    InteractionResponse,
    InteractionStatus,
    OptionMeaning,
    PlannedActResult,
    ReceiptBlock,
    ReplyBlock,
    ResultStatus,
    Understanding,
    WorkflowRegistry,
    origin_is_server_issued,
)
from turnframe.runtime.executor import StoredStateExecutor
from turnframe.runtime.plan import Plan, ReductionInput
from turnframe.runtime.policy import origin_satisfies
from turnframe.runtime.steps import reduction as reduction_step
from turnframe.runtime.turn import TurnResult
from turnframe.store import CommitRequest, CommitResult, InMemoryStore, PlanCommit, PlanOutcome

__all__ = [
    "CommitSeen",
    "ObservingStore",
    "Oracle",
    "TurnContext",
    "commit_violations",
    "constraint_violations",
    "envelope_violations",
    "plan_violations",
    "receipt_violations",
    "result_violations",
]


# --------------------------------------------------------------------------- checkers
def envelope_violations(
    envelope: CommandEnvelope,
    *,
    turn_id: str,
    actor: Actor,
    click: InteractionResponse | None,
    card_before: Interaction | None,
    registry: WorkflowRegistry,
    state_json: Any,
) -> list[str]:
    """I4/I9/I17: the envelope's origin is server-issued, specific, and backed by reality."""
    out: list[str] = []
    origin: Any = envelope.origin
    where = f"{envelope.act_id}/{getattr(envelope.command, 'operation', '?')} on {envelope.case}"
    if not origin_is_server_issued(origin):
        return [f"I4 {where}: origin {origin!r} is not one of the four server-issued variants"]
    erased = registry.workflow(envelope.case.workflow)
    expected_policy = erased.policy(erased.typed(state_json), envelope.command)
    if envelope.policy != expected_policy:
        out.append(f"I4 {where}: policy {envelope.policy} is not the workflow's {expected_policy}")
    if not origin_satisfies(expected_policy, origin):
        out.append(f"I17 {where}: origin {origin.kind} does not satisfy {expected_policy}")
    if envelope.actor != actor:
        out.append(f"I4 {where}: envelope actor {envelope.actor} is not the turn's {actor}")
    if registry.operation(envelope.operation) is None or not envelope.operation.startswith(
        envelope.case.workflow + "."
    ):
        out.append(f"I4 {where}: operation does not belong to the case's workflow")
    if isinstance(origin, DirectUserAct):
        if origin.turn_id != turn_id:
            out.append(f"I4 {where}: DirectUserAct of turn {origin.turn_id}, not {turn_id}")
    elif isinstance(origin, ConfirmedInteraction):
        # Only the structured click of this very turn can confirm (ADR 0006, I9, I17).
        if click is None or click.interaction_id != origin.interaction_id:
            out.append(f"I9 {where}: ConfirmedInteraction {origin.interaction_id} was not clicked")
        elif click.option_id != origin.option_id:
            out.append(f"I7 {where}: origin option {origin.option_id} is not the clicked one")
        if card_before is None:
            out.append(f"I16 {where}: confirming card {origin.interaction_id} is not visible")
        else:
            option = card_before.spec.option(origin.option_id)
            if card_before.status is not InteractionStatus.OPEN:
                out.append(f"I16 {where}: card was {card_before.status.value} before the turn")
            if option is None or option.meaning not in (
                OptionMeaning.CONFIRM,
                OptionMeaning.APPROVE,
            ):
                out.append(f"I17 {where}: option {origin.option_id} does not confirm")
            if card_before.spec.kind.value != origin.interaction_kind:
                out.append(f"I17 {where}: origin kind differs from the card's")
            if card_before.payload_hash != origin.payload_hash:
                out.append(f"I7 {where}: origin payload hash differs from the stored card's")
            if envelope.operation not in card_before.spec.operations:
                out.append(f"I17 {where}: card does not list {envelope.operation}")
            role = card_before.spec.required_role
            if role and not actor.has_role(role):
                out.append(f"I17 {where}: review needs role {role}, actor lacks it")
            if card_before.spec.kind is InteractionKind.REVIEW and not origin.confirmed_by:
                out.append(f"I17 {where}: review not preceded by a confirmation")
    else:
        out.append(f"I4 {where}: a user turn produced a {origin.kind} origin")
    return out


def constraint_violations(
    envelope: CommandEnvelope,
    *,
    understanding: Understanding | None,
    standing_before: bool,
    registry: WorkflowRegistry,
) -> list[str]:
    """ADR 0002: "do not submit" blocks every submission of the turn; a standing one blocks every
    submission until lifted in words or by clicking the card of that very command."""
    spec = registry.operation(envelope.operation)
    if spec is None or not spec.submission:
        return []
    kinds = {c.kind for c in (understanding.constraints if understanding else ())}
    where = f"{envelope.operation} on {envelope.case}"
    if ConstraintKind.DO_NOT_SUBMIT in kinds:
        return [f"ADR 0002 {where}: submitted in a turn that said do not submit"]
    lifted = ConstraintKind.ALLOW_SUBMIT in kinds or isinstance(
        envelope.origin, ConfirmedInteraction
    )
    if standing_before and not lifted:
        return [f"ADR 0002 {where}: submitted under a standing do-not-submit, never lifted"]
    return []


def commit_violations(
    request: CommitRequest,
    envelopes: Sequence[CommandEnvelope] | None,
    *,
    card_before: Interaction | None = None,
    cards: Mapping[str, Interaction] | None = None,
) -> list[str]:
    """I4, I16, I17: a commit is only ever the product of observed, server-originated
    envelopes; a confirmation commits only on the revision its card was bound to; a review
    names a confirmation that was given."""
    where = f"commit {request.idempotency_key[:8]} on {request.case}"
    if envelopes is None:
        return [f"I4 {where}: no envelope was applied for it (origin unknown)"]
    out = []
    if not envelopes:
        out.append(f"I4 {where}: empty envelope list")
    if tuple(e.operation for e in envelopes) != tuple(request.operations):
        out.append(f"I4 {where}: operations {request.operations} differ from the envelopes'")
    for e in envelopes:
        if not origin_is_server_issued(e.origin):
            out.append(f"I4 {where}: origin {e.origin!r} is not server-issued")
        if e.case != request.case or e.idempotency_key != request.idempotency_key:
            out.append(f"I4 {where}: envelope for {e.case} / another key")
        if e.expected_revision != request.expected_revision:
            out.append(f"I12 {where}: envelope revision differs from the commit's")
        origin = e.origin
        if not isinstance(origin, ConfirmedInteraction):
            continue
        if card_before is not None and card_before.id == origin.interaction_id:
            spec = card_before.spec
            if (
                spec.case is not None
                and not spec.independent
                and spec.bound_revision != request.expected_revision
            ):
                out.append(
                    f"I16 {where}: card bound to revision {spec.bound_revision} confirms a "
                    f"commit on revision {request.expected_revision} (stale)"
                )
        if origin.interaction_kind == InteractionKind.REVIEW.value and cards is not None:
            for earlier in origin.confirmed_by:
                card = cards.get(earlier)
                if (
                    card is None
                    or card.spec.kind is not InteractionKind.CONFIRM
                    or card.status is not InteractionStatus.RESOLVED
                ):
                    out.append(f"I17 {where}: review names {earlier}, not a given confirmation")
    if request.interaction is not None:
        confirmed = {
            e.origin.interaction_id for e in envelopes if isinstance(e.origin, ConfirmedInteraction)
        }
        if confirmed and request.interaction.interaction_id not in confirmed:
            out.append(f"I16 {where}: resolves a card other than the one that confirmed it")
    return out


def _exact_sources(inp: ReductionInput) -> dict[tuple[str, CaseRef], set[str | None]]:
    """Return the (act id, case) pairs the reducer may compile, only Exact resolutions (I8),
    each with the cards it could come from (``None``: this turn's words or a carried act)."""
    sources: dict[tuple[str, CaseRef], set[str | None]] = {}

    def add(act_id: str, case: CaseRef, card: str | None) -> None:
        sources.setdefault((act_id, case), set()).add(card)

    for a in inp.acts:
        if isinstance(a.resolution, Exact):
            add(a.act.id, a.resolution.case, None)
    # A card's pending act may report under ``<card id>:<act id>`` when this turn already
    # uses its id (I11); it is the same act either way.
    if inp.click is not None and inp.click.interaction is not None:
        clicked = inp.click.interaction.id
        for p in inp.click.pending:
            if isinstance(p.resolution, Exact):
                add(p.act.id, p.resolution.case, clicked)
                add(f"{clicked}:{p.act.id}", p.resolution.case, clicked)
    # An act carried across replies (ADR 0007) was resolved Exact in the turn that read it, and
    # reports under ``<turn id>:<act id>``.
    for waiting in getattr(inp, "waiting", ()):
        if waiting.pending.case is not None:
            add(waiting.item_id, waiting.pending.case, None)
    cards = {c.id: c for c in inp.cards_on_screen}
    for answer in inp.understanding.card_answers:
        card = cards.get(answer.interaction)
        option = card.spec.option(answer.option) if card else None
        if card is None or option is None:
            continue
        for p in card.spec.pending:
            # A stored card's option or pending case was itself an Exact choice. An option
            # that fills a record or part argument leaves the act on its own (Exact) case.
            fills_argument = p.argument is not None and p.case is not None
            if option.meaning is OptionMeaning.SELECT and not fills_argument:
                case = option.case
            else:
                case = p.case
            if case is not None:
                add(p.act.id, case, card.id)
                add(f"{card.id}:{p.act.id}", case, card.id)
    return sources


def plan_violations(inp: ReductionInput, plan: Plan) -> list[str]:
    """I8, I11, I4 on one reduction: only Exact compiles, one result per item, origins ok."""
    out: list[str] = []
    ids = [r.item_id for r in plan.results]
    for item_id, n in Counter(ids).items():
        if n > 1:
            out.append(f"I11 plan: item {item_id} has {n} results")
    results = {r.item_id: r for r in plan.results}
    for item_id in inp.understanding.item_ids():
        if item_id not in results:
            out.append(f"I11 plan: item {item_id} has no result")
    if inp.click is not None and plan.replayed_click is None and "click" not in results:
        card = inp.click.interaction
        missing = [p.act.id for p in card.spec.pending if p.act.id not in results] if card else []
        if card is None or missing:
            out.append(f"I11 plan: the click has no result (pending without one: {missing})")
    sources = _exact_sources(inp)
    for batch in plan.batches:
        for e in batch.envelopes:
            if (e.act_id, e.case) not in sources:
                out.append(f"I8 plan: {e.act_id} on {e.case} compiled without an Exact target")
            if not origin_is_server_issued(e.origin):
                out.append(f"I4 plan: {e.act_id} has origin {e.origin!r}")
            elif not origin_satisfies(e.policy, e.origin):
                out.append(f"I17 plan: {e.act_id} origin {e.origin.kind} vs {e.policy}")
            result = results.get(e.act_id)
            if result is None or result.status is not ResultStatus.READY:
                out.append(f"I11 plan: batched act {e.act_id} is not reported ready ({result})")
            elif result.operation not in (None, e.operation) or result.case not in (None, e.case):
                out.append(
                    f"I11 plan: batched {e.operation} on {e.case} is reported as "
                    f"{result.operation} on {result.case} under {e.act_id}"
                )
            if e.case != batch.case:
                out.append(f"I14 plan: envelope for {e.case} in the batch of {batch.case}")
        # A commit resolves at most one card, atomically (I16): a batch carrying the acts of
        # two cards would leave one of them open after its command committed.
        owners = set()
        for e in batch.envelopes:
            candidates = sources.get((e.act_id, e.case), set())
            if len(candidates) == 1 and None not in candidates:
                owners |= candidates
        if len(owners) > 1:
            out.append(f"I16 plan: one commit on {batch.case} carries the acts of {sorted(owners)}")
        for act_id in batch.act_ids:
            if not any(e.act_id == act_id for e in batch.envelopes):
                out.append(f"I11 plan: batch lists {act_id} without a command")
    return out


def receipt_violations(
    blocks: Sequence[ReplyBlock], journal: Mapping[str, DomainEvent]
) -> list[str]:
    """I15: every receipt cites at least one journaled event of its own case and operation."""
    out = []
    for block in blocks:
        if not isinstance(block, ReceiptBlock):
            continue
        r = block.receipt
        if not r.event_ids:
            out.append(f"I15 receipt {r.operation} on {r.case} cites no event")
        for event_id in r.event_ids:
            event = journal.get(event_id)
            if event is None:
                out.append(f"I15 receipt {r.operation} on {r.case} cites missing {event_id}")
            elif event.case != r.case or event.operation != r.operation:
                out.append(
                    f"I15 receipt {r.operation} on {r.case} cites {event_id}, an event of "
                    f"{event.operation} on {event.case}"
                )
    return out


def result_violations(
    understanding: Understanding | None,
    results: Mapping[str, PlannedActResult],
    committed: set[tuple[str, str, CaseRef]],
    *,
    any_commit: bool,
    replayed: bool,
    resolved: set[tuple[str, str]] | None = None,
) -> list[str]:
    """I11 and I15 on a finished turn.

    Args:
        understanding: the proposal the turn read (``None`` for a click-only turn).
        results: the turn's results.
        committed: (act id, operation, case) of every envelope in a commit that succeeded
            in this turn (replays of the journal included).
        any_commit: whether any commit of this turn succeeded.
        replayed: the turn replayed a resolved card's original results.
        resolved: (card, option) of every card a written commit of this turn resolved.
    """
    out = []
    acts = {a.id: a for a in (understanding.acts if understanding else ())}
    answers = {a.id: a for a in (understanding.card_answers if understanding else ())}
    if understanding is not None:
        for item_id in understanding.item_ids():
            if item_id not in results:
                out.append(f"I11 turn: item {item_id} has no result")
        for act in understanding.acts:
            result = results.get(act.id)
            if result is not None and result.operation != act.operation:
                out.append(
                    f"I11 turn: act {act.id} ({act.operation}) reported with the result of "
                    f"{result.operation} ({result.label})"
                )
    for act_id, operation, case in committed:
        result = results.get(act_id)
        if result is None or result.status is not ResultStatus.COMMITTED:
            out.append(f"I11 turn: {operation} on {case} committed, but {act_id} says {result}")
    for item_id, result in results.items():
        if result.status is not ResultStatus.COMMITTED:
            continue
        answer = answers.get(item_id)
        if answer is not None and resolved is not None:
            # A text answer "committed" only if a commit resolved its card with its option.
            if (answer.interaction, answer.option) not in resolved:
                out.append(
                    f"I15 turn: answer {item_id} ({answer.interaction}/{answer.option}) claims "
                    "committed, but no commit resolved that card with that option"
                )
        elif result.operation is not None and result.case is not None:
            if (item_id, result.operation, result.case) not in committed:
                out.append(
                    f"I15 turn: {item_id} claims {result.operation} on {result.case} "
                    "committed without a commit"
                )
        elif not any_commit and not (replayed and item_id not in acts):
            out.append(f"I15 turn: {item_id} claims committed, yet nothing committed")
    return out


# --------------------------------------------------------------------------- observers
@dataclass
class CommitSeen:
    """One ``CommitRequest`` that reached the store, and how it ended."""

    request: CommitRequest
    result: CommitResult | None = None
    error: BaseException | None = None
    closed_with: frozenset[str] = frozenset()
    """Cards the same store transaction compare-and-set (``TurnStore.commit_plan``'s closes)."""

    @property
    def performed(self) -> bool:
        """Whether the commit was written (a lost acknowledgement still wrote it)."""
        return self.result is not None or bool(getattr(self.error, "performed", False))


@dataclass
class TurnContext:
    """What the oracle knows about the running turn, from outside the runtime."""

    actor: Actor
    conversation_id: str
    click: InteractionResponse | None = None
    card_before: Interaction | None = None
    understanding: Understanding | None = None
    turn_id: str | None = None
    reductions: list[tuple[ReductionInput, Plan]] = field(default_factory=list)
    applied: dict[tuple[str, CaseRef, str], tuple[CommandEnvelope, ...]] = field(
        default_factory=dict
    )
    commits: list[CommitSeen] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    standing_before: bool = False


class Oracle:
    """Collects violations from the reducer, executor and store seams.

    Args:
        registry: the application's workflows (to recompute policies independently).
    """

    def __init__(self, registry: WorkflowRegistry) -> None:
        self.registry = registry
        self.violations: list[str] = []
        self.current: TurnContext | None = None
        self.applied: dict[tuple[str, CaseRef, str], tuple[CommandEnvelope, ...]] = {}
        self.card_commits: dict[str, list[CommitSeen]] = {}
        self.turns = 0
        self.stats: Counter[str] = Counter()
        self.store: ObservingStore | None = None

    # seams ---------------------------------------------------------------------
    def on_reduce(self, inp: ReductionInput, plan: Plan) -> None:
        self._report(plan_violations(inp, plan))
        ctx = self.current
        if ctx is not None:
            ctx.turn_id = inp.turn_id
            ctx.reductions.append((inp, plan))

    def _report(self, found: list[str]) -> None:
        self.violations.extend(found)
        if self.current is not None:
            self.current.violations.extend(found)

    def on_apply(self, turn_id: str, state_json: Any, envelopes: Sequence[CommandEnvelope]) -> None:
        ctx = self.current
        if ctx is None:
            self._report(["I4 apply: an executor ran outside any observed turn"])
            return
        for e in envelopes:
            self._report(
                envelope_violations(
                    e,
                    turn_id=turn_id,
                    actor=ctx.actor,
                    click=ctx.click,
                    card_before=ctx.card_before,
                    registry=self.registry,
                    state_json=state_json,
                )
                + constraint_violations(
                    e,
                    understanding=ctx.understanding,
                    standing_before=ctx.standing_before,
                    registry=self.registry,
                )
            )
        self.stats.update(f"origin:{e.origin.kind}" for e in envelopes)
        self.stats.update("submission" for e in envelopes if e.operation.endswith(".submit"))
        self.stats.update(
            f"origin:{e.origin.interaction_kind}"
            for e in envelopes
            if isinstance(e.origin, ConfirmedInteraction)
        )
        if envelopes:
            key = (turn_id, envelopes[0].case, envelopes[0].idempotency_key)
            ctx.applied[key] = tuple(envelopes)
            self.applied[key] = tuple(envelopes)

    def on_commit(self, seen: CommitSeen) -> None:
        request = seen.request
        if not request.turn_id:  # seeding and callbacks: not a user turn
            return
        key = (request.turn_id, request.case, request.idempotency_key)
        envelopes = self.applied.get(key)
        ctx = self.current
        cards = {c.id: c for c in self.store.all_interactions()} if self.store else None
        self._report(
            commit_violations(
                request, envelopes, card_before=ctx.card_before if ctx else None, cards=cards
            )
        )
        self.stats["commit:" + ("written" if seen.performed else "refused")] += 1
        if self.current is not None:
            self.current.commits.append(seen)
        if request.interaction is not None:
            self.card_commits.setdefault(request.interaction.interaction_id, []).append(seen)

    @contextlib.contextmanager
    def installed(self) -> Iterator[Oracle]:
        """Patch the reducer and executor seams for the duration of the block."""
        real_reduce = reduction_step.reduce_turn
        real_apply = StoredStateExecutor.apply
        oracle = self

        def reduce_turn(inp: ReductionInput, registry: WorkflowRegistry) -> Plan:
            plan = real_reduce(inp, registry)
            oracle.on_reduce(inp, plan)
            return plan

        async def apply(self: StoredStateExecutor, loaded: Any, commands: Any) -> Any:
            oracle.on_apply(self.turn_id, loaded.state, tuple(commands))
            return await real_apply(self, loaded, commands)

        reduction_step.reduce_turn = reduce_turn  # type: ignore[assignment]
        StoredStateExecutor.apply = apply  # type: ignore[method-assign]
        try:
            yield self
        finally:
            reduction_step.reduce_turn = real_reduce
            StoredStateExecutor.apply = real_apply  # type: ignore[method-assign]

    # turns ---------------------------------------------------------------------
    def begin(self, ctx: TurnContext) -> TurnContext:
        self.current = ctx
        return ctx

    async def finish(self, store: ObservingStore, result: TurnResult) -> list[str]:
        """Check a finished turn against the store; returns (and records) new violations."""
        ctx = self.current
        assert ctx is not None
        self.current = None
        self.turns += 1
        found: list[str] = list(ctx.violations)
        committed: set[tuple[str, str, CaseRef]] = set()
        any_commit = False
        resolved: set[tuple[str, str]] = set()
        for seen in ctx.commits:
            if not seen.performed:
                continue
            any_commit = True
            r = seen.request
            if r.interaction is not None:
                resolved.add((r.interaction.interaction_id, r.interaction.resolution.option_id))
            for e in self.applied.get((r.turn_id, r.case, r.idempotency_key), ()):
                committed.add((e.act_id, e.operation, e.case))
        replayed = any(plan.replayed_click is not None for _, plan in ctx.reductions)
        found += result_violations(
            ctx.understanding,
            result.results,
            committed,
            any_commit=any_commit,
            replayed=replayed,
            resolved=resolved,
        )
        persisted = await store.load_reply(ctx.actor.account, result.turn_id) or ()
        if tuple(persisted) != tuple(result.blocks):
            found.append(
                "docs/architecture.md 'Claims': the persisted reply differs from the returned one"
            )
        answers = Counter(b.question_id for b in result.blocks if isinstance(b, AnswerBlock))
        for question in ctx.understanding.questions if ctx.understanding else ():
            if answers[question.id] != 1:
                found.append(f"I11 turn: question {question.id} has {answers[question.id]} answers")
        found += receipt_violations(result.blocks, store.journal())
        if not result.blocks:
            found.append(
                "I11 turn: the reply has no block at all (nothing said, not even 'nothing changed')"
            )
        self.stats.update(f"block:{b.kind}" for b in result.blocks)
        self.stats.update(f"card:{c.spec.kind.value}" for c in result.interactions_created)
        if ctx.click is not None:
            self.stats[
                "click:" + (ctx.card_before.status.value if ctx.card_before else "unseen")
            ] += 1
        if result.refused_blocks:
            found.append(f"I15 turn: the claim guard had to refuse {result.refused_blocks}")
        for block in result.blocks:
            if isinstance(block, InteractionBlock):
                card = await store.get_interaction(
                    ctx.actor.account, ctx.conversation_id, block.interaction_id
                )
                if card is None:
                    found.append(
                        f"I6 turn: the reply shows unpersisted card {block.interaction_id}"
                    )
        found += self.card_state_violations(store)
        self.violations.extend(found[len(ctx.violations) :])
        return found

    def card_state_violations(self, store: ObservingStore) -> list[str]:
        """I5 and I16 over every card the store holds."""
        out = []
        open_per_case = Counter(
            (c.account, c.spec.case)
            for c in store.all_interactions()
            if c.status is InteractionStatus.OPEN and c.spec.case is not None
        )
        for (account, case), n in open_per_case.items():
            if n > 1:
                out.append(f"I5: {n} open cards on {case} for {account}")
        for card in store.all_interactions():
            successes = [s for s in self.card_commits.get(card.id, ()) if s.performed]
            claims_commit = card.resolution is not None and any(
                v == ResultStatus.COMMITTED.value for v in card.resolution.results.values()
            )
            if claims_commit and not successes:
                out.append(f"I16: card {card.id} resolved as committed without a commit")
            if successes and card.status is not InteractionStatus.RESOLVED:
                out.append(f"I16: card {card.id} committed but is {card.status.value}")
        return out


class ObservingStore(InMemoryStore):
    """An ``InMemoryStore`` that reports every ``CommitRequest`` to an :class:`Oracle`."""

    def __init__(self, oracle: Oracle, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.oracle = oracle
        oracle.store = self

    async def commit(self, request: CommitRequest) -> CommitResult:
        seen = CommitSeen(request=request)
        try:
            seen.result = await super().commit(request)
        except BaseException as exc:
            seen.error = exc
            raise
        finally:
            self.oracle.on_commit(seen)
        return seen.result

    async def commit_plan(self, write: PlanCommit) -> PlanOutcome:
        """Report each request of the plan's one write, as ``commit`` reports one."""
        closes = frozenset(c.interaction_id for c in write.closes)
        seen = [CommitSeen(request=r, closed_with=closes) for r in write.requests]
        try:
            outcome = await super().commit_plan(write)
        except BaseException as exc:
            for one in seen:
                one.error = exc
            for one in seen:
                self.oracle.on_commit(one)
            raise
        for one, done in zip(seen, outcome.commits, strict=True):
            if isinstance(done, CommitResult):
                one.result = done
            else:
                one.error = done
            self.oracle.on_commit(one)
        return outcome

    def journal(self) -> dict[str, DomainEvent]:
        """Return the event journal by id (read directly, not through the runtime)."""
        return dict(self._event_index)

    def cases_of(self, accounts: Callable[[str], bool]) -> list[CaseRef]:
        """Return the cases of the accounts ``accounts`` accepts (read directly, no copy)."""
        return [case for case, row in self._cases.items() if accounts(row.account)]

    def all_interactions(self) -> list[Interaction]:
        """Return every stored card, any account, any status."""
        return list(self._interactions.values())
