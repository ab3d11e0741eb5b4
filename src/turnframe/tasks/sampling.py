"""How a task is sampled, and how each vote of a voted task differs from the others.

Understanding tasks are read at temperature 0 on every adapter that accepts a
temperature. A voted task's reads must be independent: with a deterministic vendor,
byte-identical requests are one reading paid for several times. So vote ``n`` (from 0)
differs from the others in a recorded way (docs/adr/0018-decoder-enforceable-schemas.md):

* vote 0 is the task's own request (temperature 0, the offered options as built);
* every later vote samples at :attr:`Sampling.vote_temperature` with seed ``n`` where
  the profile accepts them, and sees the offered options and the data's lists rotated
  by ``n`` places (an order no answer may depend on).

A vote whose request would still be byte-identical to an earlier vote's is not sent:
it could only repeat that reading (the runner records it as ``collapsed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import JSONObject

__all__ = ["ROTATED_KEYS", "Sampling", "VoteVariant", "rotate_data", "rotate_enums"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Sampling:
    """Sampling settings for a turn's tasks (configurable per task).

    Attributes:
        temperature: the temperature of a task's first read (0: the most likely answer).
        vote_temperature: the temperature of votes after the first (> 0, so a sampling
            vendor reads independently; seeded for a replayable record).
        per_task: task name → the first read's temperature, overriding ``temperature``.
        rotate: later votes see the offered options and the data's lists rotated.
    """

    temperature: float = 0.0
    vote_temperature: float = 0.7
    per_task: Mapping[str, float] = field(default_factory=dict)
    rotate: bool = True

    def __post_init__(self) -> None:
        for name, value in (("temperature", self.temperature), *self.per_task.items()):
            if not 0.0 <= value <= 2.0:
                raise ValueError(f"temperature {name}={value} is outside 0..2")
        if not 0.0 < self.vote_temperature <= 2.0:
            raise ValueError(f"vote_temperature={self.vote_temperature} is outside (0, 2]")

    def variant(self, task: str, vote: int | None) -> VoteVariant:
        """Return how read ``vote`` of ``task`` is sampled (``None``: not a vote)."""
        first = self.per_task.get(task, self.temperature)
        if not vote:
            return VoteVariant(index=vote, temperature=first, seed=None, rotation=0)
        return VoteVariant(
            index=vote,
            temperature=self.vote_temperature,
            seed=vote,
            rotation=vote if self.rotate else 0,
        )


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class VoteVariant:
    """How one read differs from the task's other reads (recorded on its call, I20).

    Attributes:
        index: the vote's number (0 first), ``None`` for a read that is not a vote.
        temperature: the temperature asked for (sent where the profile accepts one).
        seed: the sampling seed (sent where the profile accepts one), ``None``: none.
        rotation: how many places the offered options and the data's lists turn.
    """

    index: int | None
    temperature: float
    seed: int | None
    rotation: int

    def to_json(self) -> JSONObject:
        """Return the variant as JSON for the call record."""
        return {
            "vote": self.index,
            "temperature": self.temperature,
            "seed": self.seed,
            "rotation": self.rotation,
        }


def _turn(items: list[Any], by: int) -> list[Any]:
    if len(items) < 2:
        return items
    k = by % len(items)
    return items[k:] + items[:k]


def rotate_enums(schema: Any, by: int) -> Any:
    """Return ``schema`` with every ``enum`` list turned ``by`` places (same set of values)."""
    if not by:
        return schema
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if key == "enum" and isinstance(value, list):
                out[key] = _turn(list(value), by)
            else:
                out[key] = rotate_enums(value, by)
        return out
    if isinstance(schema, list):
        return [rotate_enums(v, by) for v in schema]
    return schema


ROTATED_KEYS = frozenset(
    {"operations_on_offer", "topics", "candidates", "records", "cards_on_screen", "options"}
)
"""The data lists whose order carries no meaning: offered options and examples."""


def rotate_data(data: Any, by: int) -> Any:
    """Return ``data`` with each list under a :data:`ROTATED_KEYS` key turned ``by`` places.

    Every other list keeps its order (units and spans are in message order).
    """
    if not by:
        return data
    if isinstance(data, dict):
        return {
            k: _turn([rotate_data(x, by) for x in v], by)
            if k in ROTATED_KEYS and isinstance(v, list)
            else rotate_data(v, by)
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [rotate_data(v, by) for v in data]
    return data
