"""SQL of the adoption recipe "over a database with no revision column".

See docs/architecture.md "Evaluation".

:func:`no_revision_column_sql` prints the statements ``docs/recipes/no-revision-column.md``
shows (``turnframe db recipe no-revision-column --table T --key K``); a test executes
them against PostgreSQL.
"""

from __future__ import annotations

import re

__all__ = ["compare_and_set_sql", "no_revision_column_sql"]

_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def _ident(name: str, what: str) -> str:
    if not _IDENT.match(name):
        raise ValueError(f"{what} {name!r} must be a plain lower-case identifier")
    return name


def no_revision_column_sql(table: str, *, column: str = "tf_revision") -> str:
    """Return the DDL that gives ``table`` a revision every UPDATE moves forward.

    Three statements: the column (existing rows start at revision 1), a trigger
    function, and a ``BEFORE UPDATE`` trigger, so no code path, old or new, can change
    a row without changing its revision (I12).
    """
    t, c = _ident(table, "table"), _ident(column, "column")
    return (
        f"ALTER TABLE {t} ADD COLUMN IF NOT EXISTS {c} integer NOT NULL DEFAULT 1;\n"
        f"\n"
        f"CREATE OR REPLACE FUNCTION {t}_{c}_bump() RETURNS trigger\n"
        f"LANGUAGE plpgsql AS $$\n"
        f"BEGIN\n"
        f"    NEW.{c} := OLD.{c} + 1;\n"
        f"    RETURN NEW;\n"
        f"END\n"
        f"$$;\n"
        f"\n"
        f"CREATE OR REPLACE TRIGGER {t}_{c}\n"
        f"    BEFORE UPDATE ON {t}\n"
        f"    FOR EACH ROW EXECUTE FUNCTION {t}_{c}_bump();\n"
    )


def compare_and_set_sql(table: str, key: str, *, column: str = "tf_revision") -> str:
    """Return the executor's compare-and-set template (``%(…)s`` placeholders).

    It changes ``status`` as an example; zero rows means a stale revision (I12).
    """
    t, k, c = _ident(table, "table"), _ident(key, "key"), _ident(column, "column")
    return (
        f"UPDATE {t} SET status = %(status)s\n"
        f" WHERE {k} = %(key)s AND {c} = %(expected)s\n"
        f"RETURNING {c};\n"
    )
