"""Excluded reviewers survive every policy merge and refuse every origin they name (I17).

Generated policies, declarations and Review clicks: ``policy_at_least`` keeps the union of
the run-time policy's and the declaration's excluded reviewers (a definition adds, never
drops one), and ``origin_satisfies`` refuses a Review click by any of them, or by an
unnamed user when any is named, while a click by anyone else on a chained Review card
satisfies it (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md rule 9).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from turnframe.core import (
    CommandPolicy,
    ConfirmationRequirement,
    ConfirmedInteraction,
    RiskClass,
    policy_at_least,
)
from turnframe.runtime import origin_satisfies

USERS = ["u1", "u2", "m1", "m2"]
_users = st.lists(st.sampled_from(USERS), max_size=3, unique=True).map(tuple)
_policies = st.builds(
    CommandPolicy,
    risk=st.sampled_from(list(RiskClass)),
    confirmation=st.sampled_from(list(ConfirmationRequirement)),
    review_role=st.none() | st.just("manager"),
    excluded_reviewers=_users,
)


def _review(clicked_by: str) -> ConfirmedInteraction:
    return ConfirmedInteraction(
        interaction_id="card-2",
        option_id="approve",
        interaction_kind="review",
        payload_hash="h",
        confirmed_by=("card-1",),
        clicked_by=clicked_by,
    )


@given(policy=_policies, floor=_policies, clicker=st.sampled_from([*USERS, ""]))
def test_an_excluded_reviewer_never_satisfies_a_merged_policy(
    policy: CommandPolicy, floor: CommandPolicy, clicker: str
) -> None:
    merged = policy_at_least(policy, floor)
    excluded = {*policy.excluded_reviewers, *floor.excluded_reviewers}
    assert set(merged.excluded_reviewers) == excluded
    assert len(merged.excluded_reviewers) == len(excluded)
    assert policy_at_least(merged, floor) == merged
    if not merged.review_role:
        return
    allowed = origin_satisfies(merged, _review(clicker))
    if clicker in excluded or (excluded and not clicker):
        assert not allowed
    elif clicker:
        assert allowed


@given(users=_users)
def test_excluded_reviewers_need_a_review_role_at_registration(users: tuple[str, ...]) -> None:
    bare = CommandPolicy(
        risk=RiskClass.LOW, confirmation=ConfirmationRequirement.CONFIRM, excluded_reviewers=users
    )
    reviewed = CommandPolicy(
        risk=RiskClass.MONETARY,
        confirmation=ConfirmationRequirement.CONFIRM,
        review_role="manager",
        excluded_reviewers=users,
    )
    assert (bare.problem() is not None) == bool(users)
    assert reviewed.problem() is None
    assert CommandPolicy(
        risk=RiskClass.LOW, review_role="manager", excluded_reviewers=(" ",)
    ).problem()
