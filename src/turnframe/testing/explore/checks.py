"""The properties the explorer asserts on every reachable state and move (docs/explorer.md "Findings").

Each check returns ``(finding class, detail, key)`` triples; the explorer attaches the
shortest path. The properties are docs/invariants.md I3 (one phase, unique and stable
obligation ids, an outcome only when complete, an absent state means "not yet",
removal is a status), I5 (the one blocking requirement, where the user decides) and the
explorer's own: no dead end without an explicit trigger.
"""

from __future__ import annotations

from collections.abc import Sequence

from turnframe.core.canonical import canonical_json
from turnframe.core.errors import TurnframeError
from turnframe.core.ids import JSONObject
from turnframe.core.view import Obligation, WorkflowView
from turnframe.testing.explore.findings import (
    BlockingWithoutUserStep,
    CaseEndsByDisappearing,
    DeadEnd,
    DomainRaised,
    Finding,
    NotOnePhase,
    ObligationIdsNotUnique,
    ObligationIdUnstable,
    OutcomeOutsideTerminal,
    ProjectionNotPure,
    TerminalMovesOn,
    TerminalWithoutOutcome,
)
from turnframe.testing.explore.space import Move, WorkflowSpace

__all__ = ["Problem", "check_moves", "check_state", "same_obligation_same_id"]

Problem = tuple[type[Finding], str, str]
"""A broken property before its path is attached: (finding class, detail, key)."""


def _declared_terminal(space: WorkflowSpace) -> tuple[str, ...] | None:
    hook = getattr(space.definition, "terminal_phases", None)
    return tuple(hook()) if callable(hook) else None


def check_state(space: WorkflowSpace, data: JSONObject | None, view: WorkflowView) -> list[Problem]:
    """Return what breaks on one state (``data``; ``None`` is absent) and its ``view``.

    Checks: one known phase; unique obligation ids; the view is pure (again, and after a
    JSON round trip); a blocking requirement only where an operation is on offer to the
    user; a terminal phase carries an outcome and an outcome a terminal phase; an absent
    view is neither terminal nor finished, and a record is never projected absent.
    """
    found: list[Problem] = []
    phase = view.phase
    if not isinstance(phase, str) or not phase.strip():
        found.append((NotOnePhase, f"a view has the blank phase {phase!r}", repr(phase)))
    elif space.phases is not None and phase not in space.phases:
        found.append(
            (
                NotOnePhase,
                f"phase {phase!r} is none of the declared phases {list(space.phases)}",
                phase,
            )
        )
    ids = [o.id for o in view.obligations]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        found.append(
            (
                ObligationIdsNotUnique,
                f"phase {phase!r}: obligation id(s) {twice} appear twice",
                f"{phase}:{twice}",
            )
        )
    found.extend(_purity(space, data, view))
    terminal = _declared_terminal(space)
    if not view.exists:
        if view.outcome is not None or (terminal is not None and phase in terminal):
            what = f"outcome {view.outcome.code!r}" if view.outcome else f"terminal phase {phase!r}"
            found.append(
                (
                    CaseEndsByDisappearing,
                    f"an absent record is given {what}: absent means not yet, never no longer",
                    phase,
                )
            )
        if data is not None:
            found.append(
                (
                    CaseEndsByDisappearing,
                    f"an existing record (phase {phase!r}) is projected as absent (exists=False)",
                    f"exists:{phase}",
                )
            )
    else:
        if terminal is not None and phase in terminal and view.outcome is None:
            found.append(
                (TerminalWithoutOutcome, f"terminal phase {phase!r} has no outcome", phase)
            )
        if terminal is not None and phase not in terminal and view.outcome is not None:
            found.append(
                (
                    OutcomeOutsideTerminal,
                    f"phase {phase!r} is not terminal but has outcome {view.outcome.code!r}",
                    phase,
                )
            )
    if view.blocking is not None and (
        not view.exists or space.workflow.terminal(view) or not space.user_operations(view)
    ):
        found.append(
            (
                BlockingWithoutUserStep,
                f"phase {phase!r} blocks on a {view.blocking.kind!r} card "
                f"({view.blocking.reason}) but offers the user nothing to do",
                phase,
            )
        )
    return found


def same_obligation_same_id(view: WorkflowView, seen: dict[tuple[str, str], str]) -> list[Problem]:
    """Return the obligations of ``view`` whose id differs from the one seen before for them.

    An obligation is its kind and parameters; its id is a stable function of them on
    every state (docs/invariants.md I3), so ``payer`` for extra ``E1`` is ``payer:E1``
    wherever it stands. ``seen`` maps (kind, canonical parameters) to the first id met,
    and is filled here.
    """
    found: list[Problem] = []
    for obligation in view.obligations:
        signature = (obligation.kind, canonical_json(dict(obligation.params)))
        first = seen.setdefault(signature, obligation.id)
        if first != obligation.id:
            found.append(
                (
                    ObligationIdUnstable,
                    f"obligation {obligation.kind} {dict(obligation.params)} is {first!r} on "
                    f"one state and {obligation.id!r} on this one (phase {view.phase!r})",
                    f"{signature[0]}:{signature[1]}",
                )
            )
    return found


def _purity(space: WorkflowSpace, data: JSONObject | None, view: WorkflowView) -> list[Problem]:
    if data is None:
        again = space.view(None)
        if again != view:
            return [(ProjectionNotPure, "the absent state projects two different views", "")]
        return []
    try:
        again = space.view(data)
        reread = space.definition.project(
            space.definition.load_state(space.definition.dump_state(space.typed(data))),
            space.today,
        )
    except TurnframeError as exc:
        original = exc.__cause__ or exc
        return [(DomainRaised, f"projecting phase {view.phase!r} raised {original!r}", "project")]
    if again != view or reread != view:
        return [
            (
                ProjectionNotPure,
                f"phase {view.phase!r}: projecting the same state twice gives different views",
                view.phase,
            )
        ]
    return []


def check_moves(
    space: WorkflowSpace,
    data: JSONObject | None,
    view: WorkflowView,
    moves: Sequence[Move],
    views: dict[str, WorkflowView],
) -> list[tuple[Move | None, Problem]]:
    """Return what breaks on the moves out of one state (``None`` move: the state itself).

    Args:
        space: the workflow's space.
        data: the state moved from.
        view: its view.
        moves: the moves out of it (:meth:`WorkflowSpace.moves`).
        views: state key → view, for the moves' targets (filled by the caller).

    Checks: a transition finding a move carries (``TransitionRemovesCase``,
    ``DomainRaised``); a terminal record never moves on; an obligation the move did not
    discharge keeps its id; a non-terminal record has a move (no dead end).
    """
    found: list[tuple[Move | None, Problem]] = []
    terminal = space.workflow.terminal(view)
    good = [m for m in moves if m.finding is None]
    for move in moves:
        if move.finding is not None:
            found.append((move, move.finding))
    if terminal and good:
        found.append(
            (
                good[0],
                (
                    TerminalMovesOn,
                    f"terminal phase {view.phase!r} moves on by {good[0].step}",
                    view.phase,
                ),
            )
        )
    for move in good:
        after = views[move.key]
        for problem in _unstable(view.obligations, after.obligations, move):
            found.append((move, problem))
    if data is not None and view.exists and not terminal and not moves:
        found.append(
            (
                None,
                (
                    DeadEnd,
                    f"phase {view.phase!r} is not terminal, yet no command the user may give "
                    "and no external update moves it on",
                    view.phase,
                ),
            )
        )
    return found


def _unstable(
    before: Sequence[Obligation], after: Sequence[Obligation], move: Move
) -> list[Problem]:
    """The obligations ``move`` did not discharge whose id changed, or ids that changed meaning."""
    found: list[Problem] = []
    later = {o.id: o for o in after}
    for old in before:
        if old.waits_for is not None and old.waits_for == move.step.name:
            continue  # the move is the one that discharges it: it may go or change
        kept = later.get(old.id)
        if kept is not None:
            if (kept.kind, dict(kept.params)) != (old.kind, dict(old.params)):
                found.append(
                    (
                        ObligationIdUnstable,
                        f"obligation id {old.id!r} meant {old.kind} {dict(old.params)} and "
                        f"after {move.step.name} means {kept.kind} {dict(kept.params)}",
                        old.id,
                    )
                )
            continue
        renamed = [
            o.id
            for o in after
            if (o.kind, dict(o.params)) == (old.kind, dict(old.params)) and o.id not in _ids(before)
        ]
        if renamed:
            found.append(
                (
                    ObligationIdUnstable,
                    f"obligation {old.id!r} ({old.kind}) became {renamed[0]!r} after "
                    f"{move.step.name}, which does not discharge it",
                    old.id,
                )
            )
    return found


def _ids(obligations: Sequence[Obligation]) -> set[str]:
    return {o.id for o in obligations}
