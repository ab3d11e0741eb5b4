"""Four eyes on the expenses sample's Review card, generated (docs/invariants.md I17).

Hypothesis draws the submitter's roles (with or without ``manager``) and a run of clicks on
the Review card by the submitter and other users with any roles. Whatever the order, a
click by the submitter never commits and never closes the card; a click by a user without
the role is refused as ``not_authorized``; the first click by a manager other than the
submitter resolves the card (approve commits with that approver, reject leaves a draft),
and later clicks commit nothing (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md
rule 9).
"""

from __future__ import annotations

from pathlib import Path
from tempfile import TemporaryDirectory

import anyio
import pytest
from expenses_world import World, world
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.core import Actor

SUBMIT = "expense_report.submit"
SUBMITTER = "u1"
DRAFT = {
    "key": "R1",
    "workflow": "expense_report",
    "title": "Lisbon offsite",
    "submitter": SUBMITTER,
    "lines": [{"description": "Hotel Avenida", "amount": "120.00"}],
}

_roles = st.frozensets(st.sampled_from(["manager", "employee", "finance"]))
_clicks = st.lists(
    st.tuples(
        st.sampled_from([SUBMITTER, "m1", "m2", "e1"]),
        _roles,
        st.sampled_from(["approve", "reject"]),
    ),
    min_size=1,
    max_size=5,
)


def _label(result: object, item: str) -> str:
    r = result.results[item]  # type: ignore[attr-defined]
    return f"{r.status.value}:{r.code}" if r.code else r.status.value


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(submitter_is_manager=st.booleans(), clicks=_clicks)
def test_an_excluded_reviewer_never_commits_and_an_allowed_one_always_can(
    submitter_is_manager: bool, clicks: list[tuple[str, frozenset[str], str]]
) -> None:
    roles = {"employee", "manager"} if submitter_is_manager else {"employee"}
    submitter = Actor(account="acme", user=SUBMITTER, roles=frozenset(roles))

    async def body(w: World) -> None:
        await w.say(
            "Submit it.", {"id": "a1", "operation": SUBMIT, "handles": ["R1"]}, actor=submitter
        )
        confirmed = await w.click("confirm", actor=submitter)
        (review,) = confirmed.interactions_created
        assert review.spec.excluded_reviewers == (SUBMITTER,)
        resolved_by: str | None = None
        for user, click_roles, option in clicks:
            actor = Actor(account="acme", user=user, roles=click_roles)
            result = await w.click(option, card=review, actor=actor)
            state = await w.state("R1")
            if resolved_by is not None:
                assert result.commands == ()
                continue
            if "manager" not in click_roles:
                assert _label(result, "click") == "rejected:not_authorized"
            elif user == SUBMITTER:
                assert _label(result, "click") == "rejected:reviewer_excluded"
            if "manager" not in click_roles or user == SUBMITTER:
                assert result.commands == () and result.interactions_created == ()
                assert state["status"] == "draft" and state["approved_by"] is None
                continue
            resolved_by = user
            if option == "approve":
                assert _label(result, "a1") == "committed"
                assert [op for op, _ in result.commands] == [SUBMIT]
                assert state["status"] == "approved" and state["approved_by"] == user
            else:
                assert _label(result, "a1") == "rejected:review_rejected"
                assert result.commands == () and state["status"] == "draft"
        final = await w.state("R1")
        assert final["approved_by"] != SUBMITTER

    async def main() -> None:
        with TemporaryDirectory() as tmp:
            async with world("memory", Path(tmp), [DRAFT]) as w:
                await body(w)

    anyio.run(main)


def test_a_review_card_stored_without_exclusions_still_refuses_the_submitter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Review card drawn without ``excluded_reviewers`` (stored before the field) passes
    the click check, but the act is compiled again and its policy refuses the submitter's
    click: nothing commits and the card stays open for another manager (I17)."""
    from turnframe.runtime.reduce import acts

    drawn = acts.plan_review_card

    def without_exclusions(*args: object, **kwargs: object) -> None:
        drawn(*args[:7], **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(acts, "plan_review_card", without_exclusions)
    boss = Actor(account="acme", user=SUBMITTER, roles=frozenset({"employee", "manager"}))
    other = Actor(account="acme", user="m2", roles=frozenset({"manager"}))

    async def body(w: World) -> None:
        await w.say("Submit it.", {"id": "a1", "operation": SUBMIT, "handles": ["R1"]}, actor=boss)
        (review,) = (await w.click("confirm", actor=boss)).interactions_created
        assert review.spec.excluded_reviewers == ()
        own = await w.click("approve", card=review, actor=boss)
        assert _label(own, "a1") == "rejected:reviewer_excluded" and own.commands == ()
        assert own.interactions_created == ()
        assert (await w.state("R1"))["status"] == "draft"
        approved = await w.click("approve", card=review, actor=other)
        assert _label(approved, "a1") == "committed"
        assert (await w.state("R1"))["approved_by"] == "m2"

    async def main() -> None:
        with TemporaryDirectory() as tmp:
            async with world("memory", Path(tmp), [DRAFT]) as w:
                await body(w)

    anyio.run(main)
