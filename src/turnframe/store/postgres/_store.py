"""The PostgreSQL :class:`~turnframe.store.base.TurnStore`.

See docs/architecture.md "Stores", ADR 0011.

See :mod:`turnframe.store.postgres` for the overview. Every method takes a pooled
connection in autocommit mode; writes that span statements run in one transaction
(``conn.transaction()``), which becomes a savepoint when the store is joined to a
caller's transaction (:meth:`PostgresStore.joined`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

import anyio
import psycopg
from psycopg import errors as pg_errors
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from turnframe.core.events import DomainEvent, OutboxMessage
from turnframe.core.ids import CaseRef, JSONObject, case_ref
from turnframe.core.interactions import Interaction, InteractionStatus
from turnframe.core.reply import ReplyBlock
from turnframe.store import codec
from turnframe.store._common import MISSING, card_from_row, foreign_case_conflict, turn_from_row
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
    CommitOutcomeUnknown,
    IdempotencyKeyReused,
    InteractionAlreadyResolved,
    RevisionConflict,
    StoreError,
    StoreUnavailable,
    TurnIdTaken,
)
from turnframe.store.faults import FaultPlan
from turnframe.store.outbox import ClaimedMessage, OutboxRow
from turnframe.store.postgres import _search as search
from turnframe.store.postgres import _sql as q
from turnframe.store.postgres._errors import (
    connection_lost,
    describe,
    is_conflict,
    to_store_error,
    translate,
)
from turnframe.store.postgres._migrations import (
    _where,
    check_schema_name,
    check_versions_for_reading,
    migrate,
)
from turnframe.store.search import (
    DEFAULT_PAGE,
    PROBE,
    CasePage,
    check_page,
    check_recent,
    query_keys,
    query_words,
    rarest,
)
from turnframe.store.takeover import DeadTurn

__all__ = ["PostgresStore"]

Conn = psycopg.AsyncConnection[Any]
_RETRIES = 20  # seq races within one conversation (UNIQUE (account, conversation_id, seq))


class _CaseMissed(Exception):
    """The revision check matched no row (raised inside the transaction to roll it back)."""


class _CardMissed(Exception):
    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


class _KeyTaken(Exception):
    """The journal already holds the key (a unique violation rolled the commit back)."""


# rows → records ------------------------------------------------------------------------
def _encoded(request: CommitRequest) -> tuple[str, list[str], list[str], str | None]:
    """Return the request's state, event data, payloads and card resolution as JSON text.

    Raises:
        StoreError: a value is not JSON.
    """
    cas = request.interaction
    return (
        codec.dumps(request.state),
        [codec.dumps(d.data) for d in request.events],
        [codec.dumps(o.payload) for o in request.outbox],
        None if cas is None else codec.dumps(codec.resolution_to_json(cas.resolution)),
    )


def _event(row: Sequence[Any]) -> DomainEvent:
    return DomainEvent(
        id=row[0],
        case=CaseRef(row[1], row[2]),
        revision=row[3],
        type=row[4],
        data=codec.loads(row[5]),
        operation=row[6],
        turn_id=row[7],
        idempotency_key=row[8],
    )


def _case(row: Sequence[Any]) -> CaseRow:
    return CaseRow(
        case=case_ref(row[0], row[1]),
        account=row[2],
        state=codec.loads(row[3]),
        revision=row[4],
        workflow_version=row[5],
    )


def _message(row: Sequence[Any]) -> OutboxMessage:
    return OutboxMessage(
        id=row[0],
        case=CaseRef(row[1], row[2]),
        topic=row[3],
        payload=codec.loads(row[4]),
        status=row[5],
    )


class PostgresStore:
    """A :class:`~turnframe.store.base.TurnStore` over PostgreSQL (psycopg 3, async).

    Build it with :meth:`open` (a pool of its own) or :meth:`joined` (the caller's
    connection and transaction). Passes
    :class:`~turnframe.store.conformance.StoreConformance`, races across connections
    included.

    Args:
        pool: the connection pool (``None`` for a joined store).
        where: ``host:port/dbname`` for messages.
        schema: the schema holding the tables.
        conn: the caller's connection, for a joined store.
        faults: an optional :class:`~turnframe.store.faults.FaultPlan` (internal
            failpoints, as :class:`~turnframe.store.memory.InMemoryStore` has).
    """

    def __init__(
        self,
        pool: AsyncConnectionPool[Any] | None,
        *,
        where: str,
        schema: str,
        conn: Conn | None = None,
        faults: FaultPlan | None = None,
        dsn: str = "",
    ) -> None:
        self._pool = pool
        self._joined = conn
        self._closed = False
        self.where = where
        self.schema = schema
        self.faults = faults
        self.dsn = dsn
        self._on_close: list[Callable[[], Awaitable[None]]] = []
        # (connection, lock) pinned to a turn by conversation_lock; the lock keeps a
        # transaction whole if the turn's tasks call the store concurrently
        self._pinned: ContextVar[tuple[Conn, anyio.Lock] | None] = ContextVar(
            f"tf_pinned_{id(self)}", default=None
        )

    # construction --------------------------------------------------------------------
    @classmethod
    async def open(
        cls,
        dsn: str,
        *,
        schema: str = "public",
        min_size: int = 1,
        max_size: int = 10,
        migrate_schema: bool = False,
        connect_timeout: float = 5.0,
        statement_timeout_ms: int = 30_000,
        synchronous_commit: str = "off",
        lock_timeout_ms: int = 10_000,
        faults: FaultPlan | None = None,
        read_only: bool = False,
    ) -> PostgresStore:
        """Open a pool on ``dsn`` with ``search_path`` set to ``schema``.

        Args:
            dsn: ``postgresql://user@host:port/dbname`` (or a key=value string).
            schema: the schema holding Turnframe's tables.
            min_size: connections kept open.
            max_size: connections at most.
            migrate_schema: run :func:`~turnframe.store.postgres.migrate` first.
            connect_timeout: seconds to wait for the first connection.
            statement_timeout_ms: the sessions' ``statement_timeout``.
            synchronous_commit: the sessions' ``synchronous_commit``. ``"off"`` (the
                default) makes bookkeeping writes (turn phases, cards, replies, replay
                records) skip their own WAL flush; the atomic commit and a turn's final
                ``replied`` phase always run with ``on``, and since the WAL is
                sequential their flush makes every earlier write durable too: whatever
                a user was answered with survives a database crash, and anything lost
                is a trailing bookkeeping write that recovery redoes (docs/architecture.md
                "Failures"). ``"on"`` flushes every write.
            lock_timeout_ms: the sessions' ``lock_timeout``.
            faults: internal failpoints for tests.
            read_only: every session runs with ``default_transaction_read_only=on``, so
                PostgreSQL itself refuses any write (SQLSTATE 25006, raised as
                :class:`StoreError`); for tools that must have no effect
                (docs/shadow.md "No effect").

        Returns:
            The open store.

        Raises:
            StoreUnavailable: the database cannot be reached (the message names host,
                port and database and gives the driver's reason), or the schema is not
                migrated; with ``read_only``, also a schema at another migration version
                than the shipped one (it cannot be migrated read-only).
            StoreError: ``read_only`` with ``migrate_schema`` (a read-only store never
                migrates).
        """
        name = check_schema_name(schema)
        if read_only and migrate_schema:
            raise StoreError("a read-only PostgresStore cannot migrate its schema")
        where = _where(dsn)
        if migrate_schema:
            await migrate(dsn, schema=name, connect_timeout=connect_timeout)
        options = (
            f"-c search_path={name} -c statement_timeout={int(statement_timeout_ms)}"
            f" -c lock_timeout={int(lock_timeout_ms)}"
            f" -c synchronous_commit={'on' if synchronous_commit == 'on' else 'off'}"
            " -c idle_in_transaction_session_timeout=60000"
            + (" -c default_transaction_read_only=on" if read_only else "")
        )
        kwargs: dict[str, Any] = {
            "autocommit": True,
            "options": options,
            "connect_timeout": max(1, int(connect_timeout)),
        }
        # One direct connection first: an unreachable database fails here with the
        # driver's own reason instead of a pool timeout.
        try:
            probe = await psycopg.AsyncConnection.connect(dsn, **kwargs)
        except psycopg.Error as exc:
            raise StoreUnavailable(
                f"cannot connect to PostgreSQL at {where}: {describe(where, exc).split(': ', 1)[-1]}"
            ) from exc
        try:
            with translate(where):
                cur = await probe.execute("SELECT to_regclass('tf_case') IS NOT NULL")
                row = await cur.fetchone()
                if read_only and row and row[0]:
                    await check_versions_for_reading(probe, where, name)
        finally:
            await probe.close()
        if not row or not row[0]:
            raise StoreUnavailable(
                f"PostgreSQL at {where}: schema {name} has no Turnframe tables; run "
                "`turnframe db migrate` (or open with migrate_schema=True)"
            )
        pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
            dsn,
            min_size=min_size,
            max_size=max(min_size, max_size),
            kwargs=kwargs,
            open=False,
            timeout=connect_timeout,
            name=f"turnframe-{name}",
        )
        try:
            await pool.open(wait=True, timeout=connect_timeout)
        except (PoolTimeout, psycopg.Error) as exc:
            await pool.close()
            raise StoreUnavailable(
                f"cannot open a connection pool to PostgreSQL at {where}: {exc}"
            ) from exc
        return cls(pool, where=where, schema=name, faults=faults, dsn=dsn)

    def joined(self, conn: Conn) -> PostgresStore:
        """Return a store that runs every call on ``conn``, inside the caller's transaction.

        Use it so an adopter's own row writes commit with Turnframe's (ADR 0011)::

            async with await psycopg.AsyncConnection.connect(dsn) as conn:
                async with conn.transaction():
                    await conn.execute("UPDATE bookings SET …")
                    await store.joined(conn).commit(request)
                # both committed here, or neither

        ``conn``'s ``search_path`` must reach the store's schema. Writes run in
        savepoints: a refused commit (``RevisionConflict``…) rolls back only its own
        statements and leaves the caller's transaction usable. The caller owns COMMIT,
        so a joined store never raises ``CommitOutcomeUnknown``; closing it does not
        close ``conn``.
        """
        return PostgresStore(
            None, where=self.where, schema=self.schema, conn=conn, faults=self.faults, dsn=self.dsn
        )

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[Conn]:
        """Yield a pooled connection (autocommit, ``search_path`` set), for adopters' SQL.

        Raises:
            StoreUnavailable: the store is closed or no connection came in time.
        """
        if self._joined is not None:
            yield self._joined
            return
        pinned = self._pinned.get()
        if pinned is not None:
            async with pinned[1]:
                yield pinned[0]
            return
        if self._pool is None or self._closed:
            raise StoreUnavailable(f"PostgreSQL store at {self.where} is closed")
        try:
            async with self._pool.connection() as conn:
                yield conn
        except PoolTimeout as exc:
            raise to_store_error(self.where, exc) from exc

    def _trip(self, boundary: str, *, performed: bool = False) -> None:
        if self.faults is not None:
            self.faults.trip(boundary, performed=performed)

    async def _execute(self, query: Any, params: Any, mode: int) -> Any:
        """Run one statement; ``mode`` 0: fetchone, 1: fetchall, 2: rowcount.

        The turn-pinned connection (see :meth:`conversation_lock`) is used directly,
        without the pool's context managers: this is the hot path of every call.
        """
        pinned = self._pinned.get()
        if pinned is not None and self._joined is None:
            conn, lock = pinned
            async with lock:
                try:
                    cur = await conn.execute(query, params)
                    if mode == 0:
                        return await cur.fetchone()
                    if mode == 1:
                        return await cur.fetchall()
                    return cur.rowcount
                except psycopg.Error as exc:
                    raise to_store_error(self.where, exc) from exc
                except UnicodeEncodeError as exc:
                    raise StoreError(f"text not storable as UTF-8: {exc}") from exc
        async with self.connection() as conn:
            with translate(self.where):
                cur = await conn.execute(query, params)
                if mode == 0:
                    return await cur.fetchone()
                if mode == 1:
                    return await cur.fetchall()
                return cur.rowcount

    async def _fetchone(self, query: Any, params: Any = None) -> Any:
        return await self._execute(query, params, 0)

    async def _fetchall(self, query: Any, params: Any = None) -> list[Any]:
        rows: list[Any] = await self._execute(query, params, 1)
        return rows

    async def _rowcount(self, query: Any, params: Any = None) -> int:
        count: int = await self._execute(query, params, 2)
        return count

    # conversations ---------------------------------------------------------------------
    async def get_conversation_state(self, account: str, conversation_id: str) -> JSONObject:
        """Return the conversation's state; ``{}`` when new."""
        row = await self._fetchone(q.GET_CONVERSATION, (account, conversation_id))
        return {} if row is None else codec.loads(row[0])

    async def put_conversation_state(
        self, account: str, conversation_id: str, state: JSONObject
    ) -> None:
        """Replace (upsert) the conversation's state.

        Raises:
            StoreError: ``state`` is not JSON.
            StoreUnavailable: the database cannot be written.
        """
        self._trip("put_conversation_state")
        text = codec.dumps(state)
        await self._rowcount(q.PUT_CONVERSATION, (account, conversation_id, text))

    # turns ---------------------------------------------------------------------------
    async def begin_turn(self, record: TurnRecord) -> TurnRecord:
        """Persist a new turn with ``seq`` = 1 + the conversation's turn count.

        See docs/architecture.md "Failures".

        Raises:
            TurnIdTaken: the turn id exists (whichever account's turn has it).
            StoreError: the record is not JSON.
            StoreUnavailable: the database cannot be written.
        """
        self._trip("begin_turn")
        input_text, data_text = codec.dumps(record.input), codec.dumps(record.data)
        params = {
            "turn_id": record.turn_id,
            "account": record.account,
            "conv": record.conversation_id,
            "phase": record.phase,
            "input": input_text,
            "data": data_text,
            "attempts": record.attempts,
        }
        async with self.connection() as conn:
            for _ in range(_RETRIES):
                try:
                    with translate(self.where):
                        async with conn.transaction():
                            cur = await conn.execute(q.BEGIN_TURN, params)
                            row = await cur.fetchone()
                except StoreError as exc:
                    cause = exc.__cause__
                    if isinstance(cause, pg_errors.UniqueViolation):
                        if cause.diag.constraint_name == "tf_turn_turn_id_key":
                            raise TurnIdTaken(record.turn_id) from cause
                        continue  # another turn of this conversation took the seq: retry
                    raise
                assert row is not None
                return replace(
                    record,
                    seq=int(row[0]),
                    input=codec.loads(input_text),
                    data=codec.loads(data_text),
                )
        raise StoreUnavailable(f"{self.where}: turn seq kept colliding; retry")

    async def set_turn_phase(
        self, turn_id: str, phase: str, data: JSONObject | None = None
    ) -> None:
        """Record the turn's phase, replacing its data when ``data`` is given.

        Raises:
            StoreError: no such turn, or ``data`` is not JSON.
        """
        self._trip("set_turn_phase")
        text = None if data is None else codec.dumps(data)
        sql = q.SET_PHASE_DURABLE if phase == "replied" else q.SET_PHASE
        if await self._rowcount(sql, (phase, text, turn_id)) != 1:
            raise StoreError(f"turn {turn_id} does not exist")

    async def get_turn(self, account: str, turn_id: str) -> TurnRecord | None:
        """Return the turn, or ``None`` when missing or another account's."""
        row = await self._fetchone(q.GET_TURN, (turn_id, account))
        return None if row is None else turn_from_row(row)

    async def unfinished_turns(self, account: str | None = None) -> Sequence[TurnRecord]:
        """Return turns whose phase is not ``replied``, oldest first.

        See docs/architecture.md "Failures".
        """
        return [turn_from_row(r) for r in await self._fetchall(q.UNFINISHED, {"account": account})]

    async def save_reply(self, turn_id: str, blocks: Sequence[ReplyBlock]) -> None:
        """Persist (replace) the reply's blocks exactly, as a JSON array.

        See docs/architecture.md "Claims".

        Raises:
            StoreError: no such turn, or a block is not encodable.
        """
        self._trip("save_reply")
        text = codec.dumps(codec.blocks_to_json(blocks))
        if await self._rowcount(q.SAVE_REPLY, (text, turn_id)) != 1:
            raise StoreError(f"turn {turn_id} does not exist")

    async def load_reply(self, account: str, turn_id: str) -> tuple[ReplyBlock, ...] | None:
        """Return the persisted blocks, or ``None`` (also for another account's turn)."""
        row = await self._fetchone(q.LOAD_REPLY, (turn_id, account))
        if row is None or row[0] is None:
            return None
        return codec.blocks_from_json(codec.loads(row[0]))

    async def conversation_replies(
        self, account: str, conversation_id: str
    ) -> Sequence[tuple[str, tuple[ReplyBlock, ...]]]:
        """Return (turn id, blocks) for every turn of the conversation with a reply."""
        rows = await self._fetchall(q.CONVERSATION_REPLIES, (account, conversation_id))
        return [(r[0], codec.blocks_from_json(codec.loads(r[1]))) for r in rows]

    # interactions --------------------------------------------------------------------
    async def create_interaction(self, interaction: Interaction) -> Interaction:
        """Persist the card with ``seq`` assigned; supersede the case's other open card (I5).

        The supersession and the insert are one transaction; a concurrent card in the
        same conversation or on the same case makes it retry (the partial unique index
        ``tf_interaction_one_open_per_case`` holds I5 in the database itself).

        Raises:
            StoreError: the interaction id exists, or the card is not encodable.
        """
        self._trip("create_interaction")
        card = interaction
        spec_text = codec.dumps(codec.spec_to_json(card.spec))
        res = card.resolution
        res_text = None if res is None else codec.dumps(codec.resolution_to_json(res))
        case = card.spec.case
        params = {
            "id": card.id,
            "account": card.account,
            "conv": card.conversation_id,
            "turn_id": card.turn_id,
            "spec": spec_text,
            "hash": card.payload_hash,
            "status": card.status.value,
            "resolution": res_text,
            "workflow": None if case is None else case.workflow,
            "case_id": None if case is None else case.case_id,
        }
        async with self.connection() as conn:
            for _ in range(_RETRIES):
                try:
                    with translate(self.where):
                        async with conn.transaction():
                            if case is not None and card.status is InteractionStatus.OPEN:
                                await conn.execute(
                                    q.SUPERSEDE_OPEN, (card.account, case.workflow, case.case_id)
                                )
                            cur = await conn.execute(q.INSERT_CARD, params)
                            row = await cur.fetchone()
                except StoreError as exc:
                    cause = exc.__cause__
                    if isinstance(cause, pg_errors.UniqueViolation):
                        if cause.diag.constraint_name == "tf_interaction_id_key":
                            raise StoreError(f"interaction {card.id} already exists") from cause
                        continue
                    raise
                assert row is not None
                return replace(
                    card,
                    seq=int(row[0]),
                    spec=codec.spec_from_json(codec.loads(spec_text)),
                    resolution=None
                    if res_text is None
                    else codec.resolution_from_json(codec.loads(res_text)),
                )
        raise StoreUnavailable(f"{self.where}: card seq kept colliding; retry")

    async def get_interaction(
        self, account: str, conversation_id: str, interaction_id: str
    ) -> Interaction | None:
        """Return the card, or ``None`` when missing or foreign (indistinguishable, I16)."""
        row = await self._fetchone(q.GET_CARD, (interaction_id, account, conversation_id))
        return None if row is None else card_from_row(row)

    async def open_interactions(self, account: str, conversation_id: str) -> Sequence[Interaction]:
        """Return the conversation's open cards in ``seq`` order."""
        return [
            card_from_row(r) for r in await self._fetchall(q.OPEN_CARDS, (account, conversation_id))
        ]

    async def close_interaction(self, cas: InteractionCas) -> bool:
        """Compare-and-set an open card to ``cas.status`` with its resolution (I16).

        Returns:
            ``True`` when this call closed the card; ``False`` when it was not open.
        """
        self._trip("close_interaction")
        text = codec.dumps(codec.resolution_to_json(cas.resolution))
        count = await self._rowcount(q.CLOSE_CARD, (cas.status.value, text, cas.interaction_id))
        return count == 1

    # cases and the atomic commit --------------------------------------------------------
    async def load_case(self, case: CaseRef) -> CaseRow | None:
        """Return the stored case, or ``None`` when nobody created it (revision 0)."""
        row = await self._fetchone(q.LOAD_CASE, (case.workflow, case.case_id))
        return None if row is None else _case(row)

    async def list_cases(self, account: str) -> Sequence[CaseRow]:
        """Return the account's cases in creation order."""
        return [_case(r) for r in await self._fetchall(q.LIST_CASES, (account,))]

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
            StoreUnavailable: the database cannot be reached.
        """
        start = check_page(limit, after)
        newest = check_recent(recent, workflow, cases, after)
        sql, params = search.list_sql(account, workflow, cases, limit, start, newest)
        return search.page_of(await self._fetchall(sql, params), limit, newest)

    async def find_cases(
        self,
        account: str,
        words: str,
        *,
        workflow: str | None = None,
        limit: int = DEFAULT_PAGE,
        after: str | None = None,
    ) -> CasePage:
        """Return a page of the indexed cases holding every word (``tf_case_term`` seeks).

        Two statements: the postings of every key counted up to ``PROBE``, then the
        rarest key's postings joined with the texts that hold every word.

        Raises:
            BadPageRequest: ``limit`` or ``after`` is malformed.
            StoreUnavailable: the database cannot be reached.
        """
        start = check_page(limit, after)
        wanted, sql, params = search.probe_sql(account, words)
        if not wanted:
            return CasePage(rows=())
        counts = [(int(n), str(k)) for k, n in await self._fetchall(sql, params)]
        if not counts or min(counts)[0] == 0:
            return CasePage(rows=())
        seek = min(counts)[1]
        sql, params = search.find_sql(account, seek, wanted, workflow, limit, start)
        return search.page_of(await self._fetchall(sql, params), limit)

    async def find_cases_each(
        self, account: str, mentions: Sequence[str], *, limit: int = DEFAULT_PAGE
    ) -> tuple[CasePage, ...]:
        """Return each mention's first ``find_cases`` page in two statements (see ``TurnStore``).

        One counts every mention's keys (``PROBE_KEYS``), one seeks each mention's
        rarest key (``find_each_sql``).

        Raises:
            BadPageRequest: ``limit`` is malformed.
            StoreUnavailable: the database cannot be reached.
        """
        check_page(limit, None)
        plans = [(w, query_keys(w)) for w in (query_words(m) for m in mentions)]
        keys = sorted({k for _, ks in plans for k in ks})
        counts: dict[str, int] = {}
        if keys:
            got = await self._fetchall(search.PROBE_KEYS, (account, PROBE, keys))
            counts = {str(k): int(n) for k, n in got}
        seeks = [
            (n, seek, wanted)
            for n, (wanted, ks) in enumerate(plans)
            if (seek := rarest(ks, counts)) is not None
        ]
        found: dict[int, list[Any]] = {n: [] for n, _, _ in seeks}
        if seeks:
            sql, params = search.find_each_sql(account, seeks, limit)
            for row in await self._fetchall(sql, params):
                found[int(row[0])].append(row[1:])
        return tuple(
            search.page_of(sorted(found[n], key=lambda r: int(r[0])), limit)
            if n in found
            else CasePage(rows=())
            for n in range(len(plans))
        )

    async def unindexed_cases(
        self, account: str, *, limit: int = DEFAULT_PAGE
    ) -> Sequence[CaseRow]:
        """Return up to ``limit`` of the account's cases with no search text, oldest first.

        Raises:
            BadPageRequest: ``limit`` is malformed.
            StoreUnavailable: the database cannot be reached.
        """
        check_page(limit, None)
        return [search.row_of(r) for r in await self._fetchall(search.UNINDEXED, (account, limit))]

    async def index_case(self, case: CaseRef, revision: int, search_text: str) -> bool:
        """Index the case's search text if it is still at ``revision`` (one transaction).

        The case row is locked (``FOR UPDATE``) first, so a concurrent commit either
        precedes (the revision moved: ``False``) or waits.

        Raises:
            StoreUnavailable: the database cannot be reached.
        """
        async with self.connection() as conn:
            with translate(self.where):
                async with conn.transaction():
                    cur = await conn.execute(search.CASE_FOR_INDEX, (case.workflow, case.case_id))
                    row = await cur.fetchone()
                    if row is None or int(row[1]) != revision:
                        return False
                    await conn.execute(
                        search.WRITE_SEARCH,
                        search.search_params(case, str(row[0]), search_text, touch=False),
                    )
                    return True

    async def commit(self, request: CommitRequest) -> CommitResult:
        """Commit one batch in one transaction (I12–I16; docs/postgres.md "Store").

        Statements, at READ COMMITTED: the case write with the revision check in the
        statement itself (``UPDATE … WHERE revision = %(expected)s RETURNING``, or at
        expected revision 0 ``INSERT … ON CONFLICT DO NOTHING RETURNING``), which also
        draws the event and outbox ids; the card compare-and-set; the events; the
        outbox rows; the journal row keyed by (account, idempotency key) with the
        request hash and the serialised result. Zero rows from the case write or the
        card, or a unique violation on the journal, rolls everything back and the key
        is looked up: a journaled key answers (same hash: the stored result with
        ``replayed=True``; another hash: ``IdempotencyKeyReused``), so a concurrent
        duplicate, which waits on the row lock or the unique index, reads the first
        one's outcome. Otherwise the refusal is raised.

        Raises:
            RevisionConflict: the revision is not ``expected_revision`` (also for a
                serialization failure or deadlock), or the case is another account's
                (not retryable then).
            IdempotencyKeyReused: the key was journaled with another request hash.
            InteractionAlreadyResolved: ``request.interaction`` was not open (or is
                missing or another account's: status ``"missing"``).
            CommitOutcomeUnknown: the connection was lost while COMMIT was in flight;
                settle it with :meth:`lookup_command`, never by a blind retry.
            StoreError: the state, an event or a payload is not JSON.
            StoreUnavailable: the database cannot be reached; nothing was written.
        """
        self._trip("commit")
        texts = _encoded(request)
        async with self.connection() as conn:
            result = await self._commit(conn, request, *texts)
        self._trip("commit.ack_lost", performed=True)
        return result

    async def _commit(
        self,
        conn: Conn,
        request: CommitRequest,
        state_text: str,
        event_texts: list[str],
        outbox_texts: list[str],
        res_text: str | None,
        *,
        nested: bool = False,
    ) -> CommitResult:
        """Run one commit on ``conn``; ``nested``: inside the caller's open transaction.

        Nested, the commit's transaction is a savepoint, so a lost connection at its end
        is not an unknown outcome (the caller's COMMIT is the one that decides).
        """
        case, account, key = request.case, request.account, request.idempotency_key
        at_commit = False
        try:
            # Pipeline mode: BEGIN goes with the case write, COMMIT with the pipeline's
            # last sync; three round trips per commit.
            async with conn.pipeline(), conn.transaction():
                result = await self._commit_body(
                    conn, request, state_text, event_texts, outbox_texts, res_text
                )
                at_commit = True
        except (_CaseMissed, _CardMissed, _KeyTaken) as refusal:
            with translate(self.where):
                found = await self._lookup(conn, account, key)
                if found is not None:
                    return self._answer(found, request)
                if isinstance(refusal, _CardMissed):
                    raise InteractionAlreadyResolved(
                        request.interaction.interaction_id if request.interaction else "",
                        refusal.status,
                    ) from None
                if isinstance(refusal, _KeyTaken):  # pragma: no cover - the lookup found it
                    raise StoreError(f"idempotency key {key[:16]}… vanished") from None
                raise await self._conflict(conn, request) from None
        except psycopg.Error as exc:
            if at_commit and not nested and self._joined is None and connection_lost(exc, conn):
                raise CommitOutcomeUnknown(
                    f"{describe(self.where, exc)}: the connection was lost during COMMIT of "
                    f"{case} (key {key[:16]}…); look the key up to settle it"
                ) from exc
            if is_conflict(exc):
                with translate(self.where):
                    raise await self._conflict(conn, request) from exc
            raise to_store_error(self.where, exc) from exc
        except UnicodeEncodeError as exc:
            raise StoreError(f"text not storable as UTF-8: {exc}") from exc
        return result

    async def _commit_body(
        self,
        conn: Conn,
        request: CommitRequest,
        state_text: str,
        event_texts: list[str],
        outbox_texts: list[str],
        res_text: str | None,
    ) -> CommitResult:
        case, account = request.case, request.account
        params = {
            "workflow": case.workflow,
            "case_id": case.case_id,
            "account": account,
            "state": state_text,
            "version": request.workflow_version,
            "expected": request.expected_revision,
            "n_events": len(event_texts),
            "n_outbox": len(outbox_texts),
        }
        sql = q.CREATE_CASE if request.expected_revision == 0 else q.UPDATE_CASE
        return await self._commit_pipelined(
            conn, request, sql, params, event_texts, outbox_texts, res_text
        )

    async def _commit_pipelined(
        self,
        conn: Conn,
        request: CommitRequest,
        sql: Any,
        params: dict[str, Any],
        event_texts: list[str],
        outbox_texts: list[str],
        res_text: str | None,
    ) -> CommitResult:
        """The commit's statements in pipeline mode: three round trips in all.

        BEGIN and the case write go together (their result gives the revision and the
        ids); the card compare-and-set, events, outbox rows and journal row go together
        and are checked after one sync; COMMIT follows at the transaction's exit.
        """
        case, account, key = request.case, request.account, request.idempotency_key
        cur = await conn.execute(sql, params)
        row = await cur.fetchone()
        if row is None:
            raise _CaseMissed()
        revision, event_pos, outbox_pos = int(row[0]), list(row[2]), list(row[3])
        # The word-search index, in the same transaction (turnframe.store.postgres._search).
        await conn.execute(
            search.WRITE_SEARCH, search.search_params(case, account, request.search_text)
        )
        cas = request.interaction
        card_cur = None
        if cas is not None:
            card_cur = await conn.execute(
                q.RESOLVE_CARD, (cas.status.value, res_text, cas.interaction_id, account)
            )
        for withdrawal in request.withdraw:
            # ADR 0012: close the card if it is still open; one no longer open stays as is.
            await conn.execute(
                q.RESOLVE_CARD,
                (
                    withdrawal.status.value,
                    codec.dumps(codec.resolution_to_json(withdrawal.resolution)),
                    withdrawal.interaction_id,
                    account,
                ),
            )
        events = tuple(
            DomainEvent(
                id=f"ev-{pos}",
                case=case,
                revision=revision,
                type=draft.type,
                data=codec.loads(text),
                operation=draft.operation,
                turn_id=request.turn_id,
                idempotency_key=key,
            )
            for pos, draft, text in zip(event_pos, request.events, event_texts, strict=True)
        )
        if events:
            await conn.execute(
                q.INSERT_EVENTS,
                {
                    "workflow": case.workflow,
                    "case_id": case.case_id,
                    "revision": revision,
                    "turn_id": request.turn_id,
                    "key": key,
                    "pos": event_pos,
                    "ord": list(range(1, len(events) + 1)),
                    "types": [d.type for d in request.events],
                    "datas": event_texts,
                    "ops": [d.operation for d in request.events],
                },
            )
        outbox_ids = tuple(f"ob-{pos}" for pos in outbox_pos)
        if outbox_ids:
            await conn.execute(
                q.INSERT_OUTBOX,
                {
                    "workflow": case.workflow,
                    "case_id": case.case_id,
                    "pos": outbox_pos,
                    "topics": [o.topic for o in request.outbox],
                    "payloads": outbox_texts,
                },
            )
        result = CommitResult(case=case, revision=revision, events=events, outbox_ids=outbox_ids)
        cur = await conn.execute(
            q.INSERT_JOURNAL,
            (
                account,
                key,
                request.request_hash,
                request.turn_id,
                codec.dumps(list(request.operations)),
                codec.commit_result_text(result, event_texts),
            ),
        )
        if cas is not None and card_cur is not None and await card_cur.fetchone() is None:
            status_cur = await conn.execute(q.CARD_STATUS, (cas.interaction_id, account))
            found = await status_cur.fetchone()
            raise _CardMissed(MISSING if found is None else str(found[0]))
        if await cur.fetchone() is None:
            raise _KeyTaken()
        return result

    async def _conflict(self, conn: Conn, request: CommitRequest) -> RevisionConflict:
        case = request.case
        cur = await conn.execute(q.CASE_REVISION, (case.workflow, case.case_id))
        row = await cur.fetchone()
        actual = 0 if row is None else int(row[0])
        if row is not None and row[1] != request.account:
            return foreign_case_conflict(case, request.expected_revision, actual)
        return RevisionConflict(case, request.expected_revision, actual)

    async def _lookup(self, conn: Conn, account: str, key: str) -> JournalEntry | None:
        cur = await conn.execute(q.LOOKUP_JOURNAL, (account, key))
        row = await cur.fetchone()
        if row is None:
            return None
        return JournalEntry(
            account=account,
            idempotency_key=key,
            request_hash=row[0],
            result=codec.commit_result_from_json(codec.loads(row[1])),
        )

    @staticmethod
    def _answer(entry: JournalEntry, request: CommitRequest) -> CommitResult:
        if entry.request_hash != request.request_hash:
            raise IdempotencyKeyReused(request.idempotency_key)
        return replace(entry.result, replayed=True)

    async def lookup_command(self, account: str, idempotency_key: str) -> JournalEntry | None:
        """Return the journal row for the account's key, or ``None`` (I13)."""
        async with self.connection() as conn:
            with translate(self.where):
                return await self._lookup(conn, account, idempotency_key)

    # events, outbox, replay -------------------------------------------------------------
    async def case_events(self, case: CaseRef) -> Sequence[DomainEvent]:
        """Return the case's committed events in order (revision, then position, I15)."""
        return [
            _event(r) for r in await self._fetchall(q.CASE_EVENTS, (case.workflow, case.case_id))
        ]

    async def events_by_id(self, event_ids: Sequence[str]) -> Sequence[DomainEvent]:
        """Return the events with these ids in journal order; unknown ids are left out."""
        if not event_ids:
            return []
        return [_event(r) for r in await self._fetchall(q.EVENTS_BY_ID, (list(set(event_ids)),))]

    async def outbox_messages(self, status: str | None = None) -> Sequence[OutboxMessage]:
        """Return outbox messages (optionally of one status), oldest first."""
        return [_message(r) for r in await self._fetchall(q.OUTBOX, {"status": status})]

    async def set_outbox_status(self, message_id: str, status: str) -> None:
        """Set an outbox message's status.

        Raises:
            StoreError: no such message.
        """
        if await self._rowcount(q.SET_OUTBOX_STATUS, (status, message_id)) != 1:
            raise StoreError(f"outbox message {message_id} does not exist")

    async def save_replay(self, account: str, turn_id: str, record: JSONObject) -> None:
        """Persist (replace) the turn's replay record (I20).

        Raises:
            StoreError: ``record`` is not JSON.
        """
        self._trip("save_replay")
        text = codec.dumps(record)
        await self._rowcount(q.SAVE_REPLAY, {"a": account, "t": turn_id, "r": text})

    async def load_replay(self, account: str, turn_id: str) -> JSONObject | None:
        """Return the turn's replay record (its second part's keys over the first's), or ``None``."""
        row = await self._fetchone(q.LOAD_REPLAY, {"a": account, "t": turn_id})
        first, older, outcome = (None, None, None) if row is None else row
        if first is None and outcome is None:
            return None
        record: JSONObject = {} if first is None else codec.loads(first)
        for part in (older, outcome):  # before migration 0007, then since
            if part is not None:
                record.update(codec.loads(part))
        return record

    # the folded turn writes (docs/adr/0024-four-writes-per-turn.md) ---------------------
    async def commit_plan(self, write: PlanCommit) -> PlanOutcome:
        """Store the plan and run all its commits in one transaction (READ COMMITTED).

        In order: phase ``committing`` with the plan (when given), the replay record's
        first part (when given), each request exactly as :meth:`commit` runs it inside a
        savepoint (a refusal rolls back to it and is returned in its slot), each close's
        compare-and-set. Every value is encoded once, before the transaction (the plan
        and the replay record with :func:`~turnframe.store.codec.dumps_record`).

        Raises:
            InjectedFault: a boundary the write crosses is armed (see
                :data:`~turnframe.store.base.BOUNDARIES`).
            CommitOutcomeUnknown: the connection was lost while COMMIT was in flight;
                read the turn (its phase) or the commits' keys to settle it.
            StoreError: no such turn (with a plan), or a value is not JSON; nothing written.
            StoreUnavailable: the database cannot be reached; nothing was written.
        """
        if write.plan is not None:
            self._trip("set_turn_phase")
        if write.replay is not None:
            self._trip("save_replay")
        for _ in write.requests:
            self._trip("commit")
        for _ in write.closes:
            self._trip("close_interaction")
        plan_text = None if write.plan is None else codec.dumps_record(write.plan)
        replay_text = None if write.replay is None else codec.dumps_record(write.replay)
        encoded = [_encoded(r) for r in write.requests]
        closes = [(c, codec.dumps(codec.resolution_to_json(c.resolution))) for c in write.closes]
        outcomes: list[CommitResult | CommitRefusal] = []
        closed: list[bool] = []
        async with self.connection() as conn:
            at_commit = False
            try:
                async with conn.transaction():
                    with translate(self.where):
                        if plan_text is not None:
                            cur = await conn.execute(q.STORE_PLAN, (plan_text, write.turn_id))
                            if cur.rowcount != 1:
                                raise StoreError(f"turn {write.turn_id} does not exist")
                        if replay_text is not None:
                            await conn.execute(
                                q.SAVE_REPLAY,
                                {"a": write.account, "t": write.turn_id, "r": replay_text},
                            )
                    for request, texts in zip(write.requests, encoded, strict=True):
                        try:
                            outcomes.append(await self._commit(conn, request, *texts, nested=True))
                        except (
                            RevisionConflict,
                            InteractionAlreadyResolved,
                            IdempotencyKeyReused,
                        ) as refusal:
                            outcomes.append(refusal)
                    with translate(self.where):
                        for cas, text in closes:
                            cur = await conn.execute(
                                q.CLOSE_OWN_CARD,
                                (cas.status.value, text, cas.interaction_id, write.account),
                            )
                            closed.append(cur.rowcount == 1)
                    at_commit = True
            except psycopg.Error as exc:
                if at_commit and self._joined is None and connection_lost(exc, conn):
                    raise CommitOutcomeUnknown(
                        f"{describe(self.where, exc)}: the connection was lost during COMMIT"
                        f" of turn {write.turn_id}'s plan; read the turn to settle it"
                    ) from exc
                raise to_store_error(self.where, exc) from exc
        for _ in write.requests:
            self._trip("commit.ack_lost", performed=True)
        return PlanOutcome(commits=tuple(outcomes), closed=tuple(closed))

    async def finish_turn(self, reply: TurnReply) -> None:
        """Record phase ``replied`` with everything the reply leaves, in one durable transaction.

        Raises:
            InjectedFault: a boundary the write crosses is armed; nothing written.
            StoreError: no such turn, or a value is not encodable; nothing written.
            StoreUnavailable: the database cannot be reached; nothing was written.
        """
        if reply.conversation_state is not None:
            self._trip("put_conversation_state")
        self._trip("save_reply")
        if reply.replay is not None:
            self._trip("save_replay")
        self._trip("set_turn_phase")
        blocks_text = codec.dumps_record(codec.blocks_to_json(reply.blocks))
        data_text = codec.dumps_record(reply.data)
        replay_text = None if reply.replay is None else codec.dumps_record(reply.replay)
        state = reply.conversation_state
        state_text = None if state is None else codec.dumps(state)
        async with self.connection() as conn:
            with translate(self.where):
                async with conn.transaction():
                    cur = await conn.execute(
                        q.FINISH_TURN, (data_text, blocks_text, replay_text, reply.turn_id)
                    )
                    if cur.rowcount != 1:
                        raise StoreError(f"turn {reply.turn_id} does not exist")
                    if state_text is not None:
                        await conn.execute(
                            q.PUT_CONVERSATION, (reply.account, reply.conversation_id, state_text)
                        )

    @asynccontextmanager
    async def conversation_lock(self, account: str, conversation_id: str) -> AsyncIterator[None]:
        """Serialize one conversation's turns across processes for the block.

        Takes a session advisory lock keyed by (account, conversation) on one pooled
        connection and pins that connection to the current task for the block: every
        store call the turn makes runs on it (no pool round trip per call, one
        connection per turn in flight). The lock is released afterwards, or dropped
        with the connection if the process dies. Correctness never depends on it (the
        revision check and the card compare-and-set do that); it gives a
        conversation's turns one order.
        """
        if self._pinned.get() is not None or self._joined is not None:
            raise StoreError("conversation_lock does not nest, and a joined store has no pool")
        key = f"tf.conversation:{account}:{conversation_id}"
        async with self.connection() as conn:
            with translate(self.where):
                await conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (key,))
            token = self._pinned.set((conn, anyio.Lock()))
            try:
                yield
            finally:
                self._pinned.reset(token)
                if not conn.closed:
                    with translate(self.where):
                        await conn.execute(
                            "SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (key,)
                        )

    # taking over crashed turns (turnframe.store.takeover) -------------------------------
    async def stalled_turns(
        self, *, idle_seconds: float, account: str | None = None, limit: int = 100
    ) -> Sequence[TurnRecord]:
        """Return unfinished, non-dead, unleased turns unchanged for ``idle_seconds``."""
        params = {"idle": float(idle_seconds), "account": account, "limit": int(limit)}
        return [turn_from_row(r) for r in await self._fetchall(q.STALLED_TURNS, params)]

    async def claim_turn(
        self, turn_id: str, owner: str, *, attempts: int, lease_seconds: float
    ) -> TurnRecord | None:
        """Compare-and-set takeover: ``attempts`` → ``attempts + 1`` under a lease, or ``None``."""
        params = {
            "owner": owner,
            "lease": float(lease_seconds),
            "turn_id": turn_id,
            "attempts": int(attempts),
        }
        row = await self._fetchone(q.CLAIM_TURN, params)
        return None if row is None else turn_from_row(row)

    async def release_turn(self, turn_id: str, owner: str, *, error: str | None = None) -> None:
        """Drop ``owner``'s lease, recording ``error`` as the last reason."""
        await self._rowcount(q.RELEASE_TURN, (error, turn_id, owner))

    async def dead_letter_turn(self, turn_id: str, *, attempts: int, reason: str) -> bool:
        """Move the turn to ``dead_letter`` if ``attempts`` still matches."""
        params = {"turn_id": turn_id, "attempts": int(attempts), "reason": reason}
        return await self._fetchone(q.DEAD_LETTER_TURN, params) is not None

    async def dead_turns(self, account: str | None = None) -> Sequence[DeadTurn]:
        """Return dead-lettered turns with their reasons, oldest first."""
        rows = await self._fetchall(q.DEAD_LETTERS, {"account": account})
        return [DeadTurn(record=turn_from_row(r), reason=str(r[8] or "")) for r in rows]

    # the outbox relay (turnframe.store.outbox) -------------------------------------------
    async def claim_outbox(
        self,
        owner: str,
        *,
        limit: int = 10,
        lease_seconds: float = 30.0,
        topics: Sequence[str] | None = None,
        reconcile: bool = False,
    ) -> Sequence[ClaimedMessage]:
        """Lease up to ``limit`` rows with ``FOR UPDATE SKIP LOCKED`` (docs/postgres.md "Store").

        ``pending`` rows become ``in_flight``; with ``reconcile``, ``outcome_unknown``
        rows become ``reconciling``. Each claim counts an attempt.
        """
        params = {
            "from": "outcome_unknown" if reconcile else "pending",
            "to": "reconciling" if reconcile else "in_flight",
            "owner": owner,
            "lease": float(lease_seconds),
            "limit": int(limit),
            "topics": None if topics is None else list(topics),
        }
        rows = await self._fetchall(q.CLAIM_OUTBOX, params)
        return [
            ClaimedMessage(message=_message(r), owner=owner, attempts=r[6], reconciling=reconcile)
            for r in sorted(rows, key=lambda r: int(str(r[0]).removeprefix("ob-")))
        ]

    async def settle_outbox(
        self,
        message_id: str,
        owner: str,
        status: str,
        *,
        error: str | None = None,
        retry_in: float = 0.0,
    ) -> bool:
        """Compare-and-set a leased row to ``status``; ``False`` for a lost lease."""
        params = {
            "status": status,
            "error": error,
            "delay": float(retry_in),
            "id": message_id,
            "owner": owner,
        }
        return await self._fetchone(q.SETTLE_OUTBOX, params) is not None

    async def expire_outbox_leases(
        self, retry_safe_topics: Collection[str] = ()
    ) -> Sequence[tuple[str, str]]:
        """Settle expired leases: retry-safe topics to ``pending``, others ``outcome_unknown``."""
        rows = await self._fetchall(q.EXPIRE_LEASES, {"safe": list(retry_safe_topics)})
        return [(str(r[0]), str(r[1])) for r in rows]

    async def outbox_row(self, message_id: str) -> OutboxRow | None:
        """Return the row with attempts, lease owner and last error, or ``None``."""
        row = await self._fetchone(q.OUTBOX_ROW, (message_id,))
        if row is None:
            return None
        return OutboxRow(
            message=_message(row), attempts=row[6], lease_owner=row[7], last_error=row[8]
        )

    def on_close(self, callback: Callable[[], Awaitable[None]]) -> None:
        """Run ``callback`` after the pool is closed (e.g. drop a throwaway schema)."""
        self._on_close.append(callback)

    async def close(self) -> None:
        """Close the pool (a joined store leaves the caller's connection open). Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._pool is not None:
            await self._pool.close()
        for callback in self._on_close:
            await callback()
