"""Fixtures of the shadow tests: recorded travel traffic on SQLite (see ``shadow_traffic``)."""

from shadow_traffic import recorded_db, recorded_file

__all__ = ["recorded_db", "recorded_file"]
