"""Turn preparation (guide §2 steps 2–9): load, project, brief, understand, resolve, reduce."""

from __future__ import annotations

import hashlib
import inspect
import json
import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import date
from typing import Any

from turnframe.core.acts import ProposedTarget, Question, SemanticAct, Understanding
from turnframe.core.canonical import digest, to_json_value
from turnframe.core.ids import Actor, CaseRef, JSONObject
from turnframe.core.interactions import (
    Interaction,
    InteractionResolution,
    InteractionStatus,
)
from turnframe.core.ports import DirectoryEntry
from turnframe.core.results import ResultStatus
from turnframe.core.targets import (
    Ambiguous,
    Exact,
    NotFound,
    TargetCandidate,
    TargetResolution,
    Unauthorized,
)
from turnframe.core.turn import (
    Effort,
    TurnInput,
    TurnPhase,
    TurnPhaseChanged,
    TurnStep,
)
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.check import domain_refusal
from turnframe.runtime.contract import checked_reading
from turnframe.runtime.copy import narrate, say
from turnframe.runtime.errors import CommandRejected
from turnframe.runtime.executor import StoredCaseDirectory, StoredStateExecutor
from turnframe.runtime.metrics import AMBIGUOUS_TARGET
from turnframe.runtime.plan import ActInput, CaseSnapshot, ClickInput, ReductionInput
from turnframe.runtime.reduce import reduce_turn
from turnframe.runtime.replay import reduction_record
from turnframe.runtime.serial import load_waiting
from turnframe.runtime.turn import BatchRequest, PreparedTurn, QuestionRef
from turnframe.store.base import CaseRow, CommitRequest, InteractionCas
from turnframe.understand.brief import (
    AskedFor,
    Brief,
    BriefCard,
    BriefPending,
    BriefRecord,
    DomainCheck,
)

__all__: list[str] = []

from turnframe.runtime._base import _ASKED, _STANDING, _WAITING, _RuntimeBase
from turnframe.runtime.finish import _rejected

_HANDLE = re.compile(r"^h[0-9a-f]{10}$")
"""The shape of a per-turn handle: a stale or invented one is never looked up as words."""


class _Preparing(_RuntimeBase):
    """Everything decided before the first commit."""

    async def _prepare(
        self,
        actor: Actor,
        conversation_id: str,
        turn: TurnInput,
        turn_id: str,
        today: date,
        locale: str,
        in_view: Sequence[CaseRef] | None,
    ) -> tuple[PreparedTurn, dict[str, CaseRef]]:
        conversation = await self.store.get_conversation_state(actor.account, conversation_id)
        standing_before = bool(conversation.get(_STANDING, False))
        asked = conversation.get(_ASKED) if turn.text else None
        waiting = load_waiting(conversation.get(_WAITING))
        entries, listed = await self._list_entries(actor)
        if in_view is not None:
            wanted = set(in_view)
            entries = [e for e in entries if e.case in wanted]
        handles = {_handle(turn_id, e.case): e.case for e in entries}
        labels = {e.case: e.label for e in entries}
        snapshots: dict[CaseRef, CaseSnapshot] = {}
        for entry in entries:
            if entry.case in listed:
                row, typed = listed[entry.case]
                snapshots[entry.case] = self._snapshot_of(entry.case, row, typed, today, locale)
            else:
                snapshots[entry.case] = await self._snapshot(entry.case, today, locale)
        for carried in waiting:
            for case in (carried.pending.case, *carried.pending.record_args.values()):
                if case is not None and case not in snapshots:
                    snapshots[case] = await self._snapshot(case, today, locale)
        cards = tuple(await self.store.open_interactions(actor.account, conversation_id))

        understanding = Understanding()
        model_calls = 0
        calls: tuple[JSONObject, ...] = ()
        reading: JSONObject = {}
        if turn.text:
            assert self.understander is not None
            brief = self._brief(
                actor, turn_id, turn, today, locale, entries, handles, snapshots, cards, asked
            )
            brief = replace(
                brief,
                cards=tuple(
                    replace(b, acts=self._brief_pending(c, locale))
                    for b, c in zip(brief.cards, cards, strict=True)
                ),
                waiting=tuple(
                    BriefPending(
                        ref=w.item_id,
                        operation=w.pending.act.operation or "",
                        summary=self._summary(w.pending.act.operation, locale),
                    )
                    for w in waiting
                ),
            )
            read = checked_reading(await self.understander.understand(brief), self.registry)
            understanding, model_calls = read.understanding, read.model_calls
            calls, reading = read.calls, read.trace
        self._emit(TurnPhaseChanged(turn_id=turn_id, phase=TurnPhase.UNDERSTOOD))

        acts: list[ActInput] = []
        for act in understanding.acts:
            resolution = None
            if act.operation is not None:
                resolution = await self._resolve(
                    actor,
                    act.operation,
                    act.target,
                    handles,
                    labels,
                    turn,
                    snapshots,
                    today,
                    locale,
                )
            record_args, bad_args = _record_args(act.args, self.registry, act.operation, handles)
            act, record_args, bad_args = _answering(act, resolution, record_args, bad_args, asked)
            awaits, choices = await self._look_up_arguments(
                actor, act, record_args, bad_args, labels, snapshots, today, locale, resolution
            )
            for case in record_args.values():
                if case not in snapshots:
                    snapshots[case] = await self._snapshot(case, today, locale)
            acts.append(
                ActInput(
                    act=act,
                    resolution=resolution,
                    record_args=record_args,
                    bad_args=bad_args,
                    awaits=awaits,
                    choices=choices,
                )
            )
        click = None
        if turn.interaction_response is not None:
            click = await self._click(actor, conversation_id, turn, snapshots, today, locale)
        linked_cards = await self._linked_cards(
            actor, conversation_id, understanding, cards, snapshots, today, locale
        )
        reduction = ReductionInput(
            turn_id=turn_id,
            actor=actor,
            today=today,
            locale=locale,
            understanding=understanding,
            acts=tuple(acts),
            snapshots=dict(snapshots),
            click=click,
            cards_on_screen=cards,
            standing_do_not_submit=standing_before,
            waiting=waiting,
            linked_cards=linked_cards,
        )
        plan = reduce_turn(reduction, self.registry)
        self._emit(TurnPhaseChanged(turn_id=turn_id, phase=TurnPhase.PLANNED))

        executor = StoredStateExecutor(self.registry, self.store, today)
        executor.turn_id = turn_id
        executor.locale = locale
        results = {r.item_id: r for r in plan.results}
        batches: list[BatchRequest] = []
        for batch in plan.batches:
            snap = snapshots[batch.case]
            from turnframe.core.ports import LoadedCase

            loaded = LoadedCase(case=batch.case, state=snap.state_json, revision=snap.revision)
            try:
                transition = await executor.apply(loaded, batch.envelopes)
            except CommandRejected as exc:
                for act_id in batch.act_ids:
                    results[act_id] = _rejected(results[act_id], exc.code, exc.sentence)
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
                        [to_json_value(e.origin) for e in batch.envelopes],
                    )
                ),
                turn_id=turn_id,
                operations=tuple(e.operation for e in batch.envelopes),
                interaction=cas,
            )
            batches.append(BatchRequest(request=request, act_ids=batch.act_ids))
        questions = []
        for q in understanding.questions:
            cases = await self._question_cases(actor, q, handles)
            for case in cases:
                if case not in snapshots:
                    snapshots[case] = await self._snapshot(case, today, locale)
            questions.append(QuestionRef(id=q.id, topic=q.topic, basis=q.basis, cases=cases))
        standing_active = (
            standing_before
            if plan.standing_do_not_submit is None
            else (plan.standing_do_not_submit)
        )
        focus = next(
            (
                r.case
                for r in results.values()
                if r.case is not None and r.status is not ResultStatus.SUPERSEDED
            ),
            None,
        )
        prepared = PreparedTurn(
            turn_id=turn_id,
            conversation_id=conversation_id,
            actor=actor,
            today=today,
            locale=locale,
            results=tuple(results.values()),
            batches=tuple(batches),
            closes=plan.closes,
            cards=plan.cards,
            card_ids=tuple(self.ids.new_id("card") for _ in plan.cards),
            notices=plan.notices,
            standing=plan.standing_do_not_submit,
            standing_active=standing_active,
            questions=tuple(questions),
            focus=focus,
            replayed_click=plan.replayed_click,
            replayed_status=plan.replayed_status,
            clicked=(
                turn.interaction_response.interaction_id if turn.interaction_response else None
            ),
            model_calls=model_calls,
            ambiguous=plan.ambiguous,
            understanding=understanding,
            calls=calls,
            reading=reading,
            has_text=bool(turn.text),
            effort=turn.effort.value if turn.effort else None,
            record_args={a.act.id: dict(a.record_args) for a in acts if a.record_args},
            waiting=plan.waiting,
            reduction=reduction_record(reduction, plan),
        )
        if plan.ambiguous:
            self.metrics.count(AMBIGUOUS_TARGET, plan.ambiguous)
        return prepared, handles

    async def _linked_cards(
        self,
        actor: Actor,
        conversation_id: str,
        understanding: Understanding,
        cards: Sequence[Interaction],
        snapshots: dict[CaseRef, CaseSnapshot],
        today: date,
        locale: str,
    ) -> tuple[Interaction, ...]:
        """Return the closed cards this turn's links name; load the linked cards' cases.

        A link end ``<card id>:<act id>`` that is not an act of this turn names a pending
        act of an earlier turn (ADR 0012). A card on screen needs its cases snapshotted
        (its other acts go on a fresh card); a card no longer open tells the reducer
        whether the act already committed.
        """
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
        on_screen = {c.id: c for c in cards}
        for card_id in sorted(named):
            card = on_screen.get(card_id)
            if card is None:
                found = await self.store.get_interaction(actor.account, conversation_id, card_id)
                if found is not None:
                    out.append(found)
                continue
            for p in card.spec.pending:
                for case in (p.case, card.spec.case, *p.record_args.values()):
                    if case is not None and case not in snapshots:
                        snapshots[case] = await self._snapshot(case, today, locale)
        return tuple(out)

    def _summary(self, operation: str | None, locale: str) -> str:
        spec = self.registry.operation(operation or "")
        return spec.summary_in(locale) if spec else ""

    def _brief_pending(self, card: Interaction, locale: str) -> tuple[BriefPending, ...]:
        """Return a card's pending acts as a link may name them (ADR 0012)."""
        return tuple(
            BriefPending(
                ref=f"{card.id}:{p.act.id}",
                operation=p.act.operation or "",
                summary=self._summary(p.act.operation, locale),
            )
            for p in card.spec.pending
        )

    async def _list_entries(
        self, actor: Actor
    ) -> tuple[Sequence[DirectoryEntry], dict[CaseRef, tuple[CaseRow, Any]]]:
        """Return the actor's directory entries, with the rows read for them when known.

        The default directory over this store reads (and types) every case to label it;
        those rows then serve as the turn's snapshots instead of a second read per case.
        """
        directory = self.directory
        if type(directory) is StoredCaseDirectory and directory.store is self.store:
            listed = await directory.list_with_states(actor)
            return [e for e, _, _ in listed], {e.case: (row, typed) for e, row, typed in listed}
        return await directory.list_for_actor(actor), {}

    def _brief(
        self,
        actor: Actor,
        turn_id: str,
        turn: TurnInput,
        today: date,
        locale: str,
        entries: Sequence[DirectoryEntry],
        handles: dict[str, CaseRef],
        snapshots: dict[CaseRef, CaseSnapshot],
        cards: Sequence[Interaction],
        asked: Any = None,
    ) -> Brief:
        by_case = {case: handle for handle, case in handles.items()}
        effort = turn.effort or getattr(self.understander, "effort", None) or Effort.MEDIUM
        prose = self.narration.steps and Effort(effort) is not Effort.LOW
        records = []
        for entry in entries:
            snap = snapshots[entry.case]
            definition = self.registry.workflow(entry.case.workflow).definition
            records.append(
                BriefRecord(
                    handle=by_case[entry.case],
                    workflow=entry.case.workflow,
                    label=entry.label,
                    phase=snap.view.phase,
                    obligations=tuple(o.id for o in snap.view.obligations),
                    offered=definition.offered(snap.view, actor),
                    briefing=definition.briefing(snap.view),
                )
            )
        creatable = tuple(
            op.key
            for name in self.registry.names()
            for op in self.registry.workflow(name).operations()
            if op.creates_case
        )
        return Brief(
            turn_id=turn_id,
            text=turn.text or "",
            locale=locale,
            today=today.isoformat(),
            records=tuple(records),
            creatable=creatable,
            cards=tuple(
                BriefCard(
                    interaction_id=c.id,
                    kind=c.spec.kind.value,
                    prompt=c.spec.prompt,
                    options=tuple((o.id, o.label) for o in c.spec.options),
                )
                for c in cards
            ),
            handles=tuple(handles),
            operations=tuple(
                op
                for key in dict.fromkeys((*creatable, *(k for r in records for k in r.offered)))
                if (op := self.registry.operation(key)) is not None
            ),
            topics=tuple(getattr(self.app.knowledge, "topics", ())),
            topic_notes=tuple(dict(getattr(self.app.knowledge, "topic_notes", {})).items()),
            asked=str(asked["text"]) if isinstance(asked, dict) else None,
            asked_for=_asked_for(asked, by_case),
            effort=turn.effort.value if turn.effort else None,
            check=self._domain_check(actor, handles, snapshots, today, locale),
            on_step=lambda name, detail, count: self._emit(
                TurnStep(
                    turn_id=turn_id,
                    name=name,
                    detail=detail,
                    text=narrate(name, detail, locale, count) if prose else "",
                )
            ),
        )

    def _domain_check(
        self,
        actor: Actor,
        handles: dict[str, CaseRef],
        snapshots: dict[CaseRef, CaseSnapshot],
        today: date,
        locale: str,
    ) -> DomainCheck:
        """Return the domain check understanding may call before reduction (§2 step 5)."""

        async def check(act: SemanticAct) -> str | None:
            if act.operation is None or len(act.target.handles) != 1:
                return None
            case = handles.get(act.target.handles[0])
            if case is None or case not in snapshots:
                return None
            record_args, bad = _record_args(act.args, self.registry, act.operation, handles)
            if bad:
                return None
            closed = {
                ref: say("record_closed", locale, label=snap.label)
                for ref in record_args.values()
                if (snap := snapshots.get(ref)) is not None
                and snap.state is not None
                and self.registry.workflow(ref.workflow).terminal(snap.view)
            }
            return domain_refusal(
                self.registry, act, snapshots[case], record_args, actor, today, locale, closed
            )

        return check

    async def _look_up_arguments(
        self,
        actor: Actor,
        act: SemanticAct,
        record_args: dict[str, CaseRef],
        bad_args: dict[str, str],
        labels: dict[CaseRef, str],
        snapshots: dict[CaseRef, CaseSnapshot],
        today: date,
        locale: str,
        resolution: TargetResolution | None = None,
    ) -> tuple[dict[str, str], dict[str, tuple[TargetCandidate, ...]]]:
        """Look up the record arguments named by words, not by a handle in view (§2 step 6).

        ``CaseDirectory.find`` decides, told the operation and argument: one record that
        fits is used (``record_args``), several go on a selection card (the returned
        choices), none leaves the act waiting for a record of that name (the returned
        awaits, D6). Of several, only those with which the domain accepts the act on its
        Exact target stay candidates (the domain check, when it accepts at least one);
        words naming only closed records fill the argument with the one, or mark it
        ``closed`` (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md). Changes
        ``record_args`` and ``bad_args`` in place.
        """
        spec = self.registry.operation(act.operation or "")
        awaits: dict[str, str] = {}
        choices: dict[str, tuple[TargetCandidate, ...]] = {}
        if spec is None:
            return awaits, choices
        for name in [n for n, why in bad_args.items() if why == "unknown_handle"]:
            argument = spec.argument(name)
            words = str(act.args.get(name, "")).strip()
            if argument is None or argument.record_workflow is None or _HANDLE.match(words):
                continue
            # Only records that may fill the argument now are candidates (never a
            # terminal one, docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).
            found = await self._find(
                actor,
                argument.record_workflow,
                words,
                snapshots,
                today,
                locale,
                operation=spec.key,
                argument=name,
            )
            del bad_args[name]
            if len(found) > 1 and isinstance(resolution, Exact):
                found = self._accepted_by_domain(
                    actor, act, resolution.case, name, found, record_args, snapshots, today, locale
                )
            if len(found) == 1:
                record_args[name] = found[0]
            elif found:
                choices[name] = tuple(
                    TargetCandidate(case=c, label=_label(c, snapshots, labels)) for c in found
                )
            else:
                matched = await self._find(
                    actor, argument.record_workflow, words, snapshots, today, locale
                )
                if len(matched) == 1:
                    # The one record the words name is closed: the reducer refuses it with
                    # its label, and the act does not wait for a record that exists.
                    record_args[name] = matched[0]
                elif matched:
                    bad_args[name] = "closed"
                else:
                    awaits[name] = words
        return awaits, choices

    async def _find(
        self,
        actor: Actor,
        workflow: str | None,
        words: str,
        snapshots: dict[CaseRef, CaseSnapshot],
        today: date,
        locale: str,
        *,
        operation: str | None = None,
        argument: str | None = None,
    ) -> list[CaseRef]:
        """Return the authorised records ``words`` name that fit ``operation``/``argument``.

        The directory is told what the runtime is finding for (``CaseDirectory.find``'s
        keyword hints, passed only when its ``find`` accepts them), and its answer is
        filtered again here by the same rule, so a directory that ignores the hints can
        still never put a record that does not fit on a selection card
        (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md). Every returned
        record has a snapshot.
        """
        hints: dict[str, Any] = {"operation": operation, "argument": argument, "today": today}
        accepted = _find_hints(self.directory)
        kwargs = {k: v for k, v in hints.items() if k in accepted and v is not None}
        out = []
        for case in await self.directory.find(actor, workflow, words, **kwargs):
            if case in out or not await self.directory.authorize(actor, case):
                continue
            if case not in snapshots:
                snapshots[case] = await self._snapshot(case, today, locale)
            if operation is not None and not self._fits(
                actor, snapshots[case], operation, argument
            ):
                continue
            out.append(case)
        return out

    def _accepted_by_domain(
        self,
        actor: Actor,
        act: SemanticAct,
        target: CaseRef,
        name: str,
        found: list[CaseRef],
        record_args: dict[str, CaseRef],
        snapshots: dict[CaseRef, CaseSnapshot],
        today: date,
        locale: str,
    ) -> list[CaseRef]:
        """Return the records of ``found`` with which the domain accepts ``act`` on ``target``.

        "Remove Ana Silva from the manifest" with two Ana Silvas of whom one is listed: only
        the passenger fits. When the domain refuses every one, the refusal is not about
        which record was named, so all stay candidates (the reducer then reports it).
        """
        snap = snapshots.get(target)
        if snap is None:
            return found
        accepted = [
            case
            for case in found
            if domain_refusal(
                self.registry, act, snap, {**record_args, name: case}, actor, today, locale
            )
            is None
        ]
        return accepted or found

    def _fits(self, actor: Actor, snap: CaseSnapshot, operation: str, argument: str | None) -> bool:
        """Return whether ``snap``'s record may be the target (or ``argument``) of ``operation``."""
        erased = self.registry.workflow(snap.case.workflow)
        if argument is not None:
            return not erased.terminal(snap.view)
        return erased.fits(snap.view, actor, operation)

    def _no_fit(self, operation: str, argument: str | None, workflow: str, locale: str) -> str:
        """Return the domain's sentence for words naming only records that do not fit."""
        spec = self.registry.operation(operation)
        erased = self.registry.workflow(workflow)
        if spec is not None:
            arg_spec = spec.argument(argument) if argument else None
            sentence = erased.no_candidate(spec, arg_spec, locale)
            if sentence:
                return sentence
        return say("no_fitting_record", locale)

    async def _resolve(
        self,
        actor: Actor,
        operation: str,
        target: ProposedTarget,
        handles: dict[str, CaseRef],
        labels: dict[CaseRef, str],
        turn: TurnInput,
        snapshots: dict[CaseRef, CaseSnapshot],
        today: date,
        locale: str,
    ) -> TargetResolution:
        spec = self.registry.operation(operation)
        if target.new:
            if spec is None or not spec.creates_case:
                return NotFound(reason="not_creatable")
            case = CaseRef(spec.workflow, self.ids.new_id(spec.workflow))
            snapshots[case] = await self._snapshot(case, today, locale)
            return Exact(case=case, new=True)
        cases: list[CaseRef] = []
        if target.handles:
            for handle in dict.fromkeys(target.handles):
                named = handles.get(handle)
                if named is None:
                    return NotFound(reason="unknown_handle")
                cases.append(named)
        elif target.find:
            workflow = spec.workflow if spec else None
            op = spec.key if spec else None
            cases = await self._find(
                actor, workflow, target.find, snapshots, today, locale, operation=op
            )
            if not cases and spec is not None:
                matched = await self._find(actor, workflow, target.find, snapshots, today, locale)
                if len(matched) > 1:
                    return NotFound(
                        reason="no_fit",
                        sentence=self._no_fit(spec.key, None, spec.workflow, locale),
                    )
                # One record named that does not fit: the reducer refuses it in the
                # domain's words for that record (no candidate to choose between).
                cases = matched
            for case in cases:
                labels.setdefault(case, snapshots[case].label)
        elif turn.origin_ref is not None:
            if not await self.directory.authorize(actor, turn.origin_ref):
                return Unauthorized()
            cases = [turn.origin_ref]
            if turn.origin_ref not in snapshots:
                snapshots[turn.origin_ref] = await self._snapshot(turn.origin_ref, today, locale)
        if not cases:
            return NotFound(reason="no_target")
        for case in cases:
            if not await self.directory.authorize(actor, case):
                return Unauthorized()
        if len(cases) > 1 and spec is not None:
            # Several records named: only those on which the operation is on offer now
            # are candidates; one that fits is used, none gives the domain's sentence.
            for case in cases:
                if case not in snapshots:
                    snapshots[case] = await self._snapshot(case, today, locale)
            fitting = [c for c in cases if self._fits(actor, snapshots[c], spec.key, None)]
            if not fitting:
                return NotFound(
                    reason="no_fit", sentence=self._no_fit(spec.key, None, spec.workflow, locale)
                )
            cases = fitting
        if len(cases) == 1:
            return Exact(case=cases[0])
        return Ambiguous(
            candidates=tuple(
                TargetCandidate(case=c, label=_label(c, snapshots, labels)) for c in cases
            )
        )

    async def _click(
        self,
        actor: Actor,
        conversation_id: str,
        turn: TurnInput,
        snapshots: dict[CaseRef, CaseSnapshot],
        today: date,
        locale: str,
    ) -> ClickInput:
        response = turn.interaction_response
        assert response is not None
        card = await self.store.get_interaction(
            actor.account, conversation_id, response.interaction_id
        )
        if card is None:
            return ClickInput(response=response, interaction=None)
        option = card.spec.option(response.option_id)
        needed = {p.case for p in card.spec.pending if p.case is not None}
        if card.spec.case is not None:
            needed.add(card.spec.case)
        if option is not None and option.case is not None:
            needed.add(option.case)
        for p in card.spec.pending:
            needed.update(p.record_args.values())
        for case in needed:
            if case not in snapshots or snapshots[case].state is None:
                snapshots[case] = await self._snapshot(case, today, locale)
        case_revision = snapshots[card.spec.case].revision if card.spec.case else None
        pending = []
        for p in card.spec.pending:
            if p.argument is not None and option is not None and option.value is not None:
                # A Choice that fills a part argument: the act keeps its own target, and
                # the domain re-checks the part when the act compiles again.
                owned = p.case is not None and (
                    p.new_case or await self.directory.authorize(actor, p.case)
                )
                pending.append(
                    ActInput(
                        act=p.act,
                        resolution=Exact(case=p.case, new=p.new_case)
                        if owned and p.case is not None
                        else Unauthorized(),
                        record_args=p.record_args,
                        part_args={**p.part_args, p.argument: option.value},
                    )
                )
                continue
            if p.argument is not None and option is not None and option.case is not None:
                # A selection that fills a record argument: the act keeps its own target.
                chosen_arg: TargetResolution | None = None
                if p.case is not None and (
                    p.new_case or await self.directory.authorize(actor, p.case)
                ):
                    if await self.directory.authorize(actor, option.case):
                        chosen_arg = Exact(case=p.case, new=p.new_case)
                pending.append(
                    ActInput(
                        act=p.act,
                        resolution=chosen_arg or Unauthorized(),
                        record_args={**p.record_args, p.argument: option.case},
                        part_args=p.part_args,
                    )
                )
                continue
            chosen = option.case if option is not None and option.case is not None else p.case
            resolution: TargetResolution | None = None
            if chosen is not None:
                # A case this account's earlier turn minted (stored on its own card) is not in
                # the directory until its first commit; every other case must be authorised.
                minted = p.new_case and chosen == p.case
                if not minted and not await self.directory.authorize(actor, chosen):
                    resolution = Unauthorized()
                else:
                    resolution = Exact(case=chosen, new=p.new_case and chosen == p.case)
            pending.append(
                ActInput(
                    act=p.act,
                    resolution=resolution,
                    record_args=p.record_args,
                    part_args=p.part_args,
                )
            )
        return ClickInput(
            response=response, interaction=card, case_revision=case_revision, pending=tuple(pending)
        )

    async def _question_cases(
        self, actor: Actor, question: Question, handles: dict[str, CaseRef]
    ) -> tuple[CaseRef, ...]:
        target = question.target
        if target is None:
            return ()
        if target.handles:
            return tuple(handles[h] for h in dict.fromkeys(target.handles) if h in handles)
        if target.find:
            return tuple(await self.directory.find(actor, None, target.find))
        return ()

    # ----------------------------------------------------------------- finishing


_HINTS: dict[type, frozenset[str]] = {}


def _find_hints(directory: object) -> frozenset[str]:
    """Return the keyword hints (``operation``, ``argument``, ``today``) ``directory.find`` accepts.

    A directory written before the hints existed takes none of them; it is still called
    with the words alone, and the runtime filters its answer (``_Preparing._find``).
    """
    kind = type(directory)
    known = _HINTS.get(kind)
    if known is None:
        try:
            params = inspect.signature(directory.find).parameters  # type: ignore[attr-defined]
        except (TypeError, ValueError):
            params = {}  # type: ignore[assignment]
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            known = frozenset({"operation", "argument"})  # the protocol's hints only
        else:
            known = frozenset(n for n in ("operation", "argument", "today") if n in params)
        _HINTS[kind] = known
    return known


def _handle(turn_id: str, case: CaseRef) -> str:
    """Mint the opaque per-turn handle of ``case`` (I1): no record id can be read from it.

    The handle is ``"h"`` + the first 10 hex digits of ``digest(("handle", turn_id,
    str(case)))``; a list of strings is its own canonical JSON, so the text is hashed
    directly (one handle per listed record per turn).
    """
    text = json.dumps(["handle", turn_id, str(case)], separators=(",", ":"))
    return "h" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def _record_args(
    args: Any, registry: WorkflowRegistry, operation: str | None, handles: dict[str, CaseRef]
) -> tuple[dict[str, CaseRef], dict[str, str]]:
    spec = registry.operation(operation) if operation else None
    record: dict[str, CaseRef] = {}
    bad: dict[str, str] = {}
    if spec is None:
        return record, bad
    for arg in spec.arguments:
        if arg.record_workflow is None or arg.name not in args:
            continue
        words = str(args[arg.name]).strip()
        if words.lower() in arg.literals:
            continue
        case = handles.get(words)
        if case is None or case.workflow != arg.record_workflow:
            bad[arg.name] = "unknown_handle"
        else:
            record[arg.name] = case
    return record, bad


def _ref(text: Any) -> CaseRef | None:
    if not isinstance(text, str) or "/" not in text:
        return None
    workflow, _, case_id = text.partition("/")
    return CaseRef(workflow, case_id)


def _asked_for(asked: Any, by_case: dict[CaseRef, str]) -> AskedFor | None:
    """Return what the last reply asked for as the brief shows it (the record as a handle)."""
    if not isinstance(asked, dict):
        return None
    case = _ref(asked.get("case"))
    operation, argument = asked.get("operation"), asked.get("argument")
    return AskedFor(
        operation=operation if isinstance(operation, str) else None,
        argument=argument if isinstance(argument, str) else None,
        record=by_case.get(case) if case else None,
    )


def _answering(
    act: SemanticAct,
    resolution: TargetResolution | None,
    record_args: dict[str, CaseRef],
    bad_args: dict[str, str],
    asked: Any,
) -> tuple[SemanticAct, dict[str, CaseRef], dict[str, str]]:
    """Complete the act the last reply asked a value for with what this message answers.

    The message is read as the answer (guide §5): an act of the waiting act's operation on
    its record takes the waiting act's values, and its own words win (the user's last word).
    """
    if (
        not isinstance(asked, dict)
        or not asked.get("argument")
        or act.operation != asked.get("operation")
        or not isinstance(resolution, Exact)
        or str(resolution.case) != asked.get("case")
    ):
        return act, record_args, bad_args
    carried = {
        k: ref for k, v in (asked.get("record_args") or {}).items() if (ref := _ref(v)) is not None
    }
    words = {k: str(v) for k, v in (asked.get("args") or {}).items()}
    evidence = {k: str(v) for k, v in (asked.get("evidence") or {}).items()}
    own = set(act.args)
    act = replace(
        act,
        args={**{k: v for k, v in words.items() if k not in own}, **act.args},
        evidence={**{k: v for k, v in evidence.items() if k not in own}, **act.evidence},
    )
    merged = {**{k: v for k, v in carried.items() if k not in own}, **record_args}
    return act, merged, {k: v for k, v in bad_args.items() if k not in merged or k in own}


def _label(
    case: CaseRef, snapshots: dict[CaseRef, CaseSnapshot], labels: dict[CaseRef, str]
) -> str:
    """Return the candidate label in the turn's locale (the snapshot's), else the directory's."""
    snap = snapshots.get(case)
    return snap.label if snap is not None else labels.get(case, str(case))
