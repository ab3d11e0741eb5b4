"""Counting what a :class:`~turnframe.store.sqlite.SqliteStore` asks of SQLite.

:class:`StatementTally` counts statements, write transactions and the payload bytes of
written rows; :class:`TallyingConnection` wraps the store's connection while a tally is
on (:meth:`turnframe.store.sqlite.SqliteStore.tally`). The turn-overhead benchmark and
the tests that pin a turn's write budget (docs/adr/0024-four-writes-per-turn.md) read it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["StatementTally", "TallyingConnection", "payload_bytes"]

_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def payload_bytes(params: Sequence[Any] | None) -> int:
    """Return the bytes of the values bound to one statement.

    Text counts as its UTF-8 length, ``bytes`` as its length, an ``int`` or ``float`` as
    8 (SQLite's widest integer and its REAL), ``None`` as 0.
    """
    total = 0
    for value in params or ():
        if isinstance(value, str):
            total += len(value.encode("utf-8"))
        elif isinstance(value, bytes | bytearray | memoryview):
            total += len(value)
        elif isinstance(value, int | float):
            total += 8
    return total


@dataclass(slots=True)
class StatementTally:
    """What the store sent to SQLite while the tally was on.

    Attributes:
        statements: SQL statements run, transaction control (``BEGIN``, ``COMMIT``,
            ``ROLLBACK``, savepoints) left out; an ``executemany`` counts once per row.
        write_transactions: ``BEGIN IMMEDIATE`` transactions started (every store write
            is one).
        bytes_written: :func:`payload_bytes` of every ``INSERT``/``UPDATE``/``DELETE``
            row: the payload of written rows, as the store handed it to SQLite.
        sql: the text of every counted statement, in order.
    """

    statements: int = 0
    write_transactions: int = 0
    bytes_written: int = 0
    sql: list[str] = field(default_factory=list)

    def record(self, sql: str, rows: Iterable[Sequence[Any] | None]) -> None:
        """Count ``sql`` run once per row of ``rows``."""
        head = sql.lstrip()[:16].upper()
        if head.startswith("BEGIN IMMEDIATE"):
            self.write_transactions += 1
            return
        if head.startswith(_CONTROL):
            return
        writes = head.startswith(_WRITES)
        for params in rows:
            self.statements += 1
            self.sql.append(sql)
            if writes:
                self.bytes_written += payload_bytes(params)


class TallyingConnection:
    """A stand-in for a :class:`sqlite3.Connection` that records into a tally.

    Only ``execute`` and ``executemany`` are counted; every other attribute is the
    wrapped connection's.
    """

    def __init__(self, conn: sqlite3.Connection, tally: StatementTally) -> None:
        self._conn = conn
        self._tally = tally

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Run and count one statement."""
        self._tally.record(sql, (params,))
        return self._conn.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> sqlite3.Cursor:
        """Run and count a statement once per row."""
        listed = list(rows)
        self._tally.record(sql, listed)
        return self._conn.executemany(sql, listed)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)
