"""Turn overhead: the framework's time per turn, with understanding scripted.

What is measured
    The wall time of ``Runtime.run_turn`` (``time.perf_counter_ns`` around each call) for
    three turn shapes of the travel sample, on the in-memory store and on SQLite (a file
    in a temporary directory):

    * ``one_act``: one low-risk act (``trip.add_extra`` with the company paying) on one trip.
    * ``three_act``: three low-risk acts on two trips (``trip.add_extra`` and
      ``trip.set_extra_payer`` on one, ``trip.rename`` on another), all committing.
    * ``click``: a click on a freshly created confirmation card. An untimed setup turn
      proposes ``trip.book_hotel`` (which needs confirmation), in a new conversation per
      setup+click pair; only the click turn is timed.

    Understanding is :class:`~turnframe.understand.ScriptedUnderstanding`: it makes no
    model call, so the whole ``run_turn`` is framework time. Nothing is subtracted: the
    scripted proposal's own cost (building an ``Understanding`` and minting the turn's
    handles, a few microseconds) is inside the figures.

How
    Each (shape, store) pair has its own fresh store and runtime (the default
    ``RandomIds``, a fixed clock). Records are seeded (untimed) from ``DEMO_RECORDS``
    (three trips, four travelers, a manifest) into a fresh account every few turns, so
    per-case and per-account state (extras, cases listed, turns per conversation) stays
    bounded instead of growing with the repetition count. Each pair gets a warm-up, then
    the pairs take turns in rounds of ``ROUND`` timed turns until each has ``--turns``, so
    a burst of load from elsewhere on the machine hits every pair alike. The report gives
    the median, p90 and mean in milliseconds and the SQLite/memory ratio of the medians.
    Every timed turn is checked (untimed) to have committed what it should. The
    understander is wrapped to count its calls: a click-only turn must make zero model
    calls (the run exits with status 1 otherwise). ``config.reference_loop_ms`` times a
    fixed pure-Python loop, to compare figures across machines.

    After the timed rounds, ``COUNT_TURNS`` more turns per pair run untimed while the
    store's work is counted (the same every turn of a shape): on SQLite the statements
    (transaction control left out), the write transactions (``BEGIN IMMEDIATE``) and the
    bytes written, i.e. the payload of written rows: the UTF-8 bytes of every text and 8
    per number bound to an ``INSERT``/``UPDATE``/``DELETE``
    (:class:`turnframe.store._sqlite_tally.StatementTally`); on memory, the write calls
    (each one transaction). The figures are per timed ``run_turn`` only (a click's setup
    turn is not counted).

Targets (from the issue): a three-act turn takes at most 2 ms median on SQLite, a
click-only turn at most 1.5 ms and makes zero model calls; no turn writes more than 4
transactions. Timing targets are reported, never asserted.

Usage: ``python benchmarks/turn_overhead.py [--json] [--turns N] [--warmup N]``
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import date
from pathlib import Path
from typing import Any

import anyio

from turnframe.core import Actor, CaseRef
from turnframe.core.acts import ProposedTarget, SemanticAct, Understanding
from turnframe.core.results import ResultStatus
from turnframe.core.turn import InteractionResponse, TurnInput
from turnframe.runtime import FixedClock, Runtime, TurnResult
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application
from turnframe.store import InMemoryStore, TurnStore
from turnframe.understand import Brief, ScriptedUnderstanding, UnderstandingResult

SHAPES = ("one_act", "three_act", "click")
WRITE_METHODS = (
    "begin_turn",
    "set_turn_phase",
    "create_interaction",
    "close_interaction",
    "commit",
    "save_reply",
    "save_replay",
    "put_conversation_state",
    "commit_plan",
    "finish_turn",
)
"""The store's write methods (each one write transaction) counted on the memory store."""
COUNT_TURNS = 5
"""Untimed turns per (shape, store) whose store work is counted (it is the same each turn)."""
STORES = ("memory", "sqlite")
TARGET_THREE_ACT_SQLITE_MS = 2.0
TARGET_CLICK_SQLITE_MS = 1.5
TARGET_WRITE_TRANSACTIONS = 4
"""At most this many write transactions per turn of every shape (docs/adr/0024-four-writes-per-turn.md)."""
TARGET_TELEMETRY_OVERHEAD_PCT = 5.0
"""The SDK present, no exporter: at most this much over the same run's plain three-act turn."""
TELEMETRY = ("idle", "sdk")
"""The telemetry variants the three-act SQLite turn runs with (:func:`_telemetry`)."""
TODAY = date(2026, 5, 1)
THREE_ACT_TEXT = "add a seat to Lisbon, E2 is paid by Ana, rename Porto"
"""The user's message of every ``three_act`` turn (``benchmarks/peers.py`` sends it too)."""
ROUND = 10
"""Turns each (shape, store) pair runs before the next pair takes its turn."""
TURNS_PER_ACCOUNT = 10
"""Timed turns per seeded account before the next one (bounds state growth: the May
Lisbon trip holds 2 to 12 extras in the text shapes)."""


class CountingUnderstander:
    """Wraps an understander; counts its calls and the model calls it reports."""

    def __init__(self, inner: ScriptedUnderstanding) -> None:
        self.inner = inner
        self.calls = 0
        self.model_calls = 0

    async def understand(self, brief: Brief) -> UnderstandingResult:
        self.calls += 1
        result = await self.inner.understand(brief)
        self.model_calls += result.model_calls
        return result


class Bench:
    """One store, one runtime; seeds accounts and drives the turns of one shape."""

    def __init__(self, shape: str, store: TurnStore, telemetry: Any = None) -> None:
        self.shape = shape
        self.store = store
        self.samples: list[int] = []
        self.script = ScriptedUnderstanding()
        self.understander = CountingUnderstander(self.script)
        self.runtime = Runtime(
            travel_application(),
            store,
            self.understander,
            clock=FixedClock(TODAY),
            telemetry=telemetry,
        )
        self.accounts = 0
        self.actor = Actor(account="", user="")
        self.refs: dict[str, CaseRef] = {}
        self.conversation = ""
        self.turns_left = 0
        self.hotels_left: list[str] = []
        self.step = 0
        self.click_model_calls = 0
        self.meter: Callable[[], AbstractContextManager[object]] = nullcontext
        self.counts: list[dict[str, int | None]] = []

    @contextmanager
    def counting(self) -> Iterator[None]:
        """Count the store's work for one turn into ``self.counts`` (untimed pass).

        SQLite: statements, write transactions and payload bytes of written rows, from
        :meth:`SqliteStore.tally`. Memory: write transactions only (each write call of
        the store is one; statements and bytes do not apply).
        """
        from turnframe.store.sqlite import SqliteStore

        if isinstance(self.store, SqliteStore):
            with self.store.tally() as tally:
                yield
            self.counts.append(
                {
                    "statements": tally.statements,
                    "write_transactions": tally.write_transactions,
                    "bytes_written": tally.bytes_written,
                }
            )
            return
        calls = [0]
        originals = {name: getattr(self.store, name) for name in WRITE_METHODS}

        def counted(fn: Callable[..., Any]) -> Callable[..., Any]:
            async def call(*args: Any, **kwargs: Any) -> Any:
                calls[0] += 1
                return await fn(*args, **kwargs)

            return call

        for name, fn in originals.items():
            setattr(self.store, name, counted(fn))
        try:
            yield
        finally:
            for name in originals:
                delattr(self.store, name)
        self.counts.append(
            {"statements": None, "write_transactions": calls[0], "bytes_written": None}
        )

    async def new_account(self) -> None:
        """Seed ``DEMO_RECORDS`` into a fresh account with a fresh conversation (untimed)."""
        self.accounts += 1
        n = self.accounts
        self.actor = Actor(account=f"acct-{n}", user=f"user-{n}")
        self.conversation = f"conv-{n}"
        self.refs = {}
        for key, case, state in seed_all(
            DEMO_RECORDS, lambda workflow, key: CaseRef(workflow, f"{key.lower()}-{n}")
        ):
            await self.runtime.seed(self.actor.account, case.workflow, state, case.case_id)
            self.refs[key] = case
        self.turns_left = TURNS_PER_ACCOUNT

    def handle(self, brief: Brief, key: str) -> str:
        return self.runtime.handle_for(brief.turn_id, self.refs[key])

    def act(self, brief: Brief, act_id: str, operation: str, key: str, **args: str) -> SemanticAct:
        return SemanticAct(
            id=act_id,
            operation=operation,
            target=ProposedTarget(handles=(self.handle(brief, key),)),
            args=args,
            evidence=dict(args),
        )

    async def run(self) -> int:
        """Run one turn of this bench's shape; return the nanoseconds of its ``run_turn``."""
        shapes = {"one_act": self.one_act, "three_act": self.three_act, "click": self.click}
        elapsed, _ = await shapes[self.shape]()
        return elapsed

    async def text_turn(self, text: str, build: Callable[[Brief], Understanding]) -> TurnResult:
        self.script.push(build)
        return await self.runtime.run_turn(self.actor, self.conversation, TurnInput(text=text))

    # the shapes: each returns (nanoseconds of the timed run_turn, the result) --------------
    async def one_act(self) -> tuple[int, TurnResult]:
        if self.turns_left <= 0:
            await self.new_account()
        self.turns_left -= 1

        def build(brief: Brief) -> Understanding:
            return Understanding(
                acts=(
                    self.act(brief, "a1", "trip.add_extra", "T1", kind="baggage", payer="company"),
                )
            )

        self.script.push(build)
        turn = TurnInput(text="add baggage to the May Lisbon trip, the company pays")
        with self.meter():
            start = time.perf_counter_ns()
            result = await self.runtime.run_turn(self.actor, self.conversation, turn)
            elapsed = time.perf_counter_ns() - start
        _expect_committed(result, ("a1",))
        return elapsed, result

    async def three_act(self) -> tuple[int, TurnResult]:
        if self.turns_left <= 0:
            await self.new_account()
        self.turns_left -= 1
        self.step += 1
        step = self.step

        def build(brief: Brief) -> Understanding:
            # E2 (baggage) alternates between the company and Ana, so each turn changes it.
            payer = "company" if step % 2 else self.handle(brief, "P1")
            return Understanding(
                acts=(
                    self.act(brief, "a1", "trip.add_extra", "T1", kind="seat", payer="company"),
                    self.act(brief, "a2", "trip.set_extra_payer", "T1", extra="E2", payer=payer),
                    self.act(brief, "a3", "trip.rename", "T3", name=f"Porto {step}"),
                )
            )

        self.script.push(build)
        turn = TurnInput(text=THREE_ACT_TEXT)
        with self.meter():
            start = time.perf_counter_ns()
            result = await self.runtime.run_turn(self.actor, self.conversation, turn)
            elapsed = time.perf_counter_ns() - start
        _expect_committed(result, ("a1", "a2", "a3"))
        return elapsed, result

    async def click(self) -> tuple[int, TurnResult]:
        # Each of the account's three trips gets one hotel: three setup+click pairs per
        # account, each pair in a new conversation.
        if not self.hotels_left:
            await self.new_account()
            self.hotels_left = ["T1", "T2", "T3"]
        trip = self.hotels_left.pop(0)
        self.step += 1
        self.conversation = f"conv-{self.accounts}-{self.step}"

        def build(brief: Brief) -> Understanding:
            return Understanding(
                acts=(self.act(brief, "a1", "trip.book_hotel", trip, hotel="Avenida", nights="3"),)
            )

        setup = await self.text_turn("book the Avenida for three nights", build)
        status = setup.results["a1"].status
        if status is not ResultStatus.AWAITING_CONFIRMATION or len(setup.interactions_created) != 1:
            raise RuntimeError(f"setup turn did not create a confirmation card: {setup.results}")
        card = setup.interactions_created[0]
        click = TurnInput(
            interaction_response=InteractionResponse(
                interaction_id=card.id,
                option_id="confirm",
                expected_revision=card.spec.bound_revision,
            )
        )
        calls_before = self.understander.calls
        with self.meter():
            start = time.perf_counter_ns()
            result = await self.runtime.run_turn(self.actor, self.conversation, click)
            elapsed = time.perf_counter_ns() - start
        self.click_model_calls += self.understander.calls - calls_before + result.model_calls
        if [e.operation for e in result.events] != ["trip.book_hotel"]:
            raise RuntimeError(f"the click did not commit the booking: {result.results}")
        return elapsed, result


def _expect_committed(result: TurnResult, act_ids: Sequence[str]) -> None:
    for act_id in act_ids:
        got = result.results.get(act_id)
        if got is None or got.status is not ResultStatus.COMMITTED:
            raise RuntimeError(f"act {act_id} did not commit: {got}")


async def _open_store(kind: str, workdir: Path, shape: str) -> TurnStore:
    if kind == "memory":
        return InMemoryStore()
    from turnframe.store.sqlite import SqliteStore

    return await SqliteStore.open(workdir / f"{shape}.db")


def _summary(samples_ns: Sequence[int]) -> dict[str, float]:
    ms = sorted(s / 1e6 for s in samples_ns)
    p90 = ms[min(len(ms) - 1, math.ceil(0.9 * len(ms)) - 1)]
    return {
        "median_ms": round(statistics.median(ms), 4),
        "p90_ms": round(p90, 4),
        "mean_ms": round(statistics.fmean(ms), 4),
        "n": len(ms),
    }


def _telemetry(variant: str) -> Any:
    """Return the telemetry of a ``TELEMETRY`` variant (``None`` without the ``otel`` extra).

    ``idle``: ``OpenTelemetry()`` on the API's global providers, with no SDK provider
    installed and no exporter (telemetry turned on in code, nothing configured).
    ``sdk``: SDK tracer and meter providers with no span processor, no metric reader and
    no exporter: every span and instrument is built by the SDK, then dropped.
    """
    try:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.trace import TracerProvider

        from turnframe.telemetry.otel import OpenTelemetry
    except ImportError:
        return None
    if variant == "idle":
        return OpenTelemetry()
    return OpenTelemetry(tracer_provider=TracerProvider(), meter_provider=MeterProvider())


async def _measure(turns: int, warmup: int, workdir: Path) -> dict[tuple[str, str], Bench]:
    """Time every (shape, store) pair, interleaved in rounds so load spikes hit all alike.

    The three-act SQLite turn also runs with each ``TELEMETRY`` variant (keys
    ``("three_act", "sqlite+<variant>")``), in the same rounds.
    """
    benches: dict[tuple[str, str], Bench] = {}
    try:
        for shape in SHAPES:
            for kind in STORES:
                benches[(shape, kind)] = Bench(shape, await _open_store(kind, workdir, shape))
        for variant in TELEMETRY:
            telemetry = _telemetry(variant)
            if telemetry is not None:
                store = await _open_store("sqlite", workdir, f"three_act_{variant}")
                benches[("three_act", f"sqlite+{variant}")] = Bench("three_act", store, telemetry)
        for bench in benches.values():
            for _ in range(warmup):
                await bench.run()
        gc.collect()
        done = 0
        while done < turns:
            chunk = min(ROUND, turns - done)
            for bench in benches.values():
                for _ in range(chunk):
                    bench.samples.append(await bench.run())
            done += chunk
        for bench in benches.values():
            bench.meter = bench.counting
            for _ in range(COUNT_TURNS):
                await bench.run()
        return benches
    finally:
        for bench in benches.values():
            await bench.store.close()


async def run_benchmark(turns: int, warmup: int) -> dict[str, Any]:
    """Run every shape on every store and return the report (the ``--json`` object)."""
    with tempfile.TemporaryDirectory(prefix="turnframe-bench-") as tmp:
        benches = await _measure(turns, warmup, Path(tmp))
    shapes: dict[str, dict[str, Any]] = {}
    for shape in SHAPES:
        figures: dict[str, Any] = {
            kind: {
                **_summary(benches[(shape, kind)].samples),
                **_per_turn(benches[(shape, kind)].counts),
            }
            for kind in STORES
        }
        memory, sqlite = figures["memory"]["median_ms"], figures["sqlite"]["median_ms"]
        figures["sqlite_over_memory"] = round(sqlite / memory, 2) if memory else None
        shapes[shape] = figures
    click_calls = sum(b.click_model_calls for b in benches.values())
    three = shapes["three_act"]["sqlite"]["median_ms"]
    click = shapes["click"]["sqlite"]["median_ms"]
    writes = max(
        shapes[shape][kind]["write_transactions"] or 0 for shape in SHAPES for kind in STORES
    )
    telemetry: dict[str, Any] = {}
    for variant in TELEMETRY:
        bench = benches.get(("three_act", f"sqlite+{variant}"))
        if bench is not None:
            figures = _summary(bench.samples)
            over = (figures["median_ms"] - three) / three * 100 if three else 0.0
            telemetry[variant] = {**figures, "overhead_pct": round(over, 2)}
    return {
        "shapes": shapes,
        "telemetry": telemetry,
        "click_model_calls": click_calls,
        "targets": {
            "three_act_sqlite_median_ms_max": TARGET_THREE_ACT_SQLITE_MS,
            "three_act_sqlite_median_ms": three,
            "click_sqlite_median_ms_max": TARGET_CLICK_SQLITE_MS,
            "click_sqlite_median_ms": click,
            "click_model_calls_max": 0,
            "write_transactions_per_turn_max": TARGET_WRITE_TRANSACTIONS,
            "write_transactions_per_turn": writes,
            "met": three <= TARGET_THREE_ACT_SQLITE_MS
            and click <= TARGET_CLICK_SQLITE_MS
            and click_calls == 0
            and writes <= TARGET_WRITE_TRANSACTIONS,
            "telemetry_overhead_pct_max": TARGET_TELEMETRY_OVERHEAD_PCT,
            "telemetry_overhead_pct": {v: f["overhead_pct"] for v, f in telemetry.items()},
        },
        "config": {
            "turns": turns,
            "warmup": warmup,
            "turns_per_account": TURNS_PER_ACCOUNT,
            "round": ROUND,
            "subtracted": "nothing (scripted understanding, zero model calls)",
            "reference_loop_ms": _reference_ms(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
    }


def _per_turn(counts: Sequence[dict[str, int | None]]) -> dict[str, float | None]:
    """Return the mean per turn of each counted figure (``None`` where it does not apply)."""
    out: dict[str, float | None] = {}
    for key in ("statements", "write_transactions", "bytes_written"):
        values = [c[key] for c in counts]
        known = [v for v in values if v is not None]
        out[key] = (
            round(statistics.fmean(known), 1) if known and len(known) == len(values) else None
        )
    return out


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
        f"Turnframe turn overhead: {config['turns']} timed turns per shape and store "
        f"(+{config['warmup']} warm-up), Python {config['python']}, "
        f"reference loop {config['reference_loop_ms']} ms",
        "Framework time per run_turn (scripted understanding, nothing subtracted), in ms;",
        "per turn: statements, write transactions, payload bytes of written rows",
        "",
        f"{'shape':<10} {'store':<7} {'median':>8} {'p90':>8} {'mean':>8} "
        f"{'stmts':>6} {'w.tx':>5} {'bytes':>7}",
    ]
    for shape, figures in report["shapes"].items():
        for kind in STORES:
            f = figures[kind]
            lines.append(
                f"{shape:<10} {kind:<7} {f['median_ms']:>8.3f} {f['p90_ms']:>8.3f} "
                f"{f['mean_ms']:>8.3f} {_n(f['statements']):>6} "
                f"{_n(f['write_transactions']):>5} {_n(f['bytes_written']):>7}"
            )
        lines.append(f"{'':<10} {'sqlite/memory (median)':<23} {figures['sqlite_over_memory']:>8}")
    targets = report["targets"]
    lines += [
        "",
        f"model calls in click-only turns: {report['click_model_calls']} (target 0)",
        f"three-act median on SQLite: {targets['three_act_sqlite_median_ms']:.3f} ms "
        f"(target <= {targets['three_act_sqlite_median_ms_max']} ms)",
        f"click median on SQLite: {targets['click_sqlite_median_ms']:.3f} ms "
        f"(target <= {targets['click_sqlite_median_ms_max']} ms)",
        f"write transactions per turn, at most: {targets['write_transactions_per_turn']:g} "
        f"(target <= {targets['write_transactions_per_turn_max']})",
        f"targets met: {'yes' if targets['met'] else 'NO'}",
    ]
    if report["telemetry"]:
        lines += ["", "three-act on SQLite with telemetry (same run), median over the plain turn:"]
        for variant, f in report["telemetry"].items():
            lines.append(
                f"  {variant:<5} {f['median_ms']:>8.3f} ms  p90 {f['p90_ms']:.3f}  "
                f"{f['overhead_pct']:+.1f}% (target <= {targets['telemetry_overhead_pct_max']:g}%)"
            )
    else:
        lines += ["", "telemetry rows: skipped (the otel extra is not installed)"]
    return "\n".join(lines)


def _n(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print a table (or one JSON object with ``--json``).

    Returns:
        0, or 1 when a click-only turn called the understander.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--turns", type=int, default=300, help="timed turns per shape and store (default 300)"
    )
    parser.add_argument(
        "--warmup", type=int, default=None, help="untimed warm-up turns (default turns/10, >= 2)"
    )
    args = parser.parse_args(argv)
    if args.turns < 1:
        parser.error("--turns must be at least 1")
    warmup = args.warmup if args.warmup is not None else max(2, args.turns // 10)
    report = anyio.run(run_benchmark, args.turns, warmup)
    print(json.dumps(report) if args.json else _table(report))
    return 0 if report["click_model_calls"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
