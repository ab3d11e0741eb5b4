"""The application bundle a runtime serves (docs/architecture.md "What you write")."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import UsageError
from turnframe.core.ids import CaseRef, JSONObject
from turnframe.core.ports import CaseDirectory, KnowledgeSource, WorkflowExecutor
from turnframe.core.workflow import WorkflowRegistry
from turnframe.store.base import TurnStore
from turnframe.store.search import MAX_PAGE
from turnframe.understand.brief import BriefingBudget

__all__ = [
    "Application",
    "BriefLimits",
    "DirectoryFactory",
    "ExecutorFactory",
    "NarrationConfig",
    "RecordSeeder",
]

DirectoryFactory = Callable[[WorkflowRegistry, TurnStore], CaseDirectory]
"""Builds an application's :class:`~turnframe.core.ports.CaseDirectory` over the runtime's
registry and store (called once per :class:`~turnframe.runtime.Runtime`)."""

ExecutorFactory = Callable[[WorkflowRegistry, TurnStore], WorkflowExecutor]
"""Builds an application's :class:`~turnframe.core.ports.WorkflowExecutor` over the
runtime's registry and store (called once per :class:`~turnframe.runtime.Runtime`)."""


class RecordSeeder(Protocol):
    """Turns a scenario file's or a demo's ``records:`` entries into workflow states.

    An application without one gets the generic seeder of the scenario runner, which reads
    ``{key, workflow, state}`` entries (docs/scenario-format.md).
    """

    def seed_order(self, records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        """Return ``records`` completed and ordered so that referenced records come first.

        Raises:
            ValueError: naming the key of an unknown or cyclic reference.
        """
        ...

    def seed_state(
        self, record: Mapping[str, Any], refs: Mapping[str, CaseRef]
    ) -> tuple[str, JSONObject]:
        """Return ``(workflow name, JSON state)`` for one record; ``refs`` maps seeded keys.

        Raises:
            ValueError: naming a bad field.
        """
        ...


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class BriefLimits:
    """How many records a brief may add beyond the surface's (docs/adr/0020-what-a-brief-shows.md).

    Every brief is bounded by these numbers, not by the account: the records in view,
    the conversation's newest ``conversation`` cases, the cases of the cards on screen
    and of the carried acts, and for each word of the user's text of at least
    ``word_chars`` characters the records it finds, when they are at most ``found``
    (more, and none of them is listed: a mention of them is found by words and is never
    resolved to the one that happened to be listed). A turn run with ``in_view=None``
    adds the default view: the actor's ``recent`` most recently changed records (one
    recent page of the store). An account of at most ``recent`` records is then briefed
    whole, every record as in view; a larger one is not, and the brief says it is cut
    (``Brief.records_cut``).

    Attributes:
        conversation: the most cases the conversation remembers it was on (>= 0).
        found: the most records one word of the text may add (>= 0; 0 adds none, and
            a word that finds any record is then unlisted, hiding them).
        word_chars: the shortest word of the text that is looked up (>= 1).
        words: the most distinct words of the text looked up to add records (>= 0), in
            the text's order, so a long message costs at most this many index reads;
            a word past it, like a short one, is looked up only when it is a whole
            word of a record already briefed.
        recent: the size of the default view of a turn run with ``in_view=None``
            (``0..MAX_PAGE`` of :mod:`turnframe.store.search`, 10,000; 0 reads none and
            the brief is always marked cut).

    Raises:
        UsageError: when a limit is out of range.
    """

    conversation: int = 8
    found: int = 20
    word_chars: int = 3
    words: int = 64
    recent: int = 10

    def __post_init__(self) -> None:
        for name, least in (
            ("conversation", 0),
            ("found", 0),
            ("word_chars", 1),
            ("words", 0),
            ("recent", 0),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise UsageError(f"BriefLimits.{name} must be an int >= {least}, got {value!r}")
        if self.recent > MAX_PAGE:
            raise UsageError(
                f"BriefLimits.recent must be at most {MAX_PAGE} (one page), got {self.recent!r}"
            )


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Application:
    """What an adopter hands the runtime: one object naming everything its domain brings.

    Every entry point takes one: :class:`~turnframe.runtime.Runtime`, and ``--app
    module:attribute`` (or an installed ``turnframe.apps`` entry point's name) on the
    command line (:mod:`turnframe.runtime.loading`).

    Attributes:
        name: the application's name (``"travel"``).
        registry: the workflows.
        knowledge: answers read-only questions; ``None`` answers "no information".
        default_locale: the locale used when a turn names none (one of ``locales``).
        locales: the locales the application serves; registration checks that every
            workflow covers each.
        directory: builds the :class:`~turnframe.core.ports.CaseDirectory` the runtime
            lists, finds and authorizes records with; ``None``: the store-backed
            :class:`~turnframe.runtime.StoredCaseDirectory`.
        executor: builds the :class:`~turnframe.core.ports.WorkflowExecutor` that loads
            snapshots and applies commands; ``None``: the store-backed
            :class:`~turnframe.runtime.StoredStateExecutor`.
        seeder: turns scenario and demo ``records:`` into states; ``None``: the generic
            ``{key, workflow, state}`` form (docs/scenario-format.md).
        tour: the path of a scenario file ``turnframe demo --app`` plays as a guided
            tour of the application (``None``: the application has no tour).
        briefing_budget: how much of the records' briefings travels in a brief; a cut
            is marked (docs/adr/0020-what-a-brief-shows.md). Deployment-set.
        brief_limits: how many records a brief adds beyond the surface's, and the
            size of the default view (docs/adr/0020-what-a-brief-shows.md).
            Deployment-set.

    Raises:
        UsageError: when ``briefing_budget`` or ``brief_limits`` is not of its type, or
            ``default_locale`` is not one of ``locales`` (refused when the application
            is built, not in a turn).
        RegistryError: a workflow does not cover one of ``locales`` or a record
            argument names an unregistered workflow
            (:meth:`~turnframe.core.workflow.WorkflowRegistry.check_application`).
    """

    name: str
    registry: WorkflowRegistry
    knowledge: KnowledgeSource | None = None
    default_locale: str = "en"
    locales: tuple[str, ...] = ("en",)
    directory: DirectoryFactory | None = None
    executor: ExecutorFactory | None = None
    seeder: RecordSeeder | None = None
    tour: str | None = None
    briefing_budget: BriefingBudget = field(default_factory=BriefingBudget)
    brief_limits: BriefLimits = field(default_factory=BriefLimits)

    def __post_init__(self) -> None:
        if not isinstance(self.registry, WorkflowRegistry):
            raise UsageError(
                f"Application.registry must be a WorkflowRegistry, got {type(self.registry).__name__}"
            )
        locales = tuple(self.locales)
        if not locales or not all(isinstance(x, str) and x for x in locales):
            raise UsageError(
                f"Application.locales must be a non-empty tuple of locale tags, got {self.locales!r}"
            )
        if self.default_locale not in locales:
            raise UsageError(
                f"Application {self.name!r}: default_locale {self.default_locale!r} is not one "
                f"of its locales {locales}: add it to locales= or change default_locale="
            )
        self.registry.check_application(locales)
        if not isinstance(self.briefing_budget, BriefingBudget):
            raise UsageError(
                "Application.briefing_budget must be a BriefingBudget, got "
                f"{type(self.briefing_budget).__name__}"
            )
        if not isinstance(self.brief_limits, BriefLimits):
            raise UsageError(
                "Application.brief_limits must be a BriefLimits, got "
                f"{type(self.brief_limits).__name__}"
            )


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class NarrationConfig:
    """What the runtime says while a turn is read (docs/architecture.md "Budgets and records").

    Attributes:
        steps: each understanding step (``TurnStep``) also carries a sentence in the
            user's language for a preview; ``low`` effort drops it.
    """

    steps: bool = False
