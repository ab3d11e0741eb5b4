"""Routing a share of conversations, or named accounts, to a candidate version.

docs/guides/canary-and-rollback.md "Routing a share or accounts".
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from versions_kit import TripV2, TripV3

from turnframe.core.errors import RegistryError, RiskPolicyError
from turnframe.core.versions import Rollout, VersionRouting, bucket
from turnframe.core.workflow import WorkflowRegistry
from turnframe.samples.travel import travel_application

CONVERSATIONS = st.lists(st.text(min_size=1, max_size=24), min_size=300, max_size=600, unique=True)


def _registry() -> WorkflowRegistry:
    registry = travel_application().registry
    registry.register(TripV2())
    return registry


def _live(registry: WorkflowRegistry, account: str, conversation: str) -> str:
    return registry.for_turn(account, conversation).workflow("trip").version


@settings(max_examples=40, deadline=None)
@given(conversations=CONVERSATIONS, share=st.floats(0.0, 1.0), account=st.text(max_size=8))
def test_a_canary_share_is_respected_and_each_conversation_is_sticky(
    conversations: list[str], share: float, account: str
) -> None:
    registry = _registry()
    registry.routing = VersionRouting(
        rollouts=(Rollout(workflow="trip", candidate="trip/2", share=share),)
    )
    first = [_live(registry, account, c) for c in conversations]
    again = [_live(registry, account, c) for c in reversed(conversations)]
    assert first == list(reversed(again))  # sticky: the same conversation, the same version
    n = len(conversations)
    routed = first.count("trip/2") / n
    tolerance = 5 * math.sqrt(share * (1 - share) / n) + 1 / n  # five sigma of a binomial
    assert abs(routed - share) <= tolerance, (routed, share, n)
    assert set(first) <= {"trip/1", "trip/2"}
    # Only trip is routed: the other workflows stay on their one version.
    assert registry.for_turn(account, conversations[0]).workflow("traveler").version == (
        registry.workflow("traveler").version
    )


@settings(max_examples=60, deadline=None)
@given(conversation=st.text(max_size=30), low=st.floats(0.0, 1.0), high=st.floats(0.0, 1.0))
def test_raising_the_share_never_moves_a_conversation_back(
    conversation: str, low: float, high: float
) -> None:
    low, high = sorted((low, high))
    at = {s: Rollout(workflow="trip", candidate="trip/2", share=s) for s in (low, high)}
    if at[low].routes("acct", conversation):
        assert at[high].routes("acct", conversation)
    assert 0.0 <= bucket("trip", "acct", conversation) < 1.0


def test_named_accounts_are_routed_whatever_the_share() -> None:
    registry = _registry()
    registry.routing = VersionRouting(
        rollouts=(Rollout(workflow="trip", candidate="trip/2", accounts=frozenset({"pilot"})),)
    )
    conversations = [f"c{n}" for n in range(200)]
    assert {_live(registry, "pilot", c) for c in conversations} == {"trip/2"}
    assert {_live(registry, "other", c) for c in conversations} == {"trip/1"}


def test_rollback_is_changing_the_rule() -> None:
    registry = _registry()
    rollout = Rollout(workflow="trip", candidate="trip/2", share=1.0)
    registry.routing = VersionRouting(rollouts=(rollout,))
    assert _live(registry, "a", "c1") == "trip/2"
    registry.routing = VersionRouting(rollouts=(Rollout(workflow="trip", candidate="trip/2"),))
    assert _live(registry, "a", "c1") == "trip/1"  # share 0
    registry.routing = None
    assert _live(registry, "a", "c1") == "trip/1"
    assert registry.for_turn("a", "c1") is registry  # no rollout: no cost per turn


def test_a_rule_naming_an_unregistered_version_is_refused_and_the_old_rule_stays() -> None:
    registry = _registry()
    good = VersionRouting(stable={"trip": "trip/2"})
    registry.routing = good
    with pytest.raises(RegistryError, match="candidate version 'trip/7'"):
        registry.routing = VersionRouting(rollouts=(Rollout(workflow="trip", candidate="trip/7"),))
    with pytest.raises(RegistryError, match="stable version 'trip/7'"):
        registry.routing = VersionRouting(stable={"trip": "trip/7"})
    assert registry.routing is good and registry.workflow("trip").version == "trip/2"


@pytest.mark.parametrize("share", [-0.1, 1.5, math.nan, True, "0.5"])
def test_a_share_outside_zero_to_one_is_refused(share: object) -> None:
    with pytest.raises(RegistryError, match="share"):
        Rollout(workflow="trip", candidate="trip/2", share=share)  # type: ignore[arg-type]


def test_two_rollouts_of_one_workflow_are_refused() -> None:
    one = Rollout(workflow="trip", candidate="trip/2", share=0.1)
    with pytest.raises(RegistryError, match="two rollouts"):
        VersionRouting(rollouts=(one, one))


def test_registering_versions() -> None:
    registry = _registry()
    assert registry.versions("trip") == ("trip/1", "trip/2")
    assert registry.workflow("trip").version == "trip/1"  # registering v2 changes no turn
    assert registry.workflow("trip", "trip/2").version == "trip/2"
    with pytest.raises(RegistryError, match="version 'trip/2' is already registered"):
        registry.register(TripV2())
    with pytest.raises(RegistryError, match="no version 'trip/5'"):
        registry.workflow("trip", "trip/5")
    registry.register(TripV3())
    assert registry.versions("trip") == ("trip/1", "trip/2", "trip/3")
    pinned = registry.pinned({"trip": "trip/3"})
    assert pinned.workflow("trip").version == "trip/3"
    assert registry.workflow("trip").version == "trip/1"
    with pytest.raises(RegistryError, match="pinned"):
        pinned.routing = None
    with pytest.raises(RegistryError, match="pinned"):
        pinned.register(TripV2())
    assert registry.pinned({"trip": "trip/1"}) is registry  # nothing to pin: the registry


def test_each_version_is_checked_when_registered() -> None:
    registry = _registry()

    class StealsAKey(TripV2):
        version = "trip/steal"

        def operations(self):  # type: ignore[no-untyped-def]
            return super().operations() + registry.workflow("traveler").operations()[:1]

    with pytest.raises(RegistryError, match="already registered|names workflow"):
        registry.register(StealsAKey())

    class Risky(TripV2):
        version = "trip/risky"

        def operations(self):  # type: ignore[no-untyped-def]
            from dataclasses import replace

            from turnframe.core.commands import CommandPolicy, RiskClass

            ops = list(super().operations())
            ops[0] = replace(
                ops[0], policy=CommandPolicy(risk=RiskClass.IRREVERSIBLE, opt_out="no")
            )
            return tuple(ops)

    with pytest.raises(RiskPolicyError):
        registry.register(Risky())
    assert registry.versions("trip") == ("trip/1", "trip/2")  # nothing half-registered
