"""The oracle reads every shipped set perfectly at every effort: the chain loses nothing a
model got right (docs/eval-sets.md "What the tests hold").

Each run also checks that every case ran with its file's sample and its own locale, and
that a pt-PT case's reply holds no English sentence of the runtime. About 2 s per set and
effort on an idle 2-core box (three sets, three efforts: ~18 s).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tf_eval_sets import EFFORTS, run, shipped_sets, spy_cases

from turnframe.eval.dataset import load_set
from turnframe.runtime.copy import TABLES


def _english_sentences() -> list[str]:
    """Return the fixed openings of the runtime's English sentences that pt-PT never says."""
    portuguese = " ".join(TABLES["pt-PT"].values())
    out = []
    for sentence in TABLES["en"].values():
        opening = sentence.split("{")[0].strip()
        if len(opening) >= 12 and opening not in portuguese:
            out.append(opening)
    return out


def test_the_english_sentences_looked_for_are_many() -> None:
    assert len(_english_sentences()) > 20


@pytest.mark.parametrize("effort", EFFORTS)
@pytest.mark.parametrize("path", shipped_sets(), ids=lambda p: p.name)
def test_the_oracle_scores_f1_one_on_every_task(
    path: Path, effort: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = spy_cases(monkeypatch)
    report = run(path, "oracle", effort)
    assert report.cases > 0
    assert report.failures == []
    assert report.imperfect == []
    assert report.perfect == report.cases
    assert report.unreachable == 0
    scores = {task: s.f1 for task, s in report.scores.items()}
    assert scores == dict.fromkeys(scores, 1.0), report.table()
    # Every task is scored on something (none passes by being empty) except questions,
    # which the expenses sample has no topic for.
    unscored = {t for t, s in report.scores.items() if s.expected == 0}
    assert unscored <= {"questions"}, unscored

    declared = {c.id: (d.sample, d.locale_of(c)) for _, d in load_set(path) for c in d.cases}
    assert {k: (v.sample, v.locale) for k, v in seen.items()} == declared
    english = _english_sentences()
    for case, (_, locale) in declared.items():
        if locale == "pt-PT":
            assert seen[case].blocks, f"{case} was answered with nothing"
            for _, text in seen[case].blocks:
                assert not [e for e in english if e in text], (case, text)
