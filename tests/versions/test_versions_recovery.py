"""A turn resumed by ``Runtime.recover`` runs with the versions its conversation is routed to.

docs/guides/canary-and-rollback.md "Routing a share or accounts".
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from versions_kit import Deployment, TripV3

from turnframe.core.results import ResultStatus
from turnframe.core.versions import Rollout, VersionRouting
from turnframe.runtime import TurnInterrupted
from turnframe.runtime import orchestrator as orchestrator_module
from turnframe.store import FaultInjectingStore, FaultPlan, InMemoryStore


async def _interrupted_then_recovered(boundary: str) -> tuple[Any, Any]:
    plan = FaultPlan()
    store = FaultInjectingStore(InMemoryStore(), plan)
    dep = Deployment(store, TripV3())
    await dep.seed()
    dep.registry.routing = VersionRouting(
        rollouts=(Rollout(workflow="trip", candidate="trip/3", accounts=frozenset({"acct"})),)
    )
    plan.arm(boundary)
    with pytest.raises(TurnInterrupted) as caught:
        await dep.add_extra("c1")
    stored = await store.get_turn("acct", caught.value.turn_id)
    assert stored is not None and stored.phase == "received"
    plan.disarm(boundary)
    dep.push("trip.add_extra", "T1", kind="seat", payer="company")  # read again on resume
    result = await dep.runtime.recover(dep.actor, caught.value.turn_id)
    return result, await store.load_case(dep.refs["T1"])


@pytest.mark.parametrize("boundary", ["commit", "save_replay"])
def test_a_recovered_turn_runs_the_routed_version(boundary: str) -> None:
    result, row = anyio.run(_interrupted_then_recovered, boundary)
    assert result.results["a1"].status is ResultStatus.COMMITTED
    assert row is not None and row.workflow_version == "trip/3" and "v3" in row.state


def test_the_control_without_routing_on_recovery_runs_the_stable_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without the routing on resume the turn would run version 1: the test above can fail."""

    async def unrouted(parts: Any, actor: Any, turn_id: str) -> Any:
        return parts

    monkeypatch.setattr(orchestrator_module, "routed", unrouted)
    _, row = anyio.run(_interrupted_then_recovered, "commit")
    assert row is not None and row.workflow_version == "trip/1"
