"""Translation of psycopg errors into :mod:`turnframe.store.errors`.

See docs/architecture.md "Stores", "Failures".

Every psycopg exception the store sees goes through :func:`translate`, so no driver error
escapes (docs/architecture.md "Stores"):

=========================================  ================================================
psycopg                                    store error
=========================================  ================================================
connection refused / lost, pool timeout,   :class:`StoreUnavailable` (retryable, nothing
``OperationalError``, ``InterfaceError``   written), with the host and the driver's reason
``40001`` serialization failure,           :class:`RevisionConflict` inside a commit
``40P01`` deadlock                         (:func:`is_conflict`); elsewhere
                                           ``StoreUnavailable`` (retryable)
``55P03`` lock not available, ``57014``    :class:`StoreUnavailable` (retryable)
query canceled (statement/lock timeout)
``42P01`` undefined table, ``3F000``       :class:`StoreUnavailable` naming
invalid schema                             ``turnframe db migrate``
``23xxx`` integrity, ``22xxx`` data,       :class:`StoreError` (not retryable)
anything else
=========================================  ================================================

A connection lost while ``COMMIT`` was in flight is not translated here: the store
raises :class:`CommitOutcomeUnknown` for it, settled by looking the key up (I13).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg_pool import PoolTimeout

from turnframe.store.errors import StoreError, StoreUnavailable

__all__ = ["connection_lost", "describe", "is_conflict", "translate"]

_RETRYABLE_STATES = {"55P03", "57014", "57P01", "57P02", "57P03", "53300", "08006", "08003"}


def describe(where: str, exc: BaseException) -> str:
    """Return ``"PostgreSQL at <where>: <first line of the driver's message>"``."""
    text = str(exc).strip().splitlines()
    return f"PostgreSQL at {where}: {text[0] if text else type(exc).__name__}"


def is_conflict(exc: BaseException) -> bool:
    """Whether ``exc`` is a serialization failure (40001) or a deadlock (40P01)."""
    return isinstance(exc, pg_errors.SerializationFailure | pg_errors.DeadlockDetected)


def connection_lost(exc: BaseException, conn: psycopg.AsyncConnection[Any] | None) -> bool:
    """Whether ``exc`` means the connection went away (the server's answer is unknown)."""
    if conn is not None and conn.closed:
        return True
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        state = getattr(exc, "sqlstate", None)
        return state is None or state.startswith("08") or state in ("57P01", "57P02", "57P03")
    return False


def to_store_error(where: str, exc: BaseException) -> StoreError:
    """Return the store error for a psycopg (or pool) exception."""
    if isinstance(exc, PoolTimeout):
        return StoreUnavailable(
            f"PostgreSQL at {where}: no connection available in time ({exc}); "
            "is the database up and reachable?"
        )
    state = getattr(exc, "sqlstate", None) or ""
    if isinstance(exc, pg_errors.UndefinedTable | pg_errors.InvalidSchemaName) or state in (
        "42P01",
        "3F000",
    ):
        return StoreUnavailable(
            f"{describe(where, exc)} (the Turnframe schema is missing: "
            "run `turnframe db migrate` or PostgresStore.open(..., migrate=True))"
        )
    if is_conflict(exc) or state in _RETRYABLE_STATES:
        return StoreUnavailable(describe(where, exc))
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError) and not state.startswith(
        "2"
    ):
        return StoreUnavailable(describe(where, exc))
    return StoreError(describe(where, exc))


@contextmanager
def translate(where: str) -> Iterator[None]:
    """Re-raise any psycopg or pool error inside the block as a store error."""
    try:
        yield
    except (psycopg.Error, PoolTimeout) as exc:
        raise to_store_error(where, exc) from exc
    except UnicodeEncodeError as exc:
        raise StoreError(f"text not storable as UTF-8: {exc}") from exc
