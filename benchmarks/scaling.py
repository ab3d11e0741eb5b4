"""Scaling: a turn's cost against account size and conversation length (issue 9, item 1).

What is measured
    One three-act turn of the travel sample (like ``three_act`` in
    ``benchmarks/turn_overhead.py``: ``trip.add_extra`` and ``trip.set_extra_payer`` on one
    trip, ``trip.rename`` on another, all low-risk and all committing), with understanding
    scripted (:class:`~turnframe.understand.ScriptedUnderstanding`, no model call), in two
    series, on SQLite (a file in a temporary directory) and on PostgreSQL (a fresh schema
    per store, dropped afterwards):

    * **account size**: the actor's account holds 10 / 1,000 / 10,000 / 100,000 records
      (``--sizes``): the turn's four records (the "Lisbon" and "Porto" trips, travelers
      "Ana Costa" and "Kim Lee") plus filler trips and travelers.
    * **conversation length**: turn 5 against turn 50,000 of one conversation, in an
      account of the smallest size.

    Per row: the median and p90 CPU milliseconds of ``Runtime.run_turn``
    (``time.process_time_ns``: this process only, so on PostgreSQL the server's own work
    is not in it) and of wall time (``time.perf_counter_ns``); the bytes per turn by which
    the database grew (SQLite: pages in use, ``(page_count - freelist_count) * page_size``
    after a ``wal_checkpoint(TRUNCATE)``, so rows overwritten within the turn count once;
    PostgreSQL: ``pg_total_relation_size`` summed over the store's schema, dead row
    versions included until vacuum), measured around each of ``BYTES_TURNS`` further
    turns per row run untimed after the timed rounds and averaged, so page granularity
    averages out (not around the timed turns: the SQLite checkpoint runs on a second
    connection, which empties the store's own page cache, so a timed turn after it would
    start cold, as no turn of a running store does); and the ratio of the CPU median to
    the first row's.

How
    The records are realistic and their words never meet the turn's: filler trips are
    named ``<city> <purpose> <month> <year>`` (e.g. "Oslo Client Workshop March 2027",
    with dates in that month and one or two filler travelers), filler travelers
    ``<first> <initial>. <last>`` with a birth date and an email; every name is distinct
    and no word of the turn's message finds a filler under the directory's rule (a
    word finds a record whose search text holds it as a substring; checked when the
    words are built, :func:`_check_vocabulary`). The message names its targets in
    words, as a user would ("add a seat to the Lisbon trip, Ana Costa pays the baggage,
    and rename the Porto trip to Porto Autumn"), so a directory that finds records by
    the user's words finds them; the scripted acts name the records by
    ``Runtime.handle_for(turn_id, case)``. Records are seeded
    untimed with the public ``Runtime.seed`` (eight at a time: PostgreSQL's pool serves
    them in parallel; 100,000 records took about 1.5 minutes on SQLite and 5.5 on
    PostgreSQL on a loaded 2-core machine, reported per row as ``seed_s``). Before each round the Lisbon trip's extras are reset (untimed,
    with ``Runtime.external_update``) to its two seeded ones, so the trip does not grow
    with the repetition count.

    Each row has its own store and runtime. After ``--warmup`` untimed turns per row, the
    rows take turns in rounds of ``ROUND`` timed turns until each has ``--turns``, so a
    burst of load elsewhere on the machine hits every row alike. Every timed turn is
    checked, untimed, to have committed all three acts (the run stops with an error
    otherwise).

    Turn 5: every sample opens a new conversation and runs four untimed turns first.
    Turn 50,000: running 50,000 real turns takes too long, so the history is written in
    bulk (:func:`_bulk_history`, the one place that reads the store's tables): four real
    turns run first, then their stored per-turn rows (SQLite ``turns`` and ``replays``,
    PostgreSQL ``tf_turn`` and ``tf_replay``) are copied in one ``INSERT … SELECT`` per
    table, with fresh turn ids and consecutive ``seq`` numbers, up to the turn before the
    first warm-up turn; the timed turns are turns 50,000, 50,001, … The copies are what
    the store holds for replied turns (phase, input, data, reply and replay record, byte
    for byte as the real turns stored them; a copy's own data still names its template's
    turn id). The per-case rows those turns would have left (events, journal rows, case
    revisions) are not copied: no per-conversation read touches them, and the trips'
    revisions grow with the real turns anyway. Every table with a ``turn_id`` column must
    be classified in :data:`_PER_TURN_TABLES` or :data:`_PER_CASE_TABLES`, and the
    conversation row may hold only its keys and state, so a store that gains a per-turn
    table or a per-conversation counter fails here instead of giving a history that
    lacks it; the copy is then checked with the public ``conversation_replies``.

    ``config.reference_loop_ms`` times a fixed pure-Python loop, to compare figures
    across machines; ``config.git`` is the commit measured. The machine this runs on in
    development is shared and noisy: compare rows of one run, never figures across runs.

Targets (issue 9; reported, never asserted): on SQLite the 10,000-record turn's CPU median
is at most 1.2x the 10-record turn's (``ratio_10000_over_10``), and turn 50,000 at most
1.2x turn 5 (``ratio_turn50000_over_turn5``), medians of the same run.

What the brief shows (docs/adr/0020-what-a-brief-shows.md): with ``--in-view none`` (the
default, what ``turnframe chat`` and most callers do) every turn passes ``in_view=None``:
the brief holds the default view (the account's ``BriefLimits.recent`` most recently
changed records: the whole account of the 10-record row, a cut one beyond), the
conversation's cases and the records the message's words find. With ``--in-view
targets`` every turn passes ``in_view`` = the Lisbon and Porto trips and Ana Costa, the
records a surface showing this conversation would have on screen. Per row,
``brief_records`` is the number of records the last timed turn's brief held and
``brief_cut`` whether it was marked cut (``Brief.records_cut``).

Words (``--words``): with ``repeat`` (the default) the two messages alternate, so every
turn looks up the same words; with ``fresh`` turn ``n``'s message also carries the word
``zq<n>x`` (:func:`message`), which no earlier turn used and no record holds (checked
with the vocabulary), so no memo of earlier turns' look-ups could answer a turn and
flatter the ratio. ``config.words`` says which.

Usage::

    python benchmarks/scaling.py [--json] [--turns N] [--warmup N] [--sizes 10,1000,...]
        [--history-turns N] [--stores sqlite,postgres] [--postgres-dsn DSN] [--quick]
        [--in-view none|targets] [--words repeat|fresh]

Defaults: 20 timed turns and 2 warm-up turns per row, both stores. The PostgreSQL rows
need ``--postgres-dsn`` or ``TURNFRAME_TEST_POSTGRES_DSN``; without either they are
skipped with a message. ``--quick`` (sizes 10 and 200, a 300-turn history, 3 turns, 1
warm-up) is for the smoke test. The exit status is 0; a turn that does not commit stops
the run with ``RuntimeError``.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import math
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import anyio

from turnframe.core import Actor, CaseRef
from turnframe.core.acts import ProposedTarget, SemanticAct, Understanding
from turnframe.core.events import EventDraft
from turnframe.core.results import ResultStatus
from turnframe.core.turn import TurnInput
from turnframe.core.workflow import Execution
from turnframe.runtime import BriefLimits, FixedClock, Runtime, TurnResult
from turnframe.runtime.mentions import mention_words
from turnframe.samples.travel import TripState, seed_all, travel_application
from turnframe.samples.travel import copy as travel_copy
from turnframe.store import TurnStore
from turnframe.store.search import fold
from turnframe.understand import Brief, ScriptedUnderstanding

SIZES = (10, 1_000, 10_000, 100_000)
HISTORY_TURNS = 50_000
SHORT_TURN = 5
QUICK = {"sizes": (10, 200), "history_turns": 300, "turns": 3, "warmup": 1}
TARGET_RATIO = 1.2
ROUND = 5
"""Timed turns a row runs before the next row takes its turn."""
TEMPLATE_TURNS = SHORT_TURN - 1
"""Real turns that open the long conversation; their rows are the bulk history's templates."""
BYTES_TURNS = 10
"""Untimed turns per row whose database growth is measured (after the timed rounds)."""
SEED_CONCURRENCY = 8
TODAY = date(2026, 5, 1)
DSN_VAR = "TURNFRAME_TEST_POSTGRES_DSN"

# --------------------------------------------------------------------------- records
MESSAGES = (
    "add a seat to the Lisbon trip, the company pays the baggage, "
    "and rename the Porto trip to Porto Spring",
    "add a seat to the Lisbon trip, Ana Costa pays the baggage, "
    "and rename the Porto trip to Porto Autumn",
)
"""The turn's message, alternating with the payer and the new name (step parity)."""
NEW_NAMES = ("Porto Spring", "Porto Autumn")
FRESH_PREFIX, FRESH_SUFFIX = "zq", "x"
"""With ``--words fresh`` turn ``step`` also carries the word ``zq<step>x`` (:func:`message`)."""
WORDS_MODES = ("repeat", "fresh")


def fresh_word(step: int) -> str:
    """Return the word turn ``step`` carries with ``--words fresh`` (``zq<step>x``)."""
    return f"{FRESH_PREFIX}{step}{FRESH_SUFFIX}"


def message(step: int, words: str = "repeat") -> str:
    """Return turn ``step``'s message: ``MESSAGES[step % 2]``, and with ``words="fresh"``
    a word no other turn's message holds (:func:`fresh_word`), so every turn looks up a
    word no earlier turn did and nothing remembered from an earlier turn can answer it.

    Raises:
        ValueError: ``words`` is neither ``"repeat"`` nor ``"fresh"``.
    """
    if words not in WORDS_MODES:
        raise ValueError(f"words must be one of {WORDS_MODES}, not {words!r}")
    text = MESSAGES[step % 2]
    return f"{text} {fresh_word(step)}" if words == "fresh" else text


TARGETS: list[dict[str, Any]] = [
    {"key": "PA", "workflow": "traveler", "full_name": "Ana Costa", "birth_date": "1985-03-14"},
    {"key": "PK", "workflow": "traveler", "full_name": "Kim Lee", "birth_date": "1990-07-21"},
    {
        "key": "TL",
        "workflow": "trip",
        "name": "Lisbon",
        "destination": "Lisbon",
        "start": "2026-05-12",
        "end": "2026-05-15",
        "travelers": ["PA", "PK"],
        "extras": [{"kind": "insurance", "payer": "company"}, {"kind": "baggage"}],
    },
    {"key": "TP", "workflow": "trip", "name": "Porto", "destination": "Porto"},
]
"""The turn's records: acts on TL (extras) and TP (rename); Ana Costa may pay."""

FIRST = (
    "Maria Jonas Elif Tomasz Ingrid Mateo Yuki Priya Lars Chiara Omar Sofia Henrik Amara "
    "Dmitri Freya Rafael Noor Emil Lucia Viktor Hilde Bruno Selin Tariq Greta Paolo Leila "
    "Anton Mirela Felix Zora Gustav Ines Karim Vera Oskar Dalia Nils Rosa Milan Aylin "
    "Hugo Marta Ivan Petra Samir Clara Jakob Nadia Stefan Lotte Arjun Eva Teodor Maja "
    "Cyrus Agnes Lukas Irene"
).split()
INITIALS = tuple("BCDEFGHJMNOPQRSTUVWXYZ")
LAST = (
    "Schmidt Nowak Yilmaz Johansson Rossi Garcia Takeda Sharma Novak Moreau Halvorsen Berg "
    "Kowalski Fischer Silva Eklund Romano Petrov Dubois Weber Horvat Jansen Lindqvist "
    "Marin Okafor Sato Keller Popescu Varga Hansen Meyer Bianchi Kaya Duarte Nielsen "
    "Wagner Ivanova Laurent Brenner Svoboda Ferrari Aziz Eriksen Vogel Moretti Kovacs "
    "Richter Lund Torres Fontaine Sokolov Engel Castillo Hoffmann Rahman Ortega Bauer "
    "Nakamura Ricci Lehmann"
).split()
CITIES = (
    "Berlin Oslo Vienna Madrid Dublin Prague Warsaw Zurich Munich Helsinki Lucerne Seville "
    "Krakow Geneva Lyon Milan Budapest Brussels Antwerp Gdansk Tallinn Riga Vilnius "
    "Bergen Uppsala Malmo Hamburg Cologne Bologna Turin Valencia Bilbao Nantes "
    "Bordeaux Salzburg Graz Innsbruck Zagreb Split Sofia"
).split()
PURPOSES = (
    "Sales Visit",
    "Client Workshop",
    "Offsite",
    "Conference",
    "Training",
    "Trade Fair",
    "Board Meeting",
    "Site Inspection",
    "Partner Summit",
    "Audit",
    "Hackathon",
    "Recruiting Days",
)
MONTHS = (
    "January February March April May June July August September October November December"
).split()
YEARS = tuple(range(2026, 2032))


def _words(text: str) -> set[str]:
    return {w.strip(",.").lower() for w in text.split() if w.strip(",.")}


def _filler_parts() -> set[str]:
    """Return every word a filler record's search text is made of, folded.

    Names, cities, purposes, the dates' month names in English and Portuguese and their
    years (``TripWorkflow.search_text``), and the emails' parts
    (``<first>.<initial>.<last>.<n>@example.com``).
    """
    parts = {*FIRST, *INITIALS, *LAST, *CITIES, *(w for p in PURPOSES for w in p.split())}
    for month in range(1, 13):
        for locale in (travel_copy.EN, travel_copy.PT):
            parts.update(travel_copy.fmt_date(locale, date(YEARS[0], month, 1)).split()[1:])
    parts.update(str(y) for y in YEARS)
    parts.update(("example", "com", "de"))
    return {fold(p) for p in parts}


def _check_vocabulary() -> None:
    """Raise ``ValueError`` when a word of a message could find a filler record.

    The directory's rule (:mod:`turnframe.store.search`): a word finds a record when it
    is a lower-cased substring of the record's search text. So no word of a message of
    at least ``BriefLimits.word_chars`` characters (the words a brief looks up) may be a
    substring of a filler's word, and no shorter one may be a whole filler word (a short
    word is looked up when it is a whole word of a briefed record). A collision would
    make the brief grow with the account (up to ``BriefLimits.found`` records per word,
    the 1.58x of the 1,000-record row that "add" in "Haddad" once gave) or hide a target
    the scripted acts name by handle.
    """
    shortest = BriefLimits().word_chars
    taken = {w for m in MESSAGES for w in mention_words(m)}  # the words a brief looks up
    parts = _filler_parts()
    clash = sorted(
        w for w in taken if (len(w) >= shortest and any(w in p for p in parts)) or (w in parts)
    )
    if clash:
        raise ValueError(f"filler words meet the turn's words under the directory's rule: {clash}")
    names = {"ana", "costa", "kim", "lee", "lisbon", "porto"}
    if names & parts:
        raise ValueError(f"filler words are the targets' names: {sorted(names & parts)}")
    # ``--words fresh``: no record's text holds "zq", so no "zq<step>x" finds a record
    # (the targets' words included; a text's parts are separated by spaces).
    target_parts = {
        fold(w)
        for r in TARGETS
        for v in r.values()
        if isinstance(v, str)
        for w in v.replace("-", " ").split()
    } | {fold(w) for name in NEW_NAMES for w in name.split()}
    meets = sorted(p for p in parts | target_parts if FRESH_PREFIX in p)
    if meets:
        raise ValueError(f"record words hold {FRESH_PREFIX!r}, the fresh words' prefix: {meets}")


def filler_records(count: int) -> list[dict[str, Any]]:
    """Return ``count`` filler records: two travelers for every trip, names all distinct.

    Every third record is a trip ``<city> <purpose> <month> <year>`` with dates in that
    month and the two filler travelers seeded just before it; the others are travelers
    ``<first> <initial>. <last>`` with a birth date and an email.

    Raises:
        ValueError: ``count`` exceeds the distinct names the word lists give, or a
            filler word is one of the turn's words.
    """
    _check_vocabulary()
    trips, people = (count + 2) // 3, count - (count + 2) // 3
    if people > len(FIRST) * len(INITIALS) * len(LAST) or trips > (
        len(CITIES) * len(PURPOSES) * len(MONTHS) * len(YEARS)
    ):
        raise ValueError(f"{count} filler records exceed the distinct names available")
    records: list[dict[str, Any]] = []
    person = trip = 0
    while len(records) < count:
        if len(records) % 3 == 2:
            city, rest = CITIES[trip % len(CITIES)], trip // len(CITIES)
            purpose, rest = PURPOSES[rest % len(PURPOSES)], rest // len(PURPOSES)
            month, rest = rest % len(MONTHS), rest // len(MONTHS)
            year = YEARS[rest % len(YEARS)]
            start = date(year, month + 1, 1 + trip % 20)
            records.append(
                {
                    "key": f"FT{trip}",
                    "workflow": "trip",
                    "name": f"{city} {purpose} {MONTHS[month]} {year}",
                    "destination": city,
                    "start": start.isoformat(),
                    "end": (start + timedelta(days=2 + trip % 5)).isoformat(),
                    "travelers": [f"FP{person - 2}", f"FP{person - 1}"][trip % 2 :],
                }
            )
            trip += 1
        else:
            first, rest = FIRST[person % len(FIRST)], person // len(FIRST)
            initial, rest = INITIALS[rest % len(INITIALS)], rest // len(INITIALS)
            last = LAST[rest % len(LAST)]
            records.append(
                {
                    "key": f"FP{person}",
                    "workflow": "traveler",
                    "full_name": f"{first} {initial}. {last}",
                    "birth_date": date(
                        1950 + person % 50, 1 + person % 12, 1 + person % 28
                    ).isoformat(),
                    "email": f"{first}.{initial}.{last}.{person}@example.com".lower(),
                }
            )
            person += 1
    return records


# --------------------------------------------------------------------------- stores
class Stores:
    """Opens the stores of one run and closes (and, on PostgreSQL, drops) them all."""

    def __init__(self, stack: AsyncExitStack, workdir: Path, dsn: str | None) -> None:
        self.stack = stack
        self.workdir = workdir
        self.dsn = dsn
        self.opened = 0

    async def open(self, kind: str) -> TurnStore:
        """Open a fresh, empty store of ``kind`` (``sqlite`` or ``postgres``)."""
        self.opened += 1
        if kind == "sqlite":
            from turnframe.store.sqlite import SqliteStore

            sqlite_store = await SqliteStore.open(self.workdir / f"scaling-{self.opened}.db")
            self.stack.push_async_callback(sqlite_store.close)
            return sqlite_store
        from turnframe.store.postgres import PostgresStore, migrate
        from turnframe.testing.postgres import drop_schema, new_schema_name

        assert self.dsn is not None
        dsn, schema = self.dsn, new_schema_name("tf_scaling")
        await migrate(dsn, schema=schema)
        self.stack.push_async_callback(drop_schema, dsn, schema)
        pg_store = await PostgresStore.open(dsn, schema=schema, max_size=SEED_CONCURRENCY + 2)
        self.stack.push_async_callback(pg_store.close)
        return pg_store


async def _db_bytes(store: TurnStore) -> int:
    """Return the bytes the store's database holds (see the module docstring)."""
    from turnframe.store.sqlite import SqliteStore

    if isinstance(store, SqliteStore):
        conn = sqlite3.connect(str(store.path), timeout=30, isolation_level=None)
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            pages, free, size = (
                conn.execute(f"PRAGMA {p}").fetchone()[0]
                for p in ("page_count", "freelist_count", "page_size")
            )
            return int((pages - free) * size)
        finally:
            conn.close()
    import psycopg

    pg_store = _postgres(store)
    async with await psycopg.AsyncConnection.connect(pg_store.dsn, autocommit=True) as pg:
        cur = await pg.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = %s AND c.relkind = 'r'",
            (pg_store.schema,),
        )
        row = await cur.fetchone()
        return int(row[0]) if row else 0


def _postgres(store: TurnStore) -> Any:
    """Return ``store`` as a PostgreSQL store (its ``dsn`` and ``schema``).

    Raises:
        RuntimeError: the store is neither SQLite (handled by the callers) nor PostgreSQL.
    """
    from turnframe.store.postgres import PostgresStore

    if not isinstance(store, PostgresStore):
        raise RuntimeError(f"the scaling benchmark does not know {type(store).__name__}")
    return store


_PER_TURN_TABLES = {"sqlite": ("turns", "replays"), "postgres": ("tf_turn", "tf_replay")}
"""Tables holding one row per turn: the bulk history copies them (turn table first)."""
_PER_CASE_TABLES = {
    "sqlite": {"interactions", "events", "journal"},
    "postgres": {"tf_interaction", "tf_event", "tf_command"},
}
"""Tables with a ``turn_id`` column whose rows belong to cases or cards, not copied."""
_CONVERSATION_TABLE = {"sqlite": "conversations", "postgres": "tf_conversation"}
_CONVERSATION_COLUMNS = {"account", "conversation_id", "state"}
"""The conversation row's columns the copies leave as the real turns left them; a store
that adds one (a turn counter, say) fails :func:`_copy_statements` until it is handled."""


async def _bulk_history(
    store: TurnStore, account: str, conversation: str, first_seq: int, last_seq: int
) -> None:
    """Copy the conversation's first turns' rows to turns ``first_seq``…``last_seq``.

    The one function that reads and writes the store's tables directly (see the module
    docstring): turn ``seq`` s copies template turn ``1 + (s - 1) % (first_seq - 1)``,
    with turn id ``<conversation>-h<s>``; every column but the row id, the turn id and
    ``seq`` is copied as stored.

    Raises:
        RuntimeError: the store has a table with a ``turn_id`` column this function
            does not classify, its conversation row has a column the copies would leave
            stale, or the store is neither SQLite nor PostgreSQL.
    """
    from turnframe.store.sqlite import SqliteStore

    templates = first_seq - 1
    if isinstance(store, SqliteStore):
        conn = sqlite3.connect(str(store.path), timeout=30, isolation_level=None)
        try:
            tables = [
                r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            ]
            columns = {t: [r[1] for r in conn.execute(f"PRAGMA table_info({t})")] for t in tables}
            statements = _copy_statements("sqlite", columns, "?")
            params = (first_seq, last_seq, f"{conversation}-h", account, conversation, templates)
            conn.execute("BEGIN IMMEDIATE")
            for sql in statements:
                conn.execute(sql, params)
            conn.execute("COMMIT")
        finally:
            conn.close()
        return
    import psycopg

    pg_store = _postgres(store)
    schema: str = pg_store.schema
    async with await psycopg.AsyncConnection.connect(pg_store.dsn) as pg:
        cur = await pg.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = %s ORDER BY ordinal_position",
            (schema,),
        )
        pg_columns: dict[str, list[str]] = {}
        for table, column in await cur.fetchall():
            pg_columns.setdefault(table, []).append(column)
        await pg.execute(f'SET search_path TO "{schema}"')
        for sql in _copy_statements("postgres", pg_columns, "%s"):
            await pg.execute(
                sql, (first_seq, last_seq, f"{conversation}-h", account, conversation, templates)
            )
        await pg.commit()


def _copy_statements(kind: str, columns: Mapping[str, Sequence[str]], mark: str) -> list[str]:
    """Return the ``INSERT … SELECT`` statements of :func:`_bulk_history` for ``kind``.

    Each takes ``(first seq, last seq, turn id prefix, account, conversation, templates)``.
    """
    with_turn_id = {t for t, cols in columns.items() if "turn_id" in cols}
    unknown = with_turn_id - set(_PER_TURN_TABLES[kind]) - _PER_CASE_TABLES[kind]
    if unknown:
        raise RuntimeError(
            f"the {kind} store has tables {sorted(unknown)} with a turn_id column that the "
            "scaling benchmark's bulk history does not classify: add each to "
            "_PER_TURN_TABLES (copied per turn) or _PER_CASE_TABLES"
        )
    extra = set(columns.get(_CONVERSATION_TABLE[kind], ())) - _CONVERSATION_COLUMNS
    if extra:
        raise RuntimeError(
            f"the {kind} store's conversation row has columns {sorted(extra)} that the "
            "scaling benchmark's bulk history does not update for the copied turns"
        )
    if kind == "sqlite":
        series = (
            f"WITH RECURSIVE n(i) AS (SELECT {mark} UNION ALL SELECT i + 1 FROM n WHERE i < {mark})"
        )
        new_id, template_seq = f"{mark} || n.i", f"1 + (n.i - 1) % {mark}"
    else:  # psycopg reads a bare percent sign as a placeholder: mod() instead
        series = f"WITH n(i) AS (SELECT generate_series({mark}::int, {mark}::int))"
        new_id, template_seq = f"{mark}::text || n.i::text", f"1 + mod(n.i - 1, {mark}::int)"
    source = "n"
    turn_table, *others = (t for t in _PER_TURN_TABLES[kind] if t in columns)
    template = (
        f"JOIN {turn_table} AS t ON t.account = {mark} AND t.conversation_id = {mark}"
        f" AND t.seq = {template_seq}"
    )
    statements = []
    cols = [c for c in columns[turn_table] if c not in ("pos",)]
    exprs = [new_id if c == "turn_id" else "n.i" if c == "seq" else f"t.{c}" for c in cols]
    statements.append(
        f"{series} INSERT INTO {turn_table} ({', '.join(cols)})"
        f" SELECT {', '.join(exprs)} FROM {source} {template}"
    )
    for table in others:
        cols = [c for c in columns[table] if c != "pos"]
        exprs = [new_id if c == "turn_id" else f"r.{c}" for c in cols]
        statements.append(
            f"{series} INSERT INTO {table} ({', '.join(cols)})"
            f" SELECT {', '.join(exprs)} FROM {source} {template}"
            f" JOIN {table} AS r ON r.account = t.account AND r.turn_id = t.turn_id"
        )
    return statements


# --------------------------------------------------------------------------- turns
class Account:
    """One seeded account on one store, with its runtime; runs the three-act turn."""

    def __init__(
        self, store: TurnStore, name: str, in_view: str = "none", words: str = "repeat"
    ) -> None:
        self.store = store
        self.in_view = in_view
        self.words = words
        self.brief_records = 0
        self.brief_cut = False
        self.script = ScriptedUnderstanding()
        self.runtime = Runtime(travel_application(), store, self.script, clock=FixedClock(TODAY))
        self.actor = Actor(account=name, user=f"{name}-user")
        self.refs: dict[str, CaseRef] = {}
        self.records = 0
        self.step = 0
        self.resets = 0
        self.conversations = 0

    async def seed(self, size: int) -> float:
        """Seed the turn's records and ``size - 4`` fillers; return the seconds it took.

        Raises:
            ValueError: ``size`` is smaller than the turn's four records.
        """
        if size < len(TARGETS):
            raise ValueError(f"an account needs at least {len(TARGETS)} records, not {size}")
        name = self.actor.account
        seeded = seed_all(
            [*TARGETS, *filler_records(size - len(TARGETS))],
            lambda workflow, key: CaseRef(workflow, f"{key.lower()}-{name}"),
        )
        self.refs = {key: case for key, case, _ in seeded if key in {r["key"] for r in TARGETS}}
        rows = iter(seeded)
        start = time.perf_counter()

        async def worker() -> None:
            for _, case, state in rows:  # the workers share one iterator
                await self.runtime.seed(name, case.workflow, state, case.case_id)

        async with anyio.create_task_group() as group:
            for _ in range(SEED_CONCURRENCY):
                group.start_soon(worker)
        self.records = size
        return time.perf_counter() - start

    async def reset(self) -> None:
        """Keep only the Lisbon trip's two seeded extras (untimed; ``external_update``)."""
        self.resets += 1

        def transition(state: TripState) -> Execution[TripState]:
            return Execution(
                state=dataclasses.replace(state, extras=state.extras[:2]),
                events=(
                    EventDraft(
                        type="trip.extras_reset", data={"kept": 2}, operation="benchmark.reset"
                    ),
                ),
            )

        await self.runtime.external_update(
            self.actor.account,
            self.refs["TL"],
            source="scaling-benchmark",
            reference=f"reset-{self.resets}",
            transition=transition,
        )

    def new_conversation(self) -> str:
        """Return a fresh conversation id of this account."""
        self.conversations += 1
        return f"{self.actor.account}-conv-{self.conversations}"

    def _act(self, brief: Brief, act_id: str, operation: str, key: str, **args: str) -> SemanticAct:
        handle = self.runtime.handle_for(brief.turn_id, self.refs[key])
        return SemanticAct(
            id=act_id,
            operation=operation,
            target=ProposedTarget(handles=(handle,)),
            args=args,
            evidence=dict(args),
        )

    async def turn(self, conversation: str) -> tuple[int, int]:
        """Run one three-act turn; return its (CPU ns, wall ns) after checking it committed.

        Raises:
            RuntimeError: an act did not commit.
        """
        self.step += 1
        parity = self.step % 2

        def build(brief: Brief) -> Understanding:
            self.brief_records, self.brief_cut = len(brief.records), brief.records_cut
            payer = (
                "company"
                if parity == 0
                else self.runtime.handle_for(brief.turn_id, self.refs["PA"])
            )
            return Understanding(
                acts=(
                    self._act(brief, "a1", "trip.add_extra", "TL", kind="seat", payer="company"),
                    self._act(brief, "a2", "trip.set_extra_payer", "TL", extra="E2", payer=payer),
                    self._act(brief, "a3", "trip.rename", "TP", name=NEW_NAMES[parity]),
                )
            )

        self.script.push(build)
        turn = TurnInput(text=message(self.step, self.words))
        cpu, wall = time.process_time_ns(), time.perf_counter_ns()
        in_view = (
            [self.refs["TL"], self.refs["TP"], self.refs["PA"]]
            if self.in_view == "targets"
            else None
        )
        result = await self.runtime.run_turn(self.actor, conversation, turn, in_view=in_view)
        wall, cpu = time.perf_counter_ns() - wall, time.process_time_ns() - cpu
        _expect_committed(result, ("a1", "a2", "a3"))
        return cpu, wall


def _expect_committed(result: TurnResult, act_ids: Sequence[str]) -> None:
    for act_id in act_ids:
        got = result.results.get(act_id)
        if got is None or got.status is not ResultStatus.COMMITTED:
            raise RuntimeError(f"act {act_id} did not commit: {got}")


@dataclasses.dataclass
class Row:
    """One row of the report: an account, and which turn of which conversation is timed.

    ``mode``: ``"size"`` (one conversation, every turn timed), ``"short"`` (a new
    conversation per sample, turns 1–4 untimed, turn 5 timed) or ``"long"`` (the
    bulk-built conversation).
    """

    kind: str
    series: str
    account: Account
    mode: str
    turn_number: int
    conversation: str = ""
    seed_s: float = 0.0
    cpu: list[int] = dataclasses.field(default_factory=list)
    wall: list[int] = dataclasses.field(default_factory=list)
    grown: list[int] = dataclasses.field(default_factory=list)
    committed: int = 0

    async def sample(self, *, timed: bool, weigh: bool = False) -> None:
        """Run one turn of this row: timed (its CPU and wall time recorded), a warm-up,
        or ``weigh`` (untimed; the database's growth around it recorded)."""
        conversation = self.conversation
        if self.mode == "short":
            conversation = self.account.new_conversation()
            for _ in range(SHORT_TURN - 1):
                await self.account.turn(conversation)
        before = await _db_bytes(self.account.store) if weigh else 0
        cpu, wall = await self.account.turn(conversation)
        if weigh:
            self.grown.append(await _db_bytes(self.account.store) - before)
        if timed:
            self.cpu.append(cpu)
            self.wall.append(wall)
            self.committed += 1


async def _rows(
    stores: Stores,
    kind: str,
    sizes: Sequence[int],
    history: int,
    warmup: int,
    in_view: str = "none",
    words: str = "repeat",
) -> list[Row]:
    """Open, seed and prepare the rows of one store kind (untimed)."""
    rows = []
    for size in sizes:
        account = Account(await stores.open(kind), f"size{size}", in_view, words)
        seed_s = await account.seed(size)
        rows.append(Row(kind, "records", account, "size", size, account.new_conversation(), seed_s))
    account = Account(await stores.open(kind), "history", in_view, words)
    seed_s = await account.seed(sizes[0])
    rows.append(Row(kind, "turn", account, "short", SHORT_TURN, seed_s=seed_s))
    long = Row(kind, "turn", account, "long", history, account.new_conversation(), seed_s)
    for _ in range(TEMPLATE_TURNS):
        await account.turn(long.conversation)
    last = history - 1 - warmup
    if last >= TEMPLATE_TURNS + 1:
        await _bulk_history(
            account.store, account.actor.account, long.conversation, TEMPLATE_TURNS + 1, last
        )
    replied = len(
        await account.store.conversation_replies(account.actor.account, long.conversation)
    )
    if replied != max(last, TEMPLATE_TURNS):
        raise RuntimeError(f"the bulk history holds {replied} replied turns, not {last}")
    rows.append(long)
    return rows


async def _measure(
    kinds: Sequence[str],
    sizes: Sequence[int],
    history: int,
    turns: int,
    warmup: int,
    dsn: str | None,
    in_view: str = "none",
    words: str = "repeat",
) -> list[Row]:
    """Prepare every row, warm up, then time them interleaved in rounds of ``ROUND``."""
    with tempfile.TemporaryDirectory(prefix="turnframe-scaling-") as tmp:
        async with AsyncExitStack() as stack:
            stores = Stores(stack, Path(tmp), dsn)
            rows: list[Row] = []
            for kind in kinds:
                rows += await _rows(stores, kind, sizes, history, warmup, in_view, words)
            accounts = list({id(r.account): r.account for r in rows}.values())
            for account in accounts:
                await account.reset()
            for row in rows:
                for _ in range(warmup):
                    await row.sample(timed=False)
            gc.collect()
            done = 0
            while done < turns:
                chunk = min(ROUND, turns - done)
                for account in accounts:
                    await account.reset()
                for row in rows:
                    for _ in range(chunk):
                        await row.sample(timed=True)
                done += chunk
            for row in rows:
                for _ in range(BYTES_TURNS):
                    await row.sample(timed=False, weigh=True)
            return rows


# --------------------------------------------------------------------------- report
def _p90(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.9 * len(ordered)) - 1)]


def _figures(row: Row, base: Row | None) -> dict[str, Any]:
    cpu = [c / 1e6 for c in row.cpu]
    wall = [w / 1e6 for w in row.wall]
    median = statistics.median(cpu)
    base_median = statistics.median([c / 1e6 for c in base.cpu]) if base else median
    return {
        row.series: row.turn_number,
        "cpu_median_ms": round(median, 3),
        "cpu_p90_ms": round(_p90(cpu), 3),
        "wall_median_ms": round(statistics.median(wall), 3),
        "wall_p90_ms": round(_p90(wall), 3),
        "bytes_per_turn": round(statistics.fmean(row.grown)),
        "ratio_to_smallest": round(median / base_median, 3) if base_median else None,
        "n": len(row.cpu),
        "committed": row.committed,
        "seed_s": round(row.seed_s, 2),
        "brief_records": row.account.brief_records,
        "brief_cut": row.account.brief_cut,
    }


def _report(
    rows: Sequence[Row], kinds: Sequence[str], skipped: Mapping[str, str]
) -> dict[str, Any]:
    stores: dict[str, Any] = {}
    for kind in kinds:
        mine = [r for r in rows if r.kind == kind]
        by_size = [r for r in mine if r.mode == "size"]
        by_turn = [r for r in mine if r.mode != "size"]
        stores[kind] = {
            "records": [_figures(r, by_size[0]) for r in by_size],
            "conversation": [_figures(r, by_turn[0]) for r in by_turn],
        }
    for kind, reason in skipped.items():
        stores[kind] = {"skipped": reason}

    def median_of(kind: str, mode: str, number: int) -> float | None:
        for r in rows:
            if r.kind == kind and r.mode == mode and r.turn_number == number:
                return statistics.median(r.cpu)
        return None

    def ratio(top: float | None, bottom: float | None) -> float | None:
        return round(top / bottom, 3) if top is not None and bottom else None

    def ratios(kind: str) -> tuple[float | None, float | None, bool]:
        """Return (10,000 / 10 records, long / short turn, whether long is turn 50,000)."""
        long_rows = [r for r in rows if r.kind == kind and r.mode == "long"]
        long = median_of(kind, "long", long_rows[0].turn_number) if long_rows else None
        return (
            ratio(median_of(kind, "size", 10_000), median_of(kind, "size", 10)),
            ratio(long, median_of(kind, "short", SHORT_TURN)),
            bool(long_rows) and long_rows[0].turn_number == HISTORY_TURNS,
        )

    sizes_ratio, turns_ratio, is_50k = ratios("sqlite")
    pg_sizes, pg_turns, pg_50k = ratios("postgres")
    return {
        "stores": stores,
        "ratio_10000_over_10": sizes_ratio,
        "ratio_turn50000_over_turn5": turns_ratio if is_50k else None,
        "ratio_long_over_short_turn": turns_ratio,
        "postgres_ratio_10000_over_10": pg_sizes,
        "postgres_ratio_turn50000_over_turn5": pg_turns if pg_50k else None,
        "targets": {
            "ratio_max": TARGET_RATIO,
            "records_met": None if sizes_ratio is None else sizes_ratio <= TARGET_RATIO,
            "turns_met": None if turns_ratio is None or not is_50k else turns_ratio <= TARGET_RATIO,
        },
    }


def _git() -> str:
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=12"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def _reference_ms() -> float:
    """Return the median time of a fixed pure-Python workload (to compare machines)."""
    times = []
    for _ in range(15):
        start = time.perf_counter_ns()
        sum(i * i for i in range(20_000))
        times.append(time.perf_counter_ns() - start)
    return round(statistics.median(times) / 1e6, 3)


def _table(report: dict[str, Any]) -> str:
    config = report["config"]
    lines = [
        f"Turnframe scaling: three-act turn, {config['turns']} timed turns per row "
        f"(+{config['warmup']} warm-up), git {config['git']}, Python {config['python']}, "
        f"reference loop {config['reference_loop_ms']} ms",
        "CPU = time.process_time of run_turn (this process only); bytes = database growth per turn"
        f"; in_view: {report['config'].get('in_view', 'none')}"
        f"; words: {report['config'].get('words', 'repeat')}",
        "",
        f"{'store':<9}{'row':<17}{'cpu med':>9}{'cpu p90':>9}{'wall med':>10}{'wall p90':>10}"
        f"{'bytes':>10}{'ratio':>8}{'seed s':>8}{'brief':>7}",
    ]
    for kind, figures in report["stores"].items():
        if "skipped" in figures:
            lines.append(f"{kind:<9}skipped: {figures['skipped']}")
            continue
        for series, label in (("records", "records"), ("conversation", "turn")):
            for f in figures[series]:
                name = f"{label} {f[label]:,}"
                lines.append(
                    f"{kind:<9}{name:<17}{f['cpu_median_ms']:>9.2f}{f['cpu_p90_ms']:>9.2f}"
                    f"{f['wall_median_ms']:>10.2f}{f['wall_p90_ms']:>10.2f}"
                    f"{f['bytes_per_turn']:>10,}{f['ratio_to_smallest']:>8.2f}{f['seed_s']:>8.1f}"
                    f"{str(f['brief_records']) + ('*' if f['brief_cut'] else ''):>7}"
                )
    targets = report["targets"]

    def met(value: bool | None) -> str:
        return "not measured" if value is None else "yes" if value else "NO"

    lines += [
        "",
        f"SQLite 10,000 / 10 records (CPU median): {report['ratio_10000_over_10']} "
        f"(target <= {targets['ratio_max']}): {met(targets['records_met'])}",
        f"SQLite turn {config['history_turns']:,} / turn {SHORT_TURN} (CPU median): "
        f"{report['ratio_long_over_short_turn']} (target <= {targets['ratio_max']} at turn "
        f"{HISTORY_TURNS:,}): {met(targets['turns_met'])}",
        f"PostgreSQL 10,000 / 10 records: {report['postgres_ratio_10000_over_10']}; "
        f"turn {HISTORY_TURNS:,} / turn {SHORT_TURN}: "
        f"{report['postgres_ratio_turn50000_over_turn5']}",
        "brief = records in the last timed turn's brief (* marked cut: the default view "
        "held fewer than the account)",
    ]
    return "\n".join(lines)


def _int_list(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v.replace("_", "")) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a comma-separated list of integers: {text!r}"
        ) from None
    if not values or any(v < len(TARGETS) for v in values):
        raise argparse.ArgumentTypeError(f"sizes must be at least {len(TARGETS)}: {text!r}")
    return values


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print a table (or one JSON object with ``--json``).

    Returns:
        0 (every timed turn committed; a turn that does not raises ``RuntimeError``).
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--turns", type=int, help="timed turns per row (default 20)")
    parser.add_argument("--warmup", type=int, help="untimed turns per row first (default 2)")
    parser.add_argument("--sizes", type=_int_list, help="records per account (10,1000,...)")
    parser.add_argument(
        "--history-turns", type=int, help=f"the long conversation's turn (default {HISTORY_TURNS})"
    )
    parser.add_argument("--stores", default="sqlite,postgres", help="sqlite,postgres")
    parser.add_argument(
        "--postgres-dsn", default=os.environ.get(DSN_VAR) or None, help=f"default ${DSN_VAR}"
    )
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    parser.add_argument(
        "--in-view",
        choices=("none", "targets"),
        default="none",
        help="none (default): in_view=None, the brief's default view (ADR 0020); "
        "targets: the turn's three records are on screen",
    )
    parser.add_argument(
        "--words",
        choices=WORDS_MODES,
        default="repeat",
        help="repeat (default): the two messages alternate; fresh: every turn's message "
        "also carries a word no earlier turn used (zq<step>x, found in no record)",
    )
    args = parser.parse_args(argv)
    defaults: dict[str, Any] = (
        dict(QUICK)
        if args.quick
        else {"sizes": SIZES, "history_turns": HISTORY_TURNS, "turns": 20, "warmup": 2}
    )
    sizes = sorted(set(args.sizes or defaults["sizes"]))
    history = args.history_turns or defaults["history_turns"]
    turns = args.turns if args.turns is not None else defaults["turns"]
    warmup = args.warmup if args.warmup is not None else defaults["warmup"]
    kinds = [k.strip() for k in args.stores.split(",") if k.strip()]
    if not kinds or any(k not in ("sqlite", "postgres") for k in kinds):
        parser.error(f"--stores takes sqlite and/or postgres, not {args.stores!r}")
    if turns < 1 or warmup < 0:
        parser.error("--turns must be at least 1 and --warmup at least 0")
    if history <= SHORT_TURN + warmup:
        parser.error(f"--history-turns must exceed {SHORT_TURN} + --warmup")
    skipped: dict[str, str] = {}
    if "postgres" in kinds and not args.postgres_dsn:
        skipped["postgres"] = f"no DSN: set {DSN_VAR} or pass --postgres-dsn"
        print(f"PostgreSQL rows skipped: {skipped['postgres']}", file=sys.stderr)
        kinds.remove("postgres")
    rows = anyio.run(
        _measure,
        kinds,
        sizes,
        history,
        turns,
        warmup,
        args.postgres_dsn,
        args.in_view,
        args.words,
    )
    report = _report(rows, kinds, skipped)
    report["config"] = {
        "turns": turns,
        "warmup": warmup,
        "round": ROUND,
        "sizes": sizes,
        "history_turns": history,
        "in_view": args.in_view,
        "words": args.words,
        "history_build": "bulk copy of the first turns' stored rows (see the docstring)",
        "bytes": "database growth per timed turn (sqlite: pages in use after a WAL "
        "checkpoint; postgres: pg_total_relation_size of the schema)",
        "cpu": "time.process_time_ns around run_turn (client process only)",
        "git": _git(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "reference_loop_ms": _reference_ms(),
    }
    print(json.dumps(report) if args.json else _table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
