"""The peers benchmark runs all four systems and reports its figures (shape, never timing)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "peers.py"
SYSTEMS = {"turnframe", "langgraph", "langgraph_async", "pydantic_ai"}
VERDICTS = {"yes", "partial", "no"}


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
    assert report["targets"]["turnframe_over_peer_max"] == 0.25
    assert isinstance(report["targets"]["met"], bool)
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
