"""The closed vocabulary understanding may choose from (I2).

See docs/architecture.md "One turn" step 3, "Understanding".

An :class:`OperationSpec` is what a workflow offers in a view; a model can only name
offered operation keys, handles in view and options of the card on screen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from turnframe.core.commands import CONSERVATIVE_POLICY, CommandPolicy
from turnframe.core.dataclass_init import fast_init

__all__ = ["ArgumentKind", "ArgumentSpec", "OperationSpec"]


class ArgumentKind(StrEnum):
    """How code evaluates an argument's words, in the turn's locale (docs/adr/0015-values-in-the-turns-locale.md).

    ``DATE`` gives a :class:`datetime.date`, ``INTEGER`` an ``int``, ``NUMBER`` a
    :class:`decimal.Decimal` and ``AMOUNT`` an :class:`~turnframe.core.workflow.Amount`
    (the locale's CLDR formats); ``TEXT`` and ``EMAIL`` keep the user's words;
    ``CHOICE`` one of the choices; ``RECORD`` a record.
    """

    TEXT = "text"
    DATE = "date"
    INTEGER = "integer"
    NUMBER = "number"
    AMOUNT = "amount"
    CHOICE = "choice"
    RECORD = "record"
    EMAIL = "email"
    PART = "part"
    """A part of the act's target record (an extra, a passenger, a line item), named by the
    user's words and resolved by the target's workflow (``find_parts``), never by an
    internal id the user cannot know (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md)."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ArgumentSpec:
    """One argument of an operation.

    Attributes:
        name: the key in ``SemanticAct.args``.
        kind: how code evaluates the words given for it.
        required: whether compilation needs it.
        choices: the allowed values for ``CHOICE`` arguments.
        record_workflow: for ``RECORD`` arguments, the workflow whose record it names.
        label: a short human label (per-language labels live in ``labels``).
        description: what the argument means, for understanding tasks.
        labels: per-locale labels.
        literals: words accepted besides a record for ``RECORD`` arguments (e.g. ``"company"``).
        names_record: on an operation that creates a case, the argument holding the name
            people call the new record by (an act waiting for a record so named completes
            when it is registered, ADR 0007).
    """

    name: str
    kind: ArgumentKind = ArgumentKind.TEXT
    required: bool = False
    choices: tuple[str, ...] = ()
    record_workflow: str | None = None
    label: str = ""
    description: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    literals: tuple[str, ...] = ()
    names_record: bool = False

    def label_in(self, locale: str) -> str:
        """Return the label for ``locale`` (then its language, then ``label``, then ``name``).

        Used inside code-written questions, so a pt-PT sentence never carries the English
        label (docs/adr/0013-cards-show-what-they-do.md).
        """
        return self.labels.get(locale) or self.labels.get(locale[:2]) or self.label or self.name


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class OperationSpec:
    """An operation a workflow registers, e.g. ``trip.add_extra``.

    Attributes:
        key: ``"<workflow>.<name>"``; the only way a model names the operation.
        workflow: the owning workflow.
        summary: a one-sentence summary (English).
        summaries: per-locale summaries (``summary_in``).
        arguments: the argument specs.
        creates_case: whether the operation brings a new case into existence.
        submission: whether it is a submission that a "do not submit" constraint blocks (ADR 0002).
        policy: the declared policy (risk class, confirmation, any explicit opt-out).
            ``WorkflowRegistry.register`` checks it (I17) and the runtime never applies a
            weaker one than it at run time; undeclared means unknown risk with a Confirm
            card (docs/adr/0013-cards-show-what-they-do.md).
    """

    key: str
    workflow: str
    summary: str
    arguments: tuple[ArgumentSpec, ...] = ()
    summaries: Mapping[str, str] = field(default_factory=dict)
    creates_case: bool = False
    submission: bool = False
    policy: CommandPolicy = CONSERVATIVE_POLICY

    def argument(self, name: str) -> ArgumentSpec | None:
        """Return the argument spec named ``name``, or ``None``."""
        for arg in self.arguments:
            if arg.name == name:
                return arg
        return None

    def summary_in(self, locale: str) -> str:
        """Return the summary for ``locale`` (falls back to the language, then English)."""
        return self.summaries.get(locale) or self.summaries.get(locale[:2]) or self.summary
