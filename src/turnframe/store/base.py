"""The persistence protocol every Turnframe store implements (docs/architecture.md "Stores").

One :class:`TurnStore` holds conversations and their reply blocks, turns with their
persisted phase, interactions with compare-and-set resolution, case state with a
revision, the command journal keyed by idempotency key with a request hash, the event
journal (the claim ledger), the outbox and replay records.

:meth:`TurnStore.commit` is the one atomic write: revision check, state, events, journal
row, interaction resolution, withdrawn cards and outbox rows in one transaction
(I12–I16, ADR 0012). Prove an implementation with :class:`turnframe.store.conformance.StoreConformance`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from turnframe.core.dataclass_init import fast_init
from turnframe.core.events import DomainEvent, EventDraft, OutboxMessage
from turnframe.core.ids import CaseRef, JSONObject
from turnframe.core.interactions import Interaction, InteractionResolution, InteractionStatus
from turnframe.core.reply import ReplyBlock
from turnframe.core.workflow import OutboxDraft
from turnframe.store.errors import (
    IdempotencyKeyReused,
    InteractionAlreadyResolved,
    RevisionConflict,
)

if TYPE_CHECKING:
    from turnframe.store.search import CasePage

__all__ = [
    "BOUNDARIES",
    "CaseRow",
    "CommitRequest",
    "CommitResult",
    "InteractionCas",
    "CommitRefusal",
    "JSONText",
    "JournalEntry",
    "PlanCommit",
    "PlanOutcome",
    "TurnRecord",
    "TurnReply",
    "TurnStore",
    "with_stored_text",
]


class JSONText(str):
    """The JSON text of one value, encoded once by whoever built the value.

    A :class:`str` holding what :func:`turnframe.store.codec.dumps_record` would write for
    the value, which is JSON with string keys (``JSONObject``): it decodes to the same
    JSON. ``dumps_record`` returns it as it is (a store that keeps text writes that);
    :func:`~turnframe.store.codec.record_value` and ``record_copy`` decode it (a store
    that keeps values). The runtime hands the turn's plan over this way
    (:attr:`PlanCommit.plan`), so it is encoded once, in one pass.
    """

    __slots__ = ()


BOUNDARIES: tuple[str, ...] = (
    "begin_turn",
    "set_turn_phase",
    "create_interaction",
    "close_interaction",
    "commit",
    "commit.ack_lost",
    "save_reply",
    "save_replay",
    "put_conversation_state",
)
"""The named boundaries a fault can be injected at (``commit.ack_lost``: the commit is
performed, then its acknowledgement is lost).

The folded writes cross the boundaries of the writes they fold, all before their one
transaction (so a fault there writes nothing of it): :meth:`TurnStore.commit_plan`
crosses ``set_turn_phase`` (when it stores a plan), ``save_replay`` (when it stores a
replay record), ``commit`` per request and ``close_interaction`` per close, then
``commit.ack_lost`` per request after it; :meth:`TurnStore.finish_turn` crosses
``put_conversation_state`` (when it carries a state), ``save_reply``, ``save_replay``
and ``set_turn_phase`` (docs/adr/0024-four-writes-per-turn.md)."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CaseRow:
    """A stored case.

    Attributes:
        case: the case.
        account: the owning account.
        state: the JSON state.
        revision: the revision (≥ 1 once created).
        workflow_version: the version of the workflow whose commit wrote ``state``
            (:attr:`CommitRequest.workflow_version`); ``None`` for a row written
            without one (a database from before versions, an adopter's row)
            (docs/guides/canary-and-rollback.md "What a case remembers").
        state_text: the stored JSON text ``state`` was decoded from, when the store
            read one (``None`` otherwise). The runtime's snapshot memo compares it
            instead of fingerprinting ``state`` (docs/adr/0020-what-a-brief-shows.md rule
            8). Not a constructor argument and not part of the row's equality: a store
            sets it with :func:`with_stored_text` on the row it just decoded, and a row
            made from another (``dataclasses.replace``, a changed ``state``) has none, so
            it can never vouch for a state it was not read with.
    """

    case: CaseRef
    account: str
    state: JSONObject
    revision: int
    workflow_version: str | None = None
    state_text: str | None = field(default=None, init=False, compare=False, repr=False)


def with_stored_text(row: CaseRow, text: str) -> CaseRow:
    """Return ``row`` (just built by a store) carrying ``text``, the text ``row.state`` was decoded from.

    Sets :attr:`CaseRow.state_text` on the new row in place, before anyone else holds
    it; ``text`` must be exactly the stored text its ``state`` came from.
    """
    object.__setattr__(row, "state_text", text)
    return row


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnRecord:
    """A turn as persisted (docs/architecture.md "Failures": the phase drives crash recovery).

    Attributes:
        turn_id: server-minted id.
        account: owning account.
        conversation_id: owning conversation.
        seq: 1-based position in the conversation (assigned by ``begin_turn``).
        phase: the persisted phase (a ``TurnPhase`` value).
        input: the turn input as JSON.
        data: phase data (the plan while committing, results once committed).
        attempts: how many times recovery took the turn over.
    """

    turn_id: str
    account: str
    conversation_id: str
    seq: int = 0
    phase: str = "received"
    input: JSONObject = field(default_factory=dict)
    data: JSONObject = field(default_factory=dict)
    attempts: int = 0


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class InteractionCas:
    """A compare-and-set on a card inside a commit: open → ``status`` (I16).

    Attributes:
        interaction_id: the card.
        status: the new status.
        resolution: the resolution to store.
    """

    interaction_id: str
    status: InteractionStatus
    resolution: InteractionResolution


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CommitRequest:
    """One atomic commit to one case.

    Attributes:
        account: the account the case belongs to (checked on update, set on create).
        case: the case.
        expected_revision: the revision the batch was planned against (0: create).
        state: the new JSON state.
        events: events to append (at least one).
        outbox: external effects to enqueue.
        idempotency_key: the journal key (I13).
        request_hash: the hash of the request; same key with another hash is an error.
        turn_id: the committing turn.
        operations: the operations of the batch, for the journal.
        interaction: a card to resolve in the same transaction, if any.
        withdraw: cards to close in the same transaction when they are still open
            (status ``withdrawn``: a later turn cancelled or corrected an act they
            carry, ADR 0012). A card no longer open is left as it is and does not
            fail the commit; read it back to learn its resolution.
        search_text: the words the case may be found by after this commit (its
            workflow's ``search_text`` of ``state``); the store indexes them in the
            same transaction (:mod:`turnframe.store.search`). ``None``: not known to
            the committer; the case is then left out of :meth:`TurnStore.find_cases`
            and listed by :meth:`TurnStore.unindexed_cases` until
            :meth:`TurnStore.index_case` indexes it.
        workflow_version: the version of the workflow that made ``state`` (the turn's
            live version); the store keeps it on the case row, replacing the previous
            one (``None``: not known; stored as ``None``).
    """

    account: str
    case: CaseRef
    expected_revision: int
    state: JSONObject
    events: tuple[EventDraft, ...]
    idempotency_key: str
    request_hash: str
    turn_id: str
    operations: tuple[str, ...] = ()
    outbox: tuple[OutboxDraft, ...] = ()
    interaction: InteractionCas | None = None
    withdraw: tuple[InteractionCas, ...] = ()
    search_text: str | None = None
    workflow_version: str | None = None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CommitResult:
    """What a commit wrote, or what the first commit under the same key wrote.

    Attributes:
        case: the case.
        revision: the case revision after the commit.
        events: the committed events with their ids.
        outbox_ids: the ids of the enqueued outbox messages.
        replayed: ``True`` when the key was already journaled and nothing was written.
    """

    case: CaseRef
    revision: int
    events: tuple[DomainEvent, ...]
    outbox_ids: tuple[str, ...] = ()
    replayed: bool = False


CommitRefusal = RevisionConflict | InteractionAlreadyResolved | IdempotencyKeyReused
"""The refusals of one commit inside :meth:`TurnStore.commit_plan`, returned as values."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PlanCommit:
    """A turn's committing write: its plan and every commit of it, in one transaction.

    docs/adr/0024-four-writes-per-turn.md; the recovery point ``committing``.

    Attributes:
        turn_id: the committing turn (it must exist).
        account: the turn's account (the replay record is stored under it).
        plan: the plan, stored as the turn's data with phase ``committing``: a JSON
            object, or its :class:`JSONText` (what the runtime hands over;
            :func:`~turnframe.store.codec.dumps_record` gives its text,
            :func:`~turnframe.store.codec.record_value` its object); ``None`` leaves the
            turn row as it is (recovery resuming a stored plan).
        replay: the first part of the turn's replay record (what it read and decided),
            stored once; ``None`` writes none.
        requests: the commits, in order. Each is atomic on its own inside the
            transaction (a savepoint): a refused one leaves the others.
        closes: cards to compare-and-set after the commits (open → status).
    """

    turn_id: str
    account: str
    plan: JSONObject | JSONText | None = None
    replay: JSONObject | None = None
    requests: tuple[CommitRequest, ...] = ()
    closes: tuple[InteractionCas, ...] = ()


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PlanOutcome:
    """What :meth:`TurnStore.commit_plan` did.

    Attributes:
        commits: per request, in order: its :class:`CommitResult` (``replayed`` when its
            key was journaled already), or the :data:`CommitRefusal` that refused it.
        closed: per close, in order: whether this write closed the card.
    """

    commits: tuple[CommitResult | CommitRefusal, ...] = ()
    closed: tuple[bool, ...] = ()


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnReply:
    """A turn's last write: phase ``replied`` with everything the reply leaves behind.

    docs/adr/0024-four-writes-per-turn.md; the recovery point ``replied``.

    Attributes:
        turn_id: the turn (it must exist).
        account: its account.
        conversation_id: its conversation.
        blocks: the reply, persisted exactly as returned.
        data: the turn's data once replied (its results); replaces the plan.
        replay: the rest of the replay record (what the turn did), merged over the part
            :class:`PlanCommit` stored; ``None`` writes none.
        conversation_state: the conversation's new state, or ``None`` to leave it.
    """

    turn_id: str
    account: str
    conversation_id: str
    blocks: tuple[ReplyBlock, ...]
    data: JSONObject
    replay: JSONObject | None = None
    conversation_state: JSONObject | None = None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class JournalEntry:
    """A command journal row.

    Attributes:
        account: the account.
        idempotency_key: the key.
        request_hash: the request's hash.
        result: the original outcome.
    """

    account: str
    idempotency_key: str
    request_hash: str
    result: CommitResult


class TurnStore(Protocol):
    """Everything the runtime persists. All methods are async and account-scoped.

    Errors: implementations raise only :mod:`turnframe.store.errors` types (a driver's
    exception is translated at the boundary; an unreachable database is
    ``StoreUnavailable``).
    """

    # conversations ---------------------------------------------------------------
    async def get_conversation_state(self, account: str, conversation_id: str) -> JSONObject:
        """Return the conversation's JSON state (standing constraints…); ``{}`` when new."""
        ...

    async def put_conversation_state(
        self, account: str, conversation_id: str, state: JSONObject
    ) -> None:
        """Replace the conversation's JSON state."""
        ...

    # turns --------------------------------------------------------------------------
    async def begin_turn(self, record: TurnRecord) -> TurnRecord:
        """Persist a new turn and return it with its ``seq`` assigned.

        Raises:
            TurnIdTaken: some turn (of any account) already has ``record.turn_id``;
                nothing was written (docs/adr/0016-races-and-turn-ids.md).
        """
        ...

    async def set_turn_phase(
        self, turn_id: str, phase: str, data: JSONObject | None = None
    ) -> None:
        """Record the turn's phase (and replace its data when given)."""
        ...

    async def get_turn(self, account: str, turn_id: str) -> TurnRecord | None:
        """Return the turn, or ``None`` (also for another account's turn)."""
        ...

    async def unfinished_turns(self, account: str | None = None) -> Sequence[TurnRecord]:
        """Return turns not yet ``replied``, oldest first."""
        ...

    async def save_reply(self, turn_id: str, blocks: Sequence[ReplyBlock]) -> None:
        """Persist the reply's blocks exactly as returned."""
        ...

    async def load_reply(self, account: str, turn_id: str) -> tuple[ReplyBlock, ...] | None:
        """Return the persisted blocks, or ``None``."""
        ...

    async def conversation_replies(
        self, account: str, conversation_id: str
    ) -> Sequence[tuple[str, tuple[ReplyBlock, ...]]]:
        """Return (turn id, blocks) for every replied turn of the conversation, in order."""
        ...

    # interactions -----------------------------------------------------------------
    async def create_interaction(self, interaction: Interaction) -> Interaction:
        """Persist an open card and return it with ``seq`` assigned.

        A card with a case displaces (status ``superseded``) any other open card on the
        same case in the same transaction: one blocking interaction per case (I5).
        """
        ...

    async def get_interaction(
        self, account: str, conversation_id: str, interaction_id: str
    ) -> Interaction | None:
        """Return the card, or ``None`` when missing or foreign (indistinguishable, I16)."""
        ...

    async def open_interactions(self, account: str, conversation_id: str) -> Sequence[Interaction]:
        """Return the conversation's open cards, oldest first."""
        ...

    async def close_interaction(self, cas: InteractionCas) -> bool:
        """Compare-and-set an open card to ``cas.status``; ``False`` when it was not open."""
        ...

    # cases and the atomic commit ---------------------------------------------------
    async def load_case(self, case: CaseRef) -> CaseRow | None:
        """Return the stored case, or ``None`` when nobody created it (revision 0)."""
        ...

    async def list_cases(self, account: str) -> Sequence[CaseRow]:
        """Return the account's cases in creation order (all of them: prefer a page)."""
        ...

    # paged listing and the word-search index (turnframe.store.search) -------------------
    async def list_cases_page(
        self,
        account: str,
        *,
        workflow: str | None = None,
        cases: Collection[CaseRef] | None = None,
        limit: int = 100,
        after: str | None = None,
        recent: bool = False,
    ) -> CasePage:
        """Return one page of the account's cases in creation order, filtered in storage.

        Args:
            account: the owning account (another account's case never appears).
            workflow: only this workflow's cases.
            cases: only these cases (an unknown or foreign id is left out).
            limit: the page size, ``1..MAX_PAGE``.
            after: a previous page's ``cursor``.
            recent: only the ``limit`` cases a commit wrote most recently (still in
                creation order; ``more`` when cases changed earlier exist), one seek of
                the store's change index (:mod:`turnframe.store.search`); takes no
                ``workflow``, ``cases`` or ``after``.

        Raises:
            BadPageRequest: ``limit`` or ``after`` is malformed, or ``recent`` is
                combined with a filter or a cursor.
        """
        ...

    async def find_cases(
        self,
        account: str,
        words: str,
        *,
        workflow: str | None = None,
        limit: int = 100,
        after: str | None = None,
    ) -> CasePage:
        """Return one page of the indexed cases whose search text holds every word.

        The rule of :mod:`turnframe.store.search` (lower-cased substrings; no words: an
        empty page), answered from the index: no case outside the answer is decoded.

        Raises:
            BadPageRequest: ``limit`` or ``after`` is malformed.
        """
        ...

    async def find_cases_each(
        self, account: str, mentions: Sequence[str], *, limit: int = 100
    ) -> tuple[CasePage, ...]:
        """Return, for each mention, the first page ``find_cases(account, mention, limit=limit)`` returns.

        The same answers in as few statements as the store can (SQL stores: one that
        counts every mention's keys, one that seeks them all), so a brief's word lookups
        cost two reads whatever the length of the message
        (docs/adr/0020-what-a-brief-shows.md).

        Raises:
            BadPageRequest: ``limit`` is malformed.
        """
        ...

    async def unindexed_cases(self, account: str, *, limit: int = 100) -> Sequence[CaseRow]:
        """Return up to ``limit`` of the account's cases with no search text, oldest first.

        Those are the cases committed with ``search_text=None`` and, after an upgrade,
        the cases stored before the index existed.

        Raises:
            BadPageRequest: ``limit`` is not in ``1..MAX_PAGE``.
        """
        ...

    async def index_case(self, case: CaseRef, revision: int, search_text: str) -> bool:
        """Index ``search_text`` for the case if it is still at ``revision``.

        Returns:
            ``True`` when indexed; ``False`` when the case is missing or has moved on
            (its newer commit carries its own search text, or none).
        """
        ...

    async def commit(self, request: CommitRequest) -> CommitResult:
        """Commit one batch atomically (I12–I16).

        Raises:
            RevisionConflict: the case's revision is not ``expected_revision``.
            IdempotencyKeyReused: the key was journaled with another request hash.
            InteractionAlreadyResolved: ``request.interaction`` was not open.
        """
        ...

    async def lookup_command(self, account: str, idempotency_key: str) -> JournalEntry | None:
        """Return the journal row for the key, or ``None``."""
        ...

    # events, outbox, replay ----------------------------------------------------------
    async def case_events(self, case: CaseRef) -> Sequence[DomainEvent]:
        """Return the case's committed events in order."""
        ...

    async def events_by_id(self, event_ids: Sequence[str]) -> Sequence[DomainEvent]:
        """Return the committed events with these ids (missing ids are left out)."""
        ...

    async def outbox_messages(self, status: str | None = None) -> Sequence[OutboxMessage]:
        """Return outbox messages, optionally with one status, oldest first."""
        ...

    async def set_outbox_status(self, message_id: str, status: str) -> None:
        """Set an outbox message's status."""
        ...

    async def save_replay(self, account: str, turn_id: str, record: JSONObject) -> None:
        """Persist (replace) the turn's whole replay record (I20)."""
        ...

    async def load_replay(self, account: str, turn_id: str) -> JSONObject | None:
        """Return the turn's replay record, or ``None``.

        A record stored in two parts (:class:`PlanCommit` then :class:`TurnReply`) comes
        back as one object: the second part's keys over the first's.
        """
        ...

    # the folded turn writes (docs/adr/0024-four-writes-per-turn.md) -------------------
    async def commit_plan(self, write: PlanCommit) -> PlanOutcome:
        """Store the plan (phase ``committing``) and run all its commits in one transaction.

        Each request behaves exactly as :meth:`commit` would (I12–I16), inside its own
        savepoint; a refusal is returned in its slot, not raised.

        Raises:
            StoreError: no such turn (with ``write.plan`` given), or a value is not JSON;
                nothing was written.
            StoreUnavailable: the database cannot be written; nothing was written.
        """
        ...

    async def finish_turn(self, reply: TurnReply) -> None:
        """Record phase ``replied`` with the reply, results, replay rest and conversation state.

        One transaction.

        Raises:
            StoreError: no such turn, or a value is not encodable; nothing was written.
            StoreUnavailable: the database cannot be written; nothing was written.
        """
        ...

    async def close(self) -> None:
        """Release connections. Idempotent."""
        ...
