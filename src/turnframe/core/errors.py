"""The error tree shared by every Turnframe subpackage (docs/architecture.md "Failures").

::

    TurnframeError
    ├── UsageError                 a developer mistake: wrong call, bad configuration
    │   └── RegistryError          an unknown workflow or operation, a duplicate registration
    │       └── RiskPolicyError    a declared policy that lets a risky command run unconfirmed
    └── TurnFailure                something failed while a turn ran; carries a FailureClass
        ├── MalformedProposal      understanding answered off contract (I2)
        └── InvariantBroken        code found a broken invariant at run time

Store, runtime and scenario errors extend this tree in their own ``errors`` modules.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from turnframe.core.dataclass_init import fast_init

__all__ = [
    "DomainError",
    "FailureClass",
    "InvariantBroken",
    "MalformedProposal",
    "RegistryError",
    "RiskPolicyError",
    "Severity",
    "TurnFailure",
    "TurnframeError",
    "UsageError",
]


class Severity(StrEnum):
    """How loudly operations should hear about a failure."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    CRITICAL = "critical"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class FailureClass:
    """How a failure is classified (docs/architecture.md "Failures").

    Attributes:
        retryable: whether repeating the same call may succeed.
        effect_may_have_happened: whether an effect may already be committed or sent.
        message_key: the key of the user-facing sentence (never the exception text).
        severity: the operational severity.
        needs_reconciliation: whether the outcome must be settled by looking it up.
    """

    retryable: bool
    effect_may_have_happened: bool
    message_key: str
    severity: Severity = Severity.ERROR
    needs_reconciliation: bool = False


class TurnframeError(Exception):
    """Root of every error Turnframe raises on purpose."""


class UsageError(TurnframeError):
    """A developer mistake: a wrong call or configuration, never a run-time condition."""


class RegistryError(UsageError):
    """An unknown or duplicate workflow or operation name in a :class:`WorkflowRegistry`."""


class RiskPolicyError(RegistryError):
    """A declared :class:`~turnframe.core.commands.CommandPolicy` breaks the risk rule (I17).

    Raised by ``WorkflowRegistry.register``: a monetary, destructive, irreversible or
    unknown operation without a confirmation and without a valid explicit opt-out, or an
    opt-out where none is allowed (docs/adr/0013-cards-show-what-they-do.md).

    Args:
        operation: the operation key whose declaration is refused.
        problem: what is wrong and how to fix it, in one sentence.
    """

    def __init__(self, operation: str, problem: str) -> None:
        super().__init__(f"operation {operation!r}: {problem}")
        self.operation = operation
        self.problem = problem


class TurnFailure(TurnframeError):
    """A failure while a turn ran, classified per docs/architecture.md "Failures".

    Args:
        message: a developer-facing description (never shown to end users).
        failure: the classification; defaults to a non-retryable error.
    """

    default_class = FailureClass(
        retryable=False, effect_may_have_happened=False, message_key="error.internal"
    )

    def __init__(self, message: str, *, failure: FailureClass | None = None) -> None:
        super().__init__(message)
        self.failure = failure or self.default_class


class MalformedProposal(TurnFailure):
    """Understanding produced something off contract: an unknown operation, handle or option (I2)."""

    default_class = FailureClass(
        retryable=True, effect_may_have_happened=False, message_key="error.malformed_proposal"
    )


class InvariantBroken(TurnFailure):
    """Code found one of the invariants I1–I20 broken; the turn stops before any effect."""

    default_class = FailureClass(
        retryable=False,
        effect_may_have_happened=False,
        message_key="error.internal",
        severity=Severity.CRITICAL,
    )


class DomainError(TurnFailure):
    """A workflow's own code raised while the runtime called it (docs/invariants.md, I11).

    Raised by the guarded definition :class:`~turnframe.core.workflow.ErasedWorkflow`
    hands out, chained (``raise ... from``) from the domain's original exception, so a
    stack trace still shows the line of the domain that failed. A Turnframe error the
    domain raises on purpose (a :class:`TurnframeError`) passes through unwrapped.

    Args:
        workflow: the workflow's name (``"ticket"``).
        method: the member that raised (``"render_receipt"``).
        cause: the original exception (kept as ``__cause__`` too).

    Attributes:
        workflow: as given.
        method: as given.
    """

    def __init__(self, workflow: str, method: str, cause: BaseException) -> None:
        super().__init__(
            f"workflow {workflow!r} raised in {method}: {type(cause).__name__}: {cause}"
        )
        self.workflow = workflow
        self.method = method
