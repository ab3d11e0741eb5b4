"""The explorer passes over every shipped workflow (docs/explorer.md "The shipped workflows").

Travel's trip, traveler and manifest (manifests are created by the travel desk, so its
states are reached from the demo's seeded records), the expenses sample's expense report,
the helpdesk example's ticket, and a fresh ``turnframe new`` app (another record name).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from turnframe.cli.scaffold import render_app, write_app
from turnframe.runtime.loading import load_application
from turnframe.samples.expenses import expenses_application
from turnframe.samples.travel import DEMO_RECORDS, travel_application
from turnframe.testing.explore import assert_explores, explore

ROOT = Path(__file__).resolve().parents[2]
HELPDESK = ROOT / "examples" / "helpdesk" / "src"


def test_travel_passes_and_every_manifest_status_is_reached() -> None:
    report = assert_explores(travel_application(), records=DEMO_RECORDS)
    by_name = {w.workflow: w for w in report.workflows}
    assert set(by_name) == {"trip", "traveler", "manifest"}
    assert set(by_name["manifest"].phases) == {
        "new", "draft", "validated", "submitting", "submitted", "received_by_intermediary",
        "received_by_airline", "accepted", "rejected", "issued", "outcome_unknown",
    }  # fmt: skip
    assert set(by_name["traveler"].phases) == {"new", "active", "deleted"}
    # completed is reached only by the trip's system trigger (time passing).
    assert set(by_name["trip"].phases) == {"new", "planning", "confirmed", "completed", "cancelled"}
    assert by_name["trip"].states == 2000 and by_name["trip"].cut


def test_without_seeds_the_manifest_notes_that_only_absent_was_explored() -> None:
    report = explore(travel_application(), "manifest", records=[])
    (manifest,) = report.workflows
    assert manifest.states == 1 and manifest.findings == ()
    assert "no operation creates this record" in manifest.notes[0]


def test_expenses_passes_and_reaches_every_phase() -> None:
    report = assert_explores(expenses_application())
    (expense,) = report.workflows
    assert expense.seeds >= 1  # its tour's records
    assert set(expense.phases) == {
        "new", "draft", "approved", "payment_pending", "payment_submitted",
        "payment_processing", "paid", "payment_failed", "outcome_unknown",
    }  # fmt: skip


def test_the_helpdesk_example_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HELPDESK))
    report = assert_explores(load_application("helpdesk.app:application"))
    (ticket,) = report.workflows
    assert set(ticket.phases) == {"new", "open", "closed"}
    assert ticket.states > 100


def test_a_new_app_from_the_template_passes_turnframe_explore(tmp_path: Path) -> None:
    write_app(render_app("shop", record="work_order"), tmp_path / "shop")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path / "shop" / "src"), str(ROOT / "src")]),
    }
    run = subprocess.run(
        [sys.executable, "-m", "turnframe.cli", "explore", "--app", "shop.app:application"],
        cwd=tmp_path / "shop",
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "work_order" in run.stdout and "no findings" in run.stdout
