"""Constraints: "do not submit" for the turn or standing, and its lifting (ADR 0002).

"Do not submit" blocks every submission of the turn; a standing one blocks until lifted
in words ("allow submit") or by clicking the Confirm card of a matching command, which
lifts it for that one command.
"""

from __future__ import annotations

from turnframe.core.acts import ConstraintKind, ConstraintScope, SemanticAct
from turnframe.core.commands import Origin
from turnframe.core.interactions import Interaction
from turnframe.core.operations import OperationSpec
from turnframe.runtime.plan import ReductionInput
from turnframe.runtime.reduce.state import Constraints, Reduction

__all__ = [
    "constraint_notices",
    "is_submission",
    "lift_for_click",
    "read_constraints",
    "submission_blocked",
]


def read_constraints(inp: ReductionInput) -> Constraints:
    """Return the turn's constraints from its words and the standing one it inherits (ADR 0002)."""
    kinds = {(c.kind, c.scope) for c in inp.understanding.constraints}
    allow = any(k is ConstraintKind.ALLOW_SUBMIT for k, _ in kinds)
    turn_dns = any(k is ConstraintKind.DO_NOT_SUBMIT for k, _ in kinds)
    new_standing = any(
        k is ConstraintKind.DO_NOT_SUBMIT and sc is ConstraintScope.STANDING for k, sc in kinds
    )
    standing: bool | None = None
    if new_standing:
        standing = True
    elif allow and inp.standing_do_not_submit:
        standing = False
    standing_active = (inp.standing_do_not_submit and not allow) or new_standing
    return Constraints(turn_dns=turn_dns, standing=standing, standing_active=standing_active)


def is_submission(r: Reduction, act: SemanticAct) -> bool:
    """Return whether ``act``'s operation is a submission (the kind "do not submit" blocks)."""
    spec = r.registry.operation(act.operation or "")
    return bool(spec and spec.submission)


def submission_blocked(
    r: Reduction, spec: OperationSpec, origin: Origin | None, *, reissue: bool
) -> bool:
    """Return whether "do not submit" blocks this act of operation ``spec`` (ADR 0002).

    A re-issued card is drawn, not clicked: its own click may lift the constraint for
    one command, so "do not submit" is checked then. A click that lifts it (see
    :func:`lift_for_click`) lets the acts it confirms through.
    """
    c = r.constraints
    if spec.submission and (c.turn_dns or c.standing_active) and not reissue:
        lifted = r.lift_for_click and origin is not None
        if not lifted:
            return True
    return False


def lift_for_click(r: Reduction, card: Interaction) -> None:
    """Lift a standing "do not submit" for the submissions the clicked ``card`` confirms.

    Only a standing constraint is lifted, for this one click (a notice says so); one
    set in this turn's own words is not.
    """
    c = r.constraints
    if any(is_submission(r, p.act) for p in card.spec.pending) and (
        c.turn_dns or c.standing_active
    ):
        r.lift_for_click = True
        if c.standing_active and not c.turn_dns:
            r.notices.append(
                ("constraint_lifted_for_one", r.say("constraint_lifted_for_one"), None)
            )
        else:
            r.lift_for_click = False


def constraint_notices(r: Reduction) -> None:
    """Add the notice of a standing constraint set or lifted in this turn's words."""
    if r.constraints.standing is True:
        r.notices.append(("standing_do_not_submit", r.say("standing_do_not_submit"), None))
    elif r.constraints.standing is False:
        r.notices.append(("allow_submit", r.say("allow_submit"), None))
