"""A read-only view of any :class:`~turnframe.store.base.TurnStore` (docs/shadow.md "No effect").

:class:`ReadOnlyStore` passes every read of the protocol through to the store it wraps
and refuses every write with :class:`StoreReadOnly` before the wrapped store sees it, so
a tool that only reads (``turnframe shadow``) cannot change a record, a turn, a card or
the outbox, whatever it calls. The split is two closed sets, :data:`READ_METHODS` and
:data:`WRITE_METHODS`, which together name every method of the protocol (a test
enumerates the protocol, so a method added later must be placed in one of them).

Beneath the wrapper the database is opened read-only too: :func:`open_sqlite_readonly`
opens the file with SQLite's ``mode=ro`` URI and ``PRAGMA query_only`` (no schema is
created, no migration runs, a missing file is an error, never a new database).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import NoReturn

from turnframe.core.events import DomainEvent, OutboxMessage
from turnframe.core.ids import CaseRef, JSONObject
from turnframe.core.interactions import Interaction
from turnframe.core.reply import ReplyBlock
from turnframe.store._sqlite_schema import SCHEMA_VERSION
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
    TurnStore,
)
from turnframe.store.errors import StoreError, StoreUnavailable
from turnframe.store.search import CasePage

__all__ = [
    "READ_METHODS",
    "WRITE_METHODS",
    "ReadOnlyStore",
    "StoreReadOnly",
    "open_sqlite_readonly",
]

READ_METHODS: frozenset[str] = frozenset(
    {
        "get_conversation_state",
        "get_turn",
        "unfinished_turns",
        "load_reply",
        "conversation_replies",
        "get_interaction",
        "open_interactions",
        "load_case",
        "list_cases",
        "list_cases_page",
        "find_cases",
        "find_cases_each",
        "unindexed_cases",
        "lookup_command",
        "case_events",
        "events_by_id",
        "outbox_messages",
        "load_replay",
        "close",
    }
)
"""The protocol methods :class:`ReadOnlyStore` passes through (``close`` releases the
wrapped store's connections and writes nothing)."""

WRITE_METHODS: frozenset[str] = frozenset(
    {
        "put_conversation_state",
        "begin_turn",
        "set_turn_phase",
        "save_reply",
        "create_interaction",
        "close_interaction",
        "index_case",
        "commit",
        "set_outbox_status",
        "save_replay",
        "commit_plan",
        "finish_turn",
    }
)
"""The protocol methods :class:`ReadOnlyStore` refuses with :class:`StoreReadOnly`."""


class StoreReadOnly(StoreError):
    """A write was asked of a read-only store; nothing was written.

    Args:
        method: the :class:`TurnStore` method that was called.
    """

    def __init__(self, method: str) -> None:
        super().__init__(f"the store is open read-only: {method} writes and was refused")
        self.method = method


class ReadOnlyStore:
    """A :class:`TurnStore` whose reads pass through and whose writes raise.

    Every method of :data:`WRITE_METHODS` raises :class:`StoreReadOnly` without calling
    the wrapped store; every method of :data:`READ_METHODS` returns what the wrapped
    store returns (and raises what it raises). No other attribute of the wrapped store
    is reachable through the wrapper, so a store-specific write cannot slip past it.

    Args:
        inner: the store to read.
    """

    def __init__(self, inner: TurnStore) -> None:
        self._inner = inner

    @property
    def inner(self) -> TurnStore:
        """The wrapped store (for the caller that opened it; writes through it are not refused)."""
        return self._inner

    @staticmethod
    def _refuse(method: str) -> NoReturn:
        raise StoreReadOnly(method)

    # reads -------------------------------------------------------------------------
    async def get_conversation_state(self, account: str, conversation_id: str) -> JSONObject:
        """Return the conversation's state (passes through)."""
        return await self._inner.get_conversation_state(account, conversation_id)

    async def get_turn(self, account: str, turn_id: str) -> TurnRecord | None:
        """Return the turn (passes through)."""
        return await self._inner.get_turn(account, turn_id)

    async def unfinished_turns(self, account: str | None = None) -> Sequence[TurnRecord]:
        """Return the turns not yet replied (passes through)."""
        return await self._inner.unfinished_turns(account)

    async def load_reply(self, account: str, turn_id: str) -> tuple[ReplyBlock, ...] | None:
        """Return the turn's reply blocks (passes through)."""
        return await self._inner.load_reply(account, turn_id)

    async def conversation_replies(
        self, account: str, conversation_id: str
    ) -> Sequence[tuple[str, tuple[ReplyBlock, ...]]]:
        """Return the conversation's replied turns in order (passes through)."""
        return await self._inner.conversation_replies(account, conversation_id)

    async def get_interaction(
        self, account: str, conversation_id: str, interaction_id: str
    ) -> Interaction | None:
        """Return the card (passes through)."""
        return await self._inner.get_interaction(account, conversation_id, interaction_id)

    async def open_interactions(self, account: str, conversation_id: str) -> Sequence[Interaction]:
        """Return the conversation's open cards (passes through)."""
        return await self._inner.open_interactions(account, conversation_id)

    async def load_case(self, case: CaseRef) -> CaseRow | None:
        """Return the stored case (passes through)."""
        return await self._inner.load_case(case)

    async def list_cases(self, account: str) -> Sequence[CaseRow]:
        """Return the account's cases (passes through)."""
        return await self._inner.list_cases(account)

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
        """Return one page of the account's cases (passes through)."""
        return await self._inner.list_cases_page(
            account, workflow=workflow, cases=cases, limit=limit, after=after, recent=recent
        )

    async def find_cases(
        self,
        account: str,
        words: str,
        *,
        workflow: str | None = None,
        limit: int = 100,
        after: str | None = None,
    ) -> CasePage:
        """Return one page of the cases whose search text holds the words (passes through)."""
        return await self._inner.find_cases(
            account, words, workflow=workflow, limit=limit, after=after
        )

    async def find_cases_each(
        self, account: str, mentions: Sequence[str], *, limit: int = 100
    ) -> tuple[CasePage, ...]:
        """Return each mention's first page of cases (passes through)."""
        return await self._inner.find_cases_each(account, mentions, limit=limit)

    async def unindexed_cases(self, account: str, *, limit: int = 100) -> Sequence[CaseRow]:
        """Return cases with no search text (passes through)."""
        return await self._inner.unindexed_cases(account, limit=limit)

    async def lookup_command(self, account: str, idempotency_key: str) -> JournalEntry | None:
        """Return the journal row of the key (passes through)."""
        return await self._inner.lookup_command(account, idempotency_key)

    async def case_events(self, case: CaseRef) -> Sequence[DomainEvent]:
        """Return the case's committed events (passes through)."""
        return await self._inner.case_events(case)

    async def events_by_id(self, event_ids: Sequence[str]) -> Sequence[DomainEvent]:
        """Return the committed events with these ids (passes through)."""
        return await self._inner.events_by_id(event_ids)

    async def outbox_messages(self, status: str | None = None) -> Sequence[OutboxMessage]:
        """Return the outbox messages (passes through)."""
        return await self._inner.outbox_messages(status)

    async def load_replay(self, account: str, turn_id: str) -> JSONObject | None:
        """Return the turn's replay record (passes through)."""
        return await self._inner.load_replay(account, turn_id)

    async def close(self) -> None:
        """Close the wrapped store (releases connections; writes nothing). Idempotent."""
        await self._inner.close()

    # writes: refused -----------------------------------------------------------------
    async def put_conversation_state(
        self, account: str, conversation_id: str, state: JSONObject
    ) -> None:
        """Refuse: raises :class:`StoreReadOnly`."""
        self._refuse("put_conversation_state")

    async def begin_turn(self, record: TurnRecord) -> TurnRecord:
        """Refuse: raises :class:`StoreReadOnly`."""
        self._refuse("begin_turn")

    async def set_turn_phase(
        self, turn_id: str, phase: str, data: JSONObject | None = None
    ) -> None:
        """Refuse: raises :class:`StoreReadOnly`."""
        self._refuse("set_turn_phase")

    async def save_reply(self, turn_id: str, blocks: Sequence[ReplyBlock]) -> None:
        """Refuse: raises :class:`StoreReadOnly`."""
        self._refuse("save_reply")

    async def create_interaction(self, interaction: Interaction) -> Interaction:
        """Refuse: raises :class:`StoreReadOnly`."""
        self._refuse("create_interaction")

    async def close_interaction(self, cas: InteractionCas) -> bool:
        """Refuse: raises :class:`StoreReadOnly`."""
        self._refuse("close_interaction")

    async def index_case(self, case: CaseRef, revision: int, search_text: str) -> bool:
        """Refuse: raises :class:`StoreReadOnly`."""
        self._refuse("index_case")

    async def commit(self, request: CommitRequest) -> CommitResult:
        """Refuse: raises :class:`StoreReadOnly`."""
        self._refuse("commit")

    async def set_outbox_status(self, message_id: str, status: str) -> None:
        """Refuse: raises :class:`StoreReadOnly`."""
        self._refuse("set_outbox_status")

    async def save_replay(self, account: str, turn_id: str, record: JSONObject) -> None:
        """Refuse: raises :class:`StoreReadOnly`."""
        self._refuse("save_replay")

    async def commit_plan(self, write: PlanCommit) -> PlanOutcome:
        """Refuse: raises :class:`StoreReadOnly`."""
        self._refuse("commit_plan")

    async def finish_turn(self, reply: TurnReply) -> None:
        """Refuse: raises :class:`StoreReadOnly`."""
        self._refuse("finish_turn")


def _readonly_connection(path: Path) -> sqlite3.Connection:
    """Open ``path`` with ``mode=ro`` and ``query_only``; check its schema version.

    Raises:
        StoreUnavailable: the file is missing, is not a Turnframe database, or holds
            another schema version than this Turnframe writes.
    """
    uri = path.resolve().as_uri() + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise StoreUnavailable(f"cannot open SQLite database at {path} read-only: {exc}") from exc
    try:
        conn.execute("PRAGMA query_only=ON")
        conn.execute("PRAGMA foreign_keys=ON")
        row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    except sqlite3.Error as exc:
        conn.close()
        raise StoreUnavailable(
            f"cannot read SQLite database at {path} as a Turnframe store: {exc}"
        ) from exc
    found = row[0] if row else None
    if found != SCHEMA_VERSION:
        conn.close()
        newer = isinstance(found, int) and found > SCHEMA_VERSION
        hint = (
            "it was written by a newer Turnframe"
            if newer
            else "open it once read-write to migrate it"
        )
        raise StoreUnavailable(
            f"SQLite database {path} has schema version {found}; a read-only open needs "
            f"version {SCHEMA_VERSION} ({hint})"
        )
    return conn


def open_sqlite_readonly(path: str | Path) -> ReadOnlyStore:
    """Return a read-only store over the SQLite file ``path``.

    The file is opened with the ``mode=ro`` URI and ``PRAGMA query_only``: SQLite itself
    refuses a write, beneath :class:`ReadOnlyStore` refusing it first. No schema is
    created and no migration runs (docs/shadow.md "No effect").

    Raises:
        StoreUnavailable: the file is missing (never created), unreadable, not a
            Turnframe database, or at another schema version.
    """
    from turnframe.store.sqlite import SqliteStore

    target = Path(path)
    if not target.is_file():
        raise StoreUnavailable(f"no SQLite database at {target}")
    conn = _readonly_connection(target)
    return ReadOnlyStore(SqliteStore(conn, target, offload=False))
