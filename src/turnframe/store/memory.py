"""The deterministic in-memory store the tests run on (docs/architecture.md "Stores").

Ids are deterministic (events ``ev-1``, ``ev-2`` …, outbox messages ``ob-1`` …), and
every record is copied through its JSON form on the way in and out, so a caller never
aliases stored data and a value that a database could not hold fails here too.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from turnframe.core.events import DomainEvent, EventDraft, OutboxMessage
from turnframe.core.ids import CaseRef, JSONObject, JSONValue
from turnframe.core.interactions import Interaction, InteractionResolution, InteractionStatus
from turnframe.core.reply import ReplyBlock
from turnframe.store import codec
from turnframe.store._common import (
    COMMITTING,
    MISSING,
    REPLIED,
    foreign_case_conflict,
    new_lock,
)
from turnframe.store._memory_search import MemorySearchIndex
from turnframe.store.base import (
    CaseRow,
    CommitRefusal,
    CommitRequest,
    CommitResult,
    InteractionCas,
    JournalEntry,
    PlanCommit,
    PlanOutcome,
    TurnRecord,
    TurnReply,
)
from turnframe.store.errors import (
    IdempotencyKeyReused,
    InteractionAlreadyResolved,
    RevisionConflict,
    StoreError,
    TurnIdTaken,
)
from turnframe.store.faults import FaultPlan
from turnframe.store.search import DEFAULT_PAGE, CasePage, check_page, check_recent

__all__ = ["InMemoryStore"]


def _commit_copies(
    request: CommitRequest,
) -> tuple[
    JSONObject,
    list[tuple[EventDraft, JSONObject]],
    list[tuple[str, JSONObject]],
    InteractionResolution | None,
]:
    """Return copies of the request's state, event data, payloads and card resolution."""
    state = codec.json_copy(request.state)
    drafts = [(d, codec.json_copy(d.data)) for d in request.events]
    payloads = [(o.topic, codec.json_copy(o.payload)) for o in request.outbox]
    cas = request.interaction
    resolution = (
        None
        if cas is None
        else codec.resolution_from_json(codec.resolution_to_json(cas.resolution))
    )
    return state, drafts, payloads, resolution


def _copy_interaction(interaction: Interaction) -> Interaction:
    return codec.interaction_from_json(codec.interaction_to_json(interaction))


def _copy_turn(record: TurnRecord) -> TurnRecord:
    return codec.turn_record_from_json(codec.turn_record_to_json(record))


def _copy_event(event: DomainEvent) -> DomainEvent:
    return replace(event, data=codec.json_copy(event.data))


def _copy_message(message: OutboxMessage) -> OutboxMessage:
    return replace(message, payload=codec.json_copy(message.payload))


def _copy_case(row: CaseRow) -> CaseRow:
    return replace(row, state=codec.json_copy(row.state))


class InMemoryStore:
    """A :class:`~turnframe.store.base.TurnStore` held in process memory.

    Writes are serialised by one :class:`anyio.Lock`, so :meth:`commit` is atomic
    against concurrent tasks: every check runs before the first mutation (I12–I16).
    Passes :class:`~turnframe.store.conformance.StoreConformance`.

    Args:
        faults: an optional :class:`~turnframe.store.faults.FaultPlan`; its boundaries
            fail exactly as they would behind a
            :class:`~turnframe.store.faults.FaultInjectingStore`.
    """

    def __init__(self, *, faults: FaultPlan | None = None) -> None:
        self.faults = faults
        self._lock = new_lock()
        self._conversations: dict[tuple[str, str], JSONObject] = {}
        self._turns: dict[str, TurnRecord] = {}
        self._turn_counts: dict[tuple[str, str], int] = {}  # (account, conversation) → turns
        self._replies: dict[str, list[JSONValue]] = {}
        self._interactions: dict[str, Interaction] = {}
        self._cards_by_conversation: dict[tuple[str, str], list[str]] = {}  # in seq order
        self._cases: dict[CaseRef, CaseRow] = {}
        self._cases_by_account: dict[str, list[CaseRef]] = {}  # in creation order
        self._events: list[DomainEvent] = []
        self._event_index: dict[str, DomainEvent] = {}
        self._outbox: dict[str, OutboxMessage] = {}
        self._journal: dict[tuple[str, str], JournalEntry] = {}
        self._replays: dict[tuple[str, str], JSONObject] = {}
        self._search = MemorySearchIndex()  # positions, search texts, postings

    def _trip(self, boundary: str, *, performed: bool = False) -> None:
        if self.faults is not None:
            self.faults.trip(boundary, performed=performed)

    # conversations ---------------------------------------------------------------
    async def get_conversation_state(self, account: str, conversation_id: str) -> JSONObject:
        """Return a copy of the conversation's state; ``{}`` when new."""
        return codec.json_copy(self._conversations.get((account, conversation_id), {}))

    async def put_conversation_state(
        self, account: str, conversation_id: str, state: JSONObject
    ) -> None:
        """Replace the conversation's state with a copy of ``state``.

        Raises:
            InjectedFault: the ``put_conversation_state`` boundary is armed.
            StoreError: ``state`` is not JSON.
        """
        self._trip("put_conversation_state")
        copied = codec.json_copy(state)
        async with self._lock:
            self._conversations[(account, conversation_id)] = copied

    # turns --------------------------------------------------------------------------
    async def begin_turn(self, record: TurnRecord) -> TurnRecord:
        """Persist a new turn with ``seq`` = 1 + the conversation's turn count.

        Raises:
            InjectedFault: the ``begin_turn`` boundary is armed.
            TurnIdTaken: the turn id exists (whichever account's turn has it).
            StoreError: the record is not JSON.
        """
        self._trip("begin_turn")
        async with self._lock:
            if record.turn_id in self._turns:
                raise TurnIdTaken(record.turn_id)
            conversation = (record.account, record.conversation_id)
            seq = 1 + self._turn_counts.get(conversation, 0)
            stored = _copy_turn(replace(record, seq=seq))
            self._turns[record.turn_id] = stored
            self._turn_counts[conversation] = seq
        return _copy_turn(stored)

    async def set_turn_phase(
        self, turn_id: str, phase: str, data: JSONObject | None = None
    ) -> None:
        """Record the turn's phase, replacing its data when ``data`` is given.

        Raises:
            InjectedFault: the ``set_turn_phase`` boundary is armed.
            StoreError: no such turn, or ``data`` is not JSON.
        """
        self._trip("set_turn_phase")
        copied = None if data is None else codec.json_copy(data)
        async with self._lock:
            current = self._turns.get(turn_id)
            if current is None:
                raise StoreError(f"turn {turn_id} does not exist")
            self._turns[turn_id] = replace(
                current, phase=phase, data=current.data if copied is None else copied
            )

    async def get_turn(self, account: str, turn_id: str) -> TurnRecord | None:
        """Return the turn, or ``None`` when missing or another account's."""
        record = self._turns.get(turn_id)
        if record is None or record.account != account:
            return None
        return _copy_turn(record)

    async def unfinished_turns(self, account: str | None = None) -> Sequence[TurnRecord]:
        """Return turns whose phase is not ``replied``, oldest first.

        See docs/architecture.md "Failures".
        """
        return [
            _copy_turn(t)
            for t in self._turns.values()
            if t.phase != REPLIED and (account is None or t.account == account)
        ]

    async def save_reply(self, turn_id: str, blocks: Sequence[ReplyBlock]) -> None:
        """Persist the reply's blocks as their JSON form (docs/architecture.md "Claims").

        Raises:
            InjectedFault: the ``save_reply`` boundary is armed.
            StoreError: no such turn, or a block is not encodable.
        """
        self._trip("save_reply")
        encoded = codec.blocks_to_json(blocks)
        async with self._lock:
            if turn_id not in self._turns:
                raise StoreError(f"turn {turn_id} does not exist")
            self._replies[turn_id] = encoded

    async def load_reply(self, account: str, turn_id: str) -> tuple[ReplyBlock, ...] | None:
        """Return the persisted blocks, or ``None`` (also for another account's turn)."""
        record = self._turns.get(turn_id)
        encoded = self._replies.get(turn_id)
        if record is None or record.account != account or encoded is None:
            return None
        return codec.blocks_from_json(encoded)

    async def conversation_replies(
        self, account: str, conversation_id: str
    ) -> Sequence[tuple[str, tuple[ReplyBlock, ...]]]:
        """Return (turn id, blocks) for every turn of the conversation with a reply."""
        turns = sorted(
            (
                t
                for t in self._turns.values()
                if t.account == account
                and t.conversation_id == conversation_id
                and t.turn_id in self._replies
            ),
            key=lambda t: t.seq,
        )
        return [(t.turn_id, codec.blocks_from_json(self._replies[t.turn_id])) for t in turns]

    # interactions -----------------------------------------------------------------
    async def create_interaction(self, interaction: Interaction) -> Interaction:
        """Persist the card with ``seq`` assigned; supersede the case's other open card (I5).

        Raises:
            InjectedFault: the ``create_interaction`` boundary is armed.
            StoreError: the interaction id exists, or the card is not encodable.
        """
        self._trip("create_interaction")
        async with self._lock:
            if interaction.id in self._interactions:
                raise StoreError(f"interaction {interaction.id} already exists")
            cards = self._cards_by_conversation.setdefault(
                (interaction.account, interaction.conversation_id), []
            )
            seq = 1 + len(cards)
            stored = _copy_interaction(replace(interaction, seq=seq))
            case = stored.spec.case
            if case is not None and stored.status is InteractionStatus.OPEN:
                for other in list(self._interactions.values()):
                    if (
                        other.account == stored.account
                        and other.spec.case == case
                        and other.status is InteractionStatus.OPEN
                    ):
                        self._interactions[other.id] = replace(
                            other, status=InteractionStatus.SUPERSEDED
                        )
            self._interactions[stored.id] = stored
            cards.append(stored.id)
        return _copy_interaction(stored)

    async def get_interaction(
        self, account: str, conversation_id: str, interaction_id: str
    ) -> Interaction | None:
        """Return the card, or ``None`` when missing or foreign (indistinguishable, I16)."""
        found = self._interactions.get(interaction_id)
        if found is None or found.account != account or found.conversation_id != conversation_id:
            return None
        return _copy_interaction(found)

    async def open_interactions(self, account: str, conversation_id: str) -> Sequence[Interaction]:
        """Return the conversation's open cards in ``seq`` order."""
        cards = (
            self._interactions[i]
            for i in self._cards_by_conversation.get((account, conversation_id), ())
        )
        return [_copy_interaction(i) for i in cards if i.status is InteractionStatus.OPEN]

    async def close_interaction(self, cas: InteractionCas) -> bool:
        """Compare-and-set an open card to ``cas.status`` with its resolution (I16).

        Returns:
            ``True`` when the card was open and is now closed; ``False`` otherwise
            (already closed, or missing).

        Raises:
            InjectedFault: the ``close_interaction`` boundary is armed.
        """
        self._trip("close_interaction")
        resolution = codec.resolution_from_json(codec.resolution_to_json(cas.resolution))
        async with self._lock:
            found = self._interactions.get(cas.interaction_id)
            if found is None or found.status is not InteractionStatus.OPEN:
                return False
            self._interactions[found.id] = replace(found, status=cas.status, resolution=resolution)
            return True

    # cases and the atomic commit ---------------------------------------------------
    async def load_case(self, case: CaseRef) -> CaseRow | None:
        """Return a copy of the stored case, or ``None`` (revision 0)."""
        row = self._cases.get(case)
        return None if row is None else _copy_case(row)

    async def list_cases(self, account: str) -> Sequence[CaseRow]:
        """Return the account's cases in creation order."""
        return [_copy_case(self._cases[c]) for c in self._cases_by_account.get(account, ())]

    # paged listing and the word-search index (turnframe.store.search) -------------------
    async def list_cases_page(
        self,
        account: str,
        *,
        workflow: str | None = None,
        cases: Collection[CaseRef] | None = None,
        limit: int = DEFAULT_PAGE,
        after: str | None = None,
        recent: bool = False,
    ) -> CasePage:
        """Return a page of the account's cases in creation order (see ``TurnStore``).

        Raises:
            BadPageRequest: ``limit`` or ``after`` is malformed, or ``recent`` is combined
                with a filter or a cursor.
        """
        start = check_page(limit, after)
        if check_recent(recent, workflow, cases, after):
            return self._search.recent(account, self._row, limit)
        return self._search.page(
            self._cases_by_account.get(account, []),
            self._row,
            owned=lambda c: c in self._cases and self._cases[c].account == account,
            workflow=workflow,
            only=cases,
            limit=limit,
            start=start,
        )

    async def find_cases(
        self,
        account: str,
        words: str,
        *,
        workflow: str | None = None,
        limit: int = DEFAULT_PAGE,
        after: str | None = None,
    ) -> CasePage:
        """Return a page of the indexed cases holding every word (see ``TurnStore``).

        Raises:
            BadPageRequest: ``limit`` or ``after`` is malformed.
        """
        start = check_page(limit, after)
        return self._search.find(
            account, words, self._row, workflow=workflow, limit=limit, start=start
        )

    async def find_cases_each(
        self, account: str, mentions: Sequence[str], *, limit: int = DEFAULT_PAGE
    ) -> tuple[CasePage, ...]:
        """Return each mention's first ``find_cases`` page (see ``TurnStore``).

        Raises:
            BadPageRequest: ``limit`` is malformed.
        """
        check_page(limit, None)
        return tuple(
            self._search.find(account, m, self._row, workflow=None, limit=limit, start=0)
            for m in mentions
        )

    async def unindexed_cases(
        self, account: str, *, limit: int = DEFAULT_PAGE
    ) -> Sequence[CaseRow]:
        """Return up to ``limit`` of the account's cases with no search text, oldest first.

        Raises:
            BadPageRequest: ``limit`` is malformed.
        """
        check_page(limit, None)
        found = self._search.unindexed(account, limit)
        return [self._row(c) for c in found]

    async def index_case(self, case: CaseRef, revision: int, search_text: str) -> bool:
        """Index ``search_text`` for the case if it is still at ``revision``."""
        async with self._lock:
            row = self._cases.get(case)
            if row is None or row.revision != revision:
                return False
            self._search.put(row.account, case, search_text, touch=False)
            return True

    def _row(self, case: CaseRef) -> CaseRow:
        return _copy_case(self._cases[case])

    async def commit(self, request: CommitRequest) -> CommitResult:
        """Commit one batch atomically: every check runs before any write (I12–I16).

        Order: journal lookup (I13), revision check (I12), card compare-and-set (I16),
        then state, events, outbox rows, withdrawn cards (those still open, ADR 0012)
        and the journal row together.

        Raises:
            InjectedFault: ``commit`` is armed (nothing written) or ``commit.ack_lost``
                is armed (written, then the acknowledgement is lost).
            RevisionConflict: the revision is not ``expected_revision``, or the case
                belongs to another account (not retryable then).
            IdempotencyKeyReused: the key was journaled with another request hash.
            InteractionAlreadyResolved: ``request.interaction`` was not open (or is
                missing or foreign: status ``"missing"``).
            StoreError: the state, an event or a payload is not JSON.
        """
        self._trip("commit")
        result = await self._commit_locked(request)
        self._trip("commit.ack_lost", performed=True)
        return result

    async def _commit_locked(self, request: CommitRequest) -> CommitResult:
        state, drafts, payloads, resolution = _commit_copies(request)
        async with self._lock:
            return self._apply_commit(request, state, drafts, payloads, resolution)

    def _apply_commit(
        self,
        request: CommitRequest,
        state: JSONObject,
        drafts: list[tuple[EventDraft, JSONObject]],
        payloads: list[tuple[str, JSONObject]],
        resolution: InteractionResolution | None,
    ) -> CommitResult:
        """Check, then write one commit; the caller holds the lock. Nothing written on refusal."""
        key = (request.account, request.idempotency_key)
        entry = self._journal.get(key)
        if entry is not None:
            if entry.request_hash != request.request_hash:
                raise IdempotencyKeyReused(request.idempotency_key)
            return replace(self._copy_result(entry.result), replayed=True)
        row = self._cases.get(request.case)
        actual = 0 if row is None else row.revision
        if row is not None and row.account != request.account:
            raise foreign_case_conflict(request.case, request.expected_revision, actual)
        if actual != request.expected_revision:
            raise RevisionConflict(request.case, request.expected_revision, actual)
        cas = request.interaction
        card = None if cas is None else self._interactions.get(cas.interaction_id)
        if cas is not None:
            if card is None or card.account != request.account:
                raise InteractionAlreadyResolved(cas.interaction_id, MISSING)
            if card.status is not InteractionStatus.OPEN:
                raise InteractionAlreadyResolved(cas.interaction_id, card.status.value)
        # Every check passed: write everything.
        revision = actual + 1
        if row is None:
            self._cases_by_account.setdefault(request.account, []).append(request.case)
            self._search.created(request.account, request.case)
        self._cases[request.case] = CaseRow(
            case=request.case,
            account=request.account,
            state=state,
            revision=revision,
            workflow_version=request.workflow_version,
        )
        self._search.put(request.account, request.case, request.search_text)
        if cas is not None and card is not None:
            self._interactions[card.id] = replace(card, status=cas.status, resolution=resolution)
        for withdrawal in request.withdraw:
            found = self._interactions.get(withdrawal.interaction_id)
            if (
                found is not None
                and found.account == request.account
                and found.status is InteractionStatus.OPEN
            ):
                self._interactions[found.id] = replace(
                    found,
                    status=withdrawal.status,
                    resolution=codec.resolution_from_json(
                        codec.resolution_to_json(withdrawal.resolution)
                    ),
                )
        events: list[DomainEvent] = []
        for draft, data in drafts:
            event = DomainEvent(
                id=f"ev-{len(self._events) + 1}",
                case=request.case,
                revision=revision,
                type=draft.type,
                data=data,
                operation=draft.operation,
                turn_id=request.turn_id,
                idempotency_key=request.idempotency_key,
            )
            self._events.append(event)
            self._event_index[event.id] = event
            events.append(event)
        outbox_ids: list[str] = []
        for topic, payload in payloads:
            message_id = f"ob-{len(self._outbox) + 1}"
            self._outbox[message_id] = OutboxMessage(
                id=message_id, case=request.case, topic=topic, payload=payload
            )
            outbox_ids.append(message_id)
        result = CommitResult(
            case=request.case,
            revision=revision,
            events=tuple(events),
            outbox_ids=tuple(outbox_ids),
        )
        self._journal[key] = JournalEntry(
            account=request.account,
            idempotency_key=request.idempotency_key,
            request_hash=request.request_hash,
            result=result,
        )
        return self._copy_result(result)

    @staticmethod
    def _copy_result(result: CommitResult) -> CommitResult:
        return replace(result, events=tuple(_copy_event(e) for e in result.events))

    async def lookup_command(self, account: str, idempotency_key: str) -> JournalEntry | None:
        """Return the journal row for the account's key, or ``None`` (I13)."""
        entry = self._journal.get((account, idempotency_key))
        if entry is None:
            return None
        return replace(entry, result=self._copy_result(entry.result))

    # events, outbox, replay ----------------------------------------------------------
    async def case_events(self, case: CaseRef) -> Sequence[DomainEvent]:
        """Return the case's committed events in commit order (I15)."""
        return [_copy_event(e) for e in self._events if e.case == case]

    async def events_by_id(self, event_ids: Sequence[str]) -> Sequence[DomainEvent]:
        """Return the events with these ids in journal order; unknown ids are left out."""
        wanted = set(event_ids)
        return [_copy_event(e) for e in self._events if e.id in wanted]

    async def outbox_messages(self, status: str | None = None) -> Sequence[OutboxMessage]:
        """Return outbox messages (optionally of one status), oldest first."""
        return [
            _copy_message(m) for m in self._outbox.values() if status is None or m.status == status
        ]

    async def set_outbox_status(self, message_id: str, status: str) -> None:
        """Set an outbox message's status.

        Raises:
            StoreError: no such message.
        """
        async with self._lock:
            message = self._outbox.get(message_id)
            if message is None:
                raise StoreError(f"outbox message {message_id} does not exist")
            self._outbox[message_id] = replace(message, status=status)

    async def save_replay(self, account: str, turn_id: str, record: JSONObject) -> None:
        """Persist (replace) the turn's replay record (I20).

        Raises:
            InjectedFault: the ``save_replay`` boundary is armed.
            StoreError: ``record`` is not JSON.
        """
        self._trip("save_replay")
        copied = codec.json_copy(record)
        async with self._lock:
            self._replays[(account, turn_id)] = copied

    async def load_replay(self, account: str, turn_id: str) -> JSONObject | None:
        """Return a copy of the turn's replay record, or ``None``."""
        record = self._replays.get((account, turn_id))
        return None if record is None else codec.json_copy(record)

    # the folded turn writes (docs/adr/0024-four-writes-per-turn.md) -------------------
    async def commit_plan(self, write: PlanCommit) -> PlanOutcome:
        """Store the plan and replay record, then run every commit and close, atomically.

        Every value is copied before the lock is taken; under it, each request is
        checked and written as :meth:`commit` does it (a refusal writes nothing of that
        request and is returned in its slot), then each close compare-and-sets.

        Raises:
            InjectedFault: a boundary the write crosses is armed (see
                :data:`~turnframe.store.base.BOUNDARIES`); nothing written, or for
                ``commit.ack_lost`` everything written.
            StoreError: no such turn (with a plan), or a value is not JSON.
        """
        if write.plan is not None:
            self._trip("set_turn_phase")
        if write.replay is not None:
            self._trip("save_replay")
        for _ in write.requests:
            self._trip("commit")
        for _ in write.closes:
            self._trip("close_interaction")
        plan = None if write.plan is None else codec.record_value(codec.record_copy(write.plan))
        replay = None if write.replay is None else codec.record_copy(write.replay)
        copies = [_commit_copies(r) for r in write.requests]
        resolutions = [
            codec.resolution_from_json(codec.resolution_to_json(c.resolution)) for c in write.closes
        ]
        outcomes: list[CommitResult | CommitRefusal] = []
        closed: list[bool] = []
        async with self._lock:
            current = self._turns.get(write.turn_id)
            if plan is not None:
                if current is None:
                    raise StoreError(f"turn {write.turn_id} does not exist")
                self._turns[write.turn_id] = replace(current, phase=COMMITTING, data=plan)
            if replay is not None:
                self._replays[(write.account, write.turn_id)] = replay
            for request, (state, drafts, payloads, resolution) in zip(
                write.requests, copies, strict=True
            ):
                try:
                    outcomes.append(
                        self._apply_commit(request, state, drafts, payloads, resolution)
                    )
                except (RevisionConflict, InteractionAlreadyResolved, IdempotencyKeyReused) as exc:
                    outcomes.append(exc)
            for cas, resolution in zip(write.closes, resolutions, strict=True):
                found = self._interactions.get(cas.interaction_id)
                ok = (
                    found is not None
                    and found.account == write.account
                    and found.status is InteractionStatus.OPEN
                )
                if ok and found is not None:
                    self._interactions[found.id] = replace(
                        found, status=cas.status, resolution=resolution
                    )
                closed.append(ok)
        for _ in write.requests:
            self._trip("commit.ack_lost", performed=True)
        return PlanOutcome(commits=tuple(outcomes), closed=tuple(closed))

    async def finish_turn(self, reply: TurnReply) -> None:
        """Record phase ``replied`` with reply, results, replay rest and state, atomically.

        Raises:
            InjectedFault: a boundary the write crosses is armed; nothing written.
            StoreError: no such turn, or a value is not encodable.
        """
        if reply.conversation_state is not None:
            self._trip("put_conversation_state")
        self._trip("save_reply")
        if reply.replay is not None:
            self._trip("save_replay")
        self._trip("set_turn_phase")
        encoded = codec.blocks_to_json(reply.blocks)
        data = codec.record_copy(reply.data)
        outcome = None if reply.replay is None else codec.record_copy(reply.replay)
        state = (
            None if reply.conversation_state is None else codec.json_copy(reply.conversation_state)
        )
        async with self._lock:
            current = self._turns.get(reply.turn_id)
            if current is None:
                raise StoreError(f"turn {reply.turn_id} does not exist")
            self._turns[reply.turn_id] = replace(current, phase=REPLIED, data=data)
            self._replies[reply.turn_id] = encoded
            if outcome is not None:
                key = (reply.account, reply.turn_id)
                self._replays[key] = {**self._replays.get(key, {}), **outcome}
            if state is not None:
                self._conversations[(reply.account, reply.conversation_id)] = state

    async def close(self) -> None:
        """Nothing to release; the data stays readable. Idempotent."""
