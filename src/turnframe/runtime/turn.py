"""Records of one turn: its result and the data that lets it resume (guide §2, §14, I20)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from turnframe.core.acts import Understanding
from turnframe.core.events import DomainEvent
from turnframe.core.ids import Actor, CaseRef, JSONObject
from turnframe.core.interactions import Interaction
from turnframe.core.reply import ReplyBlock
from turnframe.core.results import PlannedActResult
from turnframe.runtime.plan import CardClose, PlannedCard, WaitingAct
from turnframe.store.base import CommitRequest, CommitResult

__all__ = ["BatchRequest", "PreparedTurn", "QuestionRef", "TurnResult"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BatchRequest:
    """A planned commit with the acts it carries.

    Attributes:
        request: the atomic commit.
        act_ids: the acts it carries.
    """

    request: CommitRequest
    act_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionRef:
    """A question with the cases it was resolved to.

    Attributes:
        id: the question id.
        topic: its topic.
        basis: its basis.
        cases: the cases it asks about (several allowed, ADR rule 9).
    """

    id: str
    topic: str
    basis: str
    cases: tuple[CaseRef, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class PreparedTurn:
    """Everything decided before the first commit; persisted with phase ``committing``.

    Recovery resumes from it without reducing again (guide §14): commits replay by
    idempotency key, cards are created once, the reply is rebuilt from events.

    Attributes:
        turn_id: the turn.
        conversation_id: the conversation.
        actor: who acts.
        today: the turn's today.
        locale: the reply's locale.
        results: the planned results.
        batches: the commits.
        closes: cards to close without a command.
        cards: cards to persist after the commits.
        card_ids: the ids minted for ``cards``, in order.
        notices: notices (code, sentence, item id).
        standing: the new standing constraint, ``None`` if unchanged.
        standing_active: a standing "do not submit" holds after this turn.
        questions: questions with their cases.
        focus: the turn's record (for the one thing to ask next).
        replayed_click: the original results of a card clicked again.
        replayed_status: that card's status, choosing the notice the reply carries.
        clicked: the card the turn's click answers, if any (a lost compare-and-set on it
            reports the card's actual resolution; docs/adr/0016-races-and-turn-ids.md).
        model_calls: model calls understanding made.
        ambiguous: ambiguity count (metric).
        understanding: the proposal understanding returned.
        calls: one record per model call (prompt, model, tokens, latency, verdict; I20).
        reading: how understanding read the turn (effort, brief, steps, typed error).
        has_text: the turn carried text (only then are the reply's words written).
        effort: the effort the turn forced, if any (the reply writer's default otherwise).
        record_args: act id → its record arguments resolved to cases (so an act the reply
            asks a value for can be completed by the next message).
        waiting: the acts waiting for a record, carried to the next reply (D6).
        reduction: the reducer's input and plan, for the replay record (a text turn's).
    """

    turn_id: str
    conversation_id: str
    actor: Actor
    today: date
    locale: str
    results: tuple[PlannedActResult, ...]
    batches: tuple[BatchRequest, ...] = ()
    closes: tuple[CardClose, ...] = ()
    cards: tuple[PlannedCard, ...] = ()
    card_ids: tuple[str, ...] = ()
    notices: tuple[tuple[str, str, str | None], ...] = ()
    standing: bool | None = None
    standing_active: bool = False
    questions: tuple[QuestionRef, ...] = ()
    focus: CaseRef | None = None
    replayed_click: Mapping[str, str] | None = None
    replayed_status: str | None = None
    clicked: str | None = None
    model_calls: int = 0
    ambiguous: int = 0
    understanding: Understanding = field(default_factory=Understanding)
    calls: tuple[JSONObject, ...] = ()
    reading: JSONObject = field(default_factory=dict)
    has_text: bool = False
    effort: str | None = None
    record_args: Mapping[str, Mapping[str, CaseRef]] = field(default_factory=dict)
    waiting: tuple[WaitingAct, ...] = ()
    reduction: JSONObject = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnResult:
    """What a turn did.

    Attributes:
        turn_id: the turn.
        conversation_id: the conversation.
        blocks: the reply, as persisted.
        results: item id → its one result (I11).
        commits: commits this turn wrote (replayed ones left out).
        events: the events those commits wrote.
        interactions_created: cards persisted this turn.
        model_calls: model calls understanding made (0 for a click-only turn).
        refused_blocks: blocks the claim guard refused (I15).
        handles: the per-turn handle table (server-side only).
        commands: (operation, case) of every command committed this turn, in order.
        reply_calls: model calls the reply's words took (after commit; 0 without a writer).
    """

    turn_id: str
    conversation_id: str
    blocks: tuple[ReplyBlock, ...]
    results: Mapping[str, PlannedActResult]
    commits: tuple[CommitResult, ...] = ()
    events: tuple[DomainEvent, ...] = ()
    interactions_created: tuple[Interaction, ...] = ()
    model_calls: int = 0
    refused_blocks: tuple[ReplyBlock, ...] = ()
    handles: Mapping[str, CaseRef] = field(default_factory=dict)
    commands: tuple[tuple[str, CaseRef], ...] = ()
    reply_calls: int = 0
