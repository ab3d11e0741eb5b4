"""benchmarks/load_http.py: a tiny run through ``turnframe serve`` and its store-side counters.

The run checks the report's shape and that lost updates, duplicate effects and receipts
without events are 0 (never timing). The counter tests break a store on purpose and
check each counter sees it, so a counter that always says 0 fails here.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

from turnframe.core import Actor, TurnInput
from turnframe.core.events import DomainEvent

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "load_http.py"
ROW_KEYS = {
    "store",
    "workers",
    "repeat",
    "clients",
    "turns",
    "turns_per_s",
    "http_ms",
    "in_process_ms",
    "added_p50_ms",
    "added_p99_ms",
    "lost_updates",
    "duplicate_effects",
    "receipts_without_events",
    "cards_double_clicked",
    "replays",
    "busy_409",
    "errors",
    "first_errors",
    "in_process",
}
LATENCY_KEYS = {"p50", "p99", "text_p50", "text_p99", "click_p50", "click_p99"}


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("load_http_bench", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def _check_row(row: dict[str, Any], clients: int) -> None:
    assert set(row) == ROW_KEYS
    assert row["clients"] == clients
    assert row["errors"] == 0, row["first_errors"]
    assert row["in_process"]["errors"] == 0, row["in_process"]["first_errors"]
    assert row["lost_updates"] == 0
    assert row["duplicate_effects"] == 0
    assert row["receipts_without_events"] == 0
    # per client: 3 text turns, 2 cards double-clicked (the second click of a pair may
    # be refused 409 while the first runs), one retry after the reply, one during
    assert row["cards_double_clicked"] == 2 * clients
    assert 5 * clients <= row["turns"] <= 7 * clients
    assert 5 * clients <= row["in_process"]["turns"] <= 7 * clients
    assert row["replays"] >= clients
    for figures in (row["http_ms"], row["in_process_ms"]):
        assert set(figures) == LATENCY_KEYS
        assert figures["p50"] > 0 and figures["p99"] >= figures["p50"]
    assert row["turns_per_s"] > 0


def test_tiny_sqlite_run_reports_its_table_and_zero_counts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = _load()
    argv = ["--store", "sqlite", "--clients", "2", "--turns", "3", "--repeat", "1"]
    code = bench.main([*argv, "--json"])
    report = json.loads(capsys.readouterr().out)  # exactly one JSON object on stdout
    assert [row["store"] for row in report["rows"]] == ["sqlite"]
    _check_row(report["rows"][0], 2)
    assert report["rows"][0]["workers"] == 1
    assert code == 0
    assert report["config"]["messages"] == list(bench.MESSAGES)


def test_tiny_postgres_run_with_two_workers(capsys: pytest.CaptureFixture[str]) -> None:
    dsn = os.environ.get("TURNFRAME_TEST_POSTGRES_DSN")
    if not dsn:
        pytest.skip("set TURNFRAME_TEST_POSTGRES_DSN (e.g. postgresql://postgres@127.0.0.1/test)")
    bench = _load()
    argv = [
        "--store",
        "postgres",
        "--workers",
        "2",
        "--clients",
        "2",
        "--turns",
        "3",
        "--repeat",
        "1",
    ]
    code = bench.main([*argv, "--dsn", dsn, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert [row["store"] for row in report["rows"]] == ["postgres×2"]
    _check_row(report["rows"][0], 2)
    assert code == 0


def test_postgres_row_is_skipped_with_a_message_without_a_dsn(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TURNFRAME_TEST_POSTGRES_DSN", raising=False)
    monkeypatch.delenv("TURNFRAME_POSTGRES_DSN", raising=False)
    bench = _load()
    assert bench.main(["--store", "postgres"]) == 0
    captured = capsys.readouterr()
    assert "PostgreSQL row skipped" in captured.err
    assert "postgres×3" in captured.out and "skipped" in captured.out
    header = captured.out.splitlines()[0].split()
    for column in ("clients", "turns", "turns/s", "lost", "dup", "unbacked"):
        assert column in header


@pytest.mark.parametrize(
    "argv",
    [["--clients", "0"], ["--clients", "65"], ["--clients", "1,x"], ["--turns", "x"]],
)
def test_bounds_are_refused(argv: list[str]) -> None:
    bench = _load()
    with pytest.raises(SystemExit) as exit_info:
        bench.main(argv)
    assert exit_info.value.code == 2


# the counters see what they count -----------------------------------------------------------
class Broken:
    """A store whose reads lie in one chosen way (everything else is the real store's)."""

    def __init__(self, inner: Any, *, drop_event: str | None = None, same_revision: bool = False):
        self.inner = inner
        self.drop_event = drop_event
        self.same_revision = same_revision

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def events_by_id(self, ids: Sequence[str]) -> list[DomainEvent]:
        found = await self.inner.events_by_id(ids)
        return [e for e in found if e.id != self.drop_event]

    async def case_events(self, case: Any) -> list[DomainEvent]:
        events = list(await self.inner.case_events(case))
        if self.drop_event is not None:
            events = [e for e in events if e.id != self.drop_event]
        if self.same_revision and events:
            last = events[-1]
            events.append(replace(last, id=last.id + "-x", idempotency_key="another-commit"))
        return events


async def _one_client(bench: ModuleType, tmp_path: Path) -> tuple[Any, list[str], Any]:
    from turnframe.store.sqlite import SqliteStore

    store = await SqliteStore.open(tmp_path / "audit.db")
    accounts = await bench.seed(store, 1, 3)
    transport = bench.InProcess(store)
    tally = await bench.warm_up([(bench.warm_client(0), transport)])
    await bench.drive([(0, transport)], 3, tally)
    assert tally.errors == [] and tally.turns >= 5
    return store, accounts, tally


def test_counters_are_zero_on_a_clean_run_and_see_each_defect(tmp_path: Path) -> None:
    bench = _load()

    async def scenario() -> None:
        store, accounts, tally = await _one_client(bench, tmp_path)
        try:
            clean = await bench.audit(store, accounts, tally.claimed)
            # the warm-up round and the client's: a select card drew, a confirm committed
            assert clean == {
                "lost": 0,
                "dup": 0,
                "unbacked": 0,
                "cards_committed": 2,
                "cards_drew": 2,
            }
            receipt = sorted(tally.claimed)[0]
            # a receipt whose event the store does not hold: persisted (unbacked) and
            # given to a client (lost)
            broken = await bench.audit(Broken(store, drop_event=receipt), accounts, tally.claimed)
            assert broken["unbacked"] == 1 and broken["lost"] >= 1
            # two commits claiming one revision
            twice = await bench.audit(Broken(store, same_revision=True), accounts, tally.claimed)
            assert twice["lost"] >= 1 and twice["unbacked"] == 0
            # a message that ran as a second turn (a retry that was not recognised)
            runtime = bench.runtime_for(store)
            actor = Actor(account=accounts[0], user="load", roles=frozenset({"customer"}))
            text = bench.MESSAGES[2]
            await runtime.run_turn(
                actor,
                bench.CONVERSATION,
                TurnInput(text=text, locale="en"),
                understander=bench.ScriptedReader().understander(text),
            )
            again = await bench.audit(store, accounts, tally.claimed)
            assert again["dup"] >= 1 and again["lost"] == 0
        finally:
            await store.close()

    anyio.run(scenario)


def test_a_card_committed_twice_is_a_duplicate_effect(tmp_path: Path) -> None:
    """Two clicks of one card that both committed (what a missing card CAS would allow)."""
    bench = _load()

    async def scenario() -> None:
        store, accounts, tally = await _one_client(bench, tmp_path)
        try:
            replies = await store.conversation_replies(accounts[0], bench.CONVERSATION)
            clicks: dict[str, list[str]] = {}  # card -> the turns that clicked it
            for turn_id, _blocks in replies:
                record = await store.get_turn(accounts[0], turn_id)
                response = record.input.get("interaction_response") if record else None
                if isinstance(response, dict):
                    clicks.setdefault(str(response["interaction_id"]), []).append(turn_id)
            committed: dict[str, DomainEvent] = {}
            for row in await store.list_cases(accounts[0]):
                for event in await store.case_events(row.case):
                    committed.setdefault(event.turn_id, event)
            # the confirmation card: one of its two clicks committed, the other did not
            pair = next(ts for ts in clicks.values() if any(t in committed for t in ts))
            assert len(pair) == 2
            winner = next(t for t in pair if t in committed)
            loser = next(t for t in pair if t != winner)
            forged = replace(
                committed[winner],
                id="ev-forged",
                revision=committed[winner].revision + 1,
                turn_id=loser,
                idempotency_key="forged-key",
            )

            class Doubled(Broken):
                async def case_events(self, case: Any) -> list[DomainEvent]:
                    events = list(await self.inner.case_events(case))
                    return events + [forged] if case == forged.case else events

            counts = await bench.audit(Doubled(store), accounts, tally.claimed)
            assert counts["dup"] == 1
        finally:
            await store.close()

    anyio.run(scenario)


# the benchmark's authenticator -------------------------------------------------------------
def _auth() -> ModuleType:
    spec = importlib.util.spec_from_file_location("load_auth", SCRIPT.with_name("load_auth.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _request(client: str, server: str, actor: str | None) -> Any:
    from starlette.requests import Request

    headers = [] if actor is None else [(b"x-load-actor", actor.encode())]
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/v1/session",
        "headers": headers,
        "client": (client, 50000),
        "server": (server, 8000),
    }
    return Request(scope)


@pytest.mark.parametrize(
    ("client", "server", "actor", "status"),
    [
        ("127.0.0.1", "127.0.0.1", "load-c0-r0", None),
        ("::1", "::1", "acct_7", None),
        ("10.1.2.3", "127.0.0.1", "load-c0-r0", 403),
        ("127.0.0.1", "0.0.0.0", "load-c0-r0", 403),
        ("testclient", "127.0.0.1", "load-c0-r0", 403),
        ("127.0.0.1", "127.0.0.1", None, 401),
        ("127.0.0.1", "127.0.0.1", "a b", 401),
        ("127.0.0.1", "127.0.0.1", "x" * 65, 401),
    ],
)
def test_the_load_authenticator_serves_loopback_only(
    client: str, server: str, actor: str | None, status: int | None
) -> None:
    from turnframe.serve.errors import ProblemError

    auth = _auth()
    authenticate = auth.authenticator()

    async def call() -> Any:
        return await authenticate(_request(client, server, actor))

    if status is None:
        found = anyio.run(call)
        assert found == Actor(account=actor or "", user="load", roles=frozenset({"customer"}))
        return
    with pytest.raises(ProblemError) as refused:
        anyio.run(call)
    assert refused.value.problem.status == status
