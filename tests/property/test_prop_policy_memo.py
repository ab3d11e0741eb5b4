"""The policy an erased workflow remembers equals the one computed fresh (I17).

``ErasedWorkflow.policy`` keeps ``policy_at_least(definition's policy, declared
policy)`` for the very same pair of policy objects. For generated definitions whose
``policy`` answers, interleaved over operations with other declared floors, with one
shared object, with fresh equal objects or with other policies, every answer equals
``policy_at_least`` computed on the spot. A memo that forgot to check the declared floor
(one shared run-time policy object under two operations) serves one operation's merged
policy for the other and fails here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core.commands import (
    CommandPolicy,
    ConfirmationRequirement,
    RiskClass,
    policy_at_least,
)
from turnframe.core.operations import OperationSpec
from turnframe.core.workflow import ErasedWorkflow

policies = st.builds(
    CommandPolicy,
    risk=st.sampled_from(list(RiskClass)),
    confirmation=st.sampled_from(list(ConfirmationRequirement)),
    review_role=st.sampled_from([None, "lead"]),
    excluded_reviewers=st.lists(st.sampled_from(["u1", "u2"]), max_size=2).map(tuple),
    opt_out=st.sampled_from([None, "", " ", "refundable"]),
)


@dataclass(frozen=True)
class _Command:
    operation: str

    def to_json(self) -> dict[str, Any]:
        return {}


class _Definition:
    """A definition whose ``policy`` answers from a script (the test drives it)."""

    name = "gen"
    version = "gen/1"

    def __init__(self, specs: tuple[OperationSpec, ...]) -> None:
        self.specs = specs
        self.answer: CommandPolicy | None = None

    def operations(self) -> tuple[OperationSpec, ...]:
        return self.specs

    def policy(self, state: object, command: object) -> CommandPolicy:
        assert self.answer is not None
        return self.answer


@settings(max_examples=150, deadline=None)
@given(
    floors=st.lists(policies, min_size=1, max_size=3),
    shared=policies,
    others=st.lists(policies, min_size=1, max_size=3),
    calls=st.lists(
        st.tuples(
            st.integers(0, 2), st.sampled_from(["shared", "copy", "other"]), st.integers(0, 2)
        ),
        min_size=1,
        max_size=12,
    ),
)
def test_the_remembered_policy_equals_the_fresh_one(
    floors: list[CommandPolicy],
    shared: CommandPolicy,
    others: list[CommandPolicy],
    calls: list[tuple[int, str, int]],
) -> None:
    specs = tuple(
        OperationSpec(key=f"gen.op{n}", workflow="gen", summary="Do it.", policy=floor)
        for n, floor in enumerate(floors)
    )
    definition = _Definition(specs)
    erased = ErasedWorkflow(definition)
    for op_index, which, other_index in calls:
        spec = specs[op_index % len(specs)]
        if which == "shared":
            answer = shared
        elif which == "copy":
            answer = CommandPolicy(**{f: getattr(shared, f) for f in shared.__slots__})
        else:
            answer = others[other_index % len(others)]
        definition.answer = answer
        got = erased.policy(None, _Command(spec.key))
        assert got == policy_at_least(answer, spec.policy)
