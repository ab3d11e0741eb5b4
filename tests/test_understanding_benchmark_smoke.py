"""The understanding-cost benchmark runs and reports its figures (structure only)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "understanding_cost.py"


def test_understanding_cost_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("understanding_cost", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        code = module.main(["--json", "--latency", "0.005", "--cases", "2", "--turns", "6"])
    finally:
        del sys.modules[spec.name]
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(report["efforts"]) == {"low", "medium", "high"}
    assert report["conversation"]["ratio"] > 0
