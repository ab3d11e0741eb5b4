"""The locale a set declares decides how its messages are read (docs/eval-sets.md
"Locale"): the same messages read in English give other results.

That each case runs with its file's sample and its own locale, and that a pt-PT reply
holds no English runtime sentence, is checked on every oracle run
(``test_eval_sets_oracle.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from tf_eval_sets import EVAL, run

from turnframe.eval.dataset import load_set


def _copy(path: Path, out: Path, ids: set[str], *, english: bool) -> Path:
    """Copy the cases ``ids`` of the set at ``path`` to ``out``, in English if ``english``."""
    out.mkdir()
    for file in sorted(path.glob("*.yaml")):
        raw = yaml.safe_load(file.read_text(encoding="utf-8"))
        raw["cases"] = [c for c in raw["cases"] if c["id"] in ids]
        if not raw["cases"]:
            continue
        if english:
            raw.pop("locale", None)
            for case in raw["cases"]:
                case.pop("locale", None)
        (out / file.name).write_text(
            yaml.safe_dump(raw, allow_unicode=True, default_flow_style=False), encoding="utf-8"
        )
    return out


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
    assert read_otherwise <= {c.id for _, d in load_set(EVAL / name) for c in d.cases}
    as_declared = run(
        _copy(EVAL / name, tmp_path / "kept", read_otherwise, english=False), "oracle"
    )
    assert as_declared.cases == len(read_otherwise)
    assert as_declared.imperfect == []
    english = run(_copy(EVAL / name, tmp_path / "en", read_otherwise, english=True), "oracle")
    assert sorted(english.imperfect) == sorted(read_otherwise), english.imperfect
