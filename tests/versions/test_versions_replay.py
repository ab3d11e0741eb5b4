"""A replayed turn is read with the workflow versions it ran under (docs/guides/canary-and-rollback.md)."""

from __future__ import annotations

import copy

import anyio
import pytest
from versions_kit import Deployment, TripV2

from turnframe.core.errors import RegistryError
from turnframe.core.results import ResultStatus
from turnframe.core.versions import VersionRouting
from turnframe.runtime.replay import reduction_input, replay_reduction
from turnframe.store.memory import InMemoryStore


async def _recorded_rename() -> tuple[Deployment, dict]:
    dep = Deployment(InMemoryStore())
    await dep.seed()
    result = await dep.rename("c1", "Porto again")
    assert result.results["a1"].status is ResultStatus.COMMITTED
    record = await dep.store.load_replay(dep.actor.account, result.turn_id)
    assert record is not None
    return dep, record["reduction"]


def test_a_turn_recorded_under_v1_replays_identically_after_v2_is_registered() -> None:
    async def main() -> None:
        dep, reduction = await _recorded_rename()
        assert reduction["input"]["versions"]["trip"] == "trip/1"
        assert replay_reduction(reduction, dep.registry)[0]
        dep.registry.register(TripV2())
        assert replay_reduction(reduction, dep.registry)[0]
        # v2 promoted to stable: every new turn runs v2, the recorded one still replays
        # under v1, to the same plan.
        dep.registry.routing = VersionRouting(stable={"trip": "trip/2"})
        assert dep.registry.workflow("trip").version == "trip/2"
        same, _ = replay_reduction(reduction, dep.registry)
        assert same
        # The control: read under v2 (no recorded versions), the same turn plans otherwise,
        # so the assertion above is about the recorded version.
        unversioned = copy.deepcopy(reduction)
        del unversioned["input"]["versions"]
        assert not replay_reduction(unversioned, dep.registry)[0]

    anyio.run(main)


def test_a_turn_routed_to_v2_records_v2_and_replays_under_it() -> None:
    async def main() -> None:
        dep = Deployment(InMemoryStore(), TripV2())
        await dep.seed()
        dep.registry.routing = VersionRouting(stable={"trip": "trip/2"})
        result = await dep.rename("c1", "Porto again")
        assert result.results["a1"].status is not ResultStatus.COMMITTED  # v2 offers no rename
        record = await dep.store.load_replay(dep.actor.account, result.turn_id)
        assert record is not None
        reduction = record["reduction"]
        assert reduction["input"]["versions"]["trip"] == "trip/2"
        dep.registry.routing = None  # rolled back to v1: the record still replays under v2
        assert dep.registry.workflow("trip").version == "trip/1"
        assert replay_reduction(reduction, dep.registry)[0]
        # The recorded input (what the shadow and the inspector read) projects each
        # stored state with the recorded version too.
        recorded = reduction_input(reduction["input"], dep.registry)
        views = {case.workflow: snap.view.version for case, snap in recorded.snapshots.items()}
        assert views["trip"] == "trip/2"

    anyio.run(main)


def test_a_record_naming_a_version_no_longer_registered_is_a_typed_error() -> None:
    async def main() -> None:
        dep, reduction = await _recorded_rename()
        reduction["input"]["versions"]["trip"] = "trip/9"
        with pytest.raises(RegistryError, match="no version 'trip/9'"):
            replay_reduction(reduction, dep.registry)

    anyio.run(main)
