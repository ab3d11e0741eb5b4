"""The PostgreSQL reference store: ``pip install turnframe[postgres]``.

See docs/architecture.md "Stores", ADR 0011.

:class:`PostgresStore` implements :class:`~turnframe.store.base.TurnStore` on psycopg 3
and psycopg-pool, async, with raw SQL and no ORM. The schema is numbered plain SQL files
shipped in this package (``migrations/``, plus ``schema.sql`` for an empty database),
applied by :func:`migrate` under an advisory lock, or printed by :func:`print_sql` for an
adopter's own migration tool (``turnframe db migrate`` / ``turnframe db print-sql``).

The one atomic commit checks the revision in its writing statement
(``UPDATE … WHERE revision = $expected RETURNING`` or ``INSERT … ON CONFLICT DO NOTHING
RETURNING``) at READ COMMITTED; the command journal is keyed by (account, idempotency
key) with the request hash; a connection lost during COMMIT is
:class:`~turnframe.store.errors.CommitOutcomeUnknown`. :meth:`PostgresStore.joined` runs
the store on a caller's connection so an adopter's own writes commit with Turnframe's.

Only the command line and tests import this module (an import-linter ``protected``
contract; the scenario runner in :mod:`turnframe.testing` imports it lazily when asked
for ``--store postgres``).
"""

from __future__ import annotations

try:
    import psycopg  # noqa: F401
    import psycopg_pool  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the install
    raise ImportError(
        "turnframe.store.postgres needs psycopg 3 and psycopg-pool: "
        'pip install "turnframe[postgres]"'
    ) from exc

from turnframe.store.outbox import ClaimedMessage, OutboxRow
from turnframe.store.postgres._migrations import (
    Migration,
    applied_versions,
    fresh_schema_sql,
    migrate,
    migrations,
    print_sql,
)
from turnframe.store.postgres._store import PostgresStore

__all__ = [
    "ClaimedMessage",
    "Migration",
    "OutboxRow",
    "PostgresStore",
    "applied_versions",
    "fresh_schema_sql",
    "migrate",
    "migrations",
    "print_sql",
]
