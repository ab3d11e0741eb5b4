"""The oracle reads every shipped set perfectly at every effort: the chain loses nothing a
model got right (docs/eval-sets.md "What the tests hold").

About 2 s per set and effort on the 2-core CI box (three sets, three efforts: ~18 s).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tf_eval_sets import EFFORTS, run, shipped_sets


@pytest.mark.parametrize("effort", EFFORTS)
@pytest.mark.parametrize("path", shipped_sets(), ids=lambda p: p.name)
def test_the_oracle_scores_f1_one_on_every_task(path: Path, effort: str) -> None:
    report = run(path, "oracle", effort)
    assert report.cases > 0
    assert report.failures == []
    assert report.imperfect == []
    assert report.perfect == report.cases
    assert report.unreachable == 0
    scores = {task: s.f1 for task, s in report.scores.items()}
    assert scores == dict.fromkeys(scores, 1.0), report.table()
    # Every task the set can score is scored on something (no task passes by being empty)
    # except questions, which the expenses sample has no topic for.
    unscored = {t for t, s in report.scores.items() if s.expected == 0}
    assert unscored <= {"questions"}, unscored
