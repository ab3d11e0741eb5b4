"""Step 4, understand: the understander reads the brief; its answer is checked by code.

``runtime.contract.checked_reading`` enforces the understander's contract before anything
depends on the answer (docs/architecture.md "One turn").
"""

from __future__ import annotations

from turnframe.core.errors import UsageError
from turnframe.runtime.contract import checked_reading
from turnframe.runtime.parts import RuntimeParts
from turnframe.runtime.turn import Understood
from turnframe.understand.brief import Brief

__all__ = ["understand"]


async def understand(parts: RuntimeParts, brief: Brief) -> Understood:
    """Read ``brief`` with the understander and check the answer against its contract.

    Raises:
        UsageError: the runtime has no understander (``Runtime.run_turn`` refuses a text
            turn without one before the turn begins).
    """
    if parts.understander is None:
        raise UsageError("a text turn needs an understander; pass one to Runtime")
    read = checked_reading(await parts.understander.understand(brief), parts.registry)
    return Understood(
        understanding=read.understanding,
        model_calls=read.model_calls,
        calls=read.calls,
        reading=read.trace,
    )
