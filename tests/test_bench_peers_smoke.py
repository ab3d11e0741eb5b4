"""The peers benchmark runs all four systems and reports its figures (shape, never timing)."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "peers.py"
SYSTEMS = {"turnframe", "langgraph", "langgraph_async", "langgraph_bare", "pydantic_ai"}
COUNTED = {"langgraph", "langgraph_async", "pydantic_ai"}
CONVERSATIONAL = ("langgraph", "langgraph_async")
VERDICTS = {"yes", "partial", "no"}
USER_TEXT = "add a seat to Lisbon, E2 is paid by Ana, rename Porto"  # turn_overhead's three_act


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_peers", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


@pytest.fixture
def bench() -> ModuleType:
    module = _load()
    missing = module.missing_extra()
    if missing:
        pytest.skip(
            f"the bench extra is not installed ({', '.join(missing)}); "
            f'enable with: pip install -e ".[bench]"'
        )
    return module


def test_peers_json_report(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    code = bench.main(["--turns", "3", "--warmup", "1", "--json"])
    report = json.loads(capsys.readouterr().out)  # exactly one JSON object on stdout
    assert code == 0
    assert set(report["systems"]) == SYSTEMS
    for figures in report["systems"].values():
        for clock in ("cpu", "wall"):
            stats = figures[clock]
            for key in ("median_ms", "p90_ms", "mean_ms"):
                assert isinstance(stats[key], int | float) and stats[key] > 0
            assert stats["n"] == 3
        # every turn, warm-up included, was checked to have committed its writes
        assert figures["turns_verified"] == 4
    assert set(report["ratios"]) == {f"turnframe_over_{peer}" for peer in SYSTEMS - {"turnframe"}}
    assert all(isinstance(r, int | float) and r > 0 for r in report["ratios"].values())
    targets = report["targets"]
    assert targets["turnframe_over_peer_max"] == 0.25
    assert set(targets["counted"]) == COUNTED
    assert targets["outside_target"] == {
        "langgraph_bare": "no conversation: a lower bound, not an equivalent"
    }
    ratios = report["ratios"]
    assert targets["met"] is all(ratios[f"turnframe_over_{p}"] <= 0.25 for p in COUNTED)
    assert report["guarantees"]
    for row in report["guarantees"]:
        assert {row["turnframe"], row["langgraph"], row["pydantic_ai"]} <= VERDICTS
        assert row["guarantee"] and row["basis"]
    assert report["config"]["timer"].startswith("time.process_time_ns")


def test_peers_table(bench: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--turns", "1", "--warmup", "0"]) == 0
    out = capsys.readouterr().out
    for word in (*SYSTEMS, "turnframe / langgraph", "guarantees", "expected-revision"):
        assert word in out
    (bare,) = [line for line in out.splitlines() if line.startswith("turnframe / langgraph_bare")]
    assert "outside the target; no conversation: a lower bound, not an equivalent" in bare
    (target,) = [line for line in out.splitlines() if line.startswith("target:")]
    assert "langgraph, langgraph_async, pydantic_ai;" in target and "bare" not in target


def _expected_thread(bench: ModuleType, account: int, turns: int) -> list[tuple[str, str]]:
    """The messages of account ``account``'s conversation after ``turns`` turns, from the seed."""
    first_extra = bench.Records.SEED["T1"]["next_extra"]
    per_account = bench.TURNS_PER_ACCOUNT
    thread = []
    for turn in range(1, turns + 1):
        step = (account - 1) * per_account + turn
        payer = "company" if step % 2 else f"traveler/p1-acct-{account}"
        reply = (
            f"Done: added seat E{first_extra + turn - 1} to T1; "
            f"E2 of T1 is paid by {payer}; renamed T3 to Porto {step}"
        )
        thread += [("HumanMessage", USER_TEXT), ("AIMessage", reply)]
    return thread


def test_langgraph_threads_hold_the_conversation(bench: ModuleType, tmp_path: Path) -> None:
    # Two accounts (a fresh thread each); every message of every thread, every reply text.
    import anyio
    from langgraph.checkpoint.sqlite import SqliteSaver

    turns = bench.TURNS_PER_ACCOUNT + 2
    systems = anyio.run(bench._measure, turns - 1, 1, tmp_path)
    assert all(system.verified == turns for system in systems.values())
    # every timed turn put one figure on each clock, the kernel's included
    for system in systems.values():
        assert len(system.cpu_ns) == len(system.wall_ns) == len(system.kernel_ns) == turns - 1
        assert all(k >= 0 for k in system.kernel_ns)
    for name in CONVERSATIONAL:
        with sqlite3.connect(tmp_path / f"{name}-checkpoints.db") as conn:
            saver = SqliteSaver(conn)
            for account, in_thread in ((1, bench.TURNS_PER_ACCOUNT), (2, 2)):
                config = {"configurable": {"thread_id": f"conv-{account}"}}
                stored = saver.get_tuple(config)
                assert stored is not None, (name, account)
                messages = stored.checkpoint["channel_values"]["messages"]
                got = [(type(m).__name__, m.content) for m in messages]
                assert got == _expected_thread(bench, account, in_thread), (name, account)
                # every turn's steps were checkpointed: input, three updates, the reply
                assert len(list(saver.list(config))) == in_thread * 6, (name, account)
    assert bench.THREE_ACT_TEXT == USER_TEXT


def _drop_reply(bench: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    chat_nodes = bench._chat_nodes

    def without_reply(records: object) -> dict[str, object]:
        nodes = dict(chat_nodes(records))
        del nodes["reply"]
        return nodes

    monkeypatch.setattr(bench, "_chat_nodes", without_reply)


def _drop_user_message(bench: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    make_input = bench.LangGraphSystem._input

    def without_message(self: object, where: object) -> dict[str, object]:
        state = make_input(self, where)
        del state["messages"]
        return state

    monkeypatch.setattr(bench.LangGraphSystem, "_input", without_message)


def _misstate_reply(bench: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    chat_nodes = bench._chat_nodes

    def wrong_reply(records: object) -> dict[str, object]:
        nodes = dict(chat_nodes(records))
        reply = nodes["reply"]
        nodes["reply"] = lambda state: reply({**state, "done": state["done"][:2]})
        return nodes

    monkeypatch.setattr(bench, "_chat_nodes", wrong_reply)


@pytest.mark.parametrize("sabotage", [_drop_reply, _drop_user_message, _misstate_reply])
def test_a_langgraph_turn_without_its_messages_fails_the_run(
    bench: ModuleType,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    sabotage: Callable[[ModuleType, pytest.MonkeyPatch], None],
) -> None:
    sabotage(bench, monkeypatch)
    assert bench.main(["--turns", "1", "--warmup", "0", "--json"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "langgraph turn 1: the thread's checkpoint does not hold its messages" in captured.err


def test_a_turn_that_skips_its_writes_fails_the_run(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A peer whose rename never reaches SQLite must stop the run, not yield figures.
    monkeypatch.setattr(bench.Records, "rename", lambda self, account, trip, name: "renamed")
    assert bench.main(["--turns", "1", "--warmup", "0", "--json"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "does not hold its three updates" in captured.err


def test_a_missing_extra_is_named_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = _load()
    monkeypatch.setitem(module.EXTRA_PACKAGES, "no_such_module_for_peers", "no-such-dist")
    assert module.main(["--turns", "1"]) == 2
    err = capsys.readouterr().err
    assert "no-such-dist" in err and 'pip install -e ".[bench]"' in err


def test_kernel_share_is_the_kernel_sum_over_the_cpu_sum(bench: ModuleType) -> None:
    class Figures:
        def __init__(self, cpu: list[int], kernel: list[int]) -> None:
            self.cpu_ns, self.kernel_ns = cpu, kernel

    assert bench._kernel_share(Figures([300, 100], [50, 50])) == 0.25
    assert bench._kernel_share(Figures([3, 0], [1, 0])) == 0.333
    assert bench._kernel_share(Figures([0, 0], [0, 0])) is None  # no CPU read: no share
    assert bench._kernel_share(Figures([100], [130])) == 1.0  # getrusage's wider window
