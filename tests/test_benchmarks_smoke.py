"""The turn-overhead benchmark runs and reports its figures (structure only, never timing)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "turn_overhead.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("turn_overhead", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_turn_overhead_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    code = bench.main(["--turns", "5", "--json"])
    out = capsys.readouterr().out
    report = json.loads(out)  # exactly one JSON object on stdout
    assert code == 0
    assert set(report["shapes"]) == {"one_act", "three_act", "click"}
    for figures in report["shapes"].values():
        for store in ("memory", "sqlite"):
            stats = figures[store]
            for key in ("median_ms", "p90_ms", "mean_ms"):
                assert isinstance(stats[key], int | float) and stats[key] > 0
            assert stats["n"] == 5
            # the store's work per turn: counted on both, statements and bytes on SQLite
            assert 1 <= stats["write_transactions"] <= 4
            if store == "sqlite":
                assert stats["statements"] > 0 and stats["bytes_written"] > 0
            else:
                assert stats["statements"] is None and stats["bytes_written"] is None
        assert isinstance(figures["sqlite_over_memory"], int | float)
    assert report["click_model_calls"] == 0
    targets = report["targets"]
    assert targets["three_act_sqlite_median_ms_max"] == 2.0
    assert targets["click_sqlite_median_ms_max"] == 1.5
    assert targets["write_transactions_per_turn_max"] == 4
    assert isinstance(targets["met"], bool)


def test_turn_overhead_table(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    assert bench.main(["--turns", "2", "--warmup", "0"]) == 0
    out = capsys.readouterr().out
    for word in ("one_act", "three_act", "click", "sqlite/memory", "model calls"):
        assert word in out
