"""Per-item results: every act and question gets exactly one (I11).

See docs/architecture.md "Reduction".
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import CaseRef

__all__ = ["PlannedActResult", "ResultStatus"]


class ResultStatus(StrEnum):
    """The result names a turn reports (docs/scenario-format.md names)."""

    READY = "ready"
    """Planned to execute this turn (becomes ``committed`` or ``rejected``)."""
    COMMITTED = "committed"
    AWAITING_CONFIRMATION = "awaiting_confirmation"
    NEEDS_CLARIFICATION = "needs_clarification"
    REJECTED = "rejected"
    SUPERSEDED = "superseded"
    NO_CHANGE = "no_change"
    EXPIRED = "expired"
    ANSWERED = "answered"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PlannedActResult:
    """The one result of an act, question or card answer.

    Attributes:
        item_id: the act, question or card-answer id.
        status: the result.
        code: a stable reason code (``do_not_submit``, ``stale``, a domain code…).
        sentence: the user-facing sentence for a refusal or a question to ask.
        operation: the act's operation, when it has one.
        case: the resolved case, when there is one.
        interaction_id: the card it waits on, once persisted.
        asks: the argument or obligation id the act waits for, if any.
    """

    item_id: str
    status: ResultStatus
    code: str | None = None
    sentence: str | None = None
    operation: str | None = None
    case: CaseRef | None = None
    interaction_id: str | None = None
    asks: str | None = None

    @property
    def label(self) -> str:
        """``status`` or ``status:code`` for rejections, as scenarios spell results."""
        if self.status is ResultStatus.REJECTED and self.code:
            return f"rejected:{self.code}"
        return self.status.value
