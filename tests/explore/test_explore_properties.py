"""Properties of the explorer: its paths are shortest, and valid (docs/explorer.md "Paths").

1. The breadth-first search against brute force on random graphs: every kept state's
   path is as short as any, and following it from its root reaches the state.
2. Random phase machines written on the authoring kit: every dead end is reported, and
   with a path whose length is the phase graph's shortest distance to it.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core import (
    Command,
    Execution,
    ExecutionContext,
    Op,
    TypedCommand,
    Workflow,
    WorkflowRegistry,
    arg,
)
from turnframe.runtime.app import Application
from turnframe.testing.explore import DeadEnd, Limits, Step, explore, replay_path
from turnframe.testing.explore.search import breadth_first

Graph = dict[int, list[tuple[str, int]]]


@st.composite
def graphs(draw: st.DrawFn) -> tuple[Graph, list[int]]:
    size = draw(st.integers(1, 9))
    nodes = st.integers(0, size - 1)
    graph: Graph = {
        n: [(f"e{n}_{i}", t) for i, t in enumerate(draw(st.lists(nodes, max_size=4)))]
        for n in range(size)
    }
    roots = draw(st.lists(nodes, min_size=1, max_size=3, unique=True))
    return graph, roots


def _distances(graph: Graph, roots: list[int]) -> dict[int, int]:
    """Brute force: relax every edge until nothing changes (Bellman-Ford, unit weights)."""
    far = len(graph) + 1
    dist = {n: (0 if n in roots else far) for n in graph}
    for _ in range(len(graph)):
        for n, edges in graph.items():
            for _, t in edges:
                dist[t] = min(dist[t], dist[n] + 1)
    return {n: d for n, d in dist.items() if d < far}


@settings(max_examples=300)
@given(graphs())
def test_breadth_first_keeps_every_reachable_state_with_a_shortest_valid_path(
    drawn: tuple[Graph, list[int]],
) -> None:
    graph, roots = drawn
    search = breadth_first(
        [(r, (Step(kind="seed", name=str(r)),)) for r in roots],
        lambda n, _path: [(Step(kind="operation", name=label), t) for label, t in graph[n]],
        Limits(depth=len(graph), states=len(graph)),
    )
    expected = _distances(graph, roots)
    assert search.depths == expected
    assert not search.cut
    for node, path in search.paths.items():
        assert len(path) - 1 == expected[node]
        at = int(path[0].name)
        for step in path[1:]:
            at = next(t for label, t in graph[at] if label == step.name)
        assert at == node


@settings(max_examples=200)
@given(graphs(), st.integers(0, 4), st.integers(1, 6))
def test_limits_bound_the_search(drawn: tuple[Graph, list[int]], depth: int, states: int) -> None:
    graph, roots = drawn
    search = breadth_first(
        [(r, ()) for r in roots],
        lambda n, _path: [(Step(kind="operation", name=label), t) for label, t in graph[n]],
        Limits(depth=depth, states=states),
    )
    assert len(search.paths) <= states
    assert max(search.depths.values()) <= depth
    full = _distances(graph, roots)
    if not search.cut:
        assert set(search.paths) == set(full)
    assert all(search.depths[n] == full[n] for n in search.paths)


# -- random phase machines on the authoring kit -------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Node:
    """A record whose only content is its phase."""

    title: str
    status: str = "p0"


class Make(TypedCommand, operation="m.make", event="m.made"):
    """Create a record in p0."""

    title: str = arg(description="title", names_record=True)


def _machine(edges: dict[int, list[int]], terminal: set[int], size: int) -> Application:
    """A workflow with phases p0..p{size-1}; op ``m.go{k}`` moves to ``p{k}``."""
    goes: dict[str, tuple[type[Any], int]] = {}
    for k in range(size):
        cls = types.new_class(
            f"Go{k}",
            (TypedCommand,),
            {"operation": f"m.go{k}", "event": f"m.went{k}"},
            lambda ns: ns.update({"__doc__": "Move.", "__module__": __name__}),
        )
        goes[f"m.go{k}"] = (cls, k)

    class Machine(Workflow[Node]):
        name = "m"
        version = "m/1"
        state_type = Node
        label_fields = ("title",)
        phases = tuple(f"p{k}" for k in range(size))
        table = (
            Op(Make, "Make one.", creates_case=True),
            *(Op(cls, f"Go to p{k}.") for cls, k in goes.values()),
        )
        offers = {
            "new": ("m.make",),
            **{f"p{n}": tuple(f"m.go{t}" for t in sorted(set(ts))) for n, ts in edges.items()},
        }
        receipts = {"en": {"m.made": "Made.", **{f"m.went{k}": "Moved." for k in range(size)}}}

        def explore_values(self, operation: Any, argument: Any) -> tuple[str, ...]:
            return ("Alpha",)  # one title: the states are the phases

        def execute(
            self, state: Node | None, command: Command, ctx: ExecutionContext
        ) -> Execution[Node]:
            if isinstance(command, Make):
                return self.emit(Node(title=command.title), command)
            node = self.existing(state, command)
            target = f"p{goes[command.operation][1]}"
            if node.status == target:
                return self.unchanged(node)
            return self.emit(replace(node, status=target), command)

    Machine.terminal = tuple(f"p{k}" for k in sorted(terminal))
    return Application(name="machine", registry=WorkflowRegistry([Machine()]))


@st.composite
def machines(draw: st.DrawFn) -> tuple[dict[int, list[int]], set[int], int]:
    size = draw(st.integers(1, 6))
    terminal = set(draw(st.lists(st.integers(0, size - 1), max_size=2)))
    edges = {
        n: draw(st.lists(st.integers(0, size - 1), max_size=3)) if n not in terminal else []
        for n in range(size)
    }
    return edges, terminal, size


@settings(max_examples=60)
@given(machines())
def test_every_dead_end_of_a_random_machine_is_found_at_its_shortest_distance(
    drawn: tuple[dict[int, list[int]], set[int], int],
) -> None:
    edges, terminal, size = drawn
    app = _machine(edges, terminal, size)
    report = explore(app, depth=size + 1)
    # Brute force over the phase graph: absent -> p0 in one move, then the edges.
    graph: Graph = {n: [(f"go{t}", t) for t in ts if t != n] for n, ts in edges.items()}
    dist = {n: d + 1 for n, d in _distances(graph, [0]).items()}
    dead = {n for n, d in dist.items() if n not in terminal and not [t for t in edges[n] if t != n]}
    found = {f.key: len(f.path) for f in report.findings if isinstance(f, DeadEnd)}
    assert found == {f"p{n}": dist[n] for n in dead}
    assert all(isinstance(f, DeadEnd) for f in report.findings)
    (machine,) = report.workflows
    assert machine.states == 1 + len(dist)
    # Re-running each reported path through the workflow lands on the dead phase again.
    erased = app.registry.workflow("m")
    for finding in report.findings:
        end = replay_path(erased, finding.path)
        assert end is not None and end["status"] == finding.key
