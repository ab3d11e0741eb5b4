"""The understanding chain: segment → coverage ∥ route → locate ∥ extract → check → verify.

The only module that chains the task modules (import-linter contract
``understand-steps-independent``). Independent calls run concurrently; at low and medium
effort one merged call answers several steps (:mod:`turnframe.understand.merged`) and
each of its parts is checked with its step's own task; every answer is checked by code
before the next task sees it; a unit that cannot be read becomes a notice; the turn's
budget ends understanding with a typed error and a notice, never a half-read plan
(docs/architecture.md "Understanding"; the contract per effort: docs/architecture.md "Effort").
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import anyio
from anyio.abc import TaskGroup

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
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import JSONObject, JSONValue
from turnframe.core.operations import OperationSpec
from turnframe.core.turn import Effort
from turnframe.providers.base import Provider
from turnframe.providers.errors import ProviderCancelled, ProviderError, error_kind
from turnframe.tasks.budget import TurnBudget
from turnframe.tasks.errors import BudgetExceeded, TaskFailed
from turnframe.tasks.run import TaskModels, TaskRunner, answer_problem, concurrently
from turnframe.tasks.sampling import Sampling
from turnframe.tasks.task import Task
from turnframe.understand.base import UnderstandingResult
from turnframe.understand.brief import Brief, BriefRecord, brief_to_json
from turnframe.understand.contract import contract_violations, on_contract
from turnframe.understand.coverage import coverage_task, gaps, read_missed
from turnframe.understand.cross_check import CrossFinding, cross_check_task, read_findings
from turnframe.understand.effort import EffortProfile, Merge, effort_profile
from turnframe.understand.extract import extract_task, read_values
from turnframe.understand.glossary import act_glossary, glossary_data, merged_glossary
from turnframe.understand.locate import locate_task, read_target
from turnframe.understand.merged import ActOffer, merged_task, split_answer
from turnframe.understand.route import Route, read_routes, route_task
from turnframe.understand.segment import read_units, segment_task
from turnframe.understand.units import Unit
from turnframe.understand.verify import Verdict, read_verdict, verify_task
from turnframe.understand.words import Words

__all__ = ["UNREADABLE", "EffortProfile", "Merge", "ModelUnderstanding", "effort_profile"]

UNREADABLE = "unreadable"
"""The detail of a step no reading passed (its exact error is in the trace, never shown)."""


class ModelUnderstanding:
    """Reads a turn with the chain of small verified tasks (implements ``Understander``).

    Args:
        models: the provider (or providers per task, with a stronger one to escalate to).
        effort: the default effort; a turn's ``Brief.effort`` overrides it.
        budget: the per-turn budget.
        sampling: temperatures per task and how votes differ (default: temperature 0,
            later votes seeded at 0.7 and rotated; docs/adr/0018).
        merge: which steps one call answers together at every effort, overriding the
            effort's (``Merge.NONE``: always step by step, for a model too small to
            answer a merged read, or a script of the steps); default: the effort's
            (docs/architecture.md "Effort").
    """

    def __init__(
        self,
        models: TaskModels | Provider,
        *,
        effort: Effort | str = Effort.MEDIUM,
        budget: TurnBudget | None = None,
        sampling: Sampling | None = None,
        merge: Merge | None = None,
    ) -> None:
        self.models = models if isinstance(models, TaskModels) else TaskModels(models)
        self.effort = Effort(effort)
        self.budget = budget or TurnBudget()
        self.sampling = sampling or Sampling()
        self.merge = Merge(merge) if merge is not None else None

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
        profile = effort_profile(effort)
        if self.merge is not None and not profile.cross_check:
            profile = replace(profile, merge=self.merge)
        reading = _Reading(brief, runner, profile)
        error: str | None = None
        dropped: list[JSONValue] = []
        try:
            proposed = await reading.run()
            # What the contract drops is recorded (the trace's ``dropped``), never only
            # said as an ``unreadable`` notice (docs/invariants.md I11).
            dropped = [
                {"item": v.item, "problem": v.problem}
                for v in contract_violations(proposed, brief.operation)
            ]
            understanding = on_contract(proposed, brief.operation)
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
            "merge": profile.merge.value,
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
            "dropped": dropped,
            "votes": [v.to_json() for v in runner.vote_rounds],
        }
        return UnderstandingResult(
            understanding=understanding,
            model_calls=len(runner.records),
            calls=tuple(r.to_json() for r in runner.records),
            trace=trace,
        )


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class _PreRead:
    """An act's target and values as a merged read gave them, each checked by its step's task."""

    target: ProposedTarget | None
    values: tuple[dict[str, str], dict[str, str]] | None


_PreReads = dict[tuple[str, str], _PreRead]
"""(unit id, operation) → what the merged read gave for that act."""


class _PartProblem(Exception):
    """A part of a merged answer failed its step's check (the exact error, for the repair)."""


@dataclass(slots=True)
class _Act:
    id: str
    unit: Unit
    spec: OperationSpec
    pre: _PreRead | None = None
    target: ProposedTarget = field(default_factory=ProposedTarget)
    args: dict[str, str] = field(default_factory=dict)
    evidence: dict[str, str] = field(default_factory=dict)
    source: EvidenceSource = EvidenceSource.USER
    dropped: bool = False
    candidates: tuple[BriefRecord, ...] = ()


@dataclass(slots=True)
class _Items:
    """What a reading found, numbered in the order it was routed."""

    acts: list[_Act] = field(default_factory=list)
    by_unit: dict[str, list[_Act]] = field(default_factory=dict)
    questions: list[tuple[str, Unit, str]] = field(default_factory=list)
    targets: dict[str, ProposedTarget | None] = field(default_factory=dict)
    constraints: list[Constraint] = field(default_factory=list)
    card_answers: list[CardAnswer] = field(default_factory=list)
    cancels: list[tuple[str, str]] = field(default_factory=list)
    cancellation_ids: list[str] = field(default_factory=list)
    corrections: list[tuple[str, str]] = field(default_factory=list)
    starts: dict[str, int] = field(default_factory=dict)

    def next_act(self, unit: Unit) -> str:
        act_id = f"a{len(self.starts) + 1}"
        self.starts[act_id] = unit.start
        return act_id


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
        if self.profile.merge is not Merge.NONE:
            merged = await self._read_merged()
            if merged is not None:
                return await self._after_merged(*merged)
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

    # ------------------------------------------------------------- merged read
    async def _read_merged(self) -> tuple[list[Unit], dict[str, Route], _PreReads] | None:
        """Read several steps in one call; every part is checked with its step's own task.

        Segmentation and routing, and at ``Merge.ALL`` each act's target and values.

        Returns ``None`` when no reading passed (after the repair round and any
        escalation): the message is then read step by step, so a model that cannot
        answer the merged question still gets the chain (docs/architecture.md "Effort").
        """
        offers = self._offers() if self.profile.merge is Merge.ALL else None
        # What each answer that passed read as (by identity: the runner returns one of them).
        passed: dict[int, tuple[Any, tuple[list[Unit], dict[str, Route], _PreReads]]] = {}

        def check(answer: Any) -> str | None:
            try:
                passed[id(answer)] = (answer, self._merged_parts(answer, offers))
            except _PartProblem as exc:
                return str(exc)
            return None

        task = merged_task(
            self.brief,
            self.words,
            offers=offers,
            check=check,
            votes=self.profile.split_votes,
            reasoning=self.profile.reasoning,
            glossary=glossary_data(merged_glossary(self.brief)),
        )
        try:
            answer = await self.runner.run(task, depth=1)
        except TaskFailed as exc:
            self.errors.append((task.name, exc.error))
            self.step(task.name, "read step by step")
            return None
        # The runner returns only an answer that passed ``check``: read as it was checked.
        kept = passed.get(id(answer))
        if kept is not None and kept[0] is answer:
            units, routes, pre = kept[1]
            return list(units), dict(routes), dict(pre)
        return self._merged_parts(answer, offers)

    def _offers(self) -> dict[str, ActOffer]:
        offers: dict[str, ActOffer] = {}
        for key in self.brief.offered_operations():
            spec = self.brief.operation(key)
            if spec is not None:
                offers[key] = ActOffer(
                    spec=spec,
                    candidates=self._target_candidates(spec),
                    record_candidates=self._record_candidates(spec),
                )
        return offers

    def _merged_parts(
        self, answer: Any, offers: dict[str, ActOffer] | None
    ) -> tuple[list[Unit], dict[str, Route], _PreReads]:
        """Check each part of a schema-valid merged answer with its step's task; read it.

        Raises:
            _PartProblem: the exact error of the first part that fails, named by step.
        """
        bounds = self.runner.bounds
        parts = split_answer(answer)
        problem = answer_problem(segment_task(self.brief, self.words), parts.segment, bounds)
        if problem:
            raise _PartProblem(f"the units (checked as the segment step): {problem}")
        units = list(read_units(parts.segment))
        routed = [u for u in units if u.kind != "other"]
        routes: dict[str, Route] = {}
        if routed:
            task = route_task(self.brief, self.words, routed, units)
            problem = answer_problem(task, parts.route, bounds)
            if problem:
                raise _PartProblem(f"the routing (checked as the route step): {problem}")
            routes = read_routes(parts.route)
        pre: _PreReads = {}
        by_id = {u.id: u for u in units}
        for merged in parts.acts:
            unit = by_id[merged.unit]
            offer = (offers or {})[merged.operation]
            where = f"unit {unit.id}, operation {merged.operation}"
            target: ProposedTarget | None = None
            if offer.candidates is not None:
                task = self._locate_task(offer.spec, unit, offer.candidates, "")
                problem = answer_problem(task, merged.target, bounds)
                if problem:
                    raise _PartProblem(
                        f"{where}: the target (checked as the locate step): {problem}"
                    )
                target = read_target(merged.target, self.words, unit)
            values: tuple[dict[str, str], dict[str, str]] | None = None
            if offer.spec.arguments and not unit.hypothetical:
                task = self._extract_task(offer.spec, unit, units, None, "")
                problem = answer_problem(task, merged.values, bounds)
                if problem:
                    raise _PartProblem(
                        f"{where}: the values (checked as the extract step): {problem}"
                    )
                values = read_values(merged.values, self.words)
            pre[(unit.id, merged.operation)] = _PreRead(target=target, values=values)
        return units, routes, pre

    async def _after_merged(
        self, units: list[Unit], routes: dict[str, Route], pre: _PreReads
    ) -> Understanding:
        self.units = units
        self.step("segment", ", ".join(f"{u.id}:{u.kind}" for u in units), len(units))
        if self._gives_none_of_what_was_asked(routes):
            await self._route_again(units, routes, 2)
        self._route_steps(routes)
        # Coverage runs beside the reading of the acts; what it finds is routed and read
        # in the same group, so it adds no latency when it finds nothing.
        return await self._read_items(units, routes, pre, gaps(self.words, units))

    # --------------------------------------------------------------- step by step
    async def _route(
        self,
        which: list[Unit],
        units: list[Unit],
        routes: dict[str, Route],
        depth: int,
        note: str | None = None,
    ) -> None:
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

    async def _cover(self, units: list[Unit], runs: list[tuple[int, int]]) -> list[Unit]:
        task = coverage_task(
            self.words,
            units,
            runs,
            reasoning=self.profile.reasoning,
            cards=bool(self.brief.cards),
        )
        answer = await self._try("coverage", lambda: self.runner.run(task, depth=2))
        return list(read_missed(answer, units)) if answer is not None else []

    async def _cover_and_route(self, units: list[Unit]) -> dict[str, Route]:
        runs = gaps(self.words, units)
        missed: list[Unit] = []
        routes: dict[str, Route] = {}

        async def cover() -> None:
            missed.extend(await self._cover(units, runs))

        async with concurrently() as group:
            if runs:
                group.start_soon(cover)
            group.start_soon(self._route, [u for u in units if u.kind != "other"], units, routes, 2)
        if missed:
            units.extend(missed)
            units.sort(key=lambda u: u.start)
            self.step("coverage", ", ".join(f"{u.id}:{u.kind}" for u in missed))
            await self._route([u for u in missed if u.kind != "other"], units, routes, 3)
        if self._gives_none_of_what_was_asked(routes):
            await self._route_again(units, routes, 4)
        self._route_steps(routes)
        return routes

    async def _route_again(self, units: list[Unit], routes: dict[str, Route], depth: int) -> None:
        # The message is read as the answer to what the last reply asked; a reading
        # that gives none of it is routed once more, told so (docs/architecture.md "Understanding").
        self.step("route", "gives none of what was asked; routed once more")
        note = (
            f"The last reply asked: {self.brief.asked!r}. The first routing of these "
            "units gives none of what it asked for. Route them once more: a unit may "
            "answer that question, or take up something else the reply offered."
        )
        await self._route([u for u in units if u.kind != "other"], units, routes, depth, note)

    def _route_steps(self, routes: dict[str, Route]) -> None:
        for unit_id, r in routes.items():
            self.step(
                "route",
                f"{unit_id} → {', '.join(r.operations) or r.topic or r.constraint or r.card or '-'}",
            )

    def _gives_none_of_what_was_asked(self, routes: dict[str, Route]) -> bool:
        asked = self.brief.asked_for
        if asked is None or not asked.operation or not routes:
            return False
        return not any(asked.operation in r.operations or r.card for r in routes.values())

    # ------------------------------------------------------------------- items
    async def _read_items(
        self,
        units: list[Unit],
        routes: dict[str, Route],
        pre: _PreReads | None = None,
        runs: list[tuple[int, int]] | None = None,
    ) -> Understanding:
        """Read every routed item; with ``runs``, cover them beside the reading."""
        items = _Items()
        self._collect(items, units, routes, pre or {})

        # Each act runs its own chain (locate ∥ extract → check → verify) as soon as it is
        # routed; no act waits for another's calls (the critical path is one act's chain).
        reading = [a for a in items.acts if not a.unit.hypothetical]
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
            self._start(group, items, items.acts, items.questions, units, read)
            if runs:
                group.start_soon(self._cover_late, group, items, units, runs)
            if self.profile.cross_check and reading:
                group.start_soon(self._cross_check, reading, all_read, findings)
        if findings:
            await self._send_back(items.acts, findings, units)
        return self._assemble(items)

    def _start(
        self,
        group: TaskGroup,
        items: _Items,
        acts: list[_Act],
        questions: list[tuple[str, Unit, str]],
        units: list[Unit],
        read: Callable[[str], None] | None = None,
    ) -> None:
        for act in acts:
            group.start_soon(self._read_act, act, units, read)
        for qid, unit, topic in questions:
            group.start_soon(self._locate_question, qid, unit, topic, items.targets)

    async def _cover_late(
        self, group: TaskGroup, items: _Items, units: list[Unit], runs: list[tuple[int, int]]
    ) -> None:
        """Coverage beside a merged read's acts: what it finds is routed and read at once."""
        missed = await self._cover(units, runs)
        if not missed:
            return
        units.extend(missed)
        units.sort(key=lambda u: u.start)
        self.step("coverage", ", ".join(f"{u.id}:{u.kind}" for u in missed))
        routes: dict[str, Route] = {}
        await self._route([u for u in missed if u.kind != "other"], units, routes, 3)
        self._route_steps(routes)
        acts, questions = len(items.acts), len(items.questions)
        self._collect(items, missed, routes, {})
        self._start(group, items, items.acts[acts:], items.questions[questions:], units)

    def _collect(
        self, items: _Items, units: list[Unit], routes: dict[str, Route], pre: _PreReads
    ) -> None:
        """Add the routed items of ``units`` to ``items``, numbered on from those it holds."""
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
                    act = _Act(
                        id=items.next_act(unit), unit=unit, spec=spec, pre=pre.get((unit.id, key))
                    )
                    items.acts.append(act)
                    items.by_unit.setdefault(unit.id, []).append(act)
                if r.corrects:
                    items.corrections.append((unit.id, r.corrects))
            elif unit.kind == "question" and r.topic:
                items.questions.append((f"q{len(items.questions) + 1}", unit, r.topic))
            elif unit.kind == "question":
                # No topic on offer answers it: the user is told so, never silence (I11).
                self.notices.append("unanswerable")
            elif unit.kind == "constraint" and r.constraint:
                items.constraints.append(
                    Constraint(
                        id=f"c{len(items.constraints) + 1}",
                        kind=ConstraintKind(r.constraint[0]),
                        scope=ConstraintScope(r.constraint[1]),
                    )
                )
            elif unit.kind == "card_answer" and r.card:
                items.card_answers.append(
                    CardAnswer(
                        id=f"k{len(items.card_answers) + 1}",
                        interaction=r.card[0],
                        option=r.card[1],
                    )
                )
            elif unit.kind == "cancellation" and r.cancels:
                act_id = items.next_act(unit)
                items.cancellation_ids.append(act_id)
                items.cancels.append((act_id, r.cancels))

    def _assemble(self, items: _Items) -> Understanding:
        links: list[Link] = []
        by_unit = items.by_unit
        refs = set(self.brief.pending_refs())
        for unit_id, corrected in items.corrections:
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
        for act_id, unit_id in items.cancels:
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
            for a in items.acts
            if not a.dropped
        ]
        semantic.extend(SemanticAct(id=i, operation=None) for i in items.cancellation_ids)
        # In message order: a unit coverage found late is numbered after the others.
        semantic.sort(key=lambda a: (items.starts[a.id], int(a.id[1:])))
        targets = items.targets
        return Understanding(
            acts=tuple(semantic),
            questions=tuple(
                Question(
                    id=qid,
                    topic=topic,
                    target=targets.get(qid),
                    basis="hypothetical" if unit.hypothetical else "current_state",
                )
                for qid, unit, topic in items.questions
            ),
            constraints=tuple(items.constraints),
            card_answers=tuple(items.card_answers),
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
                group.start_soon(self._first_extract, act, units)
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

    def _target_candidates(self, spec: OperationSpec) -> tuple[BriefRecord, ...] | None:
        """Return the records the locate step chooses among, or ``None``.

        ``None``: code knows the target (a new record, or the one record the operation is
        offered on), so no model is asked.
        """
        if spec.creates_case:
            return None
        candidates = self._candidates(spec)
        if len(candidates) == 1:
            return None
        if not candidates:
            candidates = [r for r in self.brief.records if r.workflow == spec.workflow]
        return tuple(candidates)

    def _known_target(self, spec: OperationSpec) -> ProposedTarget:
        if spec.creates_case:
            return ProposedTarget(new=True)
        return ProposedTarget(handles=(self._candidates(spec)[0].handle,))

    def _locate_task(
        self, spec: OperationSpec, unit: Unit, candidates: Sequence[BriefRecord], key: str
    ) -> Task:
        asked = self.brief.asked_for
        return locate_task(
            self.words,
            unit,
            spec.summary_in(self.brief.locale),
            candidates,
            reasoning=self.profile.reasoning,
            key=key,
            asked=(self.brief.asked, asked.record)
            if asked and asked.record and asked.operation == spec.key
            else None,
        )

    async def _locate_act(self, act: _Act) -> None:
        candidates = self._target_candidates(act.spec)
        if candidates is None:
            act.target = self._known_target(act.spec)
            return
        act.candidates = candidates
        if act.pre is not None and act.pre.target is not None:
            # The merged read's target, already checked as this very locate task.
            act.target = act.pre.target
        else:
            task = self._locate_task(act.spec, act.unit, candidates, act.id)
            depth = 3 - min(self.profile.saved_stages, 1)
            answer = await self._try("locate", lambda: self.runner.run(task, depth=depth))
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

    def _asked_argument(self, spec: OperationSpec) -> tuple[str | None, str] | None:
        asked = self.brief.asked_for
        if asked is None or not asked.argument or asked.operation != spec.key:
            return None
        return self.brief.asked, asked.argument

    def _extract_task(
        self, spec: OperationSpec, unit: Unit, units: list[Unit], finding: str | None, key: str
    ) -> Task:
        return extract_task(
            self.words,
            unit,
            units,
            spec,
            self.brief.locale,
            self._record_candidates(spec),
            finding=finding,
            key=key,
            asked=self._asked_argument(spec),
            glossary=act_glossary(self.brief, spec),
        )

    async def _first_extract(self, act: _Act, units: list[Unit]) -> None:
        if act.pre is not None and act.pre.values is not None:
            # The merged read's values, already checked as this very extract task.
            act.args, act.evidence = dict(act.pre.values[0]), dict(act.pre.values[1])
            self.step("extract", f"{act.id}: {', '.join(act.args) or '-'}")
            return
        await self._extract(act, units, None, 3 - min(self.profile.saved_stages, 1))

    async def _extract(self, act: _Act, units: list[Unit], finding: str | None, depth: int) -> bool:
        task = self._extract_task(act.spec, act.unit, units, finding, act.id)
        answer = await self._try("extract", lambda: self.runner.run(task, depth=depth))
        if answer is None:
            act.dropped = True
            return False
        act.args, act.evidence = read_values(answer, self.words)
        self.step("extract", f"{act.id}: {', '.join(act.args) or '-'}")
        return True

    async def _check_and_verify(self, act: _Act, units: list[Unit]) -> None:
        depth = 4 - self.profile.saved_stages
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
