"""Load over HTTP: concurrent clients through ``turnframe serve``, against in-process turns.

What is measured
    ``--clients`` concurrent clients (at most ``MAX_CLIENTS``; a list gives a row per
    count, default 1 and 8) each run ``--turns`` text turns (default 12) through
    ``turnframe serve`` on 127.0.0.1, with ``httpx.AsyncClient`` (loopback only: the
    script takes no host). Rows: ``sqlite`` (one server process) and ``postgres×W``
    (``--store postgres`` with ``--workers W`` uvicorn worker processes, default 3, on a
    fresh schema dropped afterwards; the DSN is ``--dsn``, else
    ``TURNFRAME_TEST_POSTGRES_DSN`` or ``TURNFRAME_POSTGRES_DSN``; the row is skipped
    with a message when none is set).

    Every client acts for its own accounts (``benchmarks/load_auth.py``, passed with
    ``--auth``: the ``X-Load-Actor`` header names the account; it refuses non-loopback
    use). The travel demo records are seeded per account with ``Runtime.seed`` before the
    server starts; understanding is ``--model scripted:example`` (no model call), whose
    three messages are sent in turn (``src/turnframe/cli/examples/travel-chat.yaml``):

    1. ``Rename the Porto trip to Summer Offsite``, then the same request again with the
       same ``Idempotency-Key`` once it has replied (a client's retry): 200, same turn.
    2. ``Cancel the Lisbon trip``: a selection card (two Lisbon trips), then a
       confirmation card. Each card is DOUBLE-CLICKED: two identical click requests at
       once with different ``Idempotency-Key`` s, as two tabs would send them.
    3. ``Start a trip called Oslo Summit``, sent twice at once with the same key (a retry
       while the first is in flight): one turn, never two trips.

    A round of the three uses the account's records up, so each round has a fresh
    account of the client (``load-c<client>-r<round>``).

    The same clients, on the same store kind (a fresh database, seeded alike), run the
    same turns in process too, calling ``Runtime.run_turn`` directly (the retry key is
    the turn id), in the same run: in one process for SQLite, in ``W`` processes of this
    script for ``postgres×W`` (the clients split round robin, as the server has ``W``
    workers), so both sides have the same parallelism. Each process (each server
    worker) first runs one untimed warm-up round on an account of its own. ``--repeat``
    (default 2) alternates the phases (in process, HTTP, HTTP, in process, ...) on fresh
    databases and pools the samples, so a load that changes on the machine during the
    run weighs on both sides alike.

    Latency is wall time per request on the client side (``time.perf_counter``) for the
    text and click turns that ran (not replays, not 409s); p50 is the median, p99 the
    nearest rank. The added latency of the HTTP layer is HTTP minus in process, at p50
    and at p99 (the table also gives both per kind: a click needs no understanding, so
    the pooled p50 is a click's). ``turns/s`` = turns that ran over HTTP / the wall time
    of the HTTP phases. With one client little queues (the two clicks of a pair, the
    retry race), and the difference is mostly the HTTP layer's own cost (the server's
    request handling, the turn service, uvicorn, httpx and loopback TCP). With several, an HTTP request's clock also runs while it waits for a
    busy server, whereas an in-process client's turn only starts (and its clock with it)
    once the event loop is free: the added latency then includes that queueing.

Checks (read from the store after the server stopped; all must be 0)
    ``lost``: a case whose committed revisions are not 1..its revision, a revision two
    commits claim (two idempotency keys), or a receipt a client was given over HTTP
    whose event ids are not all in the store.
    ``dup``: a card whose clicks committed more than one change or drew more than one
    next card, a message (each is sent once per account, retries aside) that ran as more
    than one turn, a key whose events span more than one revision, or a retry answered
    with another turn.
    ``unbacked``: receipt blocks of persisted replies citing an event id not in the store.
    So that a check with nothing to look at cannot pass, the clicked cards that committed
    (one per chain of cards: the cancellation's confirmation) and that drew a card (the
    selection) are counted from the store too, and must match what the clients clicked.
    The script exits 1 when a count is not 0, or a request got an unexpected answer (any
    status but 201 for a turn, 200 for a retry after the reply, or 409
    ``turn_in_progress`` for one of a concurrent pair), in process or over HTTP.

Usage: ``python benchmarks/load_http.py [--json] [--clients N] [--turns N] [--workers W]
[--store sqlite|postgres|both] [--dsn DSN] [--repeat R]``. When the server does not
start, the error names its command and ends with its log.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Protocol

import anyio
import httpx
from pydantic import TypeAdapter

import turnframe
from turnframe.cli.chat_script import load_script
from turnframe.core import Actor, CaseRef, TurnInput
from turnframe.core.reply import ReplyBlock
from turnframe.core.turn import InteractionResponse
from turnframe.runtime import FixedClock, Runtime, TurnIdReused
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application
from turnframe.store import TurnStore
from turnframe.understand import ModelUnderstanding
from turnframe.understand.merged import script_merge

HERE = Path(__file__).resolve().parent
TODAY = date(2026, 5, 1)
"""The travel sample's chat day (``turnframe chat`` and ``serve`` fix the same)."""
MESSAGES = (
    "Rename the Porto trip to Summer Offsite",
    "Cancel the Lisbon trip",
    "Start a trip called Oslo Summit",
)
"""One round: the three messages of ``scripted:example``, in this order."""
RETRY_AFTER, RETRY_DURING = 0, 2
"""The round's message retried after its reply, and the one retried while in flight."""
MAX_CLIENTS = 64
MAX_TURNS = 500
MAX_CARD_DEPTH = 4
"""Cards followed per message at most (the cancel draws two: select, then confirm)."""
CONVERSATION = "load"
START_TIMEOUT_S = 90.0
REQUEST_TIMEOUT_S = 120.0
_BLOCKS = TypeAdapter(list[ReplyBlock])
_OK_CONFLICTS = {"turn_in_progress"}
"""409 codes a concurrent pair may get (the runtime refuses a turn id still running)."""


# the turns -----------------------------------------------------------------------------------
@dataclass(slots=True)
class Answer:
    """One request's answer: HTTP status and the JSON body (a ``TurnView`` or a problem)."""

    status: int
    body: dict[str, Any]

    @property
    def turn_id(self) -> str | None:
        """The turn id of a 2xx answer."""
        value = self.body.get("turn_id") if self.status < 300 else None
        return str(value) if value else None

    def cards(self) -> list[dict[str, Any]]:
        """The interaction blocks of a 2xx answer."""
        if self.status >= 300:
            return []
        return [b for b in self.body.get("blocks", []) if b.get("kind") == "interaction"]

    def receipt_events(self) -> list[str]:
        """The event ids the answer's receipt blocks cite."""
        if self.status >= 300:
            return []
        return [
            i
            for b in self.body.get("blocks", [])
            if b.get("kind") == "receipt"
            for i in b["receipt"]["event_ids"]
        ]


class Transport(Protocol):
    """Sends one turn request for an account (HTTP, or ``Runtime.run_turn`` in process)."""

    async def open_account(self, account: str) -> None:
        """Prepare to act for ``account`` (HTTP: read the session)."""
        ...

    async def turn(self, account: str, body: dict[str, Any], key: str) -> Answer:
        """Send ``body`` (a ``TurnRequestBody``) under idempotency key ``key``."""
        ...


@dataclass(slots=True)
class Tally:
    """What the clients saw: latencies by kind (ms), answers counted, receipts given."""

    samples: dict[str, list[float]] = field(default_factory=lambda: {"text": [], "click": []})
    turns: int = 0
    replays: int = 0
    busy: int = 0
    errors: list[str] = field(default_factory=list)
    retry_mismatch: int = 0
    claimed: set[str] = field(default_factory=set)
    cards_double_clicked: int = 0
    chains: int = 0
    """Text turns that drew a card (each chain's last card commits, the others draw one)."""
    warm_chains: int = 0
    warm_cards: int = 0
    """The warm-up round's chains and cards (in the store too, so in the audit's counts)."""

    def to_json(self) -> dict[str, Any]:
        """The tally as JSON (an in-process worker's report)."""
        out = {name: getattr(self, name) for name in self.__slots__}
        out["claimed"] = sorted(self.claimed)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        """The tally :meth:`to_json` gave."""
        return cls(**{**data, "claimed": set(data["claimed"])})

    def merge(self, other: Tally) -> None:
        """Add ``other``'s counts, samples, errors and receipts to this tally."""
        for kind, values in other.samples.items():
            self.samples.setdefault(kind, []).extend(values)
        for name in ("turns", "replays", "busy", "retry_mismatch", "cards_double_clicked"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("chains", "warm_chains", "warm_cards"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.errors += other.errors
        self.claimed |= other.claimed

    def check_cards(self, counts: dict[str, int], where: str) -> None:
        """Record an error when the clicks did not commit or draw what the chains need."""
        chains = self.chains + self.warm_chains
        cards = self.cards_double_clicked + self.warm_cards
        want = {"cards_committed": chains, "cards_drew": cards - chains}
        for key, expected in want.items():
            if counts[key] != expected:
                self.errors.append(f"{where}: {key} {counts[key]}, expected {expected}")

    def saw(self, answer: Answer, kind: str, elapsed_ms: float, *, retry: bool = False) -> None:
        """Count one answer; a retry's must be a replay or a busy refusal."""
        self.claimed.update(answer.receipt_events())
        if answer.status == 201 and not retry:
            self.turns += 1
            self.samples[kind].append(elapsed_ms)
        elif answer.status in (200, 201) and retry:
            self.replays += 1
        elif answer.status == 409 and answer.body.get("code") in _OK_CONFLICTS:
            self.busy += 1
        else:
            self.errors.append(f"{kind}{' retry' if retry else ''}: {answer.status} {answer.body}")


async def timed(call: Awaitable[Answer]) -> tuple[Answer, float]:
    """Await ``call``; return its answer and the wall time in milliseconds."""
    start = time.perf_counter()
    answer = await call
    return answer, (time.perf_counter() - start) * 1000


def account_name(client: int, round_: int) -> str:
    """Return the account client ``client`` acts for in round ``round_``.

    Warm-up clients have negative numbers (:func:`warm_client`).
    """
    if client < 0:
        return f"load-warm{-client - 1}-r{round_}"
    return f"load-c{client}-r{round_}"


def warm_client(k: int) -> int:
    """Return the client number of the ``k``-th warm-up client (from 0)."""
    return -1 - k


def click_body(card: dict[str, Any]) -> dict[str, Any]:
    """Return the click on ``card``: ``confirm`` when offered, else its first option."""
    ids = [o["id"] for o in card["options"]]
    option = "confirm" if "confirm" in ids else ids[0]
    return {
        "click": {
            "interaction_id": card["interaction_id"],
            "option_id": option,
            "expected_revision": card.get("expected_revision"),
        },
        "locale": "en",
    }


async def both(first: Awaitable[Any], second: Awaitable[Any]) -> tuple[Any, Any]:
    """Run two awaitables at once; return both results in order."""
    out: list[Any] = [None, None]

    async def run(i: int, call: Awaitable[Any]) -> None:
        out[i] = await call

    async with anyio.create_task_group() as group:
        group.start_soon(run, 0, first)
        group.start_soon(run, 1, second)
    return out[0], out[1]


async def follow_cards(transport: Transport, account: str, answer: Answer, tally: Tally) -> None:
    """Double-click each card ``answer`` draws, then each card the clicks draw, and so on."""
    tally.chains += bool(answer.cards())
    for _ in range(MAX_CARD_DEPTH):
        cards = answer.cards()
        if not cards:
            return
        body = click_body(cards[0])
        (a, ta), (b, tb) = await both(
            timed(transport.turn(account, body, _key())),
            timed(transport.turn(account, body, _key())),
        )
        tally.cards_double_clicked += 1
        tally.saw(a, "click", ta)
        tally.saw(b, "click", tb)
        # the click that drew the next card (at most one of the two, or dup counts it)
        answer = a if a.cards() else b


async def run_client(transport: Transport, client: int, turns: int, tally: Tally) -> None:
    """Run client ``client``'s ``turns`` text turns (rounds of ``MESSAGES``), cards and retries."""
    for i in range(turns):
        round_, m = divmod(i, len(MESSAGES))
        account = account_name(client, round_)
        if m == 0:
            await transport.open_account(account)
        body = {"text": MESSAGES[m], "locale": "en"}
        key = _key()
        if m == RETRY_DURING:
            (a, ta), (b, tb) = await both(
                timed(transport.turn(account, body, key)), timed(transport.turn(account, body, key))
            )
            # whichever answered 201 ran the turn; the other is the retry
            first, retry = (b, a) if b.status == 201 and a.status != 201 else (a, b)
            tally.saw(first, "text", tb if first is b else ta)
            tally.saw(retry, "text", 0.0, retry=True)
            if retry.turn_id is not None and retry.turn_id != first.turn_id:
                tally.retry_mismatch += 1
            answer = first
        else:
            answer, elapsed = await timed(transport.turn(account, body, key))
            tally.saw(answer, "text", elapsed)
            if m == RETRY_AFTER:
                again = await transport.turn(account, body, key)
                if again.status != 200:
                    tally.errors.append(f"retry after the reply: {again.status} {again.body}")
                tally.saw(again, "text", 0.0, retry=True)
                if again.turn_id is not None and again.turn_id != answer.turn_id:
                    tally.retry_mismatch += 1
        await follow_cards(transport, account, answer, tally)


def _key() -> str:
    return f"k-{secrets.token_hex(8)}"


Clients = Sequence[tuple[int, Transport]]
"""Client numbers, each with the transport it sends through."""


async def warm_up(warm: Clients) -> Tally:
    """Run one untimed round per warm-up client, all at once; return the tally to build on.

    The first turns of a process pay for imports and caches; one warm-up client per
    process (per server worker) takes them. Its unexpected answers are kept as errors,
    its cards counted apart (they are in the store, so in the audit's counts).
    """
    warm_tally = Tally()
    async with anyio.create_task_group() as group:
        for client, transport in warm:
            group.start_soon(run_client, transport, client, len(MESSAGES), warm_tally)
    tally = Tally(
        errors=[f"warm-up {e}" for e in warm_tally.errors],
        warm_chains=warm_tally.chains,
        warm_cards=warm_tally.cards_double_clicked,
    )
    tally.claimed.update(warm_tally.claimed)
    return tally


async def drive(clients: Clients, turns: int, tally: Tally) -> float:
    """Run every client at once, counting into ``tally``; return the wall time in seconds."""
    start = time.perf_counter()
    async with anyio.create_task_group() as group:
        for client, transport in clients:
            group.start_soon(run_client, transport, client, turns, tally)
    return time.perf_counter() - start


# in process ----------------------------------------------------------------------------------
class ScriptedReader:
    """What ``--model scripted:example`` reads each message with (as ``turnframe chat``)."""

    def __init__(self) -> None:
        script = load_script("example")
        if script is None:  # pragma: no cover - the example ships with the package
            raise RuntimeError("scripted:example is missing")
        self.script = script

    def understander(self, text: str) -> ModelUnderstanding:
        """Return the understanding of ``text`` (one of the script's messages)."""
        provider = self.script.provider_for(text)
        if provider is None:
            raise ValueError(f"not a scripted message: {text!r}")
        return ModelUnderstanding(provider, effort="medium", merge=script_merge(provider))


class InProcess:
    """Runs each request as ``Runtime.run_turn`` on the same store kind (the baseline).

    The idempotency key is the turn id: a replied turn's id with the same input returns
    the stored result (answered 200, as a replay); one still running raises
    ``TurnIdReused`` (answered 409 ``turn_in_progress``).
    """

    def __init__(self, store: TurnStore) -> None:
        self.runtime = runtime_for(store)
        self.reader = ScriptedReader()
        self.done: set[str] = set()

    async def open_account(self, account: str) -> None:
        """Nothing to prepare in process."""

    async def turn(self, account: str, body: dict[str, Any], key: str) -> Answer:
        """Run the turn ``body`` describes with turn id ``key``."""
        actor = Actor(account=account, user="load", roles=frozenset({"customer"}))
        click = body.get("click")
        text = body.get("text")
        turn = TurnInput(
            text=text,
            interaction_response=None
            if click is None
            else InteractionResponse(
                interaction_id=click["interaction_id"],
                option_id=click["option_id"],
                expected_revision=click.get("expected_revision"),
            ),
            locale=body.get("locale") or "en",
        )
        replay = key in self.done
        try:
            result = await self.runtime.run_turn(
                actor,
                CONVERSATION,
                turn,
                turn_id=key,
                understander=self.reader.understander(text) if text else None,
            )
        except TurnIdReused:
            return Answer(409, {"code": "turn_in_progress"})
        self.done.add(key)
        blocks = _BLOCKS.dump_python(list(result.blocks), mode="json")
        return Answer(200 if replay else 201, {"turn_id": result.turn_id, "blocks": blocks})


def runtime_for(store: TurnStore) -> Runtime:
    """Return the travel runtime over ``store``, dated as ``serve`` dates it."""
    return Runtime(travel_application(), store, None, clock=FixedClock(TODAY))


# over HTTP -----------------------------------------------------------------------------------
class OverHttp:
    """Sends one benchmark client's requests to the server with its own ``httpx`` client.

    The session's CSRF token is sent as ``X-CSRF-Token`` with every turn (with its
    cookie, kept in this client's own jar), so the requests pass whether or not the
    server treats them as a browser's. At most 4 connections (a client has at most two
    requests in flight).
    """

    def __init__(self, base: str) -> None:
        limits = httpx.Limits(max_connections=4, max_keepalive_connections=2)
        self.http = httpx.AsyncClient(base_url=base, limits=limits, timeout=REQUEST_TIMEOUT_S)
        self.csrf: dict[str, str] = {}

    async def open_account(self, account: str) -> None:
        """Read ``/v1/session`` as ``account``; keep its CSRF token."""
        response = await self.http.get("/v1/session", headers={"X-Load-Actor": account})
        response.raise_for_status()
        session = response.json()
        if session["actor"]["account"] != account:
            raise RuntimeError(f"the server acts for {session['actor']} instead of {account}")
        self.csrf[account] = session["csrf_token"]

    async def turn(self, account: str, body: dict[str, Any], key: str) -> Answer:
        """POST the turn; return the status and JSON body."""
        headers = {
            "X-Load-Actor": account,
            "Idempotency-Key": key,
            "Accept": "application/json",
            "X-CSRF-Token": self.csrf.get(account, ""),
        }
        response = await self.http.post(
            f"/v1/conversations/{CONVERSATION}/turns", json=body, headers=headers
        )
        try:
            payload = response.json()
        except ValueError:
            payload = {"text": response.text[:200]}
        return Answer(response.status_code, payload)

    async def aclose(self) -> None:
        """Close the connections."""
        await self.http.aclose()


def server_env() -> dict[str, str]:
    """This environment, with ``benchmarks/`` and the imported ``turnframe`` first on the path.

    So a subprocess runs the same code as this script, and finds ``load_auth``.
    """
    env = dict(os.environ)
    src = str(Path(turnframe.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE), src, env.get("PYTHONPATH", "")) if p)
    return env


def free_port() -> int:
    """Return a TCP port free on 127.0.0.1 now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerFailed(RuntimeError):
    """``turnframe serve`` exited or did not answer ``/healthz`` in time."""


class Server:
    """``turnframe serve`` as a subprocess on 127.0.0.1 (stopped by its own pid)."""

    def __init__(self, store_args: list[str], workers: int) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile(
            "w+", prefix="load_http_serve_", suffix=".log", delete=False
        )
        command = [
            sys.executable,
            "-m",
            "turnframe.cli",
            "serve",
            "--app",
            "travel",
            *store_args,
            "--model",
            "scripted:example",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--auth",
            "load_auth:authenticator",
            "--no-seed",
        ]
        if workers > 1:
            command += ["--workers", str(workers)]
        self.command = command
        env = server_env()
        self.proc = subprocess.Popen(
            command,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )

    async def wait_ready(self) -> None:
        """Poll ``/healthz`` until it answers 200.

        Raises:
            ServerFailed: the server exited, or was not up within ``START_TIMEOUT_S``
                (its log's tail in the message).
        """
        deadline = time.monotonic() + START_TIMEOUT_S
        async with httpx.AsyncClient(base_url=self.base, timeout=2.0) as http:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise ServerFailed(
                        f"turnframe serve exited {self.proc.returncode}: {self.tail()}"
                    )
                try:
                    if (await http.get("/healthz")).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                await anyio.sleep(0.1)
        raise ServerFailed(f"turnframe serve was not up in {START_TIMEOUT_S:.0f}s: {self.tail()}")

    def tail(self) -> str:
        """The last lines of the server's log, with the command and the log's path."""
        self.log.flush()
        text = Path(self.log.name).read_text(errors="replace")
        lines = "\n".join(text.splitlines()[-15:])
        return f"{' '.join(self.command)}\n(log {self.log.name})\n{lines}"

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 20 s) and remove its log."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.log.close()
        os.unlink(self.log.name)


# stores --------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class StoreKind:
    """How to open a fresh database of one kind, and the CLI arguments that name it."""

    name: str
    open: Callable[[], Awaitable[TurnStore]]
    cli_args: list[str]
    dispose: Callable[[], Awaitable[None]]


def sqlite_kind(directory: Path, label: str) -> StoreKind:
    """A fresh SQLite file under ``directory``."""
    path = directory / f"{label}.db"

    async def open_store() -> TurnStore:
        from turnframe.store.sqlite import SqliteStore

        return await SqliteStore.open(path)

    async def dispose() -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)

    return StoreKind("sqlite", open_store, ["--store", "sqlite", "--db", str(path)], dispose)


def postgres_kind(dsn: str) -> StoreKind:
    """A fresh migrated schema on ``dsn`` (dropped by ``dispose``)."""
    from turnframe.testing.postgres import drop_schema, new_schema_name

    schema = new_schema_name("tf_loadhttp")
    migrated: list[bool] = []

    async def open_store() -> TurnStore:
        from turnframe.store.postgres import PostgresStore

        store = await PostgresStore.open(
            dsn, schema=schema, migrate_schema=not migrated, max_size=8
        )
        migrated.append(True)
        return store

    async def dispose() -> None:
        await drop_schema(dsn, schema)

    args = ["--store", "postgres", "--dsn", dsn, "--schema", schema]
    return StoreKind("postgres", open_store, args, dispose)


async def seed(store: TurnStore, clients: int, turns: int, warm_ups: int = 1) -> list[str]:
    """Seed the demo records into every account the run uses; return the accounts."""
    runtime = runtime_for(store)
    rounds = math.ceil(turns / len(MESSAGES))
    accounts = [account_name(warm_client(k), 0) for k in range(warm_ups)]
    accounts += [account_name(c, r) for c in range(clients) for r in range(rounds)]
    for account in accounts:

        def mint(workflow: str, key: str, account: str = account) -> CaseRef:
            return CaseRef(workflow, f"{account}-{key.lower()}")

        for _record, case, state in seed_all(DEMO_RECORDS, mint):
            await runtime.seed(account, case.workflow, state, case.case_id)
    return accounts


# the checks ----------------------------------------------------------------------------------
async def audit(store: TurnStore, accounts: Sequence[str], claimed: set[str]) -> dict[str, int]:
    """Count lost updates, duplicate effects and receipts without events from the store.

    See the module docstring ("Checks") for what each count is. Also counted, so a
    check that found nothing to look at shows: ``cards_committed``, the clicked cards
    whose clicks committed a change, and ``cards_drew``, those whose clicks drew a card.
    """
    lost = dup = unbacked = committed = drew = 0
    all_events: set[str] = set()
    for account in accounts:
        turn_events: dict[str, set[tuple[CaseRef, int]]] = {}
        key_commits: dict[str, set[tuple[CaseRef, int]]] = {}
        for row in await store.list_cases(account):
            events = await store.case_events(row.case)
            by_revision: dict[int, set[str]] = {}
            for event in events:
                all_events.add(event.id)
                by_revision.setdefault(event.revision, set()).add(event.idempotency_key)
                commit = (row.case, event.revision)
                turn_events.setdefault(event.turn_id, set()).add(commit)
                key_commits.setdefault(event.idempotency_key, set()).add(commit)
            if set(by_revision) != set(range(1, row.revision + 1)):
                lost += 1
            lost += sum(1 for keys in by_revision.values() if len(keys) > 1)
        dup += sum(1 for commits in key_commits.values() if len(commits) > 1)
        texts: dict[str, int] = {}
        clicks: dict[str, list[str]] = {}
        drawn: dict[str, tuple[str, ...]] = {}
        for turn_id, blocks in await store.conversation_replies(account, CONVERSATION):
            record = await store.get_turn(account, turn_id)
            turn_input: dict[str, Any] = dict(record.input) if record is not None else {}
            if turn_input.get("text"):
                texts[turn_input["text"]] = texts.get(turn_input["text"], 0) + 1
            response = turn_input.get("interaction_response")
            if isinstance(response, dict):
                clicks.setdefault(str(response["interaction_id"]), []).append(turn_id)
            drawn[turn_id] = tuple(b.interaction_id for b in blocks if b.kind == "interaction")
            cited = [i for b in blocks if b.kind == "receipt" for i in b.receipt.event_ids]
            if cited:
                found = {e.id for e in await store.events_by_id(cited)}
                unbacked += sum(1 for i in cited if i not in found)
        dup += sum(1 for n in texts.values() if n > 1)
        for clickers in clicks.values():
            commits = set().union(*(turn_events.get(t, set()) for t in clickers))
            cards = {c for t in clickers for c in drawn.get(t, ())}
            dup += (len(commits) > 1) + (len(cards) > 1)
            committed += bool(commits)
            drew += bool(cards)
    missing = claimed - all_events
    if missing:
        found = {e.id for e in await store.events_by_id(sorted(missing))}
        lost += len(missing - found)
    return {
        "lost": lost,
        "dup": dup,
        "unbacked": unbacked,
        "cards_committed": committed,
        "cards_drew": drew,
    }


# one row -------------------------------------------------------------------------------------
def percentile(values: Sequence[float], q: float) -> float:
    """Return the nearest-rank ``q`` percentile (0 < q ≤ 1) of ``values`` (0.0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def latency(tally: Tally) -> dict[str, float]:
    """p50/p99 over text and click turns together, and per kind, in ms."""
    every = tally.samples["text"] + tally.samples["click"]
    out = {"p50": statistics.median(every) if every else 0.0, "p99": percentile(every, 0.99)}
    for kind, values in tally.samples.items():
        out[f"{kind}_p50"] = statistics.median(values) if values else 0.0
        out[f"{kind}_p99"] = percentile(values, 0.99)
    return {k: round(v, 2) for k, v in out.items()}


def mine(clients: int, processes: int, index: int) -> list[int]:
    """Return the clients process ``index`` of ``processes`` runs (round robin)."""
    return [c for c in range(clients) if c % processes == index]


async def in_process_phase(
    kind: StoreKind, clients: int, turns: int, processes: int
) -> tuple[Tally, float]:
    """Seed a fresh store and run every client through ``Runtime.run_turn``.

    With ``processes`` > 1 (the PostgreSQL row: as many as the server has workers), the
    clients are split round robin over that many worker processes of this script
    (:func:`in_process_worker`), so the baseline has the server's parallelism; each
    warms up, then all start together.
    """
    store = await kind.open()
    try:
        accounts = await seed(store, clients, turns, warm_ups=processes)
    finally:
        await store.close()
    if processes == 1:
        store = await kind.open()
        try:
            transport = InProcess(store)
            tally = await warm_up([(warm_client(0), transport)])
            wall = await drive([(c, transport) for c in range(clients)], turns, tally)
        finally:
            await store.close()
    else:
        tally, wall = await anyio.to_thread.run_sync(
            in_process_workers, kind, clients, turns, processes
        )
    store = await kind.open()
    try:
        counts = await audit(store, accounts, tally.claimed)
    finally:
        await store.close()
    tally.errors += [
        f"in process: {k}={counts[k]}" for k in ("lost", "dup", "unbacked") if counts[k]
    ]
    tally.errors += [
        f"in process: {r} retries answered with another turn" for r in [tally.retry_mismatch] if r
    ]
    tally.check_cards(counts, "in process")
    return tally, wall


def in_process_workers(
    kind: StoreKind, clients: int, turns: int, processes: int
) -> tuple[Tally, float]:
    """Run the in-process clients in ``processes`` worker processes; merge their tallies."""
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--in-process-worker",
                str(i),
                "--workers",
                str(processes),
                "--clients",
                str(clients),
                "--turns",
                str(turns),
                "--store-args",
                json.dumps(kind.cli_args),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=server_env(),
        )
        for i in range(processes)
    ]
    try:
        for p in procs:
            assert p.stdout is not None
            line = p.stdout.readline().strip()
            if line != "READY":
                raise ServerFailed(f"an in-process worker failed to start: {line!r}")
        start = time.perf_counter()
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("GO\n")
            p.stdin.flush()
        tally = Tally()
        for p in procs:
            assert p.stdout is not None
            tally.merge(Tally.from_json(json.loads(p.stdout.readline())))
        wall = time.perf_counter() - start
    finally:
        for p in procs:
            if p.stdin is not None:
                p.stdin.close()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)
            if p.stdout is not None:
                p.stdout.close()
    return tally, wall


async def in_process_worker(index: int, processes: int, args: argparse.Namespace) -> None:
    """One in-process worker: warm up, print READY, wait for GO, run, print its tally."""
    store = await open_from_cli_args(json.loads(args.store_args))
    try:
        transport = InProcess(store)
        tally = await warm_up([(warm_client(index), transport)])
        print("READY", flush=True)
        await anyio.to_thread.run_sync(sys.stdin.readline)  # GO
        clients = [(c, transport) for c in mine(args.clients[0], processes, index)]
        await drive(clients, args.turns, tally)
        print(json.dumps(tally.to_json()), flush=True)
    finally:
        await store.close()


async def open_from_cli_args(cli_args: list[str]) -> TurnStore:
    """Open the store ``turnframe serve`` arguments name (``--store``, ``--db``/``--dsn --schema``)."""
    named = dict(zip(cli_args[::2], cli_args[1::2], strict=True))
    if named["--store"] == "postgres":
        from turnframe.store.postgres import PostgresStore

        return await PostgresStore.open(named["--dsn"], schema=named["--schema"], max_size=8)
    from turnframe.store.sqlite import SqliteStore

    return await SqliteStore.open(Path(named["--db"]))


async def http_phase(
    kind: StoreKind, clients: int, turns: int, workers: int
) -> tuple[Tally, float, dict[str, int]]:
    """Seed a fresh store, serve it, run every client over HTTP, then audit the store.

    One warm-up client per server worker first (each on its own connections, so the
    kernel spreads them over the workers as it spreads the clients).
    """
    store = await kind.open()
    try:
        accounts = await seed(store, clients, turns, warm_ups=workers)
    finally:
        await store.close()
    server = Server(kind.cli_args, workers)
    transports = [OverHttp(server.base) for _ in range(clients + workers)]
    try:
        await server.wait_ready()
        tally = await warm_up([(warm_client(k), transports[clients + k]) for k in range(workers)])
        wall = await drive(list(enumerate(transports[:clients])), turns, tally)
    finally:
        for transport in transports:
            await transport.aclose()
        server.stop()
    store = await kind.open()
    try:
        counts = await audit(store, accounts, tally.claimed)
    finally:
        await store.close()
    return tally, wall, counts


async def measure(
    kind_for: Callable[[str], StoreKind],
    label: str,
    args: argparse.Namespace,
    workers: int,
    clients: int,
) -> dict[str, Any]:
    """One row: ``--repeat`` rounds of the in-process baseline and the same turns over HTTP.

    Every phase runs on a fresh database. The order alternates (in process, HTTP, then
    HTTP, in process, ...) so a load that rises or falls on the machine during the run
    weighs on both sides alike; samples and counts are pooled over the rounds.
    """
    local, remote = Tally(), Tally()
    local_wall = wall = 0.0
    counts = {"lost": 0, "dup": 0, "unbacked": 0, "cards_committed": 0, "cards_drew": 0}
    for rep in range(args.repeat):
        for phase in ("in", "http") if rep % 2 == 0 else ("http", "in"):
            kind = kind_for(f"{phase}{rep}")
            try:
                if phase == "in":
                    tally, seconds = await in_process_phase(kind, clients, args.turns, workers)
                    local.merge(tally)
                    local_wall += seconds
                else:
                    tally, seconds, found = await http_phase(kind, clients, args.turns, workers)
                    remote.merge(tally)
                    wall += seconds
                    for key, value in found.items():
                        counts[key] += value
            finally:
                await kind.dispose()
    http_lat, local_lat = latency(remote), latency(local)
    counts["dup"] += remote.retry_mismatch
    remote.check_cards(counts, "over HTTP")
    return {
        "store": label,
        "workers": workers,
        "repeat": args.repeat,
        "clients": clients,
        "turns": remote.turns,
        "turns_per_s": round(remote.turns / wall, 1) if wall > 0 else 0.0,
        "http_ms": http_lat,
        "in_process_ms": local_lat,
        "added_p50_ms": round(http_lat["p50"] - local_lat["p50"], 2),
        "added_p99_ms": round(http_lat["p99"] - local_lat["p99"], 2),
        "lost_updates": counts["lost"],
        "duplicate_effects": counts["dup"],
        "receipts_without_events": counts["unbacked"],
        "cards_double_clicked": remote.cards_double_clicked,
        "replays": remote.replays,
        "busy_409": remote.busy,
        "errors": len(remote.errors),
        "first_errors": remote.errors[:3],
        "in_process": {
            "turns": local.turns,
            "turns_per_s": round(local.turns / local_wall, 1) if local_wall > 0 else 0.0,
            "errors": len(local.errors),
            "first_errors": local.errors[:3],
        },
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure every row ``--store`` asks for; a PostgreSQL row without a DSN is skipped."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="load_http_") as tmp:
        directory = Path(tmp)
        if args.store in ("sqlite", "both"):
            for n in args.clients:
                rows.append(
                    anyio.run(
                        measure, lambda label: sqlite_kind(directory, label), "sqlite", args, 1, n
                    )
                )
    if args.store in ("postgres", "both"):
        label = f"postgres×{args.workers}"
        if not args.dsn:
            message = (
                "PostgreSQL row skipped: set TURNFRAME_TEST_POSTGRES_DSN or pass --dsn "
                "(e.g. postgresql://postgres@127.0.0.1:5432/test)"
            )
            print(message, file=sys.stderr)
            rows.append({"store": label, "skipped": message})
        else:
            dsn = args.dsn
            for n in args.clients:
                rows.append(
                    anyio.run(
                        measure, lambda _label: postgres_kind(dsn), label, args, args.workers, n
                    )
                )
    return {
        "rows": rows,
        "config": {
            "clients": args.clients,
            "text_turns_per_client": args.turns,
            "messages": list(MESSAGES),
            "model": "scripted:example",
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
    }


# output --------------------------------------------------------------------------------------
COLUMNS = (
    ("store", 12),
    ("clients", 7),
    ("turns", 6),
    ("turns/s", 8),
    ("http p50", 9),
    ("http p99", 9),
    ("proc p50", 9),
    ("proc p99", 9),
    ("+http p50", 9),
    ("+http p99", 9),
    ("lost", 5),
    ("dup", 4),
    ("unbacked", 8),
)


def table(report: dict[str, Any]) -> str:
    """Return the report as a text table (latencies in ms)."""
    lines = ["  ".join(f"{name:>{width}}" for name, width in COLUMNS)]
    for row in report["rows"]:
        if "skipped" in row:
            lines.append(f"{row['store']:>12}  skipped: {row['skipped']}")
            continue
        values = (
            row["store"],
            row["clients"],
            row["turns"],
            row["turns_per_s"],
            row["http_ms"]["p50"],
            row["http_ms"]["p99"],
            row["in_process_ms"]["p50"],
            row["in_process_ms"]["p99"],
            row["added_p50_ms"],
            row["added_p99_ms"],
            row["lost_updates"],
            row["duplicate_effects"],
            row["receipts_without_events"],
        )
        lines.append("  ".join(f"{v!s:>{w}}" for v, (_n, w) in zip(values, COLUMNS, strict=True)))
    lines.append("")
    lines.append(
        "latencies in ms per text or click turn (client side); +http = HTTP minus in process "
        "(same turns, same store kind, this run)"
    )
    lines.append("by kind (ms)                   http p50/p99        in process p50/p99")
    for row in report["rows"]:
        if "skipped" in row:
            continue
        for kind in ("text", "click"):
            http, local = row["http_ms"], row["in_process_ms"]
            lines.append(
                f"  {row['store']:<12} {row['clients']:>3} clients  {kind:<5} "
                f"{http[kind + '_p50']:>8} / {http[kind + '_p99']:<8}  "
                f"{local[kind + '_p50']:>8} / {local[kind + '_p99']:<8}"
            )
    for row in report["rows"]:
        if "skipped" in row:
            continue
        lines.append(
            f"{row['store']}, {row['clients']} clients: "
            f"{row['cards_double_clicked']} cards double-clicked, "
            f"{row['replays']} retries replayed, {row['busy_409']} answered 409 turn_in_progress, "
            f"{row['errors']} unexpected answers; in process {row['in_process']['turns']} turns "
            f"at {row['in_process']['turns_per_s']} turns/s"
        )
        for error in row["first_errors"] + row["in_process"]["first_errors"]:
            lines.append(f"   ! {error}")
    return "\n".join(lines)


def failed(report: dict[str, Any]) -> bool:
    """Whether a row has a count that is not 0 or an unexpected answer."""
    return any(
        row["lost_updates"]
        or row["duplicate_effects"]
        or row["receipts_without_events"]
        or row["errors"]
        or row["in_process"]["errors"]
        for row in report["rows"]
        if "skipped" not in row
    )


def _bounded(limit: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"a whole number, not {text!r}") from None
        if not 1 <= value <= limit:
            raise argparse.ArgumentTypeError(f"between 1 and {limit}, not {value}")
        return value

    return parse


def _counts(limit: int) -> Callable[[str], list[int]]:
    one = _bounded(limit)

    def parse(text: str) -> list[int]:
        return [one(part.strip()) for part in text.split(",")]

    return parse


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--clients",
        type=_counts(MAX_CLIENTS),
        default=[1, 8],
        help="concurrent clients; a comma-separated list gives a row per count (default 1,8)",
    )
    parser.add_argument(
        "--turns", type=_bounded(MAX_TURNS), default=12, help="text turns per client"
    )
    parser.add_argument(
        "--workers", type=_bounded(16), default=3, help="uvicorn workers on PostgreSQL"
    )
    parser.add_argument("--store", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument(
        "--repeat",
        type=_bounded(10),
        default=2,
        help="rounds of (in process, HTTP), order alternating; samples pooled",
    )
    parser.add_argument(
        "--dsn",
        default=os.environ.get("TURNFRAME_TEST_POSTGRES_DSN")
        or os.environ.get("TURNFRAME_POSTGRES_DSN"),
    )
    parser.add_argument("--in-process-worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--store-args", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.in_process_worker is not None:
        anyio.run(in_process_worker, args.in_process_worker, args.workers, args)
        return 0
    try:
        report = run(args)
    except ServerFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(report) if args.json else table(report))
    return 1 if failed(report) else 0


if __name__ == "__main__":
    sys.exit(main())
