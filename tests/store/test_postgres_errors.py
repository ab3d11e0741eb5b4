"""Every psycopg error maps to a classified store error.

See docs/architecture.md "Failures", docs/architecture.md "Stores".
"""

from __future__ import annotations

import pytest

from turnframe.core.errors import FailureClass
from turnframe.store import errors as store_errors

psycopg = pytest.importorskip("psycopg")
from psycopg import errors as pg  # noqa: E402
from psycopg_pool import PoolTimeout  # noqa: E402

from turnframe.store.postgres._errors import (  # noqa: E402
    connection_lost,
    is_conflict,
    to_store_error,
    translate,
)


@pytest.mark.parametrize(
    ("exc", "expected", "retryable"),
    [
        (PoolTimeout("no connection"), store_errors.StoreUnavailable, True),
        (psycopg.OperationalError("connection refused"), store_errors.StoreUnavailable, True),
        (psycopg.InterfaceError("connection closed"), store_errors.StoreUnavailable, True),
        (pg.SerializationFailure("40001"), store_errors.StoreUnavailable, True),
        (pg.DeadlockDetected("40P01"), store_errors.StoreUnavailable, True),
        (pg.LockNotAvailable("55P03"), store_errors.StoreUnavailable, True),
        (pg.QueryCanceled("57014"), store_errors.StoreUnavailable, True),
        (pg.AdminShutdown("57P01"), store_errors.StoreUnavailable, True),
        (pg.UndefinedTable("42P01"), store_errors.StoreUnavailable, True),
        (pg.UniqueViolation("23505"), store_errors.StoreError, False),
        (pg.ForeignKeyViolation("23503"), store_errors.StoreError, False),
        (pg.UntranslatableCharacter("22P05"), store_errors.StoreError, False),
        (pg.SyntaxError("42601"), store_errors.StoreError, False),
        (psycopg.DatabaseError("other"), store_errors.StoreError, False),
    ],
)
def test_driver_errors_map_to_classified_store_errors(
    exc: Exception, expected: type[Exception], retryable: bool
) -> None:
    got = to_store_error("db:5432/x", exc)
    assert type(got) is expected
    assert got.failure.retryable is retryable
    assert got.failure.effect_may_have_happened is False
    assert "db:5432/x" in str(got)
    with pytest.raises(expected):
        with translate("db:5432/x"):
            raise exc


def test_missing_tables_name_the_migrate_command() -> None:
    assert "turnframe db migrate" in str(to_store_error("w", pg.UndefinedTable("no tf_case")))


def test_conflicts_and_lost_connections_are_recognised() -> None:
    assert is_conflict(pg.SerializationFailure()) and is_conflict(pg.DeadlockDetected())
    assert not is_conflict(pg.UniqueViolation())
    assert connection_lost(psycopg.OperationalError("server closed the connection"), None)
    assert not connection_lost(pg.UniqueViolation(), None)


def test_every_store_error_is_classified() -> None:
    """Retryable, effect may have happened, message key, severity, reconciliation.

    See docs/architecture.md "Failures".
    """
    from turnframe.core.ids import CaseRef

    samples = [
        store_errors.RevisionConflict(CaseRef("t", "1"), 1, 2),
        store_errors.IdempotencyKeyReused("k"),
        store_errors.InteractionAlreadyResolved("c", "resolved"),
        store_errors.StoreUnavailable("down"),
        store_errors.CommitOutcomeUnknown("lost"),
        store_errors.InjectedFault("commit.ack_lost", performed=True),
    ]
    keys = set()
    for error in samples:
        assert isinstance(error.failure, FailureClass)
        assert error.failure.message_key.startswith("error.")
        keys.add(error.failure.message_key)
    unknown = store_errors.CommitOutcomeUnknown("lost").failure
    assert (unknown.retryable, unknown.effect_may_have_happened, unknown.needs_reconciliation) == (
        False,
        True,
        True,
    )
    assert len(keys) >= 5
