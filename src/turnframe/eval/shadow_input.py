"""The reducer's input for a new reading of a recorded turn (docs/shadow.md "What is compared").

A shadow reading is reduced on the turn's RECORDED snapshots, never on today's store:
:func:`shadow_reduction` takes the recorded :class:`ReductionInput` and replaces its
understanding and acts with the new reading's, resolving each act's target against what
the record holds:

* an act with the recorded act's operation and target takes the recorded resolution
  (and the values the recorded turn carried into it from what the last reply asked);
* a target by handle is resolved through the turn's handle table, rebuilt from the
  recorded snapshots (a handle is a pure function of the turn id and the case,
  ``runtime.parts.handle``); several handles keep those the operation fits, as the
  resolve step does (docs/adr/0001-ambiguous-target.md);
* a new record gets the case id the recorded turn minted for its workflow, or a
  placeholder, with an absent snapshot.

Anything else would need a read of the store as it is today (a handle whose case the
recorded reduction did not read, words to look up, a card the recorded turn did not
load): the act is reported as *outside the recorded snapshots* and the turn is not
reduced, rather than silently reduced on another state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from turnframe.core.acts import SemanticAct, Understanding
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import CaseRef
from turnframe.core.targets import (
    Ambiguous,
    Exact,
    NotFound,
    TargetCandidate,
    TargetResolution,
)
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.check import act_refusal
from turnframe.runtime.parts import handle
from turnframe.runtime.plan import ActInput, CaseSnapshot, ReductionInput
from turnframe.runtime.records import HANDLE, fits, no_fit, record_args
from turnframe.runtime.snapshots import snapshot_of
from turnframe.understand.brief import Brief, DomainCheck

__all__ = ["OUTSIDE", "ShadowInput", "handle_table", "recorded_check", "shadow_reduction"]

OUTSIDE = "target outside the recorded snapshots"
"""The words every *outside* finding starts with (docs/shadow.md "Outside the record")."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ShadowInput:
    """The reducer's input for a shadow reading, or why there is none.

    Attributes:
        reduction: the input (``None`` when an act needs what the record does not hold).
        outside: one line per act that could not be resolved from the record:
            ``"<act id>: target outside the recorded snapshots (<why>)"``.
    """

    reduction: ReductionInput | None
    outside: tuple[str, ...] = ()


def handle_table(recorded: ReductionInput, brief: Brief) -> dict[str, CaseRef]:
    """Return handle → case for every brief handle whose case the recorded reduction read.

    A handle is ``runtime.parts.handle(turn_id, case)``; a handle of the brief whose
    case has no recorded snapshot is left out (its state at the time is not recorded).
    """
    shown = set(brief.handles)
    table: dict[str, CaseRef] = {}
    for case in recorded.snapshots:
        h = handle(recorded.turn_id, case)
        if h in shown:
            table[h] = case
    return table


def recorded_check(
    recorded: ReductionInput,
    table: Mapping[str, CaseRef],
    registry: WorkflowRegistry,
    checks: Mapping[str, str | None],
) -> DomainCheck:
    """Return the domain check the new reading may call, on the recorded snapshots.

    An act equal to the recorded understanding's act of its id gets the recorded answer
    (``reading.checks``); any other act gets the runtime's own check
    (``runtime.check.act_refusal``, as the domain-check step calls it) on the recorded
    snapshots and ``table``, so it is not checkable (``None``) when its case was not
    recorded, as the runtime says ``None`` for a case it cannot see
    (docs/architecture.md "One turn" step 5).
    """
    by_id = {a.id: a for a in recorded.understanding.acts}
    snapshots = recorded.snapshots

    async def check(act: SemanticAct) -> str | None:
        if by_id.get(act.id) == act and act.id in checks:
            return checks[act.id]
        return act_refusal(
            registry, act, table, snapshots, recorded.actor, recorded.today, recorded.locale
        )

    return check


class _Outside(Exception):
    """An act needs what the record does not hold (the message says what)."""


@dataclass(slots=True)
class _Resolver:
    recorded: ReductionInput
    brief: Brief
    table: dict[str, CaseRef]
    registry: WorkflowRegistry
    origin: CaseRef | None
    snapshots: dict[CaseRef, CaseSnapshot]
    minted: dict[str, list[CaseRef]]
    moved: dict[str, tuple[int, int]]

    def act_input(self, act: SemanticAct) -> ActInput:
        if act.operation is None:
            return ActInput(act=act, resolution=None)
        same = self._recorded_same(act)
        if same is not None:
            return self._reused(act, same)
        resolution = self._resolve(act)
        records, bad = self._record_args(act)
        return ActInput(act=act, resolution=resolution, record_args=records, bad_args=bad)

    def _recorded_same(self, act: SemanticAct) -> tuple[SemanticAct, ActInput] | None:
        """Return the recorded (understood act, act input) of the same operation and target."""
        understood = {a.id: a for a in self.recorded.understanding.acts}
        found = [
            (understood.get(r.act.id, r.act), r)
            for r in self.recorded.acts
            if r.act.operation == act.operation and r.act.target == act.target
        ]
        found.sort(key=lambda pair: pair[1].act.id != act.id)
        return found[0] if found else None

    def _reused(self, act: SemanticAct, same: tuple[SemanticAct, ActInput]) -> ActInput:
        understood, given = same
        # What the recorded turn carried into its act from what the last reply asked
        # (the answered act's values; its own words win) is carried into this one too.
        carried = {k: v for k, v in given.act.args.items() if k not in understood.args}
        evidence = {k: v for k, v in given.act.evidence.items() if k not in understood.evidence}
        own = set(act.args)
        merged = replace(
            act,
            args={**{k: v for k, v in carried.items() if k not in own}, **act.args},
            evidence={**{k: v for k, v in evidence.items() if k not in own}, **act.evidence},
        )
        spec = self.registry.operation(act.operation or "")
        names = {a.name for a in spec.arguments if a.record_workflow} if spec else set()
        if all(merged.args.get(n) == given.act.args.get(n) for n in names):
            return replace(given, act=merged)
        records, bad = self._record_args(merged)
        return ActInput(act=merged, resolution=given.resolution, record_args=records, bad_args=bad)

    def _resolve(self, act: SemanticAct) -> TargetResolution:
        spec = self.registry.operation(act.operation or "")
        target = act.target
        if target.new:
            if spec is None or not spec.creates_case:
                return NotFound(reason="not_creatable")
            case = self._mint(spec.workflow)
            self.snapshots[case] = snapshot_of(
                self.registry, case, None, self.recorded.today, self.recorded.locale
            )
            return Exact(case=case, new=True)
        if target.handles:
            cases = []
            for h in dict.fromkeys(target.handles):
                if h not in self.brief.handles:
                    return NotFound(reason="unknown_handle")
                if h in self.moved:
                    then, now = self.moved[h]
                    raise _Outside(
                        f"the case of handle {h} moved on since the turn "
                        f"(revision {then} then, {now} now)"
                    )
                if h not in self.table:
                    raise _Outside(f"the case of handle {h} was not read by the recorded turn")
                cases.append(self.table[h])
        elif target.find:
            raise _Outside(f"words to look up ({target.find!r}) the recorded turn did not")
        elif self.origin is not None:
            if self.origin not in self.snapshots:
                raise _Outside("the turn's origin record was not read by the recorded turn")
            cases = [self.origin]
        else:
            return NotFound(reason="no_target")
        if len(cases) > 1 and spec is not None:
            fitting = [
                c
                for c in cases
                if fits(self.registry, self.recorded.actor, self.snapshots[c], spec.key, None)
            ]
            if not fitting:
                sentence = no_fit(self.registry, spec.key, None, spec.workflow, self.brief.locale)
                return NotFound(reason="no_fit", sentence=sentence)
            cases = fitting
        if len(cases) == 1:
            return Exact(case=cases[0])
        return Ambiguous(
            candidates=tuple(TargetCandidate(case=c, label=self.snapshots[c].label) for c in cases)
        )

    def _record_args(self, act: SemanticAct) -> tuple[dict[str, CaseRef], dict[str, str]]:
        records, bad = record_args(act.args, self.registry, act.operation, self.table)
        for name in bad:
            words = str(act.args[name]).strip()
            if not HANDLE.match(words):
                raise _Outside(f"argument {name} names a record by words the turn did not look up")
            if words in self.brief.handles:
                raise _Outside(f"argument {name}'s record was not read by the recorded turn")
        return records, bad

    def _mint(self, workflow: str) -> CaseRef:
        """Return the case the recorded turn minted for ``workflow`` next, or a placeholder."""
        queue = self.minted.setdefault(workflow, [])
        if queue:
            return queue.pop(0)
        n = sum(
            1 for c in self.snapshots if c.workflow == workflow and c.case_id.startswith("shadow-")
        )
        return CaseRef(workflow, f"shadow-{n + 1}")


def _minted(recorded: ReductionInput) -> dict[str, list[CaseRef]]:
    out: dict[str, list[CaseRef]] = {}
    for given in recorded.acts:
        res = given.resolution
        if isinstance(res, Exact) and res.new and res.case not in out.get(res.case.workflow, []):
            out.setdefault(res.case.workflow, []).append(res.case)
    return out


def _linked_outside(recorded: ReductionInput, understanding: Understanding) -> list[str]:
    """Return a line per link naming a card the recorded turn neither showed nor loaded."""
    own = {a.id for a in understanding.acts}
    known = {c.id for c in (*recorded.cards_on_screen, *recorded.linked_cards)}
    out = []
    for link in understanding.links:
        for end in (link.corrects, link.cancels):
            if end and end not in own and ":" in end and end.partition(":")[0] not in known:
                out.append(f"{link.act}: {OUTSIDE} (a link to card {end.partition(':')[0]})")
    return out


def shadow_reduction(
    recorded: ReductionInput,
    understanding: Understanding,
    brief: Brief,
    registry: WorkflowRegistry,
    *,
    origin: CaseRef | None = None,
    moved: Mapping[CaseRef, tuple[int, int]] | None = None,
) -> ShadowInput:
    """Return the reducer's input for ``understanding`` read from ``brief`` on the record.

    Args:
        recorded: the recorded reduction input (``runtime.replay.reduction_input``).
        understanding: the new reading's proposal.
        brief: the brief the recorded understanding read (``runtime.replay.recorded_brief``).
        registry: the application's workflows.
        origin: the turn's ``origin_ref`` (its stored input), for an act with no target.
        moved: case → (revision the turn saw, revision today) for the cases the turn
            saw whose state has changed since (an act naming one is outside, saying so).

    Returns:
        The input with the new understanding and acts, the recorded snapshots (plus an
        absent one per new record), click, cards, standing constraint and waiting acts;
        or no input and one line per act whose target is outside the record.
    """
    table = handle_table(recorded, brief)
    resolver = _Resolver(
        recorded=recorded,
        brief=brief,
        table=table,
        registry=registry,
        origin=origin,
        snapshots=dict(recorded.snapshots),
        minted=_minted(recorded),
        moved={handle(recorded.turn_id, c): revs for c, revs in (moved or {}).items()},
    )
    acts: list[ActInput] = []
    outside = _linked_outside(recorded, understanding)
    for act in understanding.acts:
        try:
            acts.append(resolver.act_input(act))
        except _Outside as exc:
            outside.append(f"{act.id}: {OUTSIDE} ({exc})")
    if outside:
        return ShadowInput(reduction=None, outside=tuple(outside))
    return ShadowInput(
        reduction=replace(
            recorded,
            understanding=understanding,
            acts=tuple(acts),
            snapshots=resolver.snapshots,
        )
    )
