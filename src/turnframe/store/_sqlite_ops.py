"""The synchronous SQL of :class:`turnframe.store.sqlite.SqliteStore`.

Each function is one whole store operation on one connection: writes run inside
:func:`immediate` (``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any exception), reads
are single statements. JSON arrives already encoded as text, so nothing here can fail
half-way for a reason other than the database.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from turnframe.core.dataclass_init import fast_init
from turnframe.core.events import DomainEvent, OutboxMessage
from turnframe.core.ids import CaseRef, JSONObject, case_ref
from turnframe.core.interactions import Interaction, InteractionStatus
from turnframe.store import _sqlite_search as search
from turnframe.store import codec
from turnframe.store._common import (
    CARD_COLS,
    COMMITTING,
    MISSING,
    REPLIED,
    TURN_COLS,
    card_from_row,
    foreign_case_conflict,
    turn_from_row,
)
from turnframe.store._sqlite_schema import MIGRATIONS, SCHEMA, SCHEMA_VERSION
from turnframe.store.base import (
    CaseRow,
    CommitRefusal,
    CommitRequest,
    CommitResult,
    InteractionCas,
    PlanOutcome,
    TurnRecord,
    TurnReply,
    with_stored_text,
)
from turnframe.store.errors import (
    IdempotencyKeyReused,
    InteractionAlreadyResolved,
    RevisionConflict,
    StoreError,
    StoreUnavailable,
    TurnIdTaken,
)

OPEN = InteractionStatus.OPEN.value
IS_OPEN = f"status = '{OPEN}'"
"""The open-card test, written as a literal: compared with a bound parameter, a
partial index's term (``WHERE status = 'open'``) makes SQLite prepare the statement
again at every call (~10 µs each)."""
CHUNK = 500  # bound on "?" parameters per IN (…) list

EVENT_COLS = "id, workflow, case_id, revision, type, data, operation, turn_id, idempotency_key"
CASE_COLS = "workflow, case_id, account, state, revision, workflow_version"
OUTBOX_COLS = "id, workflow, case_id, topic, payload, status"


# rows → records ----------------------------------------------------------------------
def _event(row: Any) -> DomainEvent:
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


def _case(row: Any) -> CaseRow:
    text = row[3]
    case = CaseRow(
        case=case_ref(row[0], row[1]),
        account=row[2],
        state=codec.loads(text),
        revision=row[4],
        workflow_version=row[5],
    )
    return with_stored_text(case, text)


def _message(row: Any) -> OutboxMessage:
    payload = codec.loads(row[4])
    return OutboxMessage(
        id=row[0], case=CaseRef(row[1], row[2]), topic=row[3], payload=payload, status=row[5]
    )


# connection and transactions -----------------------------------------------------------
class immediate:  # lower case: used as ``with immediate(conn):``, like a function
    """Run the block in ``BEGIN IMMEDIATE`` … ``COMMIT``; roll back on any exception.

    A class, not a ``@contextmanager`` generator: every store write enters one, and the
    generator's frame, ``next`` calls and ``StopIteration`` cost more than the two
    method calls. A ``COMMIT`` that fails is rolled back too.
    """

    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> None:
        self._conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        conn = self._conn
        if kind is None:
            try:
                conn.execute("COMMIT")
                return
            except BaseException:
                _roll_back(conn)
                raise
        _roll_back(conn)


def _roll_back(conn: sqlite3.Connection) -> None:
    """Roll back the open transaction, if any; a failure here hides no original error."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:  # pragma: no cover - the original error matters more
            pass


def connect(target: str, timeout: float) -> sqlite3.Connection:
    """Open ``target`` with WAL, ``synchronous=NORMAL``, foreign keys; create the schema.

    Raises:
        sqlite3.Error: the file cannot be opened or is not a database.
        StoreUnavailable: the database holds a newer schema version.
    """
    conn = sqlite3.connect(target, timeout=timeout, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        with immediate(conn):
            fresh = (
                conn.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
                ).fetchone()
                is None
            )
            found = (
                None
                if fresh
                else conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
            )
            if found is not None and found > SCHEMA_VERSION:
                raise StoreUnavailable(
                    f"SQLite database {target} has schema version {found}; "
                    f"this Turnframe reads version {SCHEMA_VERSION}"
                )
            if found is not None:
                _migrate(conn, found)
            for statement in (SCHEMA + search.SEARCH_SCHEMA).split(";"):
                if statement.strip():
                    conn.execute(statement)
            if found is None:
                conn.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
    except BaseException:
        conn.close()
        raise
    return conn


def _migrate(conn: sqlite3.Connection, found: int) -> None:
    """Apply every migration above version ``found`` and record each version reached.

    Version 2 is :data:`MIGRATIONS`'s (the two-part replay record), version 3 the
    word-search index (:data:`turnframe.store._sqlite_search.MIGRATION`).
    """
    steps = {**MIGRATIONS, 3: search.MIGRATION}
    for version in range(found + 1, SCHEMA_VERSION + 1):
        for statement in steps.get(version, ()):
            conn.execute(statement)
        conn.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))


# conversations and turns ------------------------------------------------------------------
def get_conversation_state(conn: sqlite3.Connection, account: str, conv: str) -> JSONObject:
    """Return the conversation's state, ``{}`` when new."""
    row = conn.execute(
        "SELECT state FROM conversations WHERE account = ? AND conversation_id = ?",
        (account, conv),
    ).fetchone()
    return {} if row is None else codec.loads(row[0])


def put_conversation_state(conn: sqlite3.Connection, account: str, conv: str, text: str) -> None:
    """Upsert the conversation's state."""
    with immediate(conn):
        conn.execute(
            "INSERT INTO conversations (account, conversation_id, state) VALUES (?, ?, ?)"
            " ON CONFLICT (account, conversation_id) DO UPDATE SET state = excluded.state",
            (account, conv, text),
        )


def begin_turn(
    conn: sqlite3.Connection, record: TurnRecord, input_text: str, data_text: str
) -> int:
    """Insert the turn; return its ``seq``. Raises TurnIdTaken for a duplicate id.

    ``seq`` is 1 + the conversation's highest ``seq``, read from the end of the
    ``UNIQUE (account, conversation_id, seq)`` index: one index probe, whatever the
    number of turns (no count of the conversation's rows).
    """
    with immediate(conn):
        seq = 1 + int(
            conn.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM turns WHERE account = ? AND conversation_id = ?",
                (record.account, record.conversation_id),
            ).fetchone()[0]
        )
        values = (record.turn_id, record.account, record.conversation_id, seq, record.phase)
        try:
            conn.execute(
                f"INSERT INTO turns ({TURN_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (*values, input_text, data_text, record.attempts),
            )
        except sqlite3.IntegrityError as exc:
            raise TurnIdTaken(record.turn_id) from exc
    return seq


def update_turn(conn: sqlite3.Connection, turn_id: str, sql: str, params: tuple[Any, ...]) -> None:
    """Run ``UPDATE turns SET <sql> WHERE turn_id = ?``; StoreError when no such turn."""
    with immediate(conn):
        cur = conn.execute(f"UPDATE turns SET {sql} WHERE turn_id = ?", (*params, turn_id))
        if cur.rowcount != 1:
            raise StoreError(f"turn {turn_id} does not exist")


def get_turn(conn: sqlite3.Connection, account: str, turn_id: str) -> TurnRecord | None:
    """Return the account's turn, or ``None``."""
    row = conn.execute(
        f"SELECT {TURN_COLS} FROM turns WHERE turn_id = ? AND account = ?", (turn_id, account)
    ).fetchone()
    return None if row is None else turn_from_row(row)


def unfinished_turns(conn: sqlite3.Connection, account: str | None) -> list[TurnRecord]:
    """Return turns not yet replied, oldest first."""
    rows = conn.execute(
        f"SELECT {TURN_COLS} FROM turns WHERE phase <> '{REPLIED}' AND (? IS NULL OR account = ?)"
        " ORDER BY pos",
        (account, account),
    ).fetchall()
    return [turn_from_row(r) for r in rows]


def load_reply(conn: sqlite3.Connection, account: str, turn_id: str) -> str | None:
    """Return the reply's JSON text, or ``None``."""
    row = conn.execute(
        "SELECT reply FROM turns WHERE turn_id = ? AND account = ?", (turn_id, account)
    ).fetchone()
    return None if row is None else row[0]


def conversation_replies(conn: sqlite3.Connection, account: str, conv: str) -> list[Any]:
    """Return (turn id, reply JSON text) rows of the conversation's replied turns."""
    return conn.execute(
        "SELECT turn_id, reply FROM turns WHERE account = ? AND conversation_id = ?"
        " AND reply IS NOT NULL ORDER BY seq",
        (account, conv),
    ).fetchall()


# interactions ---------------------------------------------------------------------------
def create_interaction(
    conn: sqlite3.Connection, card: Interaction, spec_text: str, resolution_text: str | None
) -> int:
    """Supersede the case's open card (I5) and insert ``card``; return its ``seq``.

    ``seq`` is 1 + the conversation's highest card ``seq`` (one probe of the unique
    index, not a count of the conversation's cards).
    """
    case = card.spec.case
    with immediate(conn):
        seq = 1 + int(
            conn.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM interactions"
                " WHERE account = ? AND conversation_id = ?",
                (card.account, card.conversation_id),
            ).fetchone()[0]
        )
        if case is not None and card.status is InteractionStatus.OPEN:
            conn.execute(
                "UPDATE interactions SET status = ? WHERE account = ?"
                f" AND case_workflow = ? AND case_id = ? AND {IS_OPEN}",
                (InteractionStatus.SUPERSEDED.value, card.account, *_case_key(case)),
            )
        try:
            conn.execute(
                f"INSERT INTO interactions ({CARD_COLS}, case_workflow, case_id)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    *(card.id, card.account, card.conversation_id, card.turn_id, spec_text),
                    *(card.payload_hash, card.status.value, resolution_text, seq),
                    *_case_key(case),
                ),
            )
        except sqlite3.IntegrityError as exc:
            raise StoreError(f"interaction {card.id} already exists") from exc
    return seq


def _case_key(case: CaseRef | None) -> tuple[str | None, str | None]:
    return (None, None) if case is None else (case.workflow, case.case_id)


def get_interaction(
    conn: sqlite3.Connection, account: str, conv: str, interaction_id: str
) -> Interaction | None:
    """Return the card if it is this account's and conversation's, else ``None``."""
    row = conn.execute(
        f"SELECT {CARD_COLS} FROM interactions"
        " WHERE id = ? AND account = ? AND conversation_id = ?",
        (interaction_id, account, conv),
    ).fetchone()
    return None if row is None else card_from_row(row)


def open_interactions(conn: sqlite3.Connection, account: str, conv: str) -> list[Interaction]:
    """Return the conversation's open cards in ``seq`` order."""
    rows = conn.execute(
        f"SELECT {CARD_COLS} FROM interactions WHERE account = ? AND conversation_id = ?"
        f" AND {IS_OPEN} ORDER BY seq",
        (account, conv),
    ).fetchall()
    return [card_from_row(r) for r in rows]


def close_interaction(
    conn: sqlite3.Connection, interaction_id: str, status: str, resolution_text: str
) -> bool:
    """Compare-and-set the card from open to ``status``; whether this call closed it."""
    with immediate(conn):
        cur = conn.execute(
            f"UPDATE interactions SET status = ?, resolution = ? WHERE id = ? AND {IS_OPEN}",
            (status, resolution_text, interaction_id),
        )
        return cur.rowcount == 1


# cases, the commit, the journal -------------------------------------------------------------
def load_case(conn: sqlite3.Connection, case: CaseRef) -> CaseRow | None:
    """Return the stored case, or ``None``."""
    row = conn.execute(
        f"SELECT {CASE_COLS} FROM cases WHERE workflow = ? AND case_id = ?", _case_key(case)
    ).fetchone()
    return None if row is None else _case(row)


def list_cases(conn: sqlite3.Connection, account: str) -> list[CaseRow]:
    """Return the account's cases in creation order."""
    rows = conn.execute(
        f"SELECT {CASE_COLS} FROM cases WHERE account = ? ORDER BY pos", (account,)
    ).fetchall()
    return [_case(r) for r in rows]


def lookup_command(conn: sqlite3.Connection, account: str, key: str) -> Any:
    """Return the (request hash, result JSON text) row for the key, or ``None``."""
    return conn.execute(
        "SELECT request_hash, result FROM journal WHERE account = ? AND idempotency_key = ?",
        (account, key),
    ).fetchone()


def _write_case(
    conn: sqlite3.Connection, request: CommitRequest, state_text: str
) -> tuple[int, int | None]:
    """Write the new state with the revision check in the same statement (I12).

    Returns the new revision and, for a case this write created, its ``pos`` (``None``
    for an update: the row keeps its ``pos``). Raises RevisionConflict (not retryable
    for a case of another account); a refused write leaves nothing written.
    """
    case, expected = request.case, request.expected_revision
    if expected == 0:
        try:
            cur = conn.execute(
                f"INSERT INTO cases ({CASE_COLS}) VALUES (?, ?, ?, ?, 1, ?)",
                (*_case_key(case), request.account, state_text, request.workflow_version),
            )
            return 1, cur.lastrowid
        except sqlite3.IntegrityError:
            pass  # it exists: report below
    else:
        cur = conn.execute(
            "UPDATE cases SET state = ?, revision = revision + 1, workflow_version = ?"
            " WHERE workflow = ? AND case_id = ? AND revision = ? AND account = ?",
            (state_text, request.workflow_version, *_case_key(case), expected, request.account),
        )
        if cur.rowcount == 1:
            return expected + 1, None
    row = conn.execute(
        "SELECT revision, account FROM cases WHERE workflow = ? AND case_id = ?", _case_key(case)
    ).fetchone()
    actual = 0 if row is None else int(row[0])
    if row is not None and row[1] != request.account:
        raise foreign_case_conflict(case, expected, actual)
    raise RevisionConflict(case, expected, actual)


def _resolve_card(
    conn: sqlite3.Connection, account: str, cas: InteractionCas, resolution_text: str | None
) -> None:
    """Compare-and-set the card inside the commit (I16); InteractionAlreadyResolved if lost."""
    cur = conn.execute(
        "UPDATE interactions SET status = ?, resolution = ?"
        f" WHERE id = ? AND account = ? AND {IS_OPEN}",
        (cas.status.value, resolution_text, cas.interaction_id, account),
    )
    if cur.rowcount != 1:
        row = conn.execute(
            "SELECT status FROM interactions WHERE id = ? AND account = ?",
            (cas.interaction_id, account),
        ).fetchone()
        raise InteractionAlreadyResolved(cas.interaction_id, MISSING if row is None else row[0])


def commit(
    conn: sqlite3.Connection,
    request: CommitRequest,
    state_text: str,
    event_texts: Sequence[str],
    outbox_texts: Sequence[str],
    resolution_text: str | None,
) -> CommitResult:
    """The atomic commit of I12–I16 in one ``BEGIN IMMEDIATE`` transaction.

    ``event_texts``/``outbox_texts`` are the encoded data of ``request.events`` and the
    payloads of ``request.outbox``, in order.
    """
    with immediate(conn):
        return _commit_body(conn, request, state_text, event_texts, outbox_texts, resolution_text)


_BEFORE_COMMIT = (
    "SELECT j.request_hash, j.result, c.pos, s.pos, s.text,"
    " (SELECT COALESCE(MAX(pos), 0) FROM events), s.stale,"
    " (SELECT COALESCE(MAX(pos), 0) FROM outbox)"
    " FROM (SELECT 1) AS one"
    " LEFT JOIN journal j ON j.account = ? AND j.idempotency_key = ?"
    " LEFT JOIN cases c ON c.workflow = ? AND c.case_id = ?"
    " LEFT JOIN case_search s ON s.pos = c.pos"
)
"""One row: the key's journal entry (I13), the case's ``pos`` and search text, the
highest event ``pos``, the case's stale postings, the highest outbox ``pos`` (each
``MAX`` one step to the end of its table); everything a commit reads before it writes,
in one statement."""

_EVENT_INSERT = (
    "INSERT INTO events (pos, id, workflow, case_id, revision, ord, type, data,"
    " operation, turn_id, idempotency_key) VALUES "
)
_EVENT_ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_OUTBOX_INSERT = "INSERT INTO outbox (pos, id, workflow, case_id, topic, payload, status) VALUES "
_OUTBOX_ROW = "(?, ?, ?, ?, ?, ?, 'pending')"
ROWS = 90  # rows per multi-row INSERT: 11 parameters each, within the 999 of older SQLite


@lru_cache(maxsize=256)
def _values_sql(head: str, row: str, count: int) -> str:
    """Return ``head`` followed by ``count`` copies of ``row`` (pure, cached)."""
    return head + ", ".join([row] * count)


def _insert_rows(
    conn: sqlite3.Connection, head: str, row: str, rows: Sequence[tuple[Any, ...]]
) -> None:
    """Insert ``rows`` with one multi-row ``INSERT … VALUES (…), (…)`` per :data:`ROWS`."""
    if len(rows) <= ROWS:  # the usual case: one statement, its text built once per count
        if rows:
            conn.execute(_values_sql(head, row, len(rows)), [v for r in rows for v in r])
        return
    for at in range(0, len(rows), ROWS):
        chunk = rows[at : at + ROWS]
        conn.execute(_values_sql(head, row, len(chunk)), [v for r in chunk for v in r])


def _commit_body(
    conn: sqlite3.Connection,
    request: CommitRequest,
    state_text: str,
    event_texts: Sequence[str],
    outbox_texts: Sequence[str],
    resolution_text: str | None,
) -> CommitResult:
    """The statements of :func:`commit`, inside the caller's transaction.

    A refusal raised before the card's compare-and-set (a reused key, a revision
    conflict) has written nothing; one raised by the compare-and-set follows the case
    write, so a caller that goes on after a refusal runs a request with a card inside a
    savepoint (:func:`commit_plan`).
    """
    case, account, key = request.case, request.account, request.idempotency_key
    found = conn.execute(_BEFORE_COMMIT, (account, key, *_case_key(case))).fetchone()
    if found[0] is not None:  # I13
        if found[0] != request.request_hash:
            raise IdempotencyKeyReused(key)
        return replace(codec.commit_result_from_json(codec.loads(found[1])), replayed=True)
    revision, created = _write_case(conn, request, state_text)
    # The word-search index, in the same transaction (turnframe.store._sqlite_search).
    if created is None:
        search.write_search_row(
            conn, found[2], found[3] is not None, found[4], case.workflow, account,
            request.search_text, stale=found[6] or "",
        )  # fmt: skip
    else:
        search.write_search_row(
            conn, created, False, None, case.workflow, account, request.search_text
        )
    if request.interaction is not None:
        _resolve_card(conn, account, request.interaction, resolution_text)
    for withdrawal in request.withdraw:
        # ADR 0012: close the card if it is still open; one no longer open stays as is.
        conn.execute(
            "UPDATE interactions SET status = ?, resolution = ?"
            f" WHERE id = ? AND account = ? AND {IS_OPEN}",
            (
                withdrawal.status.value,
                codec.dumps(codec.resolution_to_json(withdrawal.resolution)),
                withdrawal.interaction_id,
                account,
            ),
        )
    base = found[5]
    workflow, case_id, turn_id = case.workflow, case.case_id, request.turn_id
    built: list[DomainEvent] = []
    rows: list[tuple[Any, ...]] = []
    # One pass builds each event (its data a fresh copy, decoded from the stored text)
    # and its row.
    for n, (draft, text) in enumerate(zip(request.events, event_texts, strict=True), 1):
        event_id = f"ev-{base + n}"
        kind, operation = draft.type, draft.operation
        built.append(
            DomainEvent(
                id=event_id,
                case=case,
                revision=revision,
                type=kind,
                data=codec.loads(text),
                operation=operation,
                turn_id=turn_id,
                idempotency_key=key,
            )
        )
        rows.append(
            (base + n, event_id, workflow, case_id, revision, n, kind, text, operation)
            + (turn_id, key)
        )
    events = tuple(built)
    _insert_rows(conn, _EVENT_INSERT, _EVENT_ROW, rows)
    outbox_ids: tuple[str, ...] = ()
    if outbox_texts or request.outbox:
        top = found[7]
        outbox_ids = tuple(f"ob-{top + n}" for n in range(1, len(outbox_texts) + 1))
        _insert_rows(
            conn,
            _OUTBOX_INSERT,
            _OUTBOX_ROW,
            [
                (top + n, message_id, workflow, case_id, draft.topic, text)
                for n, (message_id, draft, text) in enumerate(
                    zip(outbox_ids, request.outbox, outbox_texts, strict=True), 1
                )
            ],
        )
    result = CommitResult(case=case, revision=revision, events=events, outbox_ids=outbox_ids)
    conn.execute(
        "INSERT INTO journal (account, idempotency_key, request_hash, turn_id, operations,"
        " result) VALUES (?, ?, ?, ?, ?, ?)",
        (
            *(account, key, request.request_hash, request.turn_id),
            codec.dumps(list(request.operations)),
            codec.commit_result_text(result, event_texts),
        ),
    )
    return result


# events, outbox, replay -------------------------------------------------------------------
def case_events(conn: sqlite3.Connection, case: CaseRef) -> list[DomainEvent]:
    """Return the case's events in commit order."""
    rows = conn.execute(
        f"SELECT {EVENT_COLS} FROM events WHERE workflow = ? AND case_id = ? ORDER BY pos",
        _case_key(case),
    ).fetchall()
    return [_event(r) for r in rows]


def events_by_id(conn: sqlite3.Connection, ids: Sequence[str]) -> list[DomainEvent]:
    """Return the events with these ids in journal order."""
    rows: list[Any] = []
    for start in range(0, len(ids), CHUNK):
        chunk = list(ids[start : start + CHUNK])
        marks = ", ".join("?" * len(chunk))
        rows += conn.execute(
            f"SELECT pos, {EVENT_COLS} FROM events WHERE id IN ({marks})", chunk
        ).fetchall()
    return [_event(r[1:]) for r in sorted(rows, key=lambda r: r[0])]


def outbox_messages(conn: sqlite3.Connection, status: str | None) -> list[OutboxMessage]:
    """Return outbox messages (optionally of one status), oldest first."""
    rows = conn.execute(
        f"SELECT {OUTBOX_COLS} FROM outbox WHERE ? IS NULL OR status = ? ORDER BY pos",
        (status, status),
    ).fetchall()
    return [_message(r) for r in rows]


def set_outbox_status(conn: sqlite3.Connection, message_id: str, status: str) -> None:
    """Set a message's status; StoreError when no such message."""
    with immediate(conn):
        cur = conn.execute("UPDATE outbox SET status = ? WHERE id = ?", (status, message_id))
        if cur.rowcount != 1:
            raise StoreError(f"outbox message {message_id} does not exist")


def save_replay(conn: sqlite3.Connection, account: str, turn_id: str, text: str) -> None:
    """Upsert the turn's replay record (its second part, if any, cleared)."""
    with immediate(conn):
        _put_replay(conn, account, turn_id, text)


def _put_replay(conn: sqlite3.Connection, account: str, turn_id: str, text: str) -> None:
    """Store ``text`` as the replay record's first part, clearing a stored second part.

    A turn's first write of its record is one insert; a record stored before (saved
    again whole) is replaced and its second part, in either place it may be kept
    (``replays.outcome`` before schema version 7, ``turns.replay_outcome`` since),
    removed.
    """
    cur = conn.execute(
        "INSERT INTO replays (account, turn_id, record) VALUES (?, ?, ?)"
        " ON CONFLICT (account, turn_id) DO NOTHING",
        (account, turn_id, text),
    )
    if cur.rowcount != 1:
        conn.execute(
            "UPDATE replays SET record = ?, outcome = NULL WHERE account = ? AND turn_id = ?",
            (text, account, turn_id),
        )
        conn.execute(
            "UPDATE turns SET replay_outcome = NULL WHERE turn_id = ? AND account = ?"
            " AND replay_outcome IS NOT NULL",
            (turn_id, account),
        )


_LOAD_REPLAY = (
    "SELECT (SELECT record FROM replays WHERE account = ?1 AND turn_id = ?2),"
    " (SELECT outcome FROM replays WHERE account = ?1 AND turn_id = ?2),"
    " (SELECT replay_outcome FROM turns WHERE turn_id = ?2 AND account = ?1)"
)
"""One row: the record's first part, a second part stored before schema version 7 and
one stored since (each ``NULL`` when absent)."""


def load_replay(conn: sqlite3.Connection, account: str, turn_id: str) -> JSONObject | None:
    """Return the turn's replay record, or ``None``.

    The second part's keys go over the first's (``{}`` when only a second part is
    stored, as when a turn resumed from a plan of an earlier release replies).
    """
    first, older, outcome = conn.execute(_LOAD_REPLAY, (account, turn_id)).fetchone()
    if first is None and outcome is None:
        return None
    record: JSONObject = {} if first is None else codec.loads(first)
    for part in (older, outcome):
        if part is not None:
            record.update(codec.loads(part))
    return record


# the folded turn writes (docs/adr/0024-four-writes-per-turn.md) ---------------------------
@fast_init
@dataclass(frozen=True, slots=True)
class EncodedCommit:
    """A commit request with its JSON already encoded (the arguments of :func:`commit`)."""

    request: CommitRequest
    state_text: str
    event_texts: list[str]
    outbox_texts: list[str]
    resolution_text: str | None


def commit_plan(
    conn: sqlite3.Connection,
    turn_id: str,
    account: str,
    plan_text: str | None,
    replay_text: str | None,
    commits: Sequence[EncodedCommit],
    closes: Sequence[tuple[InteractionCas, str]],
) -> PlanOutcome:
    """Store the plan and replay record, run each commit in a savepoint, close cards.

    One ``BEGIN IMMEDIATE`` transaction. A commit refused (revision, card, key) rolls
    back to its savepoint and is returned in its slot; any other error rolls back all.
    """
    outcomes: list[CommitResult | CommitRefusal] = []
    closed: list[bool] = []
    with immediate(conn):
        if plan_text is not None:
            cur = conn.execute(
                "UPDATE turns SET phase = ?, data = ? WHERE turn_id = ?",
                (COMMITTING, plan_text, turn_id),
            )
            if cur.rowcount != 1:
                raise StoreError(f"turn {turn_id} does not exist")
        if replay_text is not None:
            _put_replay(conn, account, turn_id, replay_text)
        for item in commits:
            # A request without a card refuses before it writes anything (a reused key,
            # a revision conflict): only one with a card needs its savepoint.
            guarded = item.request.interaction is not None
            if guarded:
                conn.execute("SAVEPOINT tf_commit")
            try:
                outcomes.append(
                    _commit_body(
                        conn,
                        item.request,
                        item.state_text,
                        item.event_texts,
                        item.outbox_texts,
                        item.resolution_text,
                    )
                )
            except (RevisionConflict, InteractionAlreadyResolved, IdempotencyKeyReused) as exc:
                if guarded:
                    conn.execute("ROLLBACK TO tf_commit")
                outcomes.append(exc)
            if guarded:
                conn.execute("RELEASE tf_commit")
        for cas, text in closes:
            cur = conn.execute(
                "UPDATE interactions SET status = ?, resolution = ?"
                f" WHERE id = ? AND account = ? AND {IS_OPEN}",
                (cas.status.value, text, cas.interaction_id, account),
            )
            closed.append(cur.rowcount == 1)
    return PlanOutcome(commits=tuple(outcomes), closed=tuple(closed))


def finish_turn(
    conn: sqlite3.Connection,
    reply: TurnReply,
    blocks_text: str,
    data_text: str,
    replay_text: str | None,
    state_text: str | None,
) -> None:
    """Phase ``replied`` with reply and results, the replay rest, the conversation state.

    One ``BEGIN IMMEDIATE`` transaction; StoreError (nothing written) for no such turn.
    """
    with immediate(conn):
        # The replay record's second part goes in the turn's row, which this statement
        # rewrites anyway: the first part's row (and its overflow pages) is left alone.
        cur = conn.execute(
            "UPDATE turns SET phase = ?, data = ?, reply = ?,"
            " replay_outcome = COALESCE(?, replay_outcome) WHERE turn_id = ?",
            (REPLIED, data_text, blocks_text, replay_text, reply.turn_id),
        )
        if cur.rowcount != 1:
            raise StoreError(f"turn {reply.turn_id} does not exist")
        if state_text is not None:
            conn.execute(
                "INSERT INTO conversations (account, conversation_id, state) VALUES (?, ?, ?)"
                " ON CONFLICT (account, conversation_id) DO UPDATE SET state = excluded.state",
                (reply.account, reply.conversation_id, state_text),
            )
