"""The state explorer: every reachable state of a workflow, checked (docs/explorer.md).

:func:`explore` walks each workflow of an :class:`~turnframe.runtime.app.Application`
breadth first from the absent state (and from seeded records, for a workflow whose
records are created outside conversation), through the workflow's own pure code
(:mod:`turnframe.testing.explore.space`), and checks every state and move
(:mod:`turnframe.testing.explore.checks`). Each broken property is reported once, as a
typed :class:`~turnframe.testing.explore.findings.Finding` with the shortest path to it.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import TurnframeError, UsageError
from turnframe.core.ids import JSONObject
from turnframe.core.view import WorkflowView
from turnframe.core.workflow import ErasedWorkflow
from turnframe.runtime.app import Application
from turnframe.testing.explore.checks import (
    Problem,
    check_moves,
    check_state,
    same_obligation_same_id,
)
from turnframe.testing.explore.findings import DomainRaised, Finding, Path, Step
from turnframe.testing.explore.search import DEFAULT_DEPTH, DEFAULT_STATES, Limits, breadth_first
from turnframe.testing.explore.seeds import Seed, seeds_of
from turnframe.testing.explore.space import WorkflowSpace, state_key

__all__ = [
    "EXPLORE_TODAY",
    "ExploreReport",
    "WorkflowReport",
    "explore",
    "explore_workflow",
    "replay_path",
]

EXPLORE_TODAY = date(2026, 1, 15)
"""The explorer's default today: fixed, so one suite explores the same states every day."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class WorkflowReport:
    """What exploring one workflow found (docs/explorer.md "Output").

    Attributes:
        workflow: the workflow's name.
        states: distinct states kept (the absent state and seeds included).
        transitions: the moves that change a kept state (commands, external updates,
            system triggers), whether to a new state, a known one or one past a limit.
        depth_reached: the most moves from a root to a kept state.
        cut: whether ``depth`` or ``states`` stopped the walk before it ran out.
        seeds: seeded records explored from, besides the absent state.
        phases: the phases reached, in the order first reached.
        findings: the broken properties, each with its shortest path, in that order.
        notes: what a reader should know that is no finding (e.g. no operation
            creates the record and no seed was given).
    """

    workflow: str
    states: int
    transitions: int
    depth_reached: int
    cut: bool
    seeds: int
    phases: tuple[str, ...]
    findings: tuple[Finding, ...]
    notes: tuple[str, ...] = ()

    def to_json(self) -> JSONObject:
        """Return the report as JSON (findings with their paths)."""
        return {
            "workflow": self.workflow,
            "states": self.states,
            "transitions": self.transitions,
            "depth_reached": self.depth_reached,
            "cut": self.cut,
            "seeds": self.seeds,
            "phases": list(self.phases),
            "findings": [f.to_json() for f in self.findings],
            "notes": list(self.notes),
        }


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ExploreReport:
    """What exploring an application found: one :class:`WorkflowReport` per workflow.

    Attributes:
        application: the application's name.
        limits: the limits every workflow was explored under.
        today: the explorer's today.
        workflows: the reports, in registration order.
    """

    application: str
    limits: Limits
    today: date
    workflows: tuple[WorkflowReport, ...] = field(default_factory=tuple)

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every finding of every workflow."""
        return tuple(f for w in self.workflows for f in w.findings)

    @property
    def ok(self) -> bool:
        """Whether no workflow has a finding."""
        return not self.findings

    def describe_findings(self) -> str:
        """Return the findings as text, one per paragraph, each with its shortest path."""
        return "\n".join(str(f) for f in self.findings)

    def to_json(self) -> JSONObject:
        """Return the report as one JSON object (``ok``, limits, today, workflows)."""
        return {
            "application": self.application,
            "ok": self.ok,
            "limits": {"depth": self.limits.depth, "states": self.limits.states},
            "today": self.today.isoformat(),
            "workflows": [w.to_json() for w in self.workflows],
        }


def explore_workflow(
    workflow: ErasedWorkflow,
    *,
    limits: Limits | None = None,
    today: date = EXPLORE_TODAY,
    locale: str = "en",
    seeds: Sequence[Seed] = (),
) -> WorkflowReport:
    """Explore one registered workflow breadth first and check every state and move.

    Args:
        workflow: the workflow (``registry.workflow(name)``).
        limits: depth and state limits (default :class:`Limits`).
        today: the today compilation and validation read.
        locale: the locale refusals and part labels are asked in.
        seeds: records to explore from besides the absent state (``(key, JSON state)``
            of this workflow).

    Returns:
        The :class:`WorkflowReport`.

    Raises:
        UsageError: when a seed's state does not load with the workflow's ``load_state``.
    """
    limits = limits or Limits()
    space = WorkflowSpace(workflow, today=today, locale=locale)
    roots: list[tuple[str, Path]] = [("", ())]
    datas: dict[str, JSONObject | None] = {"": None}
    for seed in seeds:
        data = _seed_data(space, seed)
        key = state_key(data)
        datas.setdefault(key, data)
        roots.append((key, (Step(kind="seed", name=seed.key),)))
    views: dict[str, WorkflowView] = {}
    raised: dict[str, str] = {}
    kept: dict[tuple[type[Finding], str], Finding] = {}
    phases: dict[str, None] = {}
    ids: dict[tuple[str, str], str] = {}

    def note(problem: Problem, path: Path) -> None:
        cls, detail, key = problem
        found = kept.get((cls, key))
        if found is None or len(path) < len(found.path):
            kept[(cls, key)] = cls(workflow=workflow.name, path=path, detail=detail, key=key)

    def view_of(key: str) -> WorkflowView | None:
        if key not in views:
            try:
                views[key] = space.view(datas[key])
            except TurnframeError as exc:
                original = exc.__cause__ or exc
                raised[key] = f"{type(original).__name__}: {' '.join(str(original).split())}"
                return None
        return views[key]

    def successors(key: str, path: Path) -> list[tuple[Step, str]]:
        data = datas[key]
        view = view_of(key)
        if view is None:
            detail = f"projecting a reached state raised {raised.get(key, '')}".rstrip()
            note((DomainRaised, detail, "project"), path)
            return []
        phases.setdefault(view.phase, None)
        for problem in check_state(space, data, view):
            note(problem, path)
        for problem in same_obligation_same_id(view, ids):
            note(problem, path)
        moves = space.moves(data)
        for move in moves:
            if move.target is not None:
                datas.setdefault(move.key, move.target)
        # A target whose projection raises is still reached; it is reported when expanded.
        checked = [m for m in moves if m.target is None or view_of(m.key) is not None]
        for at, problem in check_moves(space, data, view, checked, views):
            note(problem, path if at is None else (*path, at.step))
        return [(m.step, m.key) for m in moves if m.target is not None]

    search = breadth_first(roots, successors, limits)
    notes: list[str] = []
    if not any(op.creates_case for op in workflow.operations()) and not seeds:
        notes.append(
            "no operation creates this record and no seed was given: only the absent state "
            "was explored (give records, e.g. --records FILE)"
        )
    findings = sorted(kept.values(), key=lambda f: (len(f.path), f.kind, f.key))
    return WorkflowReport(
        workflow=workflow.name,
        states=len(search.paths),
        transitions=search.transitions,
        depth_reached=search.depth_reached,
        cut=search.cut,
        seeds=len(seeds),
        phases=tuple(phases),
        findings=tuple(findings),
        notes=tuple(notes),
    )


def replay_path(
    workflow: ErasedWorkflow,
    path: Path,
    *,
    today: date = EXPLORE_TODAY,
    locale: str = "en",
    seeds: Sequence[Seed] = (),
) -> JSONObject | None:
    """Follow ``path`` through the workflow's own code again; return the state it ends in.

    Reproduces a finding (docs/explorer.md "Paths"): each step is matched against the
    moves of the state reached so far, so the state returned is the one the explorer
    saw. A path whose last step is a finding on the move itself (it removes the record,
    or raises) ends in the state before that step.

    Args:
        workflow: the workflow the path was found in.
        path: a finding's path (it may start with ``seed KEY``).
        today: the explorer's today the path was found at.
        locale: the locale it was explored in.
        seeds: the seeds it was explored from (a ``seed`` step names one by key).

    Returns:
        The JSON state at the end of the path (``None``: absent).

    Raises:
        UsageError: a step that is not a move of the state reached (the workflow
            changed), or a seed step naming no given seed.
    """
    space = WorkflowSpace(workflow, today=today, locale=locale)
    data: JSONObject | None = None
    steps = list(path)
    if steps and steps[0].kind == "seed":
        first = steps.pop(0)
        seed = next((s for s in seeds if s.key == first.name), None)
        if seed is None:
            raise UsageError(f"replay: the path starts from seed {first.name!r}, not given")
        data = _seed_data(space, seed)
    for index, step in enumerate(steps):
        move = next((m for m in space.moves(data) if m.step == step), None)
        if move is None:
            raise UsageError(
                f"replay: step {index + 1} ({step}) is not a move of the state reached"
            )
        if move.target is None:
            if index != len(steps) - 1:
                raise UsageError(f"replay: step {index + 1} ({step}) leaves no state to go on from")
            return data
        data = move.target
    return data


def _seed_data(space: WorkflowSpace, seed: Seed) -> JSONObject:
    try:
        data: JSONObject = space.definition.dump_state(space.definition.load_state(seed.state))
    except TurnframeError as exc:
        raise UsageError(
            f"explore: seed {seed.key!r} of {space.workflow.name!r} does not load: "
            f"{exc.__cause__ or exc}"
        ) from exc
    return data


def explore(
    app: Application,
    workflow: str | None = None,
    *,
    depth: int = DEFAULT_DEPTH,
    states: int = DEFAULT_STATES,
    records: Sequence[Mapping[str, object]] | None = None,
    today: date = EXPLORE_TODAY,
) -> ExploreReport:
    """Explore ``app``'s workflows (or the one named) and return the report.

    See docs/explorer.md.

    Args:
        app: the application (``load_application("module:attribute")``).
        workflow: one workflow's name, or ``None`` for every registered one.
        depth: the most moves from a root (``0 <= depth <= MAX_DEPTH``, 1000).
        states: the most states kept per workflow (``1 <= states <= MAX_STATES``,
            1,000,000; docs/explorer.md "Limits").
        records: records to seed, in the application's ``records:`` form (its
            seeder's, or ``{key, workflow, state}``); ``None`` reads the application's
            tour file's records when it has a tour, else seeds nothing.
        today: the explorer's today.

    Raises:
        UsageError: a bad limit, an unknown workflow name (with the closest names), or
            records the seeder refuses.
    """
    limits = Limits(depth=depth, states=states)
    names = app.registry.names()
    if workflow is not None and workflow not in names:
        close = difflib.get_close_matches(workflow, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f" (it has: {', '.join(names)})"
        raise UsageError(f"application {app.name!r} has no workflow {workflow!r}{hint}")
    seeds = seeds_of(app, records)
    reports = tuple(
        explore_workflow(
            app.registry.workflow(name),
            limits=limits,
            today=today,
            locale=app.default_locale,
            seeds=seeds.get(name, ()),
        )
        for name in names
        if workflow is None or name == workflow
    )
    return ExploreReport(application=app.name, limits=limits, today=today, workflows=reports)
