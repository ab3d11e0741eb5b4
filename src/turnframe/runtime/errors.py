"""Runtime errors (guide §14).

::

    TurnframeError
    ├── UsageError
    │   └── UnknownTurn            recover()/reload() named a turn the account does not have
    └── TurnFailure
        ├── CommandRejected        a command no longer validates at execution time
        └── TurnInterrupted        a store boundary failed mid-turn; recover() resumes it
"""

from __future__ import annotations

from turnframe.core.errors import FailureClass, TurnFailure, UsageError

__all__ = ["CommandRejected", "TurnInterrupted", "UnknownTurn"]


class UnknownTurn(UsageError):
    """No such turn for this account."""


class CommandRejected(TurnFailure):
    """The domain refused a command when it was applied (validation against fresh state).

    Args:
        code: the domain's code.
        sentence: the domain's sentence.
    """

    def __init__(self, code: str, sentence: str) -> None:
        super().__init__(f"{code}: {sentence}")
        self.code = code
        self.sentence = sentence


class TurnInterrupted(TurnFailure):
    """The turn stopped at a persistence boundary; its phase is persisted.

    Call :meth:`turnframe.runtime.Runtime.recover` with ``turn_id`` to resume it (guide §14).

    Args:
        turn_id: the interrupted turn.
        phase: the phase the turn had reached (``received``, ``committing`` or ``committed``:
            after its commits, before the reply was saved).
        cause: the underlying failure's message.
    """

    def __init__(self, turn_id: str, phase: str, cause: str) -> None:
        super().__init__(
            f"turn {turn_id} interrupted after phase {phase}: {cause}",
            failure=FailureClass(
                retryable=True,
                effect_may_have_happened=phase in ("committing", "committed"),
                message_key="error.turn_interrupted",
                needs_reconciliation=phase == "committing",
            ),
        )
        self.turn_id = turn_id
        self.phase = phase
