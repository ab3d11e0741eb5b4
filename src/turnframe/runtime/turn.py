"""Records of one turn: its result and the data that lets it resume (I20).

See docs/architecture.md "One turn", "Failures".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from turnframe.core.acts import SemanticAct, Understanding
from turnframe.core.dataclass_init import fast_init
from turnframe.core.events import DomainEvent, Receipt
from turnframe.core.ids import Actor, CaseRef, JSONObject
from turnframe.core.interactions import Interaction
from turnframe.core.ports import DirectoryEntry
from turnframe.core.reply import AnswerBlock, ReplyBlock
from turnframe.core.results import PlannedActResult
from turnframe.core.targets import TargetResolution
from turnframe.runtime.compose import AskNext
from turnframe.runtime.plan import CardClose, PlannedCard, WaitingAct
from turnframe.runtime.snapshots import TurnSnapshots
from turnframe.store.base import CaseRow, CommitRequest, CommitResult

__all__ = [
    "BatchRequest",
    "Committed",
    "Composed",
    "Compiled",
    "Loaded",
    "PersistedCards",
    "PreparedTurn",
    "QuestionRef",
    "Reprojected",
    "ResolvedAct",
    "TurnResult",
    "Understood",
]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class BatchRequest:
    """A planned commit with the acts it carries.

    Attributes:
        request: the atomic commit.
        act_ids: the acts it carries.
        typed: ``(state, typed state)`` when the policy step loaded the request's new
            state back (``request.state`` itself and what ``load_state`` gave for it),
            for re-projection to reuse for that very object; ``None`` otherwise.
    """

    request: CommitRequest
    act_ids: tuple[str, ...]
    typed: tuple[JSONObject, Any] | None = field(default=None, compare=False)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionRef:
    """A question with the cases it was resolved to.

    Attributes:
        id: the question id.
        topic: its topic.
        basis: its basis.
        cases: the cases it asks about (several allowed, ADR 0001 rule 5).
    """

    id: str
    topic: str
    basis: str
    cases: tuple[CaseRef, ...] = ()


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PreparedTurn:
    """Everything decided before the first commit; persisted with phase ``committing``.

    Recovery resumes from it without reducing again (docs/architecture.md "Failures"): commits
    replay by idempotency key, cards are created once, the reply is rebuilt from events.

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
        waiting: the acts waiting for a record, carried to the next reply (ADR 0007).
        reduction: the reducer's input and plan, for the replay record (a text turn's).
        seen: ``("workflow/case_id", revision)`` for every case the turn loaded, in
            first-load order (revision 0: the case did not exist yet), for the replay
            record only: what the turn saw beyond the snapshots the reducer read
            (``runtime.replay.recorded_seen``; docs/shadow.md "Outside the record").
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
    seen: tuple[tuple[str, int], ...] = ()


@fast_init
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


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Loaded:
    """The turn's context after loading and projecting.

    Attributes:
        standing_before: a standing "do not submit" held before this turn (ADR 0002).
        asked: what the last reply asked for (conversation state JSON), text turns only.
        waiting: acts waiting for a record, carried from earlier turns (ADR 0007).
        entries: the directory entries in view.
        handles: handle → case, for the records in view (I1).
        labels: case → the directory's label.
        snapshots: the turn's snapshot cache, which later steps extend (every case a
            step reads is loaded once, :class:`~turnframe.runtime.snapshots.TurnSnapshots`).
        cards: the conversation's open cards (on screen).
        unlisted: the words of the message that name more records than the brief may
            list (docs/adr/0020-what-a-brief-shows.md).
        records_cut: the default view was cut (the account holds more records than
            ``BriefLimits.recent``; ``Brief.records_cut``).
    """

    standing_before: bool
    asked: Any
    waiting: tuple[WaitingAct, ...]
    entries: Sequence[DirectoryEntry]
    handles: dict[str, CaseRef]
    labels: dict[CaseRef, str]
    snapshots: TurnSnapshots
    cards: tuple[Interaction, ...]
    unlisted: tuple[str, ...] = ()
    records_cut: bool = False


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ResolvedAct:
    """One act with its target resolved and its record arguments read (resolve step).

    Attributes:
        act: the act (completed with what the last reply asked for, when it answers it).
        resolution: its target's resolution (``None`` for an act with no operation).
        record_args: argument → case, named by a handle in view (or carried).
        bad_args: argument → why it names no record (``"unknown_handle"``, ``"closed"``).
    """

    act: SemanticAct
    resolution: TargetResolution | None
    record_args: dict[str, CaseRef]
    bad_args: dict[str, str]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Understood:
    """What understanding proposed (empty for a click-only turn).

    Attributes:
        understanding: the checked proposal (acts, questions, links, card answers).
        model_calls: model calls understanding made.
        calls: one record per model call (I20).
        reading: how understanding read the turn (effort, brief, steps, typed error).
    """

    understanding: Understanding = field(default_factory=Understanding)
    model_calls: int = 0
    calls: tuple[JSONObject, ...] = ()
    reading: JSONObject = field(default_factory=dict)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Compiled:
    """The commits to make and every act's result so far.

    Attributes:
        results: item id → its result (a rejected batch's acts rejected).
        batches: one atomic commit request per batch the domain accepted.
    """

    results: dict[str, PlannedActResult]
    batches: tuple[BatchRequest, ...]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Committed:
    """What the commit step did, with the results and notices it leaves for the reply.

    Attributes:
        prepared: the turn's plan; with the cards a lost card's acts would draw left out
            (docs/adr/0016-races-and-turn-ids.md).
        results: item id → its one result after the commits (I11).
        notices: the plan's notices plus the commit step's (code, sentence, item id).
        commits: commits this turn wrote (replayed ones of other turns left out).
        commands: (operation, case) of every command committed this turn, in order.
        events: every event the commits returned (replayed ones included).
        lost: cards another turn closed first, by id (their resolution is reported).
        rows: the rows this turn's commits wrote, by case (replayed commits left out):
            the later steps read them here, not again from the store.
        resumed: recovery is finishing a plan stored before (it was not written now).
    """

    prepared: PreparedTurn
    results: dict[str, PlannedActResult]
    notices: list[tuple[str, str, str | None]]
    commits: tuple[CommitResult, ...]
    commands: tuple[tuple[str, CaseRef], ...]
    events: tuple[DomainEvent, ...]
    lost: Mapping[str, Interaction]
    rows: Mapping[CaseRef, CaseRow] = field(default_factory=dict)
    resumed: bool = False


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PersistedCards:
    """The cards the turn persisted after its commits (I5, I6).

    Attributes:
        created: the cards now stored (an existing one on recovery), in plan order.
        results: item id → its result, carrying the card it waits on (or ``card_failed``).
        notices: the notices so far, with ``card_failed`` / ``card_replaced`` added.
    """

    created: tuple[Interaction, ...]
    results: dict[str, PlannedActResult]
    notices: list[tuple[str, str, str | None]]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Reprojected:
    """The turn's outcome re-read from the store after commit: what the reply is built from.

    Attributes:
        results: item id → its one result (a second click's original results added).
        notices: every notice the reply carries (code, sentence, item id).
        receipts: one receipt per committed event the workflow renders (I15).
        answers: one answer per question, on the state after commit.
        ask_next: the one thing to ask next, if any.
    """

    results: dict[str, PlannedActResult]
    notices: list[tuple[str, str, str | None]]
    receipts: tuple[Receipt, ...]
    answers: tuple[AnswerBlock, ...]
    ask_next: AskNext | None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Composed:
    """The reply as it will be persisted and returned.

    Attributes:
        blocks: the blocks the claim guard kept (I15), exactly as persisted.
        refused: the blocks the claim guard refused.
        record: the reply writer's record for the replay record (words, calls, guard;
            empty without a writer or for a click-only turn).
    """

    blocks: tuple[ReplyBlock, ...]
    refused: tuple[ReplyBlock, ...]
    record: dict[str, Any]
