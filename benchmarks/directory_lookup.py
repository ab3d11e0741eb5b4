"""Directory lookup: finding records by the user's words against account size (issue 9, item 1).

What is measured
    ``StoredCaseDirectory.find(actor, "traveler", words)`` over the travel sample's
    travelers, in accounts of 10 / 1,000 / 10,000 records (``--sizes``), on SQLite (a file
    in a temporary directory) and, with ``--postgres-dsn`` or
    ``TURNFRAME_TEST_POSTGRES_DSN``, on PostgreSQL: the indexed lookup (the store seeks its
    word index, ``TurnStore.find_cases``) against the full scan it replaced (every case
    read, typed and matched in Python, :func:`full_scan`), for a mention naming two records
    ("ana costa") and one naming none ("zoe quill").

How
    Filler travelers are named ``<first> <last> <n>`` from word lists that never meet the
    mentions; two "Ana Costa" travelers are seeded first. Records are committed untimed
    with their search text (as ``Runtime.seed`` does). Per row: the median CPU
    milliseconds (``time.process_time_ns``) of one lookup; rows and variants take turns
    in rounds so load elsewhere hits all alike. Each lookup's answer is checked against
    the full scan's.

Usage::

    python benchmarks/directory_lookup.py [--json] [--sizes 10,1000,10000] [--repeat N]
        [--stores sqlite,postgres] [--postgres-dsn DSN]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import anyio

from turnframe.core.events import EventDraft
from turnframe.core.ids import Actor, CaseRef
from turnframe.runtime import StoredCaseDirectory
from turnframe.samples.travel import travel_application
from turnframe.store import CommitRequest, TurnStore
from turnframe.store.sqlite import SqliteStore

ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
REGISTRY = travel_application().registry
MENTIONS = ("ana costa", "zoe quill")
_FIRST = ("Bruno", "Carla", "Diego", "Elena", "Fabio", "Gloria", "Hugo", "Irene", "Jorge")
_LAST = ("Moreira", "Teixeira", "Barbosa", "Pereira", "Ribeiro", "Tavares", "Mendes")


async def full_scan(store: TurnStore, workflow: str, words: str) -> list[CaseRef]:
    """The directory's lookup before the index: every case read, typed and matched."""
    wanted = [w for w in words.lower().split() if w]
    found = []
    for row in await store.list_cases(ACTOR.account):
        if row.case.workflow != workflow:
            continue
        erased = REGISTRY.workflow(row.case.workflow)
        text = erased.definition.search_text(erased.typed(row.state)).lower()
        if wanted and all(w in text for w in wanted):
            found.append(row.case)
    return found


async def seed(store: TurnStore, size: int) -> None:
    """Commit ``size`` travelers (two of them "Ana Costa") with their search text."""
    erased = REGISTRY.workflow("traveler")
    for n in range(size):
        name = "Ana Costa" if n < 2 else f"{_FIRST[n % 9]} {_LAST[n // 9 % 7]} {n}"
        typed = erased.typed({"full_name": name, "birth_date": "1980-04-02"})
        state = erased.definition.dump_state(typed)
        await store.commit(
            CommitRequest(
                account=ACTOR.account,
                case=CaseRef("traveler", f"p{n}"),
                expected_revision=0,
                state=state,
                events=(EventDraft(type="traveler.seeded", data=state, operation="seed"),),
                idempotency_key=f"seed-{n}",
                request_hash="h",
                turn_id="",
                search_text=erased.definition.search_text(typed),
            )
        )


async def _cpu_ms(call: Callable[[], Awaitable[Any]]) -> float:
    start = time.process_time_ns()
    await call()
    return (time.process_time_ns() - start) / 1e6


async def run(sizes: list[int], repeat: int, stores: list[str], dsn: str | None) -> dict[str, Any]:
    """Return ``{"rows": [...], "ratios": {...}}`` for every store and size."""
    rows: list[dict[str, Any]] = []
    opened: list[tuple[str, int, TurnStore]] = []
    schemas: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in stores:
            for size in sizes:
                if kind == "sqlite":
                    store: TurnStore = await SqliteStore.open(Path(tmp) / f"{size}.db")
                else:
                    from turnframe.store.postgres import PostgresStore
                    from turnframe.testing.postgres import new_schema_name

                    schemas.append(new_schema_name("tf_lookup"))
                    store = await PostgresStore.open(
                        dsn or "", schema=schemas[-1], migrate_schema=True
                    )
                await seed(store, size)
                opened.append((kind, size, store))
        samples: dict[tuple[str, int, str, str], list[float]] = {}
        try:
            for _ in range(repeat):
                for kind, size, store in opened:
                    directory = StoredCaseDirectory(REGISTRY, store)
                    for words in MENTIONS:
                        expected = await full_scan(store, "traveler", words)
                        got = await directory.find(ACTOR, "traveler", words)
                        if list(got) != expected:
                            raise RuntimeError(f"{kind} {size} {words!r}: {got} != {expected}")
                        calls: tuple[tuple[str, Callable[[], Awaitable[Any]]], ...] = (
                            ("indexed", partial(directory.find, ACTOR, "traveler", words)),
                            ("full_scan", partial(full_scan, store, "traveler", words)),
                        )
                        for variant, call in calls:
                            key = (kind, size, words, variant)
                            samples.setdefault(key, []).append(await _cpu_ms(call))
        finally:
            for _, _, store in opened:
                await store.close()
            if schemas:
                from turnframe.testing.postgres import drop_schema

                for schema in schemas:
                    await drop_schema(dsn or "", schema)
    for (kind, size, words, variant), values in samples.items():
        rows.append(
            {
                "store": kind,
                "records": size,
                "mention": words,
                "variant": variant,
                "cpu_ms_median": round(statistics.median(values), 3),
            }
        )
    ratios = {}
    for kind in stores:
        for words in MENTIONS:
            for variant in ("indexed", "full_scan"):
                by_size = {
                    r["records"]: r["cpu_ms_median"]
                    for r in rows
                    if (r["store"], r["mention"], r["variant"]) == (kind, words, variant)
                }
                top, low = max(by_size), min(by_size)
                ratios[f"{kind}:{words}:{variant}:{top}_over_{low}"] = round(
                    by_size[top] / by_size[low], 2
                )
    return {"rows": rows, "ratios": ratios}


def _sizes(text: str) -> list[int]:
    """Parse ``--sizes``: comma-separated ints, each at least 2 (two records are "Ana Costa")."""
    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a comma-separated list of integers: {text!r}"
        ) from None
    if any(size < 2 for size in sizes):
        raise argparse.ArgumentTypeError(f"sizes must be at least 2: {text!r}")
    return sizes


def _at_least_one(text: str) -> int:
    """Parse an int of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _stores(text: str) -> list[str]:
    """Parse ``--stores``: ``sqlite`` and/or ``postgres``, comma-separated."""
    stores = [part for part in text.split(",") if part]
    unknown = [part for part in stores if part not in ("sqlite", "postgres")]
    if unknown or not stores:
        raise argparse.ArgumentTypeError(f"takes sqlite and/or postgres, not {text!r}")
    return stores


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, run, print a table (or one JSON object with ``--json``).

    Bad arguments (a size below 2, ``--repeat`` below 1, a store not ``sqlite`` or
    ``postgres``) exit with argparse's usage error (status 2), before any store opens.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--sizes", type=_sizes, default=[10, 1000, 10000], help="records per account (>= 2 each)"
    )
    parser.add_argument(
        "--repeat", type=_at_least_one, default=15, help="lookups per row and variant (>= 1)"
    )
    parser.add_argument(
        "--stores", type=_stores, default=["sqlite", "postgres"], help="sqlite,postgres"
    )
    parser.add_argument("--postgres-dsn", default=os.environ.get("TURNFRAME_TEST_POSTGRES_DSN"))
    args = parser.parse_args(argv)
    stores = [s for s in args.stores if s != "postgres" or args.postgres_dsn]
    sizes = args.sizes
    result = anyio.run(run, sizes, args.repeat, stores, args.postgres_dsn)
    if args.json:
        print(json.dumps(result))
        return
    print(f"{'store':8} {'records':>8} {'mention':12} {'variant':10} {'cpu ms':>9}")
    for r in sorted(result["rows"], key=lambda r: (r["store"], r["mention"], r["variant"])):
        print(
            f"{r['store']:8} {r['records']:>8} {r['mention']:12} {r['variant']:10}"
            f" {r['cpu_ms_median']:>9.3f}"
        )
    for name, value in result["ratios"].items():
        print(f"{name}: {value}x")


if __name__ == "__main__":
    main()
