"""One workflow's state space, moved through by its own pure code (docs/explorer.md "How it moves").

A :class:`WorkflowSpace` applies what a turn would: for each operation that fits the
record's view for the explorer's actor (:meth:`ErasedWorkflow.fits`, the runtime's
filter), every argument combination (:mod:`turnframe.testing.explore.values`) is
compiled by the workflow (``compile``, its domain check included) and each compiled
command validated and executed, as ``turnframe.runtime.transition.apply_commands``
does; a refusal or a change of nothing is no move. For a workflow with an
``external_update(state, status, *, reference="")`` hook, every external status is
reported too (a ``ValueError`` is its refusal, docs/scenario-format.md "External
updates"), and every system trigger (:func:`system_triggers`) at today and a year
on. Nothing here re-implements a workflow: every state comes from its
``execute`` or ``external_update``, and is kept as the JSON its ``dump_state`` writes.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from turnframe.core.acts import SemanticAct
from turnframe.core.authoring.base import Workflow
from turnframe.core.authoring.phases import known_phases
from turnframe.core.authoring.table import Offer
from turnframe.core.canonical import canonical_json, to_json_value
from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import DomainError, TurnframeError
from turnframe.core.ids import Actor, CaseRef, JSONObject
from turnframe.core.view import WorkflowView
from turnframe.core.workflow import (
    CompileRequest,
    ErasedWorkflow,
    Execution,
    ExecutionContext,
    Refusal,
)
from turnframe.testing.explore.findings import DomainRaised, Finding, Step, TransitionRemovesCase
from turnframe.testing.explore.values import argument_values, combinations

__all__ = ["LATER", "Move", "WorkflowSpace", "actor_for", "state_key", "system_triggers"]

ACCOUNT = "explore"
"""The account the explorer acts in."""

LATER = timedelta(days=400)
"""How far the clock moves for a system trigger's second try (time passing)."""


def actor_for(workflow: ErasedWorkflow) -> Actor:
    """Return the explorer's actor: a user holding every role the workflow names.

    The roles are those of the kit's ``Offer`` entries and of the operations' review
    policies, so an operation offered only to an ``agent`` is explored too.
    """
    roles: set[str] = set()
    for entries in dict(getattr(workflow.raw, "offers", None) or {}).values():
        roles.update(r for e in entries if isinstance(e, Offer) for r in e.roles)
    roles.update(op.policy.review_role for op in workflow.operations() if op.policy.review_role)
    return Actor(account=ACCOUNT, user="explorer", roles=frozenset(roles))


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Move:
    """One move out of a state: to a new state, or a finding on the transition.

    Attributes:
        step: what was done.
        target: the new state's JSON (``None`` when the move is a finding).
        key: the new state's key (:func:`state_key` of ``target``).
        finding: the transition's finding class and detail (``None`` for a good move).
    """

    step: Step
    target: JSONObject | None = None
    key: str = ""
    finding: tuple[type[Finding], str, str] | None = None


class WorkflowSpace:
    """The moves of one workflow's records, computed by the workflow itself.

    Args:
        workflow: the registered workflow.
        today: the explorer's today (compilation and validation read it).
        locale: the locale refusals and part labels are asked in.
    """

    def __init__(self, workflow: ErasedWorkflow, *, today: date, locale: str) -> None:
        self.workflow = workflow
        self.today = today
        self.locale = locale
        self.actor = actor_for(workflow)
        self.case = CaseRef(workflow.name, "explored")
        raw = workflow.raw
        self.phases: tuple[str, ...] | None = (
            known_phases(raw) if isinstance(raw, Workflow) else None
        )
        self.statuses = _external_statuses(workflow, self.phases)
        self.triggers = system_triggers(workflow)

    @property
    def definition(self) -> Any:
        """The guarded definition (its exceptions arrive as ``DomainError``)."""
        return self.workflow.definition

    def typed(self, data: JSONObject | None) -> Any:
        """Return the typed state of ``data`` (``None``: absent)."""
        return self.workflow.typed(data)

    def view(self, data: JSONObject | None) -> WorkflowView:
        """Return the workflow's view of the state ``data``."""
        view: WorkflowView = self.definition.project(self.typed(data), self.today)
        return view

    def user_operations(self, view: WorkflowView) -> tuple[str, ...]:
        """Return the keys of the operations that fit ``view`` for the explorer's actor."""
        return tuple(
            op.key
            for op in self.workflow.operations()
            if self.workflow.fits(view, self.actor, op.key)
        )

    def moves(self, data: JSONObject | None) -> list[Move]:
        """Return every move out of the state ``data``: user commands, external updates, triggers.

        Moves that change nothing (a refusal, a no-op, a move back to ``data``) are left
        out; a move that is a finding (it drops the record, or the domain raised) is kept
        with its ``finding``.
        """
        state = self.typed(data)
        view = self.definition.project(state, self.today)
        found: list[Move] = []
        for key in self.user_operations(view):
            spec = self.workflow.operation(key)
            assert spec is not None
            try:
                values = [
                    argument_values(self.workflow, state, spec, a, self.today, self.locale)
                    for a in spec.arguments
                ]
            except TurnframeError as exc:
                found.append(_raised(Step(kind="operation", name=key, arguments={}), exc))
                continue
            for given in combinations(spec.arguments, values):
                step = Step(
                    kind="operation", name=key, arguments=_as_json(to_json_value(dict(given)))
                )
                move = self._command(state, view, spec, given, step)
                if move is not None:
                    found.append(move)
        if state is not None:
            for status in self.statuses:
                move = self._external(state, status)
                if move is not None:
                    found.append(move)
            for name in self.triggers:
                for when in (self.today, self.today + LATER):
                    move = self._system(state, name, when)
                    if move is not None:
                        found.append(move)
        here = state_key(data)
        return [m for m in found if m.target is None or m.key != here]

    def _command(
        self, state: Any, view: WorkflowView, spec: Any, given: dict[str, Any], step: Step
    ) -> Move | None:
        act = SemanticAct(id="a1", operation=spec.key, args={k: str(v) for k, v in given.items()})
        request = CompileRequest(
            act=act,
            operation=spec,
            case=self.case,
            state=state,
            view=view,
            values=given,
            prior=(),
            actor=self.actor,
            today=self.today,
            locale=self.locale,
        )
        try:
            compiled = self.definition.compile(request)
            if isinstance(compiled, Refusal) or not compiled.commands:
                return None
            ctx = ExecutionContext(
                case=self.case, actor=self.actor, today=self.today, turn_id="explore"
            )
            current, events = state, 0
            for command in compiled.commands:
                if self.definition.validate(current, command, self.today, self.locale):
                    return None
                execution = self.definition.execute(current, command, ctx)
                if execution.state is None:
                    return Move(
                        step=step,
                        finding=(
                            TransitionRemovesCase,
                            f"{spec.key} is answered by dropping the record (execute returned "
                            "no state); removal is a status",
                            spec.key,
                        ),
                    )
                current, events = execution.state, events + len(execution.events)
        except TurnframeError as exc:
            return _raised(step, exc)
        if not events:
            return None
        return self._landed(step, current)

    def _external(self, state: Any, status: str) -> Move | None:
        hook = getattr(self.definition, "external_update", None)
        step = Step(kind="external", name=status)
        try:
            execution = hook(state, status, reference="explore") if callable(hook) else None
        except ValueError:
            return None
        except TurnframeError as exc:
            if isinstance(exc, DomainError) and isinstance(exc.__cause__, ValueError):
                return None  # the hook's refusal, through the registry's guard
            return _raised(step, exc)
        if execution is None:
            return None
        if execution.state is None:
            return Move(
                step=step,
                finding=(
                    TransitionRemovesCase,
                    f"external update {status!r} drops the record (no state); removal is a status",
                    f"external:{status}",
                ),
            )
        if not execution.events:
            return None
        return self._landed(step, execution.state)

    def _system(self, state: Any, name: str, when: date) -> Move | None:
        step = Step(kind="system", name=name, arguments={"today": when.isoformat()})
        try:
            execution = getattr(self.workflow.raw, name)(state, when)
        except ValueError:
            return None  # the trigger's refusal (it does not apply to this state now)
        except TurnframeError as exc:
            return _raised(step, exc)
        except Exception as exc:
            return _raised(step, DomainError(self.workflow.name, name, exc))
        if not isinstance(execution, Execution) or not execution.events:
            return None
        if execution.state is None:
            return Move(
                step=step,
                finding=(
                    TransitionRemovesCase,
                    f"system trigger {name} drops the record (no state); removal is a status",
                    f"system:{name}",
                ),
            )
        return self._landed(step, execution.state)

    def _landed(self, step: Step, state: Any) -> Move:
        """The move to ``state``, once its JSON loads back (what a commit checks)."""
        try:
            dumped = self.definition.dump_state(state)
            self.definition.load_state(dumped)
        except TurnframeError as exc:
            return _raised(step, exc, "the state it leaves does not load back")
        return Move(step=step, target=dumped, key=state_key(dumped))


def system_triggers(workflow: ErasedWorkflow) -> tuple[str, ...]:
    """Return the names of the workflow's system triggers (docs/explorer.md "How it moves").

    The ``system_triggers`` attribute when the definition declares one (method names);
    else every public method of the definition taking ``(state, today)`` and annotated
    to return an :class:`~turnframe.core.workflow.Execution` (the travel trip's
    ``complete``). A trigger refuses a state by raising ``ValueError``.
    """
    raw = workflow.raw
    declared = getattr(raw, "system_triggers", None)
    if declared is not None:
        return tuple(str(n) for n in declared)
    found: list[str] = []
    for name in sorted(dir(type(raw))):
        member = getattr(type(raw), name, None)
        if name.startswith("_") or not inspect.isfunction(member):
            continue
        try:
            parameters = list(inspect.signature(member).parameters.values())
            returns = typing.get_type_hints(member).get("return")
        except (NameError, TypeError, ValueError):
            continue
        positional = [
            p for p in parameters[1:] if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        names = [p.name for p in positional]
        if len(positional) == 2 and names[1] == "today" and _is_execution(returns):
            found.append(name)
    return tuple(found)


def _is_execution(annotation: object) -> bool:
    return annotation is Execution or typing.get_origin(annotation) is Execution


def state_key(data: JSONObject | None) -> str:
    """Return the key a state is told apart by: its canonical JSON (``""``: absent)."""
    return "" if data is None else canonical_json(data)


def _external_statuses(workflow: ErasedWorkflow, phases: Sequence[str] | None) -> tuple[str, ...]:
    """The statuses an ``external_update`` hook is tried with (docs/explorer.md "How it moves").

    ``external_statuses`` when the workflow declares it, else every known phase (the
    kit's), then ``timeout_status``; none without the hook.
    """
    definition = workflow.definition
    if not callable(getattr(definition, "external_update", None)):
        return ()
    declared = getattr(definition, "external_statuses", None)
    statuses = list(declared) if declared else list(phases or ())
    timeout = getattr(definition, "timeout_status", None)
    if isinstance(timeout, str) and timeout:
        statuses.append(timeout)
    return tuple(dict.fromkeys(str(s) for s in statuses))


def _raised(step: Step, exc: TurnframeError, what: str = "raised") -> Move:
    original = exc.__cause__ or exc
    detail = f"{step} {what}: {type(original).__name__}: {' '.join(str(original).split())}"
    return Move(step=step, finding=(DomainRaised, detail, f"{step.kind}:{step.name}"))


def _as_json(value: object) -> JSONObject:
    assert isinstance(value, dict)
    return value
