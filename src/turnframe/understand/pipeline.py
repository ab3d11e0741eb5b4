"""The understanding chain: segment → coverage ∥ route → locate ∥ extract → check → verify.

The only module that chains the task modules (import-linter contract
``understand-steps-independent``). Independent calls run concurrently; every answer is
checked by code before the next task sees it; a unit that cannot be read becomes a
notice; the turn's budget ends understanding with a typed error and a notice, never a
half-read plan (guide §5).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

import anyio

from turnframe.core.acts import (
    CardAnswer,
    Constraint,
    ConstraintKind,
    ConstraintScope,
    EvidenceSource,
    Link,
    ProposedTarget,
    Question,
    SemanticAct,
    Understanding,
)
from turnframe.core.ids import JSONObject
from turnframe.core.operations import OperationSpec
from turnframe.core.turn import Effort
from turnframe.providers.base import Provider
from turnframe.providers.errors import ProviderCancelled, ProviderError, error_kind
from turnframe.tasks.budget import TurnBudget
from turnframe.tasks.errors import BudgetExceeded, TaskFailed
from turnframe.tasks.run import TaskModels, TaskRunner, concurrently
from turnframe.tasks.sampling import Sampling
from turnframe.tasks.task import Task
from turnframe.understand.base import UnderstandingResult
from turnframe.understand.brief import Brief, BriefRecord, brief_to_json
from turnframe.understand.contract import on_contract
from turnframe.understand.coverage import coverage_task, gaps, read_missed
from turnframe.understand.cross_check import CrossFinding, cross_check_task, read_findings
from turnframe.understand.extract import extract_task, read_values
from turnframe.understand.glossary import act_glossary
from turnframe.understand.locate import locate_task, read_target
from turnframe.understand.route import Route, read_routes, route_task
from turnframe.understand.segment import read_units, segment_task
from turnframe.understand.units import Unit
from turnframe.understand.verify import Verdict, read_verdict, verify_task
from turnframe.understand.words import Words

__all__ = ["UNREADABLE", "EffortProfile", "ModelUnderstanding", "effort_profile"]

UNREADABLE = "unreadable"
"""The detail of a step no reading passed (its exact error is in the trace, never shown)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EffortProfile:
    """How hard a turn is read (guide §5 "Effort"); never changes what policy allows.

    Attributes:
        split_votes: reads of segmentation (a split vote is read once more).
        route_votes: reads of routing.
        verify_votes: reads of every verification.
        fault_revotes: extra reads of a verification that found fault.
        reasoning: reasoning effort for the reading tasks but extraction.
        reply_review: the reply's acknowledgement is reviewed.
        step_prose: steps are narrated in the user's language.
        cross_check: the whole reading is cross-checked; each finding sends one step of
            one act back once and the verifier decides.
    """

    split_votes: int
    route_votes: int
    verify_votes: int
    fault_revotes: int
    reasoning: str | None
    reply_review: bool
    step_prose: bool
    cross_check: bool = False


def effort_profile(effort: Effort | str) -> EffortProfile:
    """Return the reading profile of ``effort`` (low, medium or high)."""
    match Effort(effort):
        case Effort.LOW:
            return EffortProfile(
                split_votes=1,
                route_votes=1,
                verify_votes=1,
                fault_revotes=0,
                reasoning=None,
                reply_review=False,
                step_prose=False,
            )
        case Effort.MEDIUM:
            return EffortProfile(
                split_votes=3,
                route_votes=3,
                verify_votes=1,
                fault_revotes=2,
                reasoning=None,
                reply_review=True,
                step_prose=True,
            )
        case Effort.HIGH:
            return EffortProfile(
                split_votes=3,
                route_votes=3,
                verify_votes=3,
                fault_revotes=0,
                reasoning="low",
                reply_review=True,
                step_prose=True,
                cross_check=True,
            )


class ModelUnderstanding:
    """Reads a turn with the chain of small verified tasks (implements ``Understander``).

    Args:
        models: the provider (or providers per task, with a stronger one to escalate to).
        effort: the default effort; a turn's ``Brief.effort`` overrides it.
        budget: the per-turn budget.
        sampling: temperatures per task and how votes differ (default: temperature 0,
            later votes seeded at 0.7 and rotated; docs/adr/0018).
    """

    def __init__(
        self,
        models: TaskModels | Provider,
        *,
        effort: Effort | str = Effort.MEDIUM,
        budget: TurnBudget | None = None,
        sampling: Sampling | None = None,
    ) -> None:
        self.models = models if isinstance(models, TaskModels) else TaskModels(models)
        self.effort = Effort(effort)
        self.budget = budget or TurnBudget()
        self.sampling = sampling or Sampling()

    async def understand(self, brief: Brief) -> UnderstandingResult:
        """Return the proposal for ``brief.text`` with every call recorded (I20).

        A provider failure that survives its in-place resend (connection refused, DNS,
        TLS, authentication, quota, model not found, timeout...) ends the reading: the
        proposal is empty but for the notice ``model_unreachable:<kind>``
        (``providers.errors.error_kind``), so the turn says the language model could not
        be reached and blames nothing on the message (docs/adr/0017-no-claim-in-model-words.md).

        Raises:
            CapabilityMissing: the provider cannot give genuine structured output.
            ProviderCancelled: the caller cancelled a call.
        """
        effort = Effort(brief.effort) if brief.effort else self.effort
        runner = TaskRunner(self.models, self.budget, sampling=self.sampling)
        reading = _Reading(brief, runner, effort_profile(effort))
        error: str | None = None
        try:
            understanding = on_contract(await reading.run(), brief.operation)
        except BudgetExceeded as exc:
            error = f"{type(exc).__name__}: {exc}"
            understanding = Understanding(notices=("budget_exceeded",))
            reading.step("budget", exc.which)
        except ProviderCancelled:
            raise
        except ProviderError as exc:
            error = f"{type(exc).__name__}: {exc}"
            understanding = Understanding(notices=(f"model_unreachable:{error_kind(exc)}",))
            reading.step("provider", error_kind(exc))
        trace: JSONObject = {
            "effort": effort.value,
            "brief": brief_to_json(brief),
            "error": error,
            "steps": [list(s) for s in reading.steps],
            "checks": dict(reading.checks),
            # Typed results, for narration and the eval (never parsed from step text):
            # the units read (empty when segmentation failed), each failed step's error
            # and every voted decision.
            "units": [
                {"id": u.id, "kind": u.kind, "from": u.start, "to": u.end} for u in reading.units
            ],
            "errors": [{"step": name, "error": text} for name, text in reading.errors],
            "votes": [v.to_json() for v in runner.vote_rounds],
        }
        return UnderstandingResult(
            understanding=understanding,
            model_calls=len(runner.records),
            calls=tuple(r.to_json() for r in runner.records),
            trace=trace,
        )


@dataclass(slots=True)
class _Act:
    id: str
    unit: Unit
    spec: OperationSpec
    target: ProposedTarget = field(default_factory=ProposedTarget)
    args: dict[str, str] = field(default_factory=dict)
    evidence: dict[str, str] = field(default_factory=dict)
    source: EvidenceSource = EvidenceSource.USER
    dropped: bool = False
    candidates: tuple[BriefRecord, ...] = ()


class _Reading:
    def __init__(self, brief: Brief, runner: TaskRunner, profile: EffortProfile) -> None:
        self.brief = brief
        self.runner = runner
        self.profile = profile
        self.words = Words.of(brief.text)
        self.notices: list[str] = []
        self.steps: list[tuple[str, str]] = []
        self.checks: dict[str, str | None] = {}
        self.units: list[Unit] = []
        self.errors: list[tuple[str, str]] = []

    def step(self, name: str, detail: str, count: int | None = None) -> None:
        self.steps.append((name, detail))
        if self.brief.on_step is not None:
            self.brief.on_step(name, detail, count)

    def unreadable(self, what: str, error: str) -> None:
        """A step no reading passed: a notice; the exact error goes to the trace only."""
        self.notices.append("unreadable")
        self.errors.append((what, error))
        self.step(what, UNREADABLE)

    async def _try(self, what: str, call: Callable[[], Awaitable[Any]]) -> Any:
        try:
            return await call()
        except TaskFailed as exc:
            self.unreadable(what, exc.error)
            return None

    # ---------------------------------------------------------------------- chain
    async def run(self) -> Understanding:
        if not len(self.words):
            return Understanding()
        answer = await self._try(
            "segment",
            lambda: self.runner.run(
                segment_task(
                    self.brief,
                    self.words,
                    votes=self.profile.split_votes,
                    reasoning=self.profile.reasoning,
                ),
                depth=1,
            ),
        )
        if answer is None:
            # Nothing of the message was read: not "part of" it.
            return Understanding(notices=("unreadable_message",))
        units = list(read_units(answer))
        self.units = units
        self.step("segment", ", ".join(f"{u.id}:{u.kind}" for u in units), len(units))
        routes = await self._cover_and_route(units)
        return await self._read_items(units, routes)

    async def _cover_and_route(self, units: list[Unit]) -> dict[str, Route]:
        runs = gaps(self.words, units)
        missed: list[Unit] = []
        routes: dict[str, Route] = {}

        async def cover() -> None:
            task = coverage_task(
                self.words,
                units,
                runs,
                reasoning=self.profile.reasoning,
                cards=bool(self.brief.cards),
            )
            answer = await self._try("coverage", lambda: self.runner.run(task, depth=2))
            if answer is not None:
                missed.extend(read_missed(answer, units))

        async def route(which: list[Unit], depth: int, note: str | None = None) -> None:
            if not which:
                return
            task = route_task(
                self.brief,
                self.words,
                which,
                units,
                votes=self.profile.route_votes,
                reasoning=self.profile.reasoning,
                note=note,
            )
            answer = await self._try("route", lambda: self.runner.run(task, depth=depth))
            if answer is not None:
                routes.update(read_routes(answer))

        async with concurrently() as group:
            if runs:
                group.start_soon(cover)
            group.start_soon(route, [u for u in units if u.kind != "other"], 2)
        if missed:
            units.extend(missed)
            units.sort(key=lambda u: u.start)
            self.step("coverage", ", ".join(f"{u.id}:{u.kind}" for u in missed))
            await route([u for u in missed if u.kind != "other"], 3)
        if self._gives_none_of_what_was_asked(routes):
            # The message is read as the answer to what the last reply asked; a reading
            # that gives none of it is routed once more, told so (guide §5).
            self.step("route", "gives none of what was asked; routed once more")
            note = (
                f"The last reply asked: {self.brief.asked!r}. The first routing of these "
                "units gives none of what it asked for. Route them once more: a unit may "
                "answer that question, or take up something else the reply offered."
            )
            await route([u for u in units if u.kind != "other"], 4, note)
        for unit_id, r in routes.items():
            self.step(
                "route",
                f"{unit_id} → {', '.join(r.operations) or r.topic or r.constraint or r.card or '-'}",
            )
        return routes

    def _gives_none_of_what_was_asked(self, routes: dict[str, Route]) -> bool:
        asked = self.brief.asked_for
        if asked is None or not asked.operation or not routes:
            return False
        return not any(asked.operation in r.operations or r.card for r in routes.values())

    async def _read_items(self, units: list[Unit], routes: dict[str, Route]) -> Understanding:
        acts: list[_Act] = []
        by_unit: dict[str, list[_Act]] = {}
        questions: list[tuple[str, Unit, str]] = []
        constraints: list[Constraint] = []
        card_answers: list[CardAnswer] = []
        cancels: list[tuple[str, str]] = []
        cancellation_ids: list[str] = []
        corrections: list[tuple[str, str]] = []
        n_act = n_q = n_c = n_k = 0
        for unit in units:
            r = routes.get(unit.id)
            if r is None:
                continue
            if unit.kind == "request":
                if not r.operations:
                    self.notices.append("not_on_offer")
                for key in r.operations:
                    spec = self.brief.operation(key)
                    if spec is None:
                        continue
                    n_act += 1
                    act = _Act(id=f"a{n_act}", unit=unit, spec=spec)
                    acts.append(act)
                    by_unit.setdefault(unit.id, []).append(act)
                if r.corrects:
                    corrections.append((unit.id, r.corrects))
            elif unit.kind == "question" and r.topic:
                n_q += 1
                questions.append((f"q{n_q}", unit, r.topic))
            elif unit.kind == "question":
                # No topic on offer answers it: the user is told so, never silence (I11).
                self.notices.append("unanswerable")
            elif unit.kind == "constraint" and r.constraint:
                n_c += 1
                constraints.append(
                    Constraint(
                        id=f"c{n_c}",
                        kind=ConstraintKind(r.constraint[0]),
                        scope=ConstraintScope(r.constraint[1]),
                    )
                )
            elif unit.kind == "card_answer" and r.card:
                n_k += 1
                card_answers.append(
                    CardAnswer(id=f"k{n_k}", interaction=r.card[0], option=r.card[1])
                )
            elif unit.kind == "cancellation" and r.cancels:
                n_act += 1
                cancellation_ids.append(f"a{n_act}")
                cancels.append((f"a{n_act}", r.cancels))
        targets: dict[str, ProposedTarget | None] = {}

        # Each act runs its own chain (locate ∥ extract → check → verify) as soon as it is
        # routed; no act waits for another's calls (the critical path is one act's chain).
        reading = [a for a in acts if not a.unit.hypothetical]
        unread = {a.id for a in reading}
        all_read = anyio.Event()
        if not unread:
            all_read.set()

        def read(act_id: str) -> None:
            unread.discard(act_id)
            if not unread:
                all_read.set()

        findings: list[CrossFinding] = []
        async with concurrently() as group:
            for act in acts:
                group.start_soon(self._read_act, act, units, read)
            for qid, unit, topic in questions:
                group.start_soon(self._locate_question, qid, unit, topic, targets)
            if self.profile.cross_check and reading:
                group.start_soon(self._cross_check, reading, all_read, findings)
        if findings:
            await self._send_back(acts, findings, units)
        links: list[Link] = []
        refs = set(self.brief.pending_refs())
        for unit_id, corrected in corrections:
            if corrected in refs:
                # An act of an earlier turn, still pending (ADR 0012).
                for act in by_unit.get(unit_id, []):
                    if not act.dropped:
                        links.append(Link(act=act.id, corrects=corrected))
                continue
            earlier = by_unit.get(corrected, [])
            for act in by_unit.get(unit_id, []):
                if act.dropped or not earlier:
                    continue
                same = next((e for e in earlier if e.spec.key == act.spec.key), earlier[0])
                links.append(Link(act=act.id, corrects=same.id))
        for act_id, unit_id in cancels:
            if unit_id in refs:
                links.append(Link(act=act_id, cancels=unit_id))
                continue
            for cancelled in by_unit.get(unit_id, []):
                links.append(Link(act=act_id, cancels=cancelled.id))
        semantic = [
            SemanticAct(
                id=a.id,
                operation=a.spec.key,
                target=a.target,
                args=dict(a.args),
                evidence=dict(a.evidence),
                evidence_source=a.source,
                hypothetical=a.unit.hypothetical,
            )
            for a in acts
            if not a.dropped
        ]
        semantic.extend(SemanticAct(id=i, operation=None) for i in cancellation_ids)
        semantic.sort(key=lambda a: int(a.id[1:]))
        return Understanding(
            acts=tuple(semantic),
            questions=tuple(
                Question(
                    id=qid,
                    topic=topic,
                    target=targets.get(qid),
                    basis="hypothetical" if unit.hypothetical else "current_state",
                )
                for qid, unit, topic in questions
            ),
            constraints=tuple(constraints),
            card_answers=tuple(card_answers),
            links=tuple(links),
            notices=tuple(dict.fromkeys(self.notices)),
        )

    # ------------------------------------------------------------------ per item
    async def _read_act(
        self, act: _Act, units: list[Unit], read: Callable[[str], None] | None = None
    ) -> None:
        async with concurrently() as group:
            group.start_soon(self._locate_act, act)
            if act.spec.arguments and not act.unit.hypothetical:
                group.start_soon(self._extract, act, units, None, 3)
        if read is not None:
            read(act.id)
        if not act.dropped and not act.unit.hypothetical:
            await self._check_and_verify(act, units)

    # --------------------------------------------------------------- cross-check
    async def _cross_check(
        self, acts: list[_Act], all_read: anyio.Event, findings: list[CrossFinding]
    ) -> None:
        """Cross-check the whole reading while the verifier judges each act (high effort)."""
        await all_read.wait()
        shown = [a for a in acts if not a.dropped]
        if not shown:
            return
        steps = {
            a.id: tuple(
                step
                for step, applies in (
                    ("locate", len(a.candidates) > 1),
                    ("extract", bool(a.spec.arguments)),
                )
                if applies
            )
            for a in shown
        }
        data: list[JSONObject] = [
            {
                "id": a.id,
                "unit": a.unit.text(self.words),
                "operation": a.spec.key,
                "summary": a.spec.summary_in(self.brief.locale),
                "record": self._label(a),
                "values": {
                    k: {"value": v, "words": a.evidence.get(k, v)} for k, v in a.args.items()
                },
            }
            for a in shown
        ]
        task = cross_check_task(self.words, data, steps=steps, reasoning=self.profile.reasoning)
        answer = await self._try("cross_check", lambda: self.runner.run(task, depth=4))
        if answer is not None:
            findings.extend(read_findings(answer))
            self.step(
                "cross_check", ", ".join(f"{f.act}:{f.step}" for f in findings) or "no finding"
            )

    async def _send_back(
        self, acts: list[_Act], findings: list[CrossFinding], units: list[Unit]
    ) -> None:
        """Read each found step of each act once more with its finding; the verifier decides."""
        by_act: dict[str, list[CrossFinding]] = {}
        for finding in findings:
            by_act.setdefault(finding.act, []).append(finding)

        async def again(act: _Act, found: list[CrossFinding]) -> None:
            if act.dropped:
                return
            before = (act.target, dict(act.args), dict(act.evidence), act.source)
            notices = len(self.notices)
            async with concurrently() as group:
                for f in found:
                    note = f"A cross-check of the whole reading found: {f.note}"
                    if f.step == "extract":
                        group.start_soon(self._extract, act, units, note, 5)
                    else:
                        group.start_soon(self._relocate, act, note)
            if act.dropped or (act.target, act.args, act.evidence) == before[:3]:
                # Nothing new was read (or the re-read failed): the verified reading stands.
                act.dropped = False
                act.target, act.args, act.evidence, act.source = before
                del self.notices[notices:]
                return
            task = self._verify_task(act)
            answer = await self._try("verify", lambda: self._verdict(task, 6))
            if answer is not None and self._judged(act, answer).ok:
                return
            # The verifier kept the reading it had judged right; the check alone holds nothing.
            act.target, act.args, act.evidence, act.source = before

        async with concurrently() as group:
            for act in acts:
                if act.id in by_act:
                    group.start_soon(again, act, by_act[act.id])

    async def _relocate(self, act: _Act, note: str) -> None:
        task = locate_task(
            self.words,
            act.unit,
            act.spec.summary_in(self.brief.locale),
            act.candidates,
            reasoning=self.profile.reasoning,
            key=act.id,
            finding=note,
        )
        answer = await self._try("locate", lambda: self.runner.run(task, depth=5))
        if answer is not None:
            act.target = read_target(answer, self.words, act.unit)
            self.step("locate", f"{act.id} → {len(act.target.handles) or act.target.find}")

    def _candidates(self, spec: OperationSpec) -> list[BriefRecord]:
        return [r for r in self.brief.records if spec.key in r.offered]

    async def _locate_act(self, act: _Act) -> None:
        if act.spec.creates_case:
            act.target = ProposedTarget(new=True)
            return
        candidates = self._candidates(act.spec)
        if len(candidates) == 1:
            act.target = ProposedTarget(handles=(candidates[0].handle,))
            return
        if not candidates:
            candidates = [r for r in self.brief.records if r.workflow == act.spec.workflow]
        act.candidates = tuple(candidates)
        asked = self.brief.asked_for
        task = locate_task(
            self.words,
            act.unit,
            act.spec.summary_in(self.brief.locale),
            candidates,
            reasoning=self.profile.reasoning,
            key=act.id,
            asked=(self.brief.asked, asked.record)
            if asked and asked.record and asked.operation == act.spec.key
            else None,
        )
        answer = await self._try("locate", lambda: self.runner.run(task, depth=3))
        if answer is None:
            act.dropped = True
            return
        act.target = read_target(answer, self.words, act.unit)
        self.step("locate", f"{act.id} → {len(act.target.handles) or act.target.find}")

    async def _locate_question(
        self, qid: str, unit: Unit, topic: str, targets: dict[str, ProposedTarget | None]
    ) -> None:
        records = list(self.brief.records)
        if len(records) <= 1:
            targets[qid] = ProposedTarget(handles=(records[0].handle,)) if records else None
            return
        task = locate_task(
            self.words, unit, topic, records, reasoning=self.profile.reasoning, key=qid
        )
        answer = await self._try("locate", lambda: self.runner.run(task, depth=3))
        targets[qid] = read_target(answer, self.words, unit) if answer is not None else None

    def _record_candidates(self, spec: OperationSpec) -> dict[str, list[BriefRecord]]:
        return {
            a.name: [r for r in self.brief.records if r.workflow == a.record_workflow]
            for a in spec.arguments
            if a.record_workflow
        }

    def _asked_argument(self, act: _Act) -> tuple[str | None, str] | None:
        asked = self.brief.asked_for
        if asked is None or not asked.argument or asked.operation != act.spec.key:
            return None
        return self.brief.asked, asked.argument

    async def _extract(self, act: _Act, units: list[Unit], finding: str | None, depth: int) -> bool:
        task = extract_task(
            self.words,
            act.unit,
            units,
            act.spec,
            self.brief.locale,
            self._record_candidates(act.spec),
            finding=finding,
            key=act.id,
            asked=self._asked_argument(act),
            glossary=act_glossary(self.brief, act.spec),
        )
        answer = await self._try("extract", lambda: self.runner.run(task, depth=depth))
        if answer is None:
            act.dropped = True
            return False
        act.args, act.evidence = read_values(answer, self.words)
        self.step("extract", f"{act.id}: {', '.join(act.args) or '-'}")
        return True

    async def _check_and_verify(self, act: _Act, units: list[Unit]) -> None:
        depth = 4
        early: list[Any] = []
        if (
            self.brief.check is not None
            and act.spec.arguments
            and (act.target.new or len(act.target.handles) == 1)
        ):
            refusal = await self.brief.check(self._semantic(act))
            self.checks[act.id] = refusal
            if refusal:
                self.step("check", f"{act.id}: refused")
                finding = f"The application refused this reading: {refusal}"
                # The first reading is verified while extraction reads again. When the new
                # reading is the first one again, that verdict answers exactly the task the
                # chain would ask next (same data, same schema), so it is used as is.
                first_task = self._verify_task(act)
                first = (dict(act.args), dict(act.evidence))
                read_again: list[bool] = []

                async def verify_first() -> None:
                    try:
                        early.append(await self._verdict(first_task, depth))
                    except TaskFailed as exc:
                        early.append(exc)

                async def extract_again() -> None:
                    read_again.append(await self._extract(act, units, finding, depth))

                async with concurrently() as group:
                    group.start_soon(verify_first)
                    group.start_soon(extract_again)
                if not read_again[0]:
                    return
                depth += 1
                if (act.args, act.evidence) != first:
                    early.clear()
        if early:
            answer = early[0]
            if isinstance(answer, TaskFailed):
                self.unreadable("verify", answer.error)
                answer = None
        else:
            task = self._verify_task(act)
            answer = await self._try("verify", lambda: self._verdict(task, depth))
        if answer is None:
            act.dropped = True
            return
        verdict = self._judged(act, answer)
        if verdict.ok:
            return
        if verdict.value_findings() and len(verdict.value_findings()) == len(verdict.findings):
            # Extraction reads again with the exact finding; the verifier decides the new
            # reading (it is the one check between a reading and a command).
            if not await self._extract(act, units, verdict.text(), depth + 2):
                return
            task = self._verify_task(act)
            answer = await self._try("verify", lambda: self._verdict(task, depth + 3))
            if answer is None:
                act.dropped = True
                return
            if self._judged(act, answer).ok:
                return
        act.dropped = True
        self.notices.append("unreadable")

    def _verify_task(self, act: _Act) -> Task:
        # The verifier reasons a little at every effort: the vendor's reasoning setting
        # where the profile has one, else a bounded reasoning field first in the schema.
        vendor_reasoning = self.runner.models.for_task("verify").profile.capabilities
        return verify_task(
            self.words,
            act.unit,
            act.spec,
            self.brief.locale,
            self._labels(act),
            {k: (v, act.evidence.get(k, v)) for k, v in act.args.items()},
            asked=self.brief.asked,
            hypothetical=act.unit.hypothetical,
            votes=self.profile.verify_votes,
            key=act.id,
            continues=next((u for u in self.units if u.id == act.unit.continues), None),
            labels={r.handle: r.label for r in self.brief.records},
            think_field=not vendor_reasoning.reasoning_effort,
            glossary=act_glossary(self.brief, act.spec),
        )

    async def _verdict(self, task: Task, depth: int) -> Any:
        """Return the verifier's answer; a fault is voted on again as the profile says."""
        answer = await self.runner.run(task, depth=depth)
        if answer["verdict"] == "fault" and self.profile.fault_revotes:
            more: list[Any] = []

            async def again(n: int) -> None:
                try:
                    # Each extra read is its own vote: sampled and rotated differently.
                    more.append(
                        await self.runner.run(replace(task, votes=1), depth=depth + 1, vote=n)
                    )
                except TaskFailed:
                    pass

            async with concurrently() as group:
                for n in range(1, self.profile.fault_revotes + 1):
                    group.start_soon(again, n)
            answer = await self.runner.decide(task, [answer, *more], depth + 1)
        return answer

    def _judged(self, act: _Act, answer: Any) -> Verdict:
        verdict = read_verdict(answer)
        self.step("verify", f"{act.id}: {'ok' if verdict.ok else verdict.text()}")
        self._ground(act, verdict)
        return verdict

    def _ground(self, act: _Act, verdict: Verdict) -> None:
        if verdict.grounding == "record":
            act.source = EvidenceSource.RECORD
        elif verdict.grounding == "attachment":
            act.source = EvidenceSource.ATTACHMENT

    def _labels(self, act: _Act) -> list[str]:
        if act.target.new:
            return ["(a new record)"]
        labels = [r.label for r in self.brief.records if r.handle in act.target.handles]
        return labels or [act.target.find or ""]

    def _label(self, act: _Act) -> str:
        if act.target.new:
            return "(a new record)"
        labels = [r.label for r in self.brief.records if r.handle in act.target.handles]
        return " / ".join(labels) or (act.target.find or "")

    def _semantic(self, act: _Act) -> SemanticAct:
        return SemanticAct(
            id=act.id,
            operation=act.spec.key,
            target=act.target,
            args=dict(act.args),
            evidence=dict(act.evidence),
        )
