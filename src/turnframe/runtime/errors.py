"""Runtime errors (docs/architecture.md "Failures").

::

    TurnframeError
    ├── UsageError
    │   ├── UnknownTurn            recover()/reload() named a turn the account does not have
    │   └── TurnIdReused           run_turn() named a turn of this account it cannot return
    └── TurnFailure
        ├── CommandRejected        a command no longer validates at execution time
        ├── DomainError
        │   └── StateDoesNotLoad   a command made a state its workflow cannot load back
        └── TurnInterrupted        a store boundary failed mid-turn; recover() resumes it
"""

from __future__ import annotations

from turnframe.core.errors import DomainError, FailureClass, TurnFailure, UsageError

__all__ = [
    "CommandRejected",
    "StateDoesNotLoad",
    "TurnIdReused",
    "TurnInterrupted",
    "UnknownTurn",
]


class UnknownTurn(UsageError):
    """No such turn for this account."""


class TurnIdReused(UsageError):
    """``run_turn`` named one of this account's turns and cannot return its stored result.

    A turn id is used once (docs/adr/0016-races-and-turn-ids.md): the turn is neither
    understood nor committed again. Raised when the turn has not replied yet (it is
    running, or stopped: :meth:`turnframe.runtime.Runtime.recover` resumes it) or when
    the new input differs from the one the turn was started with.

    Args:
        turn_id: the id as the caller gave it.
        reason: ``"unfinished"`` or ``"different_input"``.
    """

    def __init__(self, turn_id: str, reason: str) -> None:
        why = (
            "has not finished; recover(turn_id) resumes it"
            if reason == "unfinished"
            else "was started with another input"
        )
        super().__init__(f"turn {turn_id} {why}; a turn id is used once")
        self.turn_id = turn_id
        self.reason = reason


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


class StateDoesNotLoad(DomainError):
    """A command's ``execute`` made a state its own ``load_state`` refuses; nothing was committed.

    Raised by :func:`turnframe.runtime.apply_commands` before the commit, so a record is
    never stored in a shape that cannot be read again (docs/invariants.md, I11: the
    domain's fault is the domain's, named, and loses nothing). The turn fails with it,
    as for any other :class:`DomainError` of ``execute``: the record keeps its revision.

    Args:
        workflow: the workflow's name (``"ticket"``).
        operation: the operation whose ``execute`` made the state (``"ticket.escalate"``).
        cause: what ``load_state`` raised; its message names the field
            (``Ticket.level: 3 is not a str``).

    Attributes:
        workflow: as given.
        method: ``"execute"``.
        operation: as given.
    """

    def __init__(self, workflow: str, operation: str, cause: BaseException) -> None:
        super().__init__(workflow, "execute", cause)
        self.operation = operation
        self.args = (
            f"workflow {workflow!r}: {operation} made a state its load_state refuses "
            f"({type(cause).__name__}: {cause}); nothing was committed; fix: give each "
            "field of the new state the type the state declares",
        )


class TurnInterrupted(TurnFailure):
    """The turn stopped at a persistence boundary; its phase is persisted.

    Call :meth:`turnframe.runtime.Runtime.recover` with ``turn_id`` to resume it
    (docs/architecture.md "Failures").

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
