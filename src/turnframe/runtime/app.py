"""The application bundle a runtime serves (guide §13)."""

from __future__ import annotations

from dataclasses import dataclass

from turnframe.core.ports import KnowledgeSource
from turnframe.core.workflow import WorkflowRegistry

__all__ = ["Application", "NarrationConfig"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Application:
    """What an adopter hands the runtime: its workflows and optional knowledge source.

    Attributes:
        name: the application's name (``"travel"``).
        registry: the workflows.
        knowledge: answers read-only questions; ``None`` answers "no information".
        default_locale: the locale used when a turn names none.
    """

    name: str
    registry: WorkflowRegistry
    knowledge: KnowledgeSource | None = None
    default_locale: str = "en"


@dataclass(frozen=True, slots=True, kw_only=True)
class NarrationConfig:
    """What the runtime says while a turn is read (guide §5 "Budgets and records").

    Attributes:
        steps: each understanding step (``TurnStep``) also carries a sentence in the
            user's language for a preview; ``low`` effort drops it.
    """

    steps: bool = False
