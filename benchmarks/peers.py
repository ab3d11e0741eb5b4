"""Peers: the CPU time of a three-act turn on Turnframe, LangGraph and Pydantic AI.

What is measured
    The CPU time of one conversational turn that makes three low-risk changes to two
    records kept in SQLite (add a seat extra to the May Lisbon trip, set who pays its
    extra E2, rename the Porto trip), on three systems (five rows) in one process:

    * ``turnframe``: the ``three_act`` shape of ``benchmarks/turn_overhead.py`` (its
      ``Bench``, imported from that file) on :class:`~turnframe.store.sqlite.SqliteStore`,
      understanding scripted (no model call). The timed span is ``Runtime.run_turn``.
    * ``langgraph``: the closest conversational equivalent on LangGraph. A ``StateGraph``
      whose state is LangGraph's own ``MessagesState`` (its ``messages`` channel reduced
      by ``add_messages``: the conversation) plus what the nodes need: ``account`` (whose
      records), ``acts`` (the turn's three changes, as a scripted understanding hands
      them over) and ``done`` (this turn's updates in words, from the update nodes to the
      reply node; the turn's input resets it). The turn's input is the user's message as
      a ``HumanMessage`` (the text of Turnframe's three-act turn, ``THREE_ACT_TEXT``);
      three nodes in a row each do one of the three updates on a ``records`` table (one
      row per trip, its state as JSON, a revision counter); a fourth, ``reply``, appends
      the ``AIMessage`` that says what was done (``"Done: "`` and the three updates' own
      words, the text Pydantic AI's model answers with: deterministic, no model call, as
      Turnframe composes its reply from receipts). The graph is compiled with
      the SQLite checkpointer (``SqliteSaver``, default durability), one thread per
      conversation, so the thread's messages and state are checkpointed at every step of
      every turn. There is no model in this graph. The timed span is ``graph.invoke``,
      which loads the thread's last checkpoint itself.
    * ``langgraph_async``: the same graph with async nodes on ``AsyncSqliteSaver``
      (aiosqlite), timed around ``graph.ainvoke``: what an asyncio service, as
      Turnframe's runtime is, would use. Both pairings are reported, so the ratio to the
      cheaper one is there to read.
    * ``langgraph_bare``: the three update nodes alone on ``SqliteSaver``, with a state of
      ``account``, ``acts`` and a ``log`` of one line per update: nothing of the user's
      words or a reply is kept, so it is not a conversational turn. It is timed in the
      same rounds and reported as a lower bound for LangGraph, outside the target.
    * ``pydantic_ai``: an ``Agent`` on a ``FunctionModel`` (a local function, no network)
      that answers the user's message with three tool calls, one per update on the same
      ``records`` table, then with a text answer once the tools have returned. Pydantic AI
      keeps no state between runs, so the conversation's message history lives in a
      ``messages`` table of the same SQLite file: the timed span loads the history,
      runs the agent with it and appends the run's new messages in one transaction.

    The peers' row updates are what an application would write: each update reads the
    row, changes one field of its JSON state and writes it back with the revision bumped,
    in its own committed transaction. Every peer connection uses WAL journaling and
    ``synchronous=NORMAL``, as Turnframe's SQLite store does. Every system has its own
    database file in one temporary directory; LangGraph's checkpoints have a second file
    beside its records (with one shared file, an async checkpoint write holding the write
    lock stalls the nodes' inline writes).

    The timer is ``time.process_time_ns`` (CPU time of every thread of the process), not
    ``thread_time_ns``: LangGraph writes its checkpoints on a background thread during the
    run and Pydantic AI runs synchronous callables on worker threads, and that work is
    part of their turn; a per-thread clock would leave it out. CPU time rather than wall
    time because the machine is shared: a process waiting for a core is not charged. The
    wall time (``perf_counter_ns``) of the same span is reported beside it.

    Beside each system's CPU stands its kernel share: the part of its timed CPU that
    ``getrusage`` books as system time (system calls, thread wake-ups, page-cache writes),
    summed over every timed turn. A turn that is mostly interpreter work (Turnframe's) and
    one with a large kernel share (LangGraph's, with its checkpoint writes and background
    thread) do not speed up alike from one machine to the next, so the same code can give
    another ratio on another host; the column shows where each system's time goes.

How
    Each system gets a warm-up, then the systems take turns in rounds of ``ROUND`` timed
    turns until each has ``--turns``, so a burst of load from elsewhere hits all alike.
    State growth is bounded alike: every ``TURNS_PER_ACCOUNT`` turns each system starts a
    fresh account (Turnframe: the demo records; the peers: the same two trips, from the
    same seed) and a fresh conversation (a new LangGraph thread, a new message history).
    Every turn is checked untimed to have done its writes. For the peers, through a
    second SQLite connection (which sees only committed data): the three field changes
    on the two rows; for LangGraph, one more checkpoint of the thread and, in the
    thread's newest checkpoint and in the run's output, exactly the conversation's
    messages so far, two per turn in order (the ``HumanMessage`` of ``THREE_ACT_TEXT``,
    the ``AIMessage`` of the turn's reply derived from the seed; ``langgraph_bare``: three
    log lines per turn); for Pydantic AI, one more stored message batch and that same
    reply as the run's output. For Turnframe, the three committed results and the two
    cases as the store reads them back. A failed check ends the run (status 1). The
    report gives, per system, the median, p90 and mean CPU and wall milliseconds and
    the kernel share, the ratio of Turnframe's CPU median to each peer's (which count
    for the target, which do not and why), and a table of what each system guarantees
    per turn (yes / partial / no, with its basis).

Target (from the issue): Turnframe's CPU per turn at most 0.25x each conversational peer's
(``langgraph``, ``langgraph_async``, ``pydantic_ai``: ``TARGET_PEERS``), measured in the
same run. ``langgraph_bare``'s ratio is printed beside them, labelled outside the target
(no conversation: a lower bound, not an equivalent). Reported, never asserted.

Needs the ``bench`` extra: ``pip install -e ".[bench]"``.

Usage: ``python benchmarks/peers.py [--json] [--turns N] [--warmup N]``
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import importlib.util
import json
import operator
import platform
import resource
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any, Protocol, TypedDict

import anyio

from turnframe.core import CaseRef
from turnframe.samples.travel import DEMO_RECORDS, seed_all
from turnframe.store.sqlite import SqliteStore


def _load_turn_overhead() -> ModuleType:
    """Load ``benchmarks/turn_overhead.py`` by path (``benchmarks/`` is not a package)."""
    name = "_turnframe_benchmarks_turn_overhead"
    if name in sys.modules:
        return sys.modules[name]
    path = Path(__file__).resolve().with_name("turn_overhead.py")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


overhead = _load_turn_overhead()

SYSTEMS = ("turnframe", "langgraph", "langgraph_async", "langgraph_bare", "pydantic_ai")
PEERS = ("langgraph", "langgraph_async", "langgraph_bare", "pydantic_ai")
LANGGRAPH_ROWS = ("langgraph", "langgraph_async", "langgraph_bare")
TARGET_PEERS = ("langgraph", "langgraph_async", "pydantic_ai")
"""The peers whose ratio counts for the target: the conversational equivalents."""
OUTSIDE_TARGET = {"langgraph_bare": "no conversation: a lower bound, not an equivalent"}
"""The peers timed and reported but not counted for the target, and why."""
TARGET_RATIO = 0.25
THREE_ACT_TEXT: str = overhead.THREE_ACT_TEXT
"""The user's message of every three-act turn, Turnframe's and the peers' alike."""
ROUND: int = overhead.ROUND
TURNS_PER_ACCOUNT: int = overhead.TURNS_PER_ACCOUNT
EXTRA_PACKAGES = {
    "langgraph": "langgraph",
    "langgraph.checkpoint.sqlite": "langgraph-checkpoint-sqlite",
    "pydantic_ai": "pydantic-ai-slim",
}
"""Module to import -> the distribution of the ``bench`` extra that provides it."""
INSTALL_HINT = 'pip install -e ".[bench]"'

GUARANTEES: tuple[dict[str, str], ...] = (
    {
        "guarantee": "expected-revision check in the write",
        "turnframe": "yes",
        "langgraph": "no",
        "pydantic_ai": "no",
        "basis": "Turnframe's commit compares the revision in the UPDATE (I12); the peers "
        "write what the tool code writes, and SqliteSaver inserts a checkpoint without "
        "checking the thread's head",
    },
    {
        "guarantee": "idempotency key per command",
        "turnframe": "yes",
        "langgraph": "no",
        "pydantic_ai": "no",
        "basis": "Turnframe journals a derived key and replays the first outcome (I13); "
        "a repeated turn re-runs the peers' nodes and tools",
    },
    {
        "guarantee": "whole turn decided before any effect",
        "turnframe": "yes",
        "langgraph": "no",
        "pydantic_ai": "no",
        "basis": "Turnframe reduces every act before committing (I10); a node or a tool "
        "writes as soon as it runs",
    },
    {
        "guarantee": "commands to one record commit as one unit",
        "turnframe": "yes",
        "langgraph": "no",
        "pydantic_ai": "no",
        "basis": "Turnframe commits a case's batch in one transaction (I14); the peers "
        "commit each update on its own unless the application groups them",
    },
    {
        "guarantee": "recovery plan for an interrupted turn",
        "turnframe": "yes",
        "langgraph": "partial",
        "pydantic_ai": "no",
        "basis": "Turnframe stores the plan before committing and recovers from each "
        "phase; LangGraph resumes a thread from its last checkpoint but re-runs a node "
        "that wrote before its checkpoint; Pydantic AI keeps nothing of an unfinished "
        "run (durable execution needs an outside engine, not used here)",
    },
    {
        "guarantee": "confirmation cards bound to a revision",
        "turnframe": "yes",
        "langgraph": "no",
        "pydantic_ai": "no",
        "basis": "Turnframe refuses a click on a card whose record changed (I16); "
        "LangGraph's interrupt/resume and Pydantic AI's tool approval are not checked "
        "against the record",
    },
    {
        "guarantee": "receipts from committed events",
        "turnframe": "yes",
        "langgraph": "no",
        "pydantic_ai": "no",
        "basis": "Turnframe's receipts cite event ids of the commit (I15); the peers' "
        "reply is whatever the nodes or the model write",
    },
    {
        "guarantee": "claim guard on the reply",
        "turnframe": "yes",
        "langgraph": "no",
        "pydantic_ai": "no",
        "basis": "Turnframe drops any outcome claim no receipt backs (I15); neither peer "
        "checks reply text against what was written",
    },
    {
        "guarantee": "model sees opaque handles, holds no write tool",
        "turnframe": "yes",
        "langgraph": "no",
        "pydantic_ai": "no",
        "basis": "Turnframe briefs per-turn handles and sends no tools (I1); a Pydantic "
        "AI model calls the write tools itself; LangGraph leaves it to the graph's code",
    },
    {
        "guarantee": "replay record of the turn",
        "turnframe": "yes",
        "langgraph": "partial",
        "pydantic_ai": "partial",
        "basis": "Turnframe records each step and model call and replays the plan (I20); "
        "LangGraph keeps the state at every step (time travel), not the calls that led "
        "there; the stored Pydantic AI history holds model requests, responses and tool "
        "calls, with no replay to the same effects",
    },
    {
        "guarantee": "turn state persisted in SQLite, committed",
        "turnframe": "yes",
        "langgraph": "yes",
        "pydantic_ai": "partial",
        "basis": "Turnframe's store and LangGraph's checkpointer (the thread's messages "
        "with its state) commit per turn; "
        "Pydantic AI persists nothing itself (this benchmark's code stores the history)",
    },
)
"""What each system guarantees per turn, as configured here (yes / partial / no)."""


class BenchFailure(RuntimeError):
    """A turn did not do its writes (the benchmark's figures would not mean anything)."""


class System(Protocol):
    """One system under test: runs one timed turn at a time and checks it untimed."""

    name: str
    cpu_ns: list[int]
    wall_ns: list[int]
    kernel_ns: list[int]
    verified: int

    async def turn(self) -> None:
        """Run one turn, append its CPU, wall and kernel nanoseconds, check its writes."""

    async def close(self) -> None:
        """Release the system's connections."""


def missing_extra() -> list[str]:
    """Return the distributions of the ``bench`` extra that cannot be imported (``[]``: none)."""
    missing = []
    for module, dist in EXTRA_PACKAGES.items():
        try:
            found = importlib.util.find_spec(module) is not None
        except (ModuleNotFoundError, ValueError):  # a parent missing, or a stub in sys.modules
            found = False
        if not found:
            missing.append(dist)
    return missing


def _kernel_ns() -> int:
    """Return the process's system (kernel) CPU time so far, in nanoseconds (all threads)."""
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_stime * 1e9)


class _Clocks(Protocol):
    """Where a timed span's figures go: a :class:`System`'s three lists."""

    cpu_ns: list[int]
    wall_ns: list[int]
    kernel_ns: list[int]


def _timed_sync(fn: Callable[[], Any], into: _Clocks) -> Any:
    start_kernel = _kernel_ns()
    start_cpu, start_wall = time.process_time_ns(), time.perf_counter_ns()
    result = fn()
    into.cpu_ns.append(time.process_time_ns() - start_cpu)
    into.wall_ns.append(time.perf_counter_ns() - start_wall)
    into.kernel_ns.append(_kernel_ns() - start_kernel)
    return result


async def _timed(fn: Callable[[], Awaitable[Any]], into: _Clocks) -> Any:
    start_kernel = _kernel_ns()
    start_cpu, start_wall = time.process_time_ns(), time.perf_counter_ns()
    result = await fn()
    into.cpu_ns.append(time.process_time_ns() - start_cpu)
    into.wall_ns.append(time.perf_counter_ns() - start_wall)
    into.kernel_ns.append(_kernel_ns() - start_kernel)
    return result


# Turnframe ----------------------------------------------------------------------------------
class _CpuTimedRuntime:
    """Stands in for a ``Runtime``: times ``run_turn`` on every clock, delegates the rest."""

    def __init__(self, inner: Any, into: _Clocks) -> None:
        self._inner = inner
        self._into = into

    async def run_turn(self, *args: Any, **kwargs: Any) -> Any:
        return await _timed(lambda: self._inner.run_turn(*args, **kwargs), self._into)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class TurnframeSystem:
    """``turn_overhead.Bench`` in its ``three_act`` shape on SQLite, timed by CPU."""

    name = "turnframe"

    def __init__(self, bench: Any) -> None:
        self.bench = bench
        self.cpu_ns: list[int] = []
        self.wall_ns: list[int] = []
        self.kernel_ns: list[int] = []
        self.verified = 0
        bench.runtime = _CpuTimedRuntime(bench.runtime, self)

    @classmethod
    async def open(cls, workdir: Path) -> TurnframeSystem:
        store = await SqliteStore.open(workdir / "turnframe.db")
        return cls(overhead.Bench("three_act", store))

    async def turn(self) -> None:
        await self.bench.run()  # checks that the three acts committed
        step, store, refs = self.bench.step, self.bench.store, self.bench.refs
        lisbon, porto = await store.load_case(refs["T1"]), await store.load_case(refs["T3"])
        extras = lisbon.state["extras"] if lisbon else []
        payer = extras[1].get("payer") if len(extras) > 1 else None
        want_payer = "company" if step % 2 else str(refs["P1"])
        if (
            porto is None
            or porto.state["name"] != f"Porto {step}"
            or len(extras) != 2 + TURNS_PER_ACCOUNT - self.bench.turns_left
            or str(payer) != want_payer
        ):
            raise BenchFailure(f"turnframe turn {step}: the store does not hold its writes")
        self.verified += 1

    async def close(self) -> None:
        await self.bench.store.close()


# the peers' records -------------------------------------------------------------------------
def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=10, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


class Records:
    """The peers' application table: one row per trip, its state as JSON, a revision.

    The three updates are the three low-risk acts of Turnframe's three-act turn, written
    the way a tool or a graph node would: read the row, change one field, write it back
    with the revision bumped, commit.
    """

    SEED = {
        key: state
        for key, _case, state in seed_all(DEMO_RECORDS, lambda w, k: CaseRef(w, k.lower()))
        if key in ("T1", "T3")
    }

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = _connect(path)
        with self.conn:
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS records (account TEXT NOT NULL, "
                "record TEXT NOT NULL, state TEXT NOT NULL, revision INTEGER NOT NULL, "
                "PRIMARY KEY (account, record))"
            )

    def seed(self, account: str) -> None:
        """Insert the account's two trips (T1, T3) at revision 1, from the demo seed."""
        with self.conn:
            self.conn.executemany(
                "INSERT INTO records VALUES (?, ?, ?, 1)",
                [(account, key, json.dumps(state)) for key, state in self.SEED.items()],
            )

    def _update(self, account: str, record: str, change: Callable[[dict[str, Any]], str]) -> str:
        with self.conn:
            row = self.conn.execute(
                "SELECT state FROM records WHERE account = ? AND record = ?", (account, record)
            ).fetchone()
            if row is None:
                raise BenchFailure(f"no record {record} in account {account}")
            state = json.loads(row[0])
            said = change(state)
            self.conn.execute(
                "UPDATE records SET state = ?, revision = revision + 1 "
                "WHERE account = ? AND record = ?",
                (json.dumps(state), account, record),
            )
        return said

    def add_extra(self, account: str, trip: str, kind: str, payer: str) -> str:
        """Append an extra (next id ``E<n>``) to the trip; return what was done, in words."""

        def change(state: dict[str, Any]) -> str:
            extra_id = f"E{state['next_extra']}"
            state["next_extra"] += 1
            state["extras"].append(
                {"id": extra_id, "kind": kind, "details": None, "payer": payer, "nights": None}
            )
            return f"added {kind} {extra_id} to {trip}"

        return self._update(account, trip, change)

    def set_extra_payer(self, account: str, trip: str, extra: str, payer: str) -> str:
        """Set who pays the trip's extra; raises :class:`BenchFailure` if there is none."""

        def change(state: dict[str, Any]) -> str:
            for item in state["extras"]:
                if item["id"] == extra:
                    item["payer"] = payer
                    return f"{extra} of {trip} is paid by {payer}"
            raise BenchFailure(f"no extra {extra} on {trip}")

        return self._update(account, trip, change)

    def rename(self, account: str, trip: str, name: str) -> str:
        """Rename the trip; return what was done, in words."""

        def change(state: dict[str, Any]) -> str:
            state["name"] = name
            return f"renamed {trip} to {name}"

        return self._update(account, trip, change)

    def close(self) -> None:
        """Close the writing connection."""
        self.conn.close()


def _check_records(
    reader: sqlite3.Connection, system: str, account: str, turn_in_account: int, step: int
) -> None:
    """Check, on a second connection, the committed result of the account's turns so far."""
    rows = dict(
        reader.execute("SELECT record, state FROM records WHERE account = ?", (account,)).fetchall()
    )
    lisbon, porto = json.loads(rows["T1"]), json.loads(rows["T3"])
    extras = lisbon["extras"]
    if (
        porto["name"] != f"Porto {step}"
        or len(extras) != 2 + turn_in_account
        or extras[1]["payer"] != _payer(account, step)
    ):
        raise BenchFailure(f"{system} turn {step}: SQLite does not hold its three updates")


def _payer(account: str, step: int) -> str:
    # E2 alternates between the company and Ana, as in turn_overhead's three_act shape.
    return "company" if step % 2 else f"traveler/p1-{account}"


@dataclass
class _Conversation:
    """Where a peer is: the account, its conversation and the turn counters."""

    account: str = ""
    conversation: str = ""
    accounts: int = 0
    turn_in_account: int = 0
    step: int = 0

    def next_turn(self, records: Records) -> None:
        """Advance one turn; every ``TURNS_PER_ACCOUNT`` turns seed a fresh account."""
        if self.accounts == 0 or self.turn_in_account >= TURNS_PER_ACCOUNT:
            self.accounts += 1
            self.account = f"acct-{self.accounts}"
            self.conversation = f"conv-{self.accounts}"
            self.turn_in_account = 0
            records.seed(self.account)
        self.turn_in_account += 1
        self.step += 1

    def acts(self) -> dict[str, dict[str, str]]:
        """The turn's three acts, as a scripted understanding would hand them over."""
        return {
            "add_extra": {"trip": "T1", "kind": "seat", "payer": "company"},
            "set_extra_payer": {
                "trip": "T1",
                "extra": "E2",
                "payer": _payer(self.account, self.step),
            },
            "rename": {"trip": "T3", "name": f"Porto {self.step}"},
        }

    def reply(self) -> str:
        """The reply this turn must end with, derived from the seed: what its updates did.

        The words are :class:`Records`' own (a tool's or a node's return), joined as the
        peers' composed reply: ``"Done: <update>; <update>; <update>"``; the seat added is
        ``E<n>`` with ``n`` the seed's ``next_extra`` plus the account's earlier turns.
        """
        extra = Records.SEED["T1"]["next_extra"] + self.turn_in_account - 1
        return "Done: " + "; ".join(
            (
                f"added seat E{extra} to T1",
                f"E2 of T1 is paid by {_payer(self.account, self.step)}",
                f"renamed T3 to Porto {self.step}",
            )
        )


# LangGraph ----------------------------------------------------------------------------------
# The functional form keeps the annotations objects (this module's are strings, and
# LangGraph reads a state's types by evaluating them in the module, which a file loaded
# by path may no longer have in sys.modules).
_GraphState = TypedDict(  # noqa: UP013 (see above)
    "_GraphState",
    {
        "account": str,
        "acts": dict[str, dict[str, str]],
        "log": Annotated[list[str], operator.add],  # the thread's log: one line per update
    },
)
"""The state of ``langgraph_bare``: no conversation, a log of one line per update."""

GraphNode = Callable[[Any], dict[str, Any]]
"""A graph node: takes the state, returns its update of the state's channels."""


def _graph_nodes(records: Records) -> dict[str, GraphNode]:
    """``langgraph_bare``'s three nodes: one update each, logged in the thread's state."""

    def add_extra(state: _GraphState) -> dict[str, list[str]]:
        a = state["acts"]["add_extra"]
        return {"log": [records.add_extra(state["account"], a["trip"], a["kind"], a["payer"])]}

    def set_extra_payer(state: _GraphState) -> dict[str, list[str]]:
        a = state["acts"]["set_extra_payer"]
        return {
            "log": [records.set_extra_payer(state["account"], a["trip"], a["extra"], a["payer"])]
        }

    def rename(state: _GraphState) -> dict[str, list[str]]:
        a = state["acts"]["rename"]
        return {"log": [records.rename(state["account"], a["trip"], a["name"])]}

    return {"add_extra": add_extra, "set_extra_payer": set_extra_payer, "rename": rename}


def _chat_state() -> type:
    """The conversational graph's state: LangGraph's ``MessagesState`` and what nodes need.

    ``messages`` (from ``MessagesState``, reduced by ``add_messages``) is the thread's
    conversation: the user's ``HumanMessage`` and the reply's ``AIMessage`` of every
    turn, checkpointed with the thread. ``account`` and ``acts`` are the turn's input to
    the update nodes (whose records, which three changes), as in ``langgraph_bare``.
    ``done`` carries this turn's updates in words from the update nodes to the reply node
    (a plain channel: the turn's input resets it to ``[]``). Built on first use because
    ``langgraph`` is an extra; the annotations name builtins only, so LangGraph resolves
    them even when this file, loaded by path, is not in ``sys.modules``.
    """
    from langgraph.graph import MessagesState

    class ChatState(MessagesState):
        account: str
        acts: dict[str, dict[str, str]]
        done: list[str]

    return ChatState


def _chat_nodes(records: Records) -> dict[str, GraphNode]:
    """The conversational graph's nodes in order: the three updates, then the reply.

    Each update node does one update and adds its words to ``done``; ``reply`` appends
    one ``AIMessage`` saying what was done (``"Done: "`` and the three, as
    :meth:`_Conversation.reply` expects and Pydantic AI's model answers).
    """
    from langchain_core.messages import AIMessage

    def add_extra(state: Any) -> dict[str, list[str]]:
        a = state["acts"]["add_extra"]
        said = records.add_extra(state["account"], a["trip"], a["kind"], a["payer"])
        return {"done": [*state["done"], said]}

    def set_extra_payer(state: Any) -> dict[str, list[str]]:
        a = state["acts"]["set_extra_payer"]
        said = records.set_extra_payer(state["account"], a["trip"], a["extra"], a["payer"])
        return {"done": [*state["done"], said]}

    def rename(state: Any) -> dict[str, list[str]]:
        a = state["acts"]["rename"]
        return {"done": [*state["done"], records.rename(state["account"], a["trip"], a["name"])]}

    def reply(state: Any) -> dict[str, list[Any]]:
        return {"messages": [AIMessage("Done: " + "; ".join(state["done"]))]}

    return {
        "add_extra": add_extra,
        "set_extra_payer": set_extra_payer,
        "rename": rename,
        "reply": reply,
    }


def _as_async(node: GraphNode) -> Callable[[Any], Awaitable[dict[str, Any]]]:
    # An async graph runs a plain function node on a worker thread; an async node runs on
    # the event loop, as an async application would write it (and as Turnframe's store
    # calls run).
    async def run(state: Any) -> dict[str, Any]:
        return node(state)

    return run


class LangGraphSystem:
    """Nodes in a row over :class:`Records`, one checkpointed thread per conversation.

    ``langgraph``: the conversational graph (:func:`_chat_state`, :func:`_chat_nodes`) on
    ``SqliteSaver`` and ``graph.invoke`` (no event loop, nodes on the calling thread).
    ``langgraph_async``: the same graph with async nodes on ``AsyncSqliteSaver``
    (aiosqlite) and ``graph.ainvoke``, the pairing an asyncio service such as Turnframe's
    runtime would use. ``langgraph_bare``: the three update nodes alone with a log and no
    conversation (:data:`_GraphState`) on ``SqliteSaver``: a lower bound, outside the
    target.
    """

    def __init__(self, name: str, records: Records, graph: Any, reader: sqlite3.Connection) -> None:
        from langgraph.checkpoint.sqlite import SqliteSaver

        self.name = name
        self.records = records
        self.graph = graph
        self.reader = reader
        self.records_reader = sqlite3.connect(records.path)
        self.check_saver = SqliteSaver(reader)  # reads checkpoints on the second connection
        self.asynchronous = name.endswith("_async")
        self.conversational = name != "langgraph_bare"
        self.where = _Conversation()
        self.thread: list[tuple[str, str]] = []  # the conversation's expected messages
        self.cpu_ns: list[int] = []
        self.wall_ns: list[int] = []
        self.kernel_ns: list[int] = []
        self.verified = 0
        self.closers: list[Callable[[], Awaitable[Any]]] = []

    @classmethod
    async def open(cls, workdir: Path, name: str) -> LangGraphSystem:
        """Create the records table, the checkpointer and the compiled graph of ``name``.

        Raises:
            ValueError: ``name`` is not one of :data:`LANGGRAPH_ROWS`.
        """
        from langgraph.graph import END, START, StateGraph

        if name not in LANGGRAPH_ROWS:
            raise ValueError(f"no LangGraph row {name!r}; known: {', '.join(LANGGRAPH_ROWS)}")
        asynchronous = name.endswith("_async")
        # The checkpointer has a file of its own: an async checkpoint write holding the
        # write lock of a shared file would block the inline node writes (and vice versa).
        path = workdir / f"{name}-checkpoints.db"
        records = Records(workdir / f"{name}.db")
        if name == "langgraph_bare":
            schema: type = _GraphState
            nodes: dict[str, Any] = dict(_graph_nodes(records))
        else:
            schema, nodes = _chat_state(), dict(_chat_nodes(records))
        closers: list[Callable[[], Awaitable[Any]]] = []
        saver: Any
        if asynchronous:
            import aiosqlite
            from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

            conn = await aiosqlite.connect(path, timeout=10)
            await conn.execute("PRAGMA journal_mode=WAL")
            await conn.execute("PRAGMA synchronous=NORMAL")
            saver = AsyncSqliteSaver(conn)
            await saver.setup()
            nodes = {key: _as_async(node) for key, node in nodes.items()}
            closers.append(conn.close)
        else:
            from langgraph.checkpoint.sqlite import SqliteSaver

            sync_conn = _connect(path)
            saver = SqliteSaver(sync_conn)
            saver.setup()

            async def close_sync() -> None:
                sync_conn.close()

            closers.append(close_sync)
        builder = StateGraph(schema)
        previous = START
        for key, node in nodes.items():  # the nodes in a row, in their order
            builder.add_node(key, node)
            builder.add_edge(previous, key)
            previous = key
        builder.add_edge(previous, END)
        system = cls(name, records, builder.compile(checkpointer=saver), sqlite3.connect(path))
        system.closers = closers
        return system

    def _checkpoints(self, thread: str) -> int:
        (count,) = self.reader.execute(
            "SELECT COUNT(*) FROM checkpoints WHERE thread_id = ?", (thread,)
        ).fetchone()
        return int(count)

    def _input(self, where: _Conversation) -> dict[str, Any]:
        """The turn's input: the user's message (conversational rows), account and acts."""
        if not self.conversational:
            return {"account": where.account, "acts": where.acts(), "log": []}
        from langchain_core.messages import HumanMessage

        return {
            "messages": [HumanMessage(THREE_ACT_TEXT)],
            "account": where.account,
            "acts": where.acts(),
            "done": [],
        }

    def _check_thread(self, where: _Conversation, out: Any, stored: Any) -> bool:
        """True when the turn's output and the thread's newest checkpoint hold its state.

        Conversational rows: exactly the conversation's messages so far, two per turn
        (``HumanMessage`` of :data:`THREE_ACT_TEXT`, ``AIMessage`` of the turn's
        :meth:`_Conversation.reply`), in order. ``langgraph_bare``: three log lines per turn.
        """
        values = stored.checkpoint["channel_values"] if stored else {}
        if not self.conversational:
            want = 3 * where.turn_in_account
            return len(out["log"]) == want and len(values.get("log", [])) == want
        if where.turn_in_account == 1:
            self.thread = []
        self.thread += [("HumanMessage", THREE_ACT_TEXT), ("AIMessage", where.reply())]

        def holds(messages: Any) -> bool:
            return (
                isinstance(messages, list)
                and [(type(m).__name__, m.content) for m in messages] == self.thread
            )

        return holds(out.get("messages")) and holds(values.get("messages"))

    async def turn(self) -> None:
        where = self.where
        where.next_turn(self.records)
        config = {"configurable": {"thread_id": where.conversation}}
        before = self._checkpoints(where.conversation)
        state = self._input(where)
        if self.asynchronous:
            out = await _timed(lambda: self.graph.ainvoke(state, config), self)
        else:
            out = _timed_sync(lambda: self.graph.invoke(state, config), self)
        _check_records(
            self.records_reader, self.name, where.account, where.turn_in_account, where.step
        )
        # The thread's newest committed checkpoint holds this turn's whole conversation.
        stored = self.check_saver.get_tuple(config)
        if not self._check_thread(where, out, stored) or (
            self._checkpoints(where.conversation) <= before
        ):
            raise BenchFailure(
                f"{self.name} turn {where.step}: the thread's checkpoint does not hold "
                + ("its messages" if self.conversational else "its log")
            )
        self.verified += 1

    async def close(self) -> None:
        self.reader.close()
        self.records_reader.close()
        for close in self.closers:
            await close()
        self.records.close()


# Pydantic AI --------------------------------------------------------------------------------
class PydanticAISystem:
    """An ``Agent`` on a ``FunctionModel`` with three tools over :class:`Records`."""

    name = "pydantic_ai"

    def __init__(self, workdir: Path) -> None:
        from pydantic_ai import Agent
        from pydantic_ai.messages import (
            ModelMessage,
            ModelMessagesTypeAdapter,
            ModelRequest,
            ModelResponse,
            TextPart,
            ToolCallPart,
            ToolReturnPart,
        )
        from pydantic_ai.models.function import AgentInfo, FunctionModel

        path = workdir / "pydantic_ai.db"
        self.records = Records(path)
        with self.records.conn:
            self.records.conn.execute(
                "CREATE TABLE IF NOT EXISTS messages (conversation TEXT NOT NULL, "
                "seq INTEGER NOT NULL, body BLOB NOT NULL, PRIMARY KEY (conversation, seq))"
            )
        self.reader = sqlite3.connect(path)
        self.where = _Conversation()
        self.cpu_ns: list[int] = []
        self.wall_ns: list[int] = []
        self.kernel_ns: list[int] = []
        self.verified = 0
        self.adapter = ModelMessagesTypeAdapter
        where = self.where

        async def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            last = messages[-1]
            if isinstance(last, ModelRequest) and any(
                isinstance(part, ToolReturnPart) for part in last.parts
            ):
                said = [p.content for p in last.parts if isinstance(p, ToolReturnPart)]
                return ModelResponse(parts=[TextPart("Done: " + "; ".join(map(str, said)))])
            return ModelResponse(
                parts=[
                    ToolCallPart(tool, args, tool_call_id=f"{tool}-{where.step}")
                    for tool, args in where.acts().items()
                ]
            )

        agent = Agent(FunctionModel(model))
        records = self.records

        # The tools close over the conversation's account (what a deployment would take
        # from its session); they are async so they run on the event loop, as Turnframe's
        # store calls do.
        @agent.tool_plain
        async def add_extra(trip: str, kind: str, payer: str) -> str:
            """Add an extra to a trip."""
            return records.add_extra(where.account, trip, kind, payer)

        @agent.tool_plain
        async def set_extra_payer(trip: str, extra: str, payer: str) -> str:
            """Set who pays an extra of a trip."""
            return records.set_extra_payer(where.account, trip, extra, payer)

        @agent.tool_plain
        async def rename(trip: str, name: str) -> str:
            """Rename a trip."""
            return records.rename(where.account, trip, name)

        self.agent = agent

    async def _run(self, text: str) -> Any:
        """One turn: load the history, run the agent with it, append its new messages."""
        conn, conversation = self.records.conn, self.where.conversation
        history: list[Any] = []
        rows = conn.execute(
            "SELECT body FROM messages WHERE conversation = ? ORDER BY seq", (conversation,)
        ).fetchall()
        for (body,) in rows:
            history.extend(self.adapter.validate_json(body))
        result = await self.agent.run(text, message_history=history)
        with conn:
            conn.execute(
                "INSERT INTO messages VALUES (?, ?, ?)",
                (conversation, len(rows), result.new_messages_json()),
            )
        return result

    async def turn(self) -> None:
        where = self.where
        where.next_turn(self.records)
        result = await _timed(lambda: self._run(THREE_ACT_TEXT), self)
        _check_records(self.reader, self.name, where.account, where.turn_in_account, where.step)
        (stored,) = self.reader.execute(
            "SELECT COUNT(*) FROM messages WHERE conversation = ?", (where.conversation,)
        ).fetchone()
        if stored != where.turn_in_account or result.output != where.reply():
            raise BenchFailure(f"pydantic_ai turn {where.step}: the history was not stored")
        self.verified += 1

    async def close(self) -> None:
        self.reader.close()
        self.records.close()


# the run ------------------------------------------------------------------------------------
async def _measure(turns: int, warmup: int, workdir: Path) -> dict[str, System]:
    """Time every system, interleaved in rounds so load spikes hit all alike."""
    systems: dict[str, System] = {}
    try:
        systems["turnframe"] = await TurnframeSystem.open(workdir)
        for name in LANGGRAPH_ROWS:
            systems[name] = await LangGraphSystem.open(workdir, name)
        systems["pydantic_ai"] = PydanticAISystem(workdir)
        for system in systems.values():
            for _ in range(warmup):
                await system.turn()
            system.cpu_ns.clear()
            system.wall_ns.clear()
            system.kernel_ns.clear()
        gc.collect()
        done = 0
        while done < turns:
            chunk = min(ROUND, turns - done)
            for system in systems.values():
                for _ in range(chunk):
                    await system.turn()
            done += chunk
        return systems
    finally:
        for system in systems.values():
            await system.close()


def _versions() -> dict[str, str]:
    names = ("turnframe", "langgraph", "langgraph-checkpoint-sqlite", "pydantic-ai-slim")
    found = {}
    for name in names:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


async def run_benchmark(turns: int, warmup: int) -> dict[str, Any]:
    """Run every row of ``SYSTEMS`` and return the report (the ``--json`` object).

    Raises:
        BenchFailure: a turn did not do its writes.
        ImportError: the ``bench`` extra is not installed.
    """
    with tempfile.TemporaryDirectory(prefix="turnframe-peers-") as tmp:
        systems = await _measure(turns, warmup, Path(tmp))
    figures: dict[str, Any] = {
        name: {
            "cpu": overhead._summary(system.cpu_ns),
            "wall": overhead._summary(system.wall_ns),
            "kernel_share": _kernel_share(system),
            "turns_verified": system.verified,
        }
        for name, system in systems.items()
    }
    ours = figures["turnframe"]["cpu"]["median_ms"]
    ratios = {
        f"turnframe_over_{peer}": round(ours / figures[peer]["cpu"]["median_ms"], 3)
        for peer in PEERS
    }
    return {
        "systems": figures,
        "ratios": ratios,
        "targets": {
            "turnframe_over_peer_max": TARGET_RATIO,
            "counted": list(TARGET_PEERS),
            "outside_target": dict(OUTSIDE_TARGET),
            "met": all(ratios[f"turnframe_over_{peer}"] <= TARGET_RATIO for peer in TARGET_PEERS),
        },
        "guarantees": [dict(row) for row in GUARANTEES],
        "config": {
            "turns": turns,
            "warmup": warmup,
            "round": ROUND,
            "turns_per_account": TURNS_PER_ACCOUNT,
            "timer": "time.process_time_ns (CPU of all threads), wall: time.perf_counter_ns,"
            " kernel share: resource.getrusage ru_stime over the same spans",
            "reference_loop_ms": overhead._reference_ms(),
            "versions": _versions(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
    }


def _kernel_share(system: _Clocks) -> float | None:
    """Return the share of ``system``'s timed CPU spent in the kernel (0 to 1; ``None``: no CPU).

    ``getrusage`` splits the process's CPU into user and system time from scheduler
    samples, so one turn's split is coarse while the sum over every timed turn is sound;
    its window is a little wider than the CPU clock's (it brackets it), so a share read
    over a few turns is clamped to 1.
    """
    cpu = sum(system.cpu_ns)
    if cpu <= 0:
        return None
    return round(min(1.0, max(0.0, sum(system.kernel_ns) / cpu)), 3)


def _table(report: dict[str, Any]) -> str:
    config = report["config"]
    versions = ", ".join(f"{k} {v}" for k, v in config["versions"].items())
    lines = [
        f"Three-act turn on SQLite: {config['turns']} timed turns per system "
        f"(+{config['warmup']} warm-up), interleaved in rounds of {config['round']}, "
        f"Python {config['python']}, reference loop {config['reference_loop_ms']} ms",
        versions,
        "CPU ms per turn (process_time, all threads); wall ms beside it; kernel: the share",
        "of the timed CPU spent in system calls and the scheduler (getrusage, over all turns)",
        "",
        f"{'system':<16} {'cpu med':>8} {'cpu p90':>8} {'cpu mean':>8} {'wall med':>9} "
        f"{'kernel':>7} {'verified':>8}",
    ]
    for name, f in report["systems"].items():
        cpu = f["cpu"]
        share = f["kernel_share"]
        kernel = "-" if share is None else f"{100 * share:.0f}%"
        lines.append(
            f"{name:<16} {cpu['median_ms']:>8.3f} {cpu['p90_ms']:>8.3f} {cpu['mean_ms']:>8.3f} "
            f"{f['wall']['median_ms']:>9.3f} {kernel:>7} {f['turns_verified']:>8}"
        )
    lines.append("")
    targets = report["targets"]
    for key, ratio in report["ratios"].items():
        peer = key.removeprefix("turnframe_over_")
        why = targets["outside_target"].get(peer)
        note = f"  (outside the target; {why})" if why else ""
        lines.append(f"{key.replace('_over_', ' / ')} (CPU median): {ratio:.3f}{note}")
    lines += [
        f"target: Turnframe <= {targets['turnframe_over_peer_max']}x each of "
        f"{', '.join(targets['counted'])}; met: {'yes' if targets['met'] else 'NO'}",
        "",
        "What each system guarantees per turn, as configured here "
        "(langgraph: both checkpointers alike; langgraph_bare: the same, with no conversation)",
        f"{'guarantee':<48} {'turnframe':<10} {'langgraph':<10} {'pydantic_ai':<11}",
    ]
    for row in report["guarantees"]:
        lines.append(
            f"{row['guarantee']:<48} {row['turnframe']:<10} {row['langgraph']:<10} "
            f"{row['pydantic_ai']:<11}"
        )
        lines.append(f"    {row['basis']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print a table (or one JSON object with ``--json``).

    Returns:
        0; 1 when a turn did not do its writes; 2 when the ``bench`` extra is missing.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--turns", type=int, default=300, help="timed turns per system (default 300)"
    )
    parser.add_argument(
        "--warmup", type=int, default=None, help="untimed warm-up turns (default turns/10, >= 2)"
    )
    args = parser.parse_args(argv)
    if args.turns < 1:
        parser.error("--turns must be at least 1")
    if args.warmup is not None and args.warmup < 0:
        parser.error("--warmup must not be negative")
    missing = missing_extra()
    if missing:
        print(
            f"peers benchmark needs {', '.join(missing)}: {INSTALL_HINT}",
            file=sys.stderr,
        )
        return 2
    warmup = args.warmup if args.warmup is not None else max(2, args.turns // 10)
    try:
        report = anyio.run(run_benchmark, args.turns, warmup)
    except BenchFailure as exc:
        print(f"peers benchmark: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(report) if args.json else _table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
