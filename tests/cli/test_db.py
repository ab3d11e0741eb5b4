from __future__ import annotations

import anyio
import pytest

from turnframe.cli import main
from turnframe.testing.postgres import TEST_DSN_VAR, drop_schema, new_schema_name, postgres_dsn

pytest.importorskip("psycopg")


def test_print_sql_prints_every_migration_with_its_version_row(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from turnframe.store.postgres import migrations

    assert main(["db", "print-sql"]) == 0
    out = capsys.readouterr().out
    for m in migrations():
        assert f"-- {m.version:04d}_{m.name}" in out
        assert f"VALUES ({m.version}, '{m.name}')" in out
    assert main(["db", "print-sql", "--after", "1"]) == 0
    assert "0001_" not in capsys.readouterr().out


def test_migrate_needs_a_dsn(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TURNFRAME_POSTGRES_DSN", raising=False)
    assert main(["db", "migrate"]) == 2
    assert "TURNFRAME_POSTGRES_DSN" in capsys.readouterr().err


def test_migrate_applies_then_reports_up_to_date(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    dsn = postgres_dsn(required=False, test=True)
    if not dsn:
        pytest.skip(f"needs {TEST_DSN_VAR}")
    schema = new_schema_name("tf_cli")
    monkeypatch.setenv("TURNFRAME_POSTGRES_DSN", dsn)
    try:
        assert main(["db", "migrate", "--schema", schema]) == 0
        assert "applied schema.sql" in capsys.readouterr().out
        assert main(["db", "migrate", "--schema", schema, "--dsn", dsn]) == 0
        assert "up to date" in capsys.readouterr().out
    finally:
        anyio.run(drop_schema, dsn, schema)


def test_migrate_unreachable_database_fails_clearly(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["db", "migrate", "--dsn", "postgresql://postgres@127.0.0.1:1/none"])
    assert code == 1
    assert "127.0.0.1:1/none" in capsys.readouterr().err
