"""A hostile model (schema-valid answers at random) scores near zero on every shipped set:
the harness tells a reader that means nothing from one that reads (docs/eval-sets.md
"What the tests hold").

Run at low (seed 1) and medium (seed 0) to keep CI time modest; the thresholds were
measured over the three shipped sets at all three efforts (seeds 0-2):

* ``acts`` (operation, target, arguments, hypothetical and grounding all right) F1 <= 0.05:
  a random reader practically never gets a whole act right; measured 0.0 everywhere.
* every task with an expectation F1 <= 0.40: segment kinds are a multiset of five or six
  kinds, so a random draw lands near 0.3 (measured at most 0.35); the other tasks stay
  under 0.3 (constraints at most 0.28, results 0.16).
* the mean F1 of the tasks with an expectation <= 0.20 (measured at most 0.12).
* at most 10% of the cases read perfectly: a case that only answers a two-option card
  (confirm or decline) is a coin toss for a random reader (measured 0 to 2 of ~60).

A task nothing was expected of scores 1.0 for any reader and is left out.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tf_eval_sets import run, shipped_sets

ACTS_MAX = 0.05
TASK_MAX = 0.40
MEAN_MAX = 0.20
PERFECT_SHARE_MAX = 0.10


@pytest.mark.parametrize(("effort", "seed"), [("low", 1), ("medium", 0)])
@pytest.mark.parametrize("path", shipped_sets(), ids=lambda p: p.name)
def test_a_hostile_model_scores_near_zero(path: Path, effort: str, seed: int) -> None:
    report = run(path, f"hostile:{seed}", effort)
    scored = {t: s.f1 for t, s in report.scores.items() if s.expected}
    assert scored["acts"] <= ACTS_MAX, report.table()
    assert max(scored.values()) <= TASK_MAX, report.table()
    assert sum(scored.values()) / len(scored) <= MEAN_MAX, report.table()
    assert report.perfect <= PERFECT_SHARE_MAX * report.cases, report.imperfect
