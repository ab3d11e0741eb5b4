"""The inspector's shapes for the model calls, the reduction record and a replay (docs/inspector.md).

Pydantic models with every field described (they go into the OpenAPI document); the
base :class:`View` of every inspector model is here too.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CallView", "ModelView", "PlanDifference", "ReductionView", "ReplayView", "View"]


class View(BaseModel):
    """Base of the inspector's models: frozen; each field's docstring is its description."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)


class CallView(View):
    """One model call (``CallRecord``, I20)."""

    index: int
    """Its position among the turn's calls (0-based)."""
    task: str
    """The task (``segment``, ``route``, ``locate``, ``extract``, ``verify``...)."""
    attempt: str
    """``first``, ``resend``, ``repair``, ``vote``, ``tiebreak`` or ``escalate``."""
    for_act: str | None = None
    """The act the call read, when its prompt names one."""
    model: str | None = None
    """Who served it (``None``: the call failed)."""
    verdict: str
    """``ok``, ``invalid: <error>``, ``resend: <why>`` or ``error: <class>``."""
    prompt_id: str | None = None
    """The prompt's versioned id."""
    prompt: list[dict[str, str]] = Field(default_factory=list)
    """The messages sent (``role``, ``content``)."""
    response: str | None = None
    """The response's text."""
    prompt_tokens: int = 0
    """Prompt tokens."""
    completion_tokens: int = 0
    """Completion tokens."""
    latency_ms: float = 0.0
    """The call's latency in milliseconds."""
    ended_ms: float = 0.0
    """When it ended, in ms since the turn's runner started."""


class ModelView(View):
    """Understanding's model calls and its reading trace (``replay record`` ``calls``/``reading``)."""

    effort: str | None = None
    """The effort the message was read at."""
    merge: str | None = None
    """Which steps one merged call answered."""
    steps: list[list[str]] = Field(default_factory=list)
    """The reading's steps (name, detail), in order."""
    units: list[dict[str, Any]] = Field(default_factory=list)
    """The units of the message (``id``, ``kind``, ``from``, ``to``: word numbers)."""
    votes: list[dict[str, Any]] = Field(default_factory=list)
    """Every voted decision (task, reads, distinct readings...)."""
    repairs: int = 0
    """How many calls were repair rounds."""
    errors: list[dict[str, str]] = Field(default_factory=list)
    """Each failed step's exact error."""
    error: str | None = None
    """The error that ended the reading (budget, provider), if any."""
    calls: list[CallView] = Field(default_factory=list)
    """Every call, in order."""
    prompt_tokens: int = 0
    """Prompt tokens over all calls."""
    completion_tokens: int = 0
    """Completion tokens over all calls."""


class ReductionView(View):
    """The reducer's recorded input, summarised, and the plan it returned."""

    recorded: bool = False
    """Whether the record holds a reduction (a turn that did not reduce holds none)."""
    summary: dict[str, Any] = Field(default_factory=dict)
    """The input in brief: today, locale, act ids, snapshots (case, revision), cards on
    screen, the click, the standing constraint, waiting acts."""
    plan: Any = None
    """The plan as recorded (canonical JSON)."""


class PlanDifference(View):
    """One place where the replayed plan differs from the recorded one."""

    path: str
    """A JSON pointer (RFC 6901) into the plan."""
    recorded: Any = None
    """The recorded value there (``null`` when absent: see ``change``)."""
    replayed: Any = None
    """The replayed value there (``null`` when absent: see ``change``)."""
    change: Literal["changed", "added", "removed"]
    """``added``: only the replay has it; ``removed``: only the record has it."""


class ReplayView(View):
    """A turn's reduction re-run from its record: ``POST /v1/turns/{id}/replay`` (I20)."""

    turn_id: str
    """The turn replayed."""
    same: bool | None = None
    """Whether the replayed plan equals the recorded one; ``None``: nothing to replay."""
    reason: str | None = None
    """Why there was nothing to replay (no reduction recorded, or it could not be read)."""
    recorded_plan: Any = None
    """The plan as recorded."""
    replayed_plan: Any = None
    """The plan the reducer returns now from the recorded input."""
    diff: list[PlanDifference] = Field(default_factory=list)
    """Every difference, in document order (empty when ``same``)."""
