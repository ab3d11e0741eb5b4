"""The understander's contract enforced where understanding enters the runtime.

Every understander's answer (the model chain, a scripted file, an adopter's own) passes
:func:`checked_reading` before target resolution and reduction, so an off-contract
proposal is a typed :class:`~turnframe.understand.contract.OffContractUnderstanding`
(a ``UsageError`` naming the act) raised before anything is resolved, planned or
committed — never an ``AttributeError`` mid-turn, two commits under one result or a
result that disappears (docs/adr/0015-values-in-the-turns-locale.md; docs/invariants.md
I2, I11).
"""

from __future__ import annotations

from turnframe.core.workflow import WorkflowRegistry
from turnframe.understand.base import UnderstandingResult
from turnframe.understand.contract import (
    ContractViolation,
    OffContractUnderstanding,
    require_on_contract,
)

__all__ = ["checked_reading"]


def checked_reading(read: object, registry: WorkflowRegistry) -> UnderstandingResult:
    """Return ``read`` when it is an :class:`UnderstandingResult` on contract.

    Args:
        read: what ``Understander.understand`` returned.
        registry: the workflows; an act's argument names must be its operation's.

    Raises:
        OffContractUnderstanding: naming the act and what is wrong.
    """
    if not isinstance(read, UnderstandingResult):
        raise OffContractUnderstanding(
            (
                ContractViolation(
                    "", f"understand() returned {type(read).__name__}, not an UnderstandingResult"
                ),
            )
        )
    problems: list[ContractViolation] = []
    calls = read.model_calls
    if isinstance(calls, bool) or not isinstance(calls, int) or calls < 0:
        problems.append(ContractViolation("", "model_calls is a count (int >= 0)"))
    if not isinstance(read.calls, tuple | list) or not all(isinstance(c, dict) for c in read.calls):
        problems.append(ContractViolation("", "calls are a tuple of JSON objects"))
    if not isinstance(read.trace, dict):
        problems.append(ContractViolation("", "trace is a JSON object"))
    if problems:
        raise OffContractUnderstanding(tuple(problems))
    require_on_contract(read.understanding, registry.operation)
    return read
