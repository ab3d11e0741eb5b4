"""Every set file runs with the application and the locale it declares, and the locale
decides how the message is read and in which language it is answered (docs/eval-sets.md
"Locale")."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from tf_eval_sets import EVAL, run, shipped_sets, spy_cases

from turnframe.eval.dataset import load_set
from turnframe.runtime.copy import TABLES


@pytest.mark.parametrize("path", shipped_sets(), ids=lambda p: p.name)
def test_every_case_runs_with_its_files_sample_and_its_locale(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = spy_cases(monkeypatch)
    run(path, "oracle")
    expected = {
        case.id: (data.sample, data.locale_of(case))
        for _, data in load_set(path)
        for case in data.cases
    }
    assert {k: (v.sample, v.locale) for k, v in seen.items()} == expected


def _english_sentences() -> list[str]:
    """Return the fixed openings of the runtime's English sentences that pt-PT never says."""
    portuguese = " ".join(TABLES["pt-PT"].values())
    out = []
    for sentence in TABLES["en"].values():
        opening = sentence.split("{")[0].strip()
        if len(opening) >= 12 and opening not in portuguese:
            out.append(opening)
    return out


def test_a_pt_pt_case_is_answered_with_no_english_runtime_sentence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = spy_cases(monkeypatch)
    declared: set[str] = set()
    for path in shipped_sets():
        run(path, "oracle", "low")
        declared |= {
            c.id for _, data in load_set(path) for c in data.cases if data.locale_of(c) == "pt-PT"
        }
    english = _english_sentences()
    assert len(english) > 20
    portuguese = {k: [text for _, text in seen[k].blocks] for k in declared}
    assert len(portuguese) >= 25
    assert any(portuguese.values()), "no pt-PT case was answered in words"
    for case, replies in portuguese.items():
        for reply in replies:
            assert not [e for e in english if e in reply], (case, reply)


def _as_english(path: Path, tmp_path: Path) -> Path:
    """Copy the set at ``path`` with every locale it declares removed (English)."""
    for file in sorted(path.glob("*.yaml")):
        raw = yaml.safe_load(file.read_text(encoding="utf-8"))
        raw.pop("locale", None)
        for case in raw["cases"]:
            case.pop("locale", None)
        (tmp_path / file.name).write_text(
            yaml.safe_dump(raw, allow_unicode=True, default_flow_style=False), encoding="utf-8"
        )
    return tmp_path


@pytest.mark.parametrize(
    ("name", "read_otherwise"),
    [
        # Day-first dates ("10/7": 7 October in English) and Portuguese month names.
        ("travel-pt", {"ps06", "ps07", "ps08", "ps09", "ps10", "pc11"}),
        # "1.250,50 €" is an amount only in pt-PT.
        ("expenses", {"x23"}),
    ],
)
def test_the_declared_locale_is_what_reads_the_message(
    name: str, read_otherwise: set[str], tmp_path: Path
) -> None:
    """The same cases read in English give other results: the locale reaches the runtime."""
    report = run(_as_english(EVAL / name, tmp_path), "oracle", "low")
    assert read_otherwise <= set(report.imperfect), report.imperfect
