"""``FrozenMap``: a mapping that cannot change, for typed states that map keys to values.

A workflow's typed state whose fields are all immutable is memoised across turns
(docs/adr/0020-what-a-brief-shows.md rule 8): its snapshot is typed, projected and
labelled once per runtime instead of once per turn. A ``dict`` field rules that out,
since any holder of the state could change it; a :class:`FrozenMap` field does not, as
long as its keys and values are immutable too. Pure and synchronous, like the core.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Generic, TypeVar

__all__ = ["FrozenMap"]

K = TypeVar("K")
V = TypeVar("V")


class FrozenMap(Mapping[K, V], Generic[K, V]):
    """An immutable mapping: a ``dict``'s reads, none of its writes.

    Built like a ``dict`` (from a mapping, from ``(key, value)`` pairs, or from keyword
    arguments); keeps its keys in insertion order; equals any mapping with the same
    items (a ``dict`` included), as ``dict`` does. It is hashable when its values are
    (the hash of its items as a frozenset, so two equal maps hash alike whatever their
    order). ``|`` and :meth:`with_item` / :meth:`without` return new maps and leave this
    one as it is. ``to_json_value`` writes it as a JSON object, like a ``dict``.

    Raises:
        TypeError: from :func:`hash` when a value is unhashable; from the constructor
            for arguments ``dict`` would refuse.
    """

    __slots__ = ("_hash", "_items")

    _items: dict[K, V]
    _hash: int | None

    def __init__(self, items: Mapping[K, V] | Iterable[tuple[K, V]] = (), /, **kwargs: V) -> None:
        object.__setattr__(self, "_items", dict(items, **kwargs))
        object.__setattr__(self, "_hash", None)

    def __getitem__(self, key: K) -> V:
        return self._items[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def get(self, key: K, default: Any = None) -> Any:
        """Return the value of ``key``, or ``default`` when it has none."""
        return self._items.get(key, default)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenMap):
            return self._items == other._items
        if isinstance(other, Mapping):
            return self._items == dict(other.items())
        return NotImplemented

    def __hash__(self) -> int:
        known = self._hash
        if known is None:
            known = hash(frozenset(self._items.items()))
            object.__setattr__(self, "_hash", known)
        return known

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a FrozenMap cannot change (setting {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a FrozenMap cannot change (deleting {name!r})")

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"

    def __or__(self, other: Mapping[K, V]) -> FrozenMap[K, V]:
        if not isinstance(other, Mapping):
            return NotImplemented
        return FrozenMap({**self._items, **other})

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenMap, (self._items,))

    def __copy__(self) -> FrozenMap[K, V]:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenMap[K, V]:
        import copy

        return FrozenMap(copy.deepcopy(self._items, memo))

    def with_item(self, key: K, value: V) -> FrozenMap[K, V]:
        """Return a map with ``key`` set to ``value`` (added last when new)."""
        return FrozenMap({**self._items, key: value})

    def without(self, key: K) -> FrozenMap[K, V]:
        """Return a map without ``key`` (the same map when it has no such key)."""
        if key not in self._items:
            return self
        return FrozenMap({k: v for k, v in self._items.items() if k != key})

    def items_dict(self) -> dict[K, V]:
        """Return a new ``dict`` of the items (a copy: changing it changes nothing here)."""
        return dict(self._items)
