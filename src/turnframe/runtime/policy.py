"""Origin and confirmation checks (docs/architecture.md "Commands", I4, I17). Pure.

A command may run only when its origin satisfies its policy: a direct user act only for
commands that need no card; a Confirm card only for commands that need confirmation; a
Review card (preceded by a Confirm) for commands that need professional review. A
target selection never satisfies any of them.
"""

from __future__ import annotations

from turnframe.core.commands import (
    CommandPolicy,
    ConfirmationRequirement,
    ConfirmedInteraction,
    DirectUserAct,
    Origin,
    PolicyDecision,
    VerifiedCallback,
)
from turnframe.core.interactions import InteractionKind

__all__ = ["origin_satisfies"]


def origin_satisfies(policy: CommandPolicy, origin: Origin) -> bool:
    """Return whether ``origin`` authorises a command with ``policy``.

    Args:
        policy: the command's policy.
        origin: one of the four server-issued origins.

    Returns:
        ``True`` only when the origin is specific enough (I17). A Review click by a user
        the policy's ``excluded_reviewers`` names, or by an unnamed user while it names
        any, never is (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md rule 9).
    """
    match origin:
        case DirectUserAct() | PolicyDecision() | VerifiedCallback():
            return not policy.needs_card
        case ConfirmedInteraction():
            if policy.review_role:
                excluded = bool(policy.excluded_reviewers) and (
                    not origin.clicked_by or origin.clicked_by in policy.excluded_reviewers
                )
                return (
                    origin.interaction_kind == InteractionKind.REVIEW.value
                    and bool(origin.confirmed_by)
                    and not excluded
                )
            if policy.confirmation is ConfirmationRequirement.CONFIRM:
                return origin.interaction_kind == InteractionKind.CONFIRM.value
            return origin.interaction_kind == InteractionKind.CONFIRM.value
    return False  # pragma: no cover - the union is closed
