"""The turn inspector's shapes: one turn as the framework saw it (docs/inspector.md).

Pydantic models, so the HTTP API's OpenAPI document is generated from them
(``GET /v1/turns/{turn_id}/inspection`` → :class:`InspectionView`,
``POST /v1/turns/{turn_id}/replay`` → :class:`ReplayView`). Every field carries its
description. Built by :mod:`turnframe.runtime.inspection` from the stored records only.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from turnframe.runtime.inspection_trace import ModelView, ReductionView, View

__all__ = [
    "ActView",
    "CardShown",
    "ClickView",
    "CommandView",
    "EventView",
    "EvidenceSpan",
    "InspectionView",
    "JournalView",
    "MessageView",
    "NoticeView",
    "QuestionView",
    "ReceiptView",
    "ResolutionView",
    "ResultView",
    "CandidateView",
]


class EvidenceSpan(View):
    """Where an act's words stand in the message: ``text[start:end]`` (docs/inspector.md).

    ``start``/``end`` are character offsets into :attr:`MessageView.text` (Python string
    indices, i.e. code points; ``end`` exclusive); both ``None`` when the words were not
    found in the message (``match`` is then ``"absent"``).
    """

    act: str
    """The act whose words these are (``a1``)."""
    argument: str
    """The argument the words give, or ``"target"`` for the words naming the record."""
    words: str
    """The words as the act records them (``SemanticAct.evidence`` or the target's mention)."""
    start: int | None = None
    """First character of the span in the message, or ``None`` when not found."""
    end: int | None = None
    """One past the last character of the span, or ``None`` when not found."""
    text: str | None = None
    """The message's own characters at the span (``text[start:end]``)."""
    match: Literal["pointer", "exact", "loose", "absent"]
    """How the span was found: the model's word pointer (``pointer``), the words verbatim
    (``exact``), the words up to case, accents and edge punctuation (``loose``), or not at
    all (``absent``)."""
    source: Literal["evidence", "value", "target"] = "evidence"
    """Where the words come from: the act's recorded evidence, the argument's value (the
    act records no evidence for it; shown only when the message has it), or the words the
    act's target was named by (``ProposedTarget.mention``, else ``find``)."""


class MessageView(View):
    """The message the turn read, and every act's words located in it."""

    text: str | None = None
    """The user's message exactly as received (``None`` for a click-only turn)."""
    locale: str = "en"
    """The turn's locale."""
    evidence: list[EvidenceSpan] = Field(default_factory=list)
    """Every act's evidence words, in act order, located in ``text``."""


class ClickView(View):
    """The card a click answered and the option it chose."""

    interaction_id: str
    """The card's id as the client sent it."""
    option_id: str
    """The option clicked."""
    expected_revision: int | None = None
    """The revision the client said the card was shown against."""
    value: str | None = None
    """A free value sent with the option, if any."""
    found: bool = False
    """Whether the card was one of this conversation's (a foreign or unknown id is not)."""
    interaction_kind: str | None = None
    """The card's kind (``select_target``, ``confirm``...), when found."""
    prompt: str | None = None
    """The card's server-written question, when found."""
    option_label: str | None = None
    """The chosen option's label, when the card holds it."""
    case: str | None = None
    """The case the card is bound to (``workflow/case_id``), if any."""
    case_revision: int | None = None
    """The case's revision when the click was reduced."""
    status: str | None = None
    """The card's status now (``open``, ``resolved``, ``stale``...)."""
    card_turn_id: str | None = None
    """The turn that showed the card: its message holds the resumed acts' words."""


class CandidateView(View):
    """One record a mention could mean."""

    case: str
    """The case (``workflow/case_id``)."""
    label: str
    """The workflow's label telling it apart."""


class ResolutionView(View):
    """How the act's target was resolved (``TargetResolution``; docs/architecture.md "One turn")."""

    handles: list[str] = Field(default_factory=list)
    """The per-turn handles understanding proposed."""
    mention: str | None = None
    """The user's words for the record."""
    find: str | None = None
    """Words the directory was asked to find the record by."""
    new: bool = False
    """The act creates a new case."""
    status: str | None = None
    """``exact``, ``ambiguous``, ``not_found`` or ``unauthorized``; ``None``: not resolved."""
    case: str | None = None
    """The case an exact resolution names."""
    candidates: list[CandidateView] = Field(default_factory=list)
    """The candidates of an ambiguous resolution (a selection card asks)."""
    reason: str | None = None
    """Why nothing was found (``no_match``, ``no_fit``...)."""
    record_args: dict[str, str] = Field(default_factory=dict)
    """Record arguments resolved to cases (argument → ``workflow/case_id``)."""
    bad_args: dict[str, str] = Field(default_factory=dict)
    """Arguments whose value could not be read, and why."""


class ResultView(View):
    """The act's one result (``PlannedActResult``, I11)."""

    status: str
    """``committed``, ``awaiting_confirmation``, ``needs_clarification``, ``rejected``..."""
    label: str
    """The result as scenarios spell it (``rejected:<code>`` for a rejection)."""
    code: str | None = None
    """A stable reason code."""
    sentence: str | None = None
    """The sentence said for a refusal or a question to ask."""
    operation: str | None = None
    """The act's operation."""
    case: str | None = None
    """The resolved case."""
    interaction_id: str | None = None
    """The card it waits on."""
    asks: str | None = None
    """The argument or obligation it waits for."""


class JournalView(View):
    """The command journal's row for an idempotency key (``TurnStore.lookup_command``)."""

    revision: int
    """The case revision the commit produced."""
    event_ids: list[str] = Field(default_factory=list)
    """The events the commit wrote."""
    outbox_ids: list[str] = Field(default_factory=list)
    """The outbox messages it enqueued."""


class CommandView(View):
    """A command envelope as planned (``CommandEnvelope``; I4, I12, I13)."""

    operation: str
    """The command's operation."""
    case: str
    """The case it applies to."""
    arguments: Any = None
    """The command's arguments (``to_json()``)."""
    origin: Any = None
    """The server-issued origin (``direct_user_act``, ``confirmed_interaction``...)."""
    expected_revision: int
    """The case revision it was planned against."""
    idempotency_key: str
    """Its journal key (derived from the turn's stable inputs)."""
    risk: str | None = None
    """The command policy's risk class."""
    batch_key: str
    """The key of the commit it went into (the first envelope's key of its batch)."""
    journal: JournalView | None = None
    """The journal row under ``batch_key``, ``None`` when nothing was journaled."""


class EventView(View):
    """A committed event (the claim ledger, I15)."""

    id: str
    """The event's id."""
    case: str
    """Its case."""
    revision: int
    """The case revision its commit produced."""
    type: str
    """The event type."""
    operation: str
    """The operation that produced it."""
    data: Any = None
    """Its payload."""
    turn_id: str = ""
    """The turn that committed it."""
    idempotency_key: str = ""
    """The journal key of its commit."""


class ReceiptView(View):
    """A receipt block of the reply, with the committed events it cites."""

    text: str
    """The receipt's sentence."""
    operation: str
    """The operation it reports."""
    case: str
    """The case."""
    event_ids: list[str] = Field(default_factory=list)
    """The events it cites (never empty in a valid reply)."""


class ActView(View):
    """One act's chain: words → target resolution → result → commands → events → receipts."""

    id: str
    """The act's id (``a1``; a click's resumed act keeps its own)."""
    source: Literal["message", "click", "waiting"] = "message"
    """Where the act comes from: this message, the clicked card, or a carried act."""
    operation: str | None = None
    """Its operation (``None``: a pure cancellation)."""
    summary: str | None = None
    """The operation's summary in the turn's locale (``OperationSpec.summary_in``), when
    the application still registers it."""
    args: dict[str, str] = Field(default_factory=dict)
    """Argument → the value read."""
    evidence: list[EvidenceSpan] = Field(default_factory=list)
    """Its words, located in the message."""
    evidence_source: str = "user"
    """Where the words were found (only ``user`` grounds an act, ADR 0005)."""
    hypothetical: bool = False
    """A question about what would happen; never an action."""
    resolution: ResolutionView | None = None
    """Its target resolution, ``None`` when not recorded."""
    result: ResultView | None = None
    """Its result, ``None`` when not recorded."""
    commands: list[CommandView] = Field(default_factory=list)
    """The command envelopes planned for it."""
    events: list[EventView] = Field(default_factory=list)
    """The committed events of its commands."""
    receipts: list[ReceiptView] = Field(default_factory=list)
    """The reply's receipts citing those events."""


class QuestionView(View):
    """A read-only question and its result."""

    id: str
    """The question's id."""
    topic: str
    """Its knowledge topic."""
    basis: str = "current_state"
    """What it is answered on."""
    result: ResultView | None = None
    """Its result."""
    answer: str | None = None
    """The answer block's words, if the reply has one."""


class NoticeView(View):
    """A notice the reply carried, and why."""

    code: str
    """Its stable code."""
    text: str
    """Its sentence."""
    item_id: str | None = None
    """The act or question it concerns."""
    why: str | None = None
    """What the records say caused it (a reading error, a result's reason), if known."""


class CardShown(View):
    """A card the reply showed."""

    interaction_id: str
    """The persisted card's id."""
    interaction_kind: str
    """Its kind."""
    prompt: str
    """Its question."""
    options: list[dict[str, str]] = Field(default_factory=list)
    """Its options (``id``, ``label``)."""
    expected_revision: int | None = None
    """The revision a click sends back."""


class InspectionView(View):
    """One turn as the framework saw it (docs/inspector.md): ``GET /v1/turns/{id}/inspection``."""

    turn_id: str
    """The turn's id as asked for."""
    conversation_id: str
    """Its conversation."""
    seq: int = 0
    """Its position in the conversation (1-based)."""
    phase: str
    """The persisted phase (``received``, ``committing``, ``replied``)."""
    kind: Literal["text", "click", "text_and_click", "empty"]
    """What the input carried."""
    message: MessageView
    """The message and the acts' words in it."""
    click: ClickView | None = None
    """The card the click answered, for a click turn."""
    acts: list[ActView] = Field(default_factory=list)
    """Each act's chain, in order (the message's acts, then a click's resumed acts)."""
    questions: list[QuestionView] = Field(default_factory=list)
    """The read-only questions."""
    notices: list[NoticeView] = Field(default_factory=list)
    """The reply's notices and why."""
    cards: list[CardShown] = Field(default_factory=list)
    """The cards the reply showed."""
    blocks: list[dict[str, Any]] = Field(default_factory=list)
    """The reply's blocks exactly as stored (JSON)."""
    model: ModelView = Field(default_factory=ModelView)
    """The model calls and the reading trace (empty for a click)."""
    reduction: ReductionView = Field(default_factory=ReductionView)
    """The reduction record."""
    notes: list[str] = Field(default_factory=list)
    """What the records did not hold (an old or partial record), one sentence each."""
