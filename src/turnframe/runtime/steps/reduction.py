"""Step 8, reduce the whole turn: the pure reducer plans every act before any effect (I10)."""

from __future__ import annotations

from turnframe.runtime.parts import RuntimeParts
from turnframe.runtime.plan import Plan, ReductionInput
from turnframe.runtime.reduce import reduce_turn

__all__ = ["reduce"]


async def reduce(parts: RuntimeParts, data: ReductionInput) -> Plan:
    """Return the plan of the whole turn: ``runtime.reduce.reduce_turn`` (pure, no I/O).

    Every act gets exactly one result (I11); only Exact targets compile (I8).
    """
    return reduce_turn(data, parts.registry)
