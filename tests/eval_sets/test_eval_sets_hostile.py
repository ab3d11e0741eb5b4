"""A hostile model (schema-valid answers at random) scores near zero on every shipped set:
the harness tells a reader that means nothing from one that reads (docs/eval-sets.md
"What the tests hold").

Run at low (seed 1) and medium (seed 0) to keep CI time modest; the thresholds were
measured over the three shipped sets at all three efforts (seeds 0-2):

* ``acts`` (operation, target, arguments, hypothetical and grounding all right) F1 <= 0.05:
  a random reader practically never gets a whole act right; measured 0.0 in all 27 runs.
* ``segment`` F1 <= 0.45: it scores the multiset of unit kinds, and kinds drawn at random
  from five or six agree by chance (measured 0.22 to 0.36).
* every other task with an expectation F1 <= 0.35 (measured at most 0.22: route,
  constraints or results).
* the mean F1 of the tasks with an expectation <= 0.20 (measured 0.04 to 0.11).
* at most 10% of the cases read perfectly: a case that only answers a two-option card
  (confirm or decline) is a coin toss for a random reader (measured 0 to 2 of 58-65).

A task nothing was expected of scores 1.0 for any reader and is left out.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tf_eval_sets import run, shipped_sets

ACTS_MAX = 0.05
SEGMENT_MAX = 0.45
TASK_MAX = 0.35
MEAN_MAX = 0.20
PERFECT_SHARE_MAX = 0.10


@pytest.mark.parametrize(("effort", "seed"), [("low", 1), ("medium", 0)])
@pytest.mark.parametrize("path", shipped_sets(), ids=lambda p: p.name)
def test_a_hostile_model_scores_near_zero(path: Path, effort: str, seed: int) -> None:
    report = run(path, f"hostile:{seed}", effort)
    scored = {t: s.f1 for t, s in report.scores.items() if s.expected}
    assert scored["acts"] <= ACTS_MAX, report.table()
    assert scored["segment"] <= SEGMENT_MAX, report.table()
    assert max(f1 for t, f1 in scored.items() if t != "segment") <= TASK_MAX, report.table()
    assert sum(scored.values()) / len(scored) <= MEAN_MAX, report.table()
    assert report.perfect <= PERFECT_SHARE_MAX * report.cases, report.imperfect
