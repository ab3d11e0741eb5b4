"""A small run of benchmarks/load_postgres.py: 4 worker processes, 8 clicks per card.

The full run (1,000 cards) is the benchmark; this one checks the invariants it reports
stay at zero. Skips without ``TURNFRAME_TEST_POSTGRES_DSN``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from turnframe.testing.postgres import TEST_DSN_VAR, postgres_dsn

ROOT = Path(__file__).resolve().parents[2]


def test_load_benchmark_small_run_has_no_lost_updates_duplicates_or_unbacked_receipts() -> None:
    dsn = postgres_dsn(required=False, test=True)
    if not dsn:
        pytest.skip(f"needs {TEST_DSN_VAR}")
    pytest.importorskip("psycopg")
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "load_postgres.py"),
            "--json",
            "--cards",
            "24",
            "--clicks",
            "8",
            "--workers",
            "4",
            "--concurrency",
            "4",
            "--dsn",
            dsn,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["lost_updates"] == 0
    assert result["duplicate_effects"] == 0
    assert result["receipts_without_events"] == 0
    assert result["clicks_committed"] == 24 and result["click_turns"] == 24 * 8
    assert result["cards_resolved"] == 24 and result["model_calls"] == 0
    assert result["turns_per_s"] > 0
