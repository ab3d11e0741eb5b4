"""Turn finishing (guide §2 steps 10–12): commit, cards, receipts, answers, the reply."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from turnframe.core.acts import Question
from turnframe.core.events import DomainEvent, Receipt
from turnframe.core.ids import CaseRef, JSONObject
from turnframe.core.interactions import (
    Interaction,
    InteractionKind,
    InteractionResolution,
    InteractionStatus,
)
from turnframe.core.ports import Subject
from turnframe.core.reply import (
    AnswerBlock,
    InteractionBlock,
    NoticeBlock,
    ReceiptBlock,
    ReplyBlock,
    TransitionBlock,
)
from turnframe.core.results import PlannedActResult, ResultStatus
from turnframe.core.turn import (
    TurnPhase,
    TurnPhaseChanged,
)
from turnframe.runtime.claims import (
    ClaimVocabulary,
    Fact,
    FactKind,
    guard_claims,
    guard_sentence,
    guard_text,
)
from turnframe.runtime.compose import AskNext, compose_reply
from turnframe.runtime.copy import say
from turnframe.runtime.errors import TurnInterrupted
from turnframe.runtime.plan import CardClose
from turnframe.runtime.reduce import card_prompt
from turnframe.runtime.turn import PreparedTurn, TurnResult
from turnframe.runtime.turn_writes import plan_commit, turn_reply
from turnframe.store.base import CaseRow, CommitResult, InteractionCas
from turnframe.store.errors import (
    IdempotencyKeyReused,
    InteractionAlreadyResolved,
    RevisionConflict,
    StoreError,
)
from turnframe.understand.reply import AnswerFacts, ReplyFacts, ReplyWords, Sentence

__all__: list[str] = []

from turnframe.runtime._base import _ASKED, _STANDING, _WAITING, _RuntimeBase, log
from turnframe.runtime.serial import dump_waiting


class _Finishing(_RuntimeBase):
    """Everything from the first commit to the persisted reply; idempotent for recovery."""

    async def _finish(self, prepared: PreparedTurn, *, resumed: bool = False) -> TurnResult:
        """Commit, close and create cards, compose and persist the reply. Idempotent.

        The plan, its replay record part, every commit and every card close are one
        write (``TurnStore.commit_plan``); the reply with its results, the replay rest
        and the conversation state another (``TurnStore.finish_turn``); see
        docs/adr/0024-four-writes-per-turn.md. ``resumed``: recovery finishing a plan
        stored before (it is not written again).
        """
        turn_id = prepared.turn_id
        actor = prepared.actor
        results = {r.item_id: r for r in prepared.results}
        commits: list[CommitResult] = []
        lost: dict[str, Interaction] = {}  # cards another turn closed first (ADR 0016)
        commands: list[tuple[str, CaseRef]] = []
        committed_events: list[DomainEvent] = []
        # The rows this turn's commits wrote: re-projection reads them here, not again
        # from the store (a replayed commit's row is read, it may have moved on since).
        rows: dict[CaseRef, CaseRow] = {}
        phase = TurnPhase.COMMITTING if resumed else TurnPhase.RECEIVED
        # ADR 0012: the withdrawn cards close in the same transaction as the commits (the
        # plan's one write), whether or not a commit succeeds.
        closes = [_close_cas(c, turn_id, actor.user) for c in prepared.closes]
        try:
            outcome = await self.store.commit_plan(plan_commit(prepared, closes, resumed=resumed))
            phase = TurnPhase.COMMITTING
            for batch, done in zip(prepared.batches, outcome.commits, strict=True):
                if isinstance(done, RevisionConflict):
                    if await self._lost(prepared, batch.request.interaction, lost):
                        continue
                    for act_id in batch.act_ids:
                        results[act_id] = _rejected(
                            results[act_id], "conflict", say("conflict", prepared.locale)
                        )
                    continue
                if isinstance(done, InteractionAlreadyResolved):
                    if await self._lost(prepared, batch.request.interaction, lost):
                        continue
                    for act_id in batch.act_ids:
                        results[act_id] = _rejected(
                            results[act_id],
                            "already_resolved",
                            say("unknown_card", prepared.locale),
                        )
                    continue
                if isinstance(done, IdempotencyKeyReused):
                    raise done
                for act_id in batch.act_ids:
                    results[act_id] = _status(results[act_id], ResultStatus.COMMITTED)
                committed_events.extend(done.events)
                # A replayed commit is this turn's own when its events carry this turn's id
                # (recovery after "performed, then the acknowledgement was lost").
                own = bool(done.events) and all(e.turn_id == turn_id for e in done.events)
                if not done.replayed:
                    request = batch.request
                    rows[request.case] = CaseRow(
                        case=request.case,
                        account=request.account,
                        state=request.state,
                        revision=done.revision,
                    )
                if not done.replayed or own:
                    commits.append(done)
                    commands.extend((op, batch.request.case) for op in batch.request.operations)
            for item_id, result in list(results.items()):
                if result.status is ResultStatus.READY:
                    results[item_id] = _status(result, ResultStatus.COMMITTED)
            phase = TurnPhase.COMMITTED
            self._emit(TurnPhaseChanged(turn_id=turn_id, phase=phase))
            for close, cas, closed in zip(prepared.closes, closes, outcome.closed, strict=True):
                if not closed and close.status is not InteractionStatus.WITHDRAWN:
                    await self._lost(prepared, cas, lost)
            unwithdrawn = await self._withdrawals_lost(
                prepared,
                [
                    close
                    for close, closed in zip(prepared.closes, outcome.closed, strict=True)
                    if close.status is InteractionStatus.WITHDRAWN and not closed
                ],
            )
        except StoreError as exc:
            raise TurnInterrupted(turn_id, phase.value, str(exc)) from exc

        notices = list(prepared.notices)
        if lost:
            prepared, results = _report_lost(prepared, results, lost, notices)
        if unwithdrawn:
            _untrue_withdrawals(prepared, unwithdrawn, results, notices)
        created, results = await self._persist_cards(
            prepared, results, notices, rows, resumed=resumed
        )
        if prepared.standing is None and prepared.standing_active:
            notices.append((_STANDING, say(_STANDING, prepared.locale), None))
        if prepared.replayed_click is not None and not lost:
            # A second click reports the card's original results; this turn's own items keep
            # their own results (I11: exactly one result each).
            for k, v in prepared.replayed_click.items():
                if k not in results:
                    status, _, code = v.partition(":")
                    results[k] = PlannedActResult(
                        item_id=k, status=ResultStatus(status), code=code or None
                    )
            key = _REPLAYED_NOTICE.get(prepared.replayed_status or "", "already_resolved")
            notices.append((key, say(key, prepared.locale), None))
        receipts = await self._receipts(committed_events, prepared.locale, rows)
        answers = await self._answers(prepared)
        ask_next = await self._ask_next(prepared, results, rows)
        blocks = compose_reply(
            results=list(results.values()),
            receipts=receipts,
            notices=notices,
            answers=answers,
            cards=created,
            ask_next=ask_next,
        )
        if not blocks:
            # A turn with nothing to report still says so (I11: nothing disappears
            # silently): no change was made and nothing is pending.
            blocks = (NoticeBlock(code=_NOTHING, text=say(_NOTHING, prepared.locale)),)
        worded, written, reply_record = await self._words(prepared, blocks)
        kept, refused = guard_claims(worded, committed_events)
        if any(id(b) in written for b in refused):
            # A model-written block the guard refuses takes its words with it: the
            # code-written reply stands, whole (guide §9).
            reply_record["refused"] = True
            kept, refused = guard_claims(blocks, committed_events)
        if refused:
            log.error("claim guard refused %d block(s) in turn %s", len(refused), turn_id)
        try:
            state = await self._remember(prepared, ask_next if not created else None)
            await self.store.finish_turn(
                turn_reply(
                    prepared,
                    blocks=kept,
                    results=results,
                    commands=commands,
                    events=committed_events,
                    cards=created,
                    reply_record=reply_record,
                    conversation_state=state,
                    resumed=resumed,
                )
            )
        except StoreError as exc:
            raise TurnInterrupted(turn_id, TurnPhase.COMMITTED.value, str(exc)) from exc
        self._emit(TurnPhaseChanged(turn_id=turn_id, phase=TurnPhase.REPLIED))
        return TurnResult(
            turn_id=turn_id,
            conversation_id=prepared.conversation_id,
            blocks=kept,
            results=results,
            commits=tuple(commits),
            events=tuple(e for c in commits for e in c.events),
            interactions_created=tuple(created),
            model_calls=prepared.model_calls,
            refused_blocks=refused,
            commands=tuple(commands),
            reply_calls=len(reply_record.get("calls", ())),
        )

    async def _withdrawals_lost(
        self, prepared: PreparedTurn, withdrawals: Sequence[CardClose]
    ) -> dict[str, Interaction | None]:
        """Return card id → the card as stored, for each withdrawal this turn did not make.

        A card another tab resolved first keeps its resolution (I16); the reply must then
        say what really happened to the acts it carried (ADR 0012).
        """
        lost: dict[str, Interaction | None] = {}
        for close in withdrawals:
            card = await self.store.get_interaction(
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
        self, prepared: PreparedTurn, cas: InteractionCas | None, lost: dict[str, Interaction]
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
        card = await self.store.get_interaction(
            prepared.actor.account, prepared.conversation_id, cas.interaction_id
        )
        if card is None or card.status is InteractionStatus.OPEN:
            return False
        if card.resolution is not None and card.resolution.turn_id == prepared.turn_id:
            return False
        lost[card.id] = card
        return True

    async def _remember(self, prepared: PreparedTurn, asked: AskNext | None) -> JSONObject | None:
        """Return the conversation state as this reply leaves it; ``None`` when unchanged.

        The state records the standing constraint, what the reply asked and the acts it
        carries. One read of the conversation state; the caller writes the state with
        the reply (``TurnStore.finish_turn``). A standing "do not submit" holds across replies (D1); the next message is read as
        the answer to what the reply asked (guide §5); the acts waiting for a record travel
        to the next reply (D6). Idempotent (recovery).
        """
        actor = prepared.actor
        state = dict(
            await self.store.get_conversation_state(actor.account, prepared.conversation_id)
        )
        before = dict(state)
        if prepared.standing is not None:
            state[_STANDING] = prepared.standing
        state.pop(_ASKED, None)
        if asked is not None:
            state[_ASKED] = _asked_json(prepared, asked)
        if prepared.waiting:
            state[_WAITING] = dump_waiting(prepared.waiting)
        else:
            state.pop(_WAITING, None)
        return state if state != before else None

    async def _words(
        self, prepared: PreparedTurn, blocks: tuple[ReplyBlock, ...]
    ) -> tuple[tuple[ReplyBlock, ...], set[int], dict[str, Any]]:
        """Return the reply with the model's words, its model-written block ids, the record.

        Only a text turn gets words, and only with a writer. The facts are gathered from
        the code-written blocks (every one server-authored): receipts are what was done,
        notices about an item what was not, the transition the one thing to ask next.
        The acknowledgement takes the transition's place (or ends the reply); a model
        answer takes its code answer's place. Any failure keeps the code-written words:
        the turn has committed, so writing words may never fail it.
        """
        writer = self.reply_writer
        if writer is None or not prepared.has_text:
            return blocks, set(), {}
        if any(n.startswith("model_unreachable") for n in prepared.understanding.notices):
            return blocks, set(), {}  # the model could not be reached: code's words only
        asks = next((b for b in blocks if isinstance(b, TransitionBlock)), None)
        facts = ReplyFacts(
            turn_id=prepared.turn_id,
            locale=prepared.locale,
            done=tuple(b.receipt.text for b in blocks if isinstance(b, ReceiptBlock)),
            not_done=tuple(
                b.text for b in blocks if isinstance(b, NoticeBlock) and b.item_id is not None
            ),
            notices=tuple(
                b.text for b in blocks if isinstance(b, NoticeBlock) and b.item_id is None
            ),
            ask_next=asks.text if asks else None,
            cards=tuple(_card_text(b) for b in blocks if isinstance(b, InteractionBlock)),
            answered=sum(isinstance(b, AnswerBlock) for b in blocks),
        )
        questions = [
            AnswerFacts(question_id=b.question_id, topic=b.topic, basis=b.basis, facts=b.text)
            for b in blocks
            if isinstance(b, AnswerBlock)
        ]
        try:
            words = await writer.write(facts, questions, prepared.effort)
        except Exception as exc:
            log.warning("reply words not written in turn %s: %s", prepared.turn_id, exc)
            return blocks, set(), {"error": f"{type(exc).__name__}: {exc}"}
        ack, answers, guard = self._guard_words(prepared, facts, blocks, words)
        out: list[ReplyBlock] = []
        written: set[int] = set()
        for block in blocks:
            new: ReplyBlock = block
            if isinstance(block, AnswerBlock) and block.question_id in answers:
                new = replace(block, text=answers[block.question_id])
            elif isinstance(block, TransitionBlock) and ack:
                new = TransitionBlock(text=ack, asks=block.asks, case=block.case)
                ack = None
            if new is not block:
                written.add(id(new))
            out.append(new)
        if ack:
            out.append(TransitionBlock(text=ack))
            written.add(id(out[-1]))
        record: dict[str, Any] = {
            "words": words.trace,
            "calls": list(words.calls),
            "model_blocks": [n for n, b in enumerate(out) if id(b) in written],
            **({"guard": guard} if guard else {}),
        }
        return tuple(out), written, record

    def _guard_words(
        self,
        prepared: PreparedTurn,
        facts: ReplyFacts,
        blocks: tuple[ReplyBlock, ...],
        words: ReplyWords,
    ) -> tuple[str | None, dict[str, str], list[dict[str, Any]]]:
        """Return the acknowledgement and answers that pass the word guard, and the drops.

        Every sentence is checked against the facts it cites (``runtime.claims``, I15,
        docs/adr/0017-no-claim-in-model-words.md) at every effort, whoever wrote it. A
        dropped sentence takes only itself; a dropped sentence that asked the next thing
        gives way to code's question; an acknowledgement left with nothing to say is
        dropped whole (the code-written transition stands). A dropped answer leaves the
        code-written answer.
        """
        vocabulary = ClaimVocabulary.from_registry(self.registry)
        locale = prepared.locale
        receipts = [b for b in blocks if isinstance(b, ReceiptBlock)]
        kinds = {
            "done": FactKind.RECEIPT,
            "not_done": FactKind.REFUSAL,
            "notice": FactKind.NOTICE,
            "card": FactKind.CARD,
            "ask_next": FactKind.ASK_NEXT,
        }
        known: list[Fact] = []
        for ref, text in facts.refs().items():
            prefix, _, n = ref.partition(":")
            case = str(receipts[int(n) - 1].receipt.case) if prefix == "done" else None
            known.append(Fact(ref=ref, kind=kinds[prefix], text=text, case=case))
        drops: list[dict[str, Any]] = []
        sentences = words.sentences or (
            (Sentence(text=words.acknowledgement),) if words.acknowledgement else ()
        )
        kept: list[str] = []
        asked = False
        for sentence in sentences:
            problem = guard_sentence(sentence.text, sentence.about, known, vocabulary, locale)
            if problem:
                drops.append({"sentence": sentence.text, "dropped": problem})
                continue
            kept.append(sentence.text)
            asked = asked or "ask_next" in sentence.about
        if kept and facts.ask_next and not asked:
            kept.append(facts.ask_next)
        ack = " ".join(kept) if kept and kept != [facts.ask_next] else None
        answers: dict[str, str] = {}
        code_answers = {b.question_id: b.text for b in blocks if isinstance(b, AnswerBlock)}
        for question_id, text in words.answers.items():
            problem = guard_text(text, code_answers.get(question_id, ""), vocabulary, locale)
            if problem:
                drops.append({"answer": question_id, "text": text, "dropped": problem})
            else:
                answers[question_id] = text
        if drops:
            log.warning("word guard dropped %d text(s) in turn %s", len(drops), prepared.turn_id)
        return ack, answers, drops

    async def _persist_cards(
        self,
        prepared: PreparedTurn,
        results: dict[str, PlannedActResult],
        notices: list[tuple[str, str, str | None]],
        rows: dict[CaseRef, CaseRow],
        *,
        resumed: bool,
    ) -> tuple[list[Interaction], dict[str, PlannedActResult]]:
        """Persist planned cards bound to the post-commit revision (I5, I6)."""
        created: list[Interaction] = []
        actor = prepared.actor
        for planned, card_id in zip(prepared.cards, prepared.card_ids, strict=True):
            spec = planned.spec
            # Only a resumed plan can find its card stored already (the ids are minted
            # for this turn): a fresh run does not read.
            existing = (
                await self.store.get_interaction(actor.account, prepared.conversation_id, card_id)
                if resumed
                else None
            )
            if existing is not None:
                # Recovery: the card exists; its acts point at it as in the first run.
                created.append(existing)
                for item in planned.item_ids:
                    if item in results:
                        results[item] = _status(
                            results[item], results[item].status, interaction_id=existing.id
                        )
                continue
            label = ""
            if spec.case is not None:
                row = await self._row(spec.case, rows)
                erased = self.registry.workflow(spec.case.workflow)
                label = erased.definition.candidate_label(
                    spec.case, erased.typed(row.state if row else None), prepared.locale
                )
            if spec.case is not None and not spec.independent:
                spec = replace(spec, bound_revision=row.revision if row else 0)
                if spec.kind in (InteractionKind.CONFIRM, InteractionKind.REVIEW):
                    # D2: the prompt shows the record at the revision the card is bound to.
                    prompt = card_prompt(
                        self.registry,
                        spec.kind,
                        label,
                        spec.operations,
                        prepared.locale,
                        spec.commands,
                    )
                    spec = replace(spec, prompt=prompt)
            try:
                others = [
                    c
                    for c in await self.store.open_interactions(
                        actor.account, prepared.conversation_id
                    )
                    if spec.case is not None and c.spec.case == spec.case
                ]
                card = await self.store.create_interaction(
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
                        results[item] = _status(
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
                    results[item] = _status(
                        results[item], results[item].status, interaction_id=card.id
                    )
        return created, results

    async def _row(self, case: CaseRef, rows: dict[CaseRef, CaseRow]) -> CaseRow | None:
        """Return the row this turn committed for ``case``, else the stored one (one read)."""
        row = rows.get(case)
        return row if row is not None else await self.store.load_case(case)

    async def _receipts(
        self, events: Sequence[DomainEvent], locale: str, rows: dict[CaseRef, CaseRow]
    ) -> list[Receipt]:
        receipts = []
        states: dict[CaseRef, Any] = {}  # one read per case, however many events it has
        for event in events:
            erased = self.registry.workflow(event.case.workflow)
            if event.case not in states:
                row = await self._row(event.case, rows)
                states[event.case] = erased.typed(row.state if row else None)
            text = erased.definition.render_receipt(event, states[event.case], locale)
            if text:
                receipts.append(
                    Receipt(
                        case=event.case,
                        operation=event.operation,
                        text=text,
                        event_ids=(event.id,),
                        locale=locale,
                    )
                )
        return receipts

    async def _answers(self, prepared: PreparedTurn) -> list[AnswerBlock]:
        blocks = []
        for q in prepared.questions:
            subjects = []
            for case in q.cases:
                row = await self.store.load_case(case)
                erased = self.registry.workflow(case.workflow)
                typed = erased.typed(row.state if row else None)
                subjects.append(
                    Subject(
                        case=case,
                        state=row.state if row else None,
                        view=erased.definition.project(typed, prepared.today),
                        label=erased.definition.candidate_label(case, typed, prepared.locale),
                    )
                )
            question = Question(id=q.id, topic=q.topic, basis=q.basis)
            if self.app.knowledge is None:
                text = say("no_knowledge", prepared.locale)
            else:
                text = await self.app.knowledge.answer(question, subjects, prepared.locale)
            blocks.append(AnswerBlock(question_id=q.id, topic=q.topic, text=text, basis=q.basis))
        return blocks

    async def _ask_next(
        self,
        prepared: PreparedTurn,
        results: dict[str, PlannedActResult],
        rows: dict[CaseRef, CaseRow],
    ) -> AskNext | None:
        for result in results.values():
            if (
                result.status is ResultStatus.NEEDS_CLARIFICATION
                and result.asks is not None
                and result.sentence
            ):
                return AskNext(
                    text=result.sentence,
                    asks=result.asks,
                    item_id=result.item_id,
                    operation=result.operation,
                    case=result.case,
                )
        focus = prepared.focus
        if focus is None:
            return None
        row = await self._row(focus, rows)
        erased = self.registry.workflow(focus.workflow)
        view = erased.definition.project(erased.typed(row.state if row else None), prepared.today)
        if not view.obligations:
            return None
        first = view.obligations[0]
        return AskNext(
            text=erased.definition.ask_obligation(view, first, prepared.locale),
            asks=first.id,
            operation=first.waits_for,
            case=focus,
        )


_NOTHING = "nothing_found"
"""The notice of a reply that would otherwise have no block."""


_REPLAYED_NOTICE = {
    InteractionStatus.DECLINED.value: "already_declined",
    InteractionStatus.WITHDRAWN.value: "already_withdrawn",
    InteractionStatus.STALE.value: "stale_no_reissue",
}
"""The notice a second click on a card no longer open carries, by the card's status."""


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


def _status(result: PlannedActResult, status: ResultStatus, **changes: Any) -> PlannedActResult:
    return replace(result, status=status, **changes)


def _rejected(result: PlannedActResult, code: str, sentence: str) -> PlannedActResult:
    return _status(result, ResultStatus.REJECTED, code=code, sentence=sentence)


def _asked_json(prepared: PreparedTurn, asked: AskNext) -> dict[str, Any]:
    """Return what a reply asked for as conversation state (server-side; never shown)."""
    out: dict[str, Any] = {
        "text": asked.text,
        "asks": asked.asks,
        "operation": asked.operation,
        "case": str(asked.case) if asked.case else None,
        "argument": None,
    }
    act = next((a for a in prepared.understanding.acts if a.id == asked.item_id), None)
    if act is not None and act.operation == asked.operation:
        records = prepared.record_args.get(act.id, {})
        out["argument"] = asked.asks
        out["args"] = {k: str(v) for k, v in act.args.items()}
        out["evidence"] = {k: str(v) for k, v in act.evidence.items()}
        out["record_args"] = {k: str(v) for k, v in records.items()}
    return out


def _card_text(block: InteractionBlock) -> str:
    return f"{block.prompt} [{' | '.join(o.label for o in block.options)}]"
