"""What understanding proposes: semantic acts, questions, constraints (I9).

See docs/architecture.md "Understanding".

Everything here is a proposal and authorizes nothing. Values are the user's words
(strings); code evaluates them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from turnframe.core.dataclass_init import fast_init

__all__ = [
    "CardAnswer",
    "Constraint",
    "ConstraintKind",
    "ConstraintScope",
    "EvidenceSource",
    "Link",
    "ProposedTarget",
    "Question",
    "SemanticAct",
    "Understanding",
]


class EvidenceSource(StrEnum):
    """Where an act's words were found (ADR 0005: only ``USER`` grounds an act)."""

    USER = "user"
    RECORD = "record"
    ATTACHMENT = "attachment"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ProposedTarget:
    """Which record an act or question is about, as understanding proposes it.

    Exactly one of the three shapes is meaningful: ``handles`` (opaque per-turn
    handles in view), ``find`` (words naming a record not in view) or ``new``.

    Attributes:
        handles: the handles the mention could mean; more than one is an ambiguity.
        mention: the user's words for the record, for labels and logs only.
        find: words to look a record up with ``CaseDirectory.find``.
        new: the act creates a new case.
    """

    handles: tuple[str, ...] = ()
    mention: str | None = None
    find: str | None = None
    new: bool = False


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class SemanticAct:
    """One thing the user appears to want, in the vocabulary of the active workflows.

    Attributes:
        id: unique within the turn (``a1``); results are keyed by it (I11).
        operation: an offered operation key, or ``None`` for a pure cancellation
            ("actually leave it as it was") whose only content is a ``Link``.
        target: the proposed target.
        args: argument name → the user's words (or a handle for record arguments).
        evidence: argument name → the words each value copies.
        evidence_source: where the words were found (ADR 0005).
        hypothetical: a question about what would happen; never becomes an action.
    """

    id: str
    operation: str | None
    target: ProposedTarget = field(default_factory=ProposedTarget)
    args: Mapping[str, str] = field(default_factory=dict)
    evidence: Mapping[str, str] = field(default_factory=dict)
    evidence_source: EvidenceSource = EvidenceSource.USER
    hypothetical: bool = False


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Question:
    """A read-only question framed on its record and topic.

    Attributes:
        id: unique within the turn.
        topic: a knowledge topic, e.g. ``"baggage_allowance"``.
        target: the record(s) asked about; several candidates are allowed (ADR 0001 rule 5).
        basis: what the answer is given on (``"current_state"`` or ``"hypothetical"``).
    """

    id: str
    topic: str
    target: ProposedTarget | None = None
    basis: str = "current_state"


class ConstraintKind(StrEnum):
    """The constraints the reducer knows (ADR 0002)."""

    DO_NOT_SUBMIT = "do_not_submit"
    ALLOW_SUBMIT = "allow_submit"


class ConstraintScope(StrEnum):
    """How long a constraint lasts (ADR 0002)."""

    TURN = "turn"
    STANDING = "standing"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Constraint:
    """A constraint on the turn or the conversation, e.g. "don't submit yet".

    Attributes:
        id: unique within the turn.
        kind: ``do_not_submit`` blocks submissions; ``allow_submit`` lifts a standing one.
        scope: ``turn`` unless the user's words scope it further (ADR 0002).
    """

    id: str
    kind: ConstraintKind
    scope: ConstraintScope = ConstraintScope.TURN


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CardAnswer:
    """An answer to a card inferred from text; binds more weakly than a click (ADR 0006).

    Attributes:
        id: unique within the turn.
        interaction: the interaction id of a card on screen.
        option: one of that card's option ids.
    """

    id: str
    interaction: str
    option: str


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Link:
    """A relation understanding drew between two acts of the turn.

    See docs/architecture.md "Reduction".

    Attributes:
        act: the later act.
        corrects: the act it corrects (superseded by it), if any.
        cancels: the act it cancels, if any.
    """

    act: str
    corrects: str | None = None
    cancels: str | None = None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Understanding:
    """The whole proposal for one turn.

    Attributes:
        acts: semantic acts.
        questions: read-only questions.
        constraints: constraints.
        card_answers: answers to cards inferred from text.
        links: corrections and cancellations.
        notices: codes of units that could not be read (reach the user as notices).
    """

    acts: tuple[SemanticAct, ...] = ()
    questions: tuple[Question, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    card_answers: tuple[CardAnswer, ...] = ()
    links: tuple[Link, ...] = ()
    notices: tuple[str, ...] = ()

    def item_ids(self) -> tuple[str, ...]:
        """Return the ids of every act, question and card answer, in order."""
        return (
            tuple(a.id for a in self.acts)
            + tuple(q.id for q in self.questions)
            + tuple(c.id for c in self.card_answers)
        )
