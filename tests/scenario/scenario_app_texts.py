"""Texts of the third-party application and scenario the scenario runner's tests use.

A module of its own (not ``conftest``), so that ``from scenario_app_texts import ...``
names this file whichever ``conftest`` pytest imported first.
"""

from __future__ import annotations

APP_MODULE = """
from pathlib import Path

from turnframe.core import WorkflowRegistry
from turnframe.runtime import Application, StoredCaseDirectory
from turnframe.samples.travel import ManifestWorkflow, TravelerWorkflow, TripWorkflow

BUILT = []
FINDS = []


class _Counting(StoredCaseDirectory):
    async def find(self, *args, **kwargs):
        FINDS.append(args)
        return await super().find(*args, **kwargs)


def directory(registry, store):
    BUILT.append(store)
    return _Counting(registry, store)


def application():
    registry = WorkflowRegistry([TripWorkflow(), TravelerWorkflow(), ManifestWorkflow()])
    return Application(
        name="trips",
        registry=registry,
        directory=directory,
        tour=str(Path(__file__).with_name("tour.yaml")),
    )


def untoured():
    registry = WorkflowRegistry([TripWorkflow(), TravelerWorkflow(), ManifestWorkflow()])
    return Application(name="bare", registry=registry)
"""

GENERIC = """\
name: generic records of a third-party application
description: a trip and its traveler written as plain states, one referring to the other
today: 2026-05-01
actor: {account: acme, user: u1, roles: [customer]}
records:
  - key: T1
    workflow: trip
    state: {name: Lisbon, start: 2026-05-12, end: 2026-05-15, travelers: [{ref: P1}], extras: [], status: planning, next_extra: 1}
  - {key: P1, workflow: traveler, state: {full_name: Ana Costa, birth_date: 1985-03-14, status: active}}
turns:
  - text: "Rename the Lisbon trip to Lisboa."
    understanding:
      acts:
        - {id: a1, operation: trip.rename, target: {handles: [T1]}, args: {name: Lisboa}}
    expect:
      results: {a1: committed}
      commands: [{operation: trip.rename, case: T1}]
      state:
        T1: {name: Lisboa, travelers: [P1]}
"""
