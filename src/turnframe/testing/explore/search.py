"""Breadth-first search over a state space, under limits (docs/explorer.md "Limits").

The explorer's only search: states are expanded in the order they were first reached,
so the path stored with each state is a shortest one (fewest steps) from a root, and a
finding raised while expanding a state carries a shortest path too. Generic over the
state key, so a property test checks it against brute force on random graphs.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import UsageError
from turnframe.testing.explore.findings import Path, Step

__all__ = [
    "DEFAULT_DEPTH",
    "DEFAULT_STATES",
    "MAX_DEPTH",
    "MAX_STATES",
    "Limits",
    "Search",
    "breadth_first",
]

K = TypeVar("K", bound=Hashable)

DEFAULT_DEPTH = 6
"""Moves explored from each root by default (``--depth``)."""

DEFAULT_STATES = 2000
"""States kept per workflow by default (``--states``)."""

MAX_DEPTH = 1000
"""The largest ``--depth`` accepted (docs/explorer.md "Limits"): each kept state holds a
shortest path of up to ``depth`` steps, so memory grows with states times depth."""

MAX_STATES = 1_000_000
"""The largest ``--states`` accepted (docs/explorer.md "Limits"): every kept state and its
path stay in memory until the walk ends, about a kilobyte or more each."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """How far the explorer goes (docs/explorer.md "Limits").

    Attributes:
        depth: the most moves from a root (the absent state or a seeded record) to a
            kept state; ``0`` keeps the roots only (``0 <= depth <= MAX_DEPTH``).
        states: the most distinct states kept per workflow, roots included
            (``1 <= states <= MAX_STATES``); a state past it is not kept, and the search
            reports it was cut.

    Raises:
        UsageError: for a limit that is not an ``int`` in range (below the least or
            above the most).
    """

    depth: int = DEFAULT_DEPTH
    states: int = DEFAULT_STATES

    def __post_init__(self) -> None:
        for name, least, most in (("depth", 0, MAX_DEPTH), ("states", 1, MAX_STATES)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise UsageError(
                    f"explore: {name} must be a whole number >= {least}, got {value!r}"
                )
            if value > most:
                raise UsageError(
                    f"explore: {name} must be at most {most:,} (docs/explorer.md "
                    f'"Limits"), got {value:,}'
                )


@dataclass(slots=True, kw_only=True)
class Search(Generic[K]):
    """What a breadth-first search found.

    Attributes:
        paths: each kept state → a shortest path to it, in the order states were reached.
        depths: each kept state → its distance (moves) from its root.
        transitions: moves examined from expanded states (to kept, known or dropped states).
        depth_reached: the greatest distance of a kept state.
        cut: whether a limit stopped the search before the space was exhausted: a move
            led to a new state past ``depth`` or past ``states``.
    """

    paths: dict[K, Path] = field(default_factory=dict)
    depths: dict[K, int] = field(default_factory=dict)
    transitions: int = 0
    depth_reached: int = 0
    cut: bool = False


def breadth_first(
    roots: Sequence[tuple[K, Path]],
    successors: Callable[[K, Path], Iterable[tuple[Step, K]]],
    limits: Limits,
) -> Search[K]:
    """Explore from ``roots`` breadth first; return every kept state with a shortest path.

    Args:
        roots: ``(state key, path to it)``, at distance 0 (a seed's path is its seed
            step); a key given twice keeps its first path.
        successors: the moves from a state (given its key and path): ``(step, key)``
            pairs, in a deterministic order. Called once per kept state (those at the
            depth limit too; their new targets are not kept), in breadth-first order,
            so what it records about a state's path is shortest.
        limits: the depth and state limits.

    Returns:
        The :class:`Search`; ``paths[k] + (step,)`` is a path to each successor.
    """
    found: Search[K] = Search()
    queue: deque[K] = deque()
    for key, path in roots:
        if key in found.paths:
            continue
        if len(found.paths) >= limits.states:
            found.cut = True
            break
        found.paths[key] = path
        found.depths[key] = 0
        queue.append(key)
    while queue:
        key = queue.popleft()
        depth = found.depths[key]
        path = found.paths[key]
        # Every kept state's moves are computed (its checks read them); only those of a
        # state short of the depth limit are followed.
        for step, target in successors(key, path):
            found.transitions += 1
            if target in found.paths:
                continue
            if depth >= limits.depth or len(found.paths) >= limits.states:
                found.cut = True
                continue
            found.paths[target] = (*path, step)
            found.depths[target] = depth + 1
            found.depth_reached = max(found.depth_reached, depth + 1)
            queue.append(target)
    return found
