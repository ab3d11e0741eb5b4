"""The embedded default store: one SQLite file.

See docs/architecture.md "Stores", docs/architecture.md "Stores".

Opened with WAL journaling, ``synchronous=NORMAL`` and foreign keys on; the schema is
created on open (:mod:`turnframe.store._sqlite_schema`, with a ``schema_version``
table). Every public method is one SQLite transaction and every write is
``BEGIN IMMEDIATE``, so writers on other connections or processes queue on the
database's write lock (up to ``timeout`` seconds). :meth:`SqliteStore.commit` is the one
atomic write of I12–I16; the SQL lives in :mod:`turnframe.store._sqlite_ops`.

Calls run inline on the event loop by default. Measured on this project's benchmark
shape (13 store calls per three-act turn: 3 commits, phases, reply, replay record),
inline calls take ~0.8–1.0 ms per turn (a commit ~120–150 µs median) while a worker
thread hop per call (``anyio.to_thread``) takes ~2.9–3.4 ms per turn (a commit
~250–350 µs): the hop costs more than the statement. ``offload=True`` selects the
threads, for a database on slow storage or shared with long-running writers.

Driver errors never escape: an unopenable path or a lock held too long is
:class:`~turnframe.store.errors.StoreUnavailable`, anything else a
:class:`~turnframe.store.errors.StoreError`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

import anyio
import anyio.to_thread
import platformdirs

from turnframe.core.events import DomainEvent, OutboxMessage
from turnframe.core.ids import CaseRef, JSONObject
from turnframe.core.interactions import Interaction
from turnframe.core.reply import ReplyBlock
from turnframe.store import _sqlite_ops as ops
from turnframe.store import _sqlite_search as search
from turnframe.store import codec
from turnframe.store._common import new_lock
from turnframe.store._sqlite_tally import StatementTally, TallyingConnection
from turnframe.store.base import (
    CaseRow,
    CommitRequest,
    CommitResult,
    InteractionCas,
    JournalEntry,
    PlanCommit,
    PlanOutcome,
    TurnRecord,
    TurnReply,
)
from turnframe.store.errors import StoreError, StoreUnavailable
from turnframe.store.search import DEFAULT_PAGE, CasePage, check_page, check_recent

__all__ = ["MEMORY", "SqliteStore", "default_path"]

T = TypeVar("T")

MEMORY = ":memory:"
"""The path that opens a private in-memory database (no peers can share it)."""


def _encoded(request: CommitRequest) -> ops.EncodedCommit:
    """Return ``request`` with its state, event data, payloads and card resolution encoded.

    Raises:
        StoreError: a value is not JSON.
    """
    cas = request.interaction
    return ops.EncodedCommit(
        request=request,
        state_text=codec.dumps(request.state),
        event_texts=[codec.dumps(d.data) for d in request.events],
        outbox_texts=[codec.dumps(o.payload) for o in request.outbox],
        resolution_text=None
        if cas is None
        else codec.dumps(codec.resolution_to_json(cas.resolution)),
    )


def default_path() -> Path:
    """Return ``turnframe.db`` under ``platformdirs.user_data_dir("turnframe")``."""
    return Path(platformdirs.user_data_dir("turnframe")) / "turnframe.db"


class SqliteStore:
    """A :class:`~turnframe.store.base.TurnStore` over one SQLite database.

    Build it with :meth:`open`. Several instances (or processes) may open the same file;
    each holds one connection. Inline calls run whole on the event loop, so they never
    interleave; offloaded calls are serialised with an :class:`anyio.Lock`.
    Passes :class:`~turnframe.store.conformance.StoreConformance`, including the races
    across connections.

    Args:
        conn: an open connection with the schema in place (use :meth:`open`).
        path: the database path, or ``":memory:"``.
        offload: run each call in a worker thread instead of on the event loop.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path | str, *, offload: bool) -> None:
        self._conn: sqlite3.Connection | None = conn
        self._path = path
        self._offload = offload
        self._lock = new_lock()

    @classmethod
    async def open(
        cls, path: str | Path | None = None, *, offload: bool = False, timeout: float = 5.0
    ) -> SqliteStore:
        """Open (creating if needed) a database and its schema.

        Args:
            path: the database file; ``None`` means :func:`default_path` (its directory
                is created); ``":memory:"`` a private in-memory database. The parent
                directory of an explicit path must exist.
            offload: run every call in a worker thread (see the module notes: slower
                for local files, where a call is shorter than the hop). Inline, a write
                that waits for another process's write lock holds the event loop for up
                to ``timeout``; offloaded, a cancelled caller still lets its transaction
                finish or roll back whole in the worker.
            timeout: seconds a write waits for another connection's write lock before
                failing with ``StoreUnavailable``.

        Returns:
            The open store.

        Raises:
            StoreUnavailable: the path cannot be opened as a SQLite database (the message
                names the path), or the database holds a newer schema version.
        """
        target: Path | str
        if path is None:
            target = default_path()
        elif str(path) == MEMORY:
            target = MEMORY
        else:
            target = Path(path)

        def connect() -> sqlite3.Connection:
            try:
                if path is None and isinstance(target, Path):
                    target.parent.mkdir(parents=True, exist_ok=True)
                return ops.connect(str(target), timeout)
            except (sqlite3.Error, OSError) as exc:
                raise StoreUnavailable(f"cannot open SQLite database at {target}: {exc}") from exc

        conn = await anyio.to_thread.run_sync(connect) if offload else connect()
        return cls(conn, target, offload=offload)

    @property
    def path(self) -> Path | str:
        """The database file, or ``":memory:"``."""
        return self._path

    @contextmanager
    def tally(self) -> Iterator[StatementTally]:
        """Count the statements, write transactions and bytes written inside the block.

        Yields a :class:`~turnframe.store._sqlite_tally.StatementTally` that fills as
        the store runs (see its attributes for what counts). Tallies do not nest.

        Raises:
            StoreUnavailable: the store is closed.
        """
        conn = self._conn
        if conn is None:
            raise StoreUnavailable(f"SQLite store at {self._path} is closed")
        tally = StatementTally()
        self._conn = TallyingConnection(conn, tally)  # type: ignore[assignment]
        try:
            yield tally
        finally:
            if self._conn is not None:
                self._conn = conn

    def _guarded(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` on the connection now, translating driver errors."""
        conn = self._conn
        if conn is None:
            raise StoreUnavailable(f"SQLite store at {self._path} is closed")
        try:
            return fn(conn)
        except sqlite3.IntegrityError as exc:
            raise StoreError(f"SQLite constraint failed at {self._path}: {exc}") from exc
        except (sqlite3.OperationalError, sqlite3.InterfaceError) as exc:
            raise StoreUnavailable(f"SQLite database at {self._path}: {exc}") from exc
        except sqlite3.Error as exc:
            raise StoreError(f"SQLite error at {self._path}: {exc}") from exc
        except UnicodeEncodeError as exc:
            raise StoreError(f"text not storable as UTF-8: {exc}") from exc

    async def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` on the connection under the lock, translating driver errors."""
        if not self._offload:
            # Inline, a call never yields while it holds the connection, so no other
            # call can interleave: the lock (taken uncontended, with no checkpoint)
            # would change nothing. It serialises the offloaded calls.
            return self._guarded(fn)
        async with self._lock:
            return await anyio.to_thread.run_sync(self._guarded, fn)

    # conversations ---------------------------------------------------------------
    async def get_conversation_state(self, account: str, conversation_id: str) -> JSONObject:
        """Return the conversation's state; ``{}`` when new.

        Raises:
            StoreUnavailable: the database cannot be read.
        """
        return await self._call(lambda c: ops.get_conversation_state(c, account, conversation_id))

    async def put_conversation_state(
        self, account: str, conversation_id: str, state: JSONObject
    ) -> None:
        """Replace the conversation's state.

        Raises:
            StoreError: ``state`` is not JSON.
            StoreUnavailable: the database cannot be written.
        """
        text = codec.dumps(state)
        await self._call(lambda c: ops.put_conversation_state(c, account, conversation_id, text))

    # turns --------------------------------------------------------------------------
    async def begin_turn(self, record: TurnRecord) -> TurnRecord:
        """Persist a new turn with ``seq`` = 1 + the conversation's turn count.

        See docs/architecture.md "Failures".

        Raises:
            TurnIdTaken: the turn id exists (whichever account's turn has it).
            StoreError: the record is not JSON.
            StoreUnavailable: the database cannot be written.
        """
        input_text, data_text = codec.dumps(record.input), codec.dumps(record.data)
        seq = await self._call(lambda c: ops.begin_turn(c, record, input_text, data_text))
        # The stored values, as get_turn reads them back (copies: nothing aliases the
        # caller's record), built directly: ``dataclasses.replace`` costs more than both
        # decodes, and a turn begins with empty phase data, which needs no decode.
        return TurnRecord(
            turn_id=record.turn_id,
            account=record.account,
            conversation_id=record.conversation_id,
            seq=seq,
            phase=record.phase,
            input=codec.loads(input_text),
            data={} if data_text == "{}" else codec.loads(data_text),
            attempts=record.attempts,
        )

    async def set_turn_phase(
        self, turn_id: str, phase: str, data: JSONObject | None = None
    ) -> None:
        """Record the turn's phase, replacing its data when ``data`` is given.

        Raises:
            StoreError: no such turn, or ``data`` is not JSON.
            StoreUnavailable: the database cannot be written.
        """
        text = None if data is None else codec.dumps(data)
        sql = "phase = ?, data = COALESCE(?, data)"
        await self._call(lambda c: ops.update_turn(c, turn_id, sql, (phase, text)))

    async def get_turn(self, account: str, turn_id: str) -> TurnRecord | None:
        """Return the turn, or ``None`` when missing or another account's."""
        return await self._call(lambda c: ops.get_turn(c, account, turn_id))

    async def unfinished_turns(self, account: str | None = None) -> Sequence[TurnRecord]:
        """Return turns whose phase is not ``replied``, oldest first.

        See docs/architecture.md "Failures".
        """
        return await self._call(lambda c: ops.unfinished_turns(c, account))

    async def save_reply(self, turn_id: str, blocks: Sequence[ReplyBlock]) -> None:
        """Persist (replace) the reply's blocks exactly, as a JSON array.

        See docs/architecture.md "Claims".

        Raises:
            StoreError: no such turn, or a block is not encodable.
            StoreUnavailable: the database cannot be written.
        """
        text = codec.dumps(codec.blocks_to_json(blocks))
        await self._call(lambda c: ops.update_turn(c, turn_id, "reply = ?", (text,)))

    async def load_reply(self, account: str, turn_id: str) -> tuple[ReplyBlock, ...] | None:
        """Return the persisted blocks, or ``None`` (also for another account's turn)."""
        text = await self._call(lambda c: ops.load_reply(c, account, turn_id))
        return None if text is None else codec.blocks_from_json(codec.loads(text))

    async def conversation_replies(
        self, account: str, conversation_id: str
    ) -> Sequence[tuple[str, tuple[ReplyBlock, ...]]]:
        """Return (turn id, blocks) for every turn of the conversation with a reply."""
        rows = await self._call(lambda c: ops.conversation_replies(c, account, conversation_id))
        return [(r[0], codec.blocks_from_json(codec.loads(r[1]))) for r in rows]

    # interactions -----------------------------------------------------------------
    async def create_interaction(self, interaction: Interaction) -> Interaction:
        """Persist the card with ``seq`` assigned; supersede the case's other open card (I5).

        The supersession and the insert are one transaction. ``seq`` is the 1-based
        creation order within the conversation.

        Raises:
            StoreError: the interaction id exists, or the card is not encodable.
            StoreUnavailable: the database cannot be written.
        """
        spec_text = codec.dumps(codec.spec_to_json(interaction.spec))
        res = interaction.resolution
        res_text = None if res is None else codec.dumps(codec.resolution_to_json(res))
        seq = await self._call(
            lambda c: ops.create_interaction(c, interaction, spec_text, res_text)
        )
        return replace(
            interaction,
            seq=seq,
            spec=codec.spec_from_json(codec.loads(spec_text)),
            resolution=None
            if res_text is None
            else codec.resolution_from_json(codec.loads(res_text)),
        )

    async def get_interaction(
        self, account: str, conversation_id: str, interaction_id: str
    ) -> Interaction | None:
        """Return the card, or ``None`` when missing or foreign (indistinguishable, I16)."""
        return await self._call(
            lambda c: ops.get_interaction(c, account, conversation_id, interaction_id)
        )

    async def open_interactions(self, account: str, conversation_id: str) -> Sequence[Interaction]:
        """Return the conversation's open cards in ``seq`` order."""
        return await self._call(lambda c: ops.open_interactions(c, account, conversation_id))

    async def close_interaction(self, cas: InteractionCas) -> bool:
        """Compare-and-set an open card to ``cas.status`` with its resolution (I16).

        Returns:
            ``True`` when this call closed the card; ``False`` when it was not open (or
            is missing).

        Raises:
            StoreUnavailable: the database cannot be written.
        """
        text = codec.dumps(codec.resolution_to_json(cas.resolution))
        status = cas.status.value
        return await self._call(
            lambda c: ops.close_interaction(c, cas.interaction_id, status, text)
        )

    # cases and the atomic commit ---------------------------------------------------
    async def load_case(self, case: CaseRef) -> CaseRow | None:
        """Return the stored case, or ``None`` when nobody created it (revision 0)."""
        return await self._call(lambda c: ops.load_case(c, case))

    async def list_cases(self, account: str) -> Sequence[CaseRow]:
        """Return the account's cases in creation order."""
        return await self._call(lambda c: ops.list_cases(c, account))

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
        """Return a page of the account's cases in creation order, filtered in SQL.

        Raises:
            BadPageRequest: ``limit`` or ``after`` is malformed, or ``recent`` is combined
                with a filter or a cursor.
            StoreUnavailable: the database cannot be read.
        """
        start = check_page(limit, after)
        newest = check_recent(recent, workflow, cases, after)
        return await self._call(
            lambda c: search.list_page(c, account, workflow, cases, limit, start, newest)
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
        """Return a page of the indexed cases holding every word (``case_terms`` seeks).

        Raises:
            BadPageRequest: ``limit`` or ``after`` is malformed.
            StoreUnavailable: the database cannot be read.
        """
        start = check_page(limit, after)
        return await self._call(
            lambda c: search.find_page(c, account, words, workflow, limit, start)
        )

    async def find_cases_each(
        self, account: str, mentions: Sequence[str], *, limit: int = DEFAULT_PAGE
    ) -> tuple[CasePage, ...]:
        """Return each mention's first ``find_cases`` page in two statements (see ``TurnStore``).

        Raises:
            BadPageRequest: ``limit`` is malformed.
            StoreUnavailable: the database cannot be read.
        """
        check_page(limit, None)
        wanted = list(mentions)
        return await self._call(lambda c: search.find_each(c, account, wanted, limit))

    async def unindexed_cases(
        self, account: str, *, limit: int = DEFAULT_PAGE
    ) -> Sequence[CaseRow]:
        """Return up to ``limit`` of the account's cases with no search text, oldest first.

        Raises:
            BadPageRequest: ``limit`` is malformed.
            StoreUnavailable: the database cannot be read.
        """
        check_page(limit, None)
        return await self._call(lambda c: search.unindexed(c, account, limit))

    async def index_case(self, case: CaseRef, revision: int, search_text: str) -> bool:
        """Index the case's search text if it is still at ``revision`` (one transaction).

        Raises:
            StoreUnavailable: the database cannot be written.
        """

        def run(conn: sqlite3.Connection) -> bool:
            with ops.immediate(conn):
                return search.index_case(conn, case, revision, search_text)

        return await self._call(run)

    async def commit(self, request: CommitRequest) -> CommitResult:
        """Commit one batch in a single ``BEGIN IMMEDIATE`` transaction (I12–I16).

        In order: the journal lookup by (account, key) (I13: same hash → the stored
        result with ``replayed=True``, nothing written); the revision check in the
        writing statement itself (I12: ``UPDATE … WHERE revision = ?``, or at expected
        revision 0 an ``INSERT`` whose uniqueness violation is the conflict); the card
        compare-and-set (I16); then events (ids ``ev-N``, the new revision), outbox rows
        (``ob-N``, ``pending``) and the journal row with the serialised result. Any
        failure rolls all of it back.

        Raises:
            RevisionConflict: the revision is not ``expected_revision``, or the case
                belongs to another account (not retryable then).
            IdempotencyKeyReused: the key was journaled with another request hash.
            InteractionAlreadyResolved: ``request.interaction`` was not open (or is
                missing or another account's: status ``"missing"``).
            StoreError: the state, an event or a payload is not JSON.
            StoreUnavailable: the database cannot be written (lock timeout, I/O).
        """
        e = _encoded(request)
        return await self._call(
            lambda c: ops.commit(
                c, request, e.state_text, e.event_texts, e.outbox_texts, e.resolution_text
            )
        )

    async def lookup_command(self, account: str, idempotency_key: str) -> JournalEntry | None:
        """Return the journal row for the account's key, or ``None`` (I13)."""
        row = await self._call(lambda c: ops.lookup_command(c, account, idempotency_key))
        if row is None:
            return None
        return JournalEntry(
            account=account,
            idempotency_key=idempotency_key,
            request_hash=row[0],
            result=codec.commit_result_from_json(codec.loads(row[1])),
        )

    # events, outbox, replay ----------------------------------------------------------
    async def case_events(self, case: CaseRef) -> Sequence[DomainEvent]:
        """Return the case's committed events in commit order (I15)."""
        return await self._call(lambda c: ops.case_events(c, case))

    async def events_by_id(self, event_ids: Sequence[str]) -> Sequence[DomainEvent]:
        """Return the events with these ids in journal order; unknown ids are left out."""
        ids = sorted(set(event_ids))
        return await self._call(lambda c: ops.events_by_id(c, ids))

    async def outbox_messages(self, status: str | None = None) -> Sequence[OutboxMessage]:
        """Return outbox messages (optionally of one status), oldest first."""
        return await self._call(lambda c: ops.outbox_messages(c, status))

    async def set_outbox_status(self, message_id: str, status: str) -> None:
        """Set an outbox message's status.

        Raises:
            StoreError: no such message.
            StoreUnavailable: the database cannot be written.
        """
        await self._call(lambda c: ops.set_outbox_status(c, message_id, status))

    async def save_replay(self, account: str, turn_id: str, record: JSONObject) -> None:
        """Persist (replace) the turn's replay record (I20).

        Raises:
            StoreError: ``record`` is not JSON.
            StoreUnavailable: the database cannot be written.
        """
        text = codec.dumps(record)
        await self._call(lambda c: ops.save_replay(c, account, turn_id, text))

    async def load_replay(self, account: str, turn_id: str) -> JSONObject | None:
        """Return the turn's replay record, or ``None``."""
        return await self._call(lambda c: ops.load_replay(c, account, turn_id))

    # the folded turn writes (docs/adr/0024-four-writes-per-turn.md) -------------------
    async def commit_plan(self, write: PlanCommit) -> PlanOutcome:
        """Store the plan and run all its commits in one ``BEGIN IMMEDIATE`` transaction.

        In order: the turn's phase ``committing`` with ``write.plan`` as its data (when
        given); the replay record's first part (when given; replacing any record, its
        second part cleared); each request exactly as :meth:`commit` runs it, inside a
        savepoint (a refusal rolls back to it and is returned in its slot); each close's
        compare-and-set (open → status). Every value is encoded once, before the
        transaction; the plan and the replay record, records the runtime built of JSON
        values, with :func:`~turnframe.store.codec.dumps_record` (a plan handed over as
        :class:`~turnframe.store.base.JSONText` is written as it is).

        Raises:
            StoreError: no such turn (with a plan), or a value is not JSON; nothing written.
            StoreUnavailable: the database cannot be written; nothing written.
        """
        plan_text = None if write.plan is None else codec.dumps_record(write.plan)
        replay_text = None if write.replay is None else codec.dumps_record(write.replay)
        commits = [_encoded(r) for r in write.requests]
        closes = [(c, codec.dumps(codec.resolution_to_json(c.resolution))) for c in write.closes]
        return await self._call(
            lambda c: ops.commit_plan(
                c, write.turn_id, write.account, plan_text, replay_text, commits, closes
            )
        )

    async def finish_turn(self, reply: TurnReply) -> None:
        """Record phase ``replied`` with everything the reply leaves, in one transaction.

        The turn row gets the phase, ``reply.data`` and the blocks (JSON array, docs/architecture.md
        "Claims"); the replay record its second part (when given); the conversation its state (when
        given). The blocks, the data and the replay part are encoded with
        :func:`~turnframe.store.codec.dumps_record`, the state with ``dumps``.

        Raises:
            StoreError: no such turn, or a value is not encodable; nothing written.
            StoreUnavailable: the database cannot be written; nothing written.
        """
        blocks_text = codec.dumps_record(codec.blocks_to_json(reply.blocks))
        data_text = codec.dumps_record(reply.data)
        replay_text = None if reply.replay is None else codec.dumps_record(reply.replay)
        state = reply.conversation_state
        state_text = None if state is None else codec.dumps(state)
        await self._call(
            lambda c: ops.finish_turn(c, reply, blocks_text, data_text, replay_text, state_text)
        )

    async def close(self) -> None:
        """Close the connection; later calls raise ``StoreUnavailable``. Idempotent."""
        async with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None:
                conn.close()
