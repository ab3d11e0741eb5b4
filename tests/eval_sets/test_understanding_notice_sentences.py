"""Each understanding notice the pipeline can give has its own sentence in every locale.

Found by the expenses set (case x19): "Pay the Madrid summit report", asked by an
employee, was read perfectly as a request that no operation on offer does, and the user
was told "Part of your message couldn't be read; please rephrase it." The class: any
notice code without a sentence of its own fell through to the unreadable one, which
asks the user to rephrase a message that was read (docs/invariants.md I2, I11).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tf_eval_sets import ROOT, run, spy_cases

from turnframe.runtime.copy import TABLES, understanding_notice

_APPEND = re.compile(r"notices\.append\(\s*\"([a-z_]+)\"\s*\)")


def _pipeline_codes() -> set[str]:
    """Return every notice code the understanding package appends (read from its source)."""
    codes: set[str] = set()
    for file in (ROOT / "src" / "turnframe" / "understand").rglob("*.py"):
        codes |= set(_APPEND.findall(file.read_text(encoding="utf-8")))
    return codes


def test_every_pipeline_notice_but_unreadable_has_its_own_sentence() -> None:
    codes = _pipeline_codes()
    assert {"unreadable", "unanswerable", "not_on_offer"} <= codes
    for locale in TABLES:
        unreadable = understanding_notice("unreadable", locale)
        for code in codes - {"unreadable"}:
            assert understanding_notice(code, locale) != unreadable, (code, locale)


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_:", min_size=1, max_size=30))
def test_an_unknown_code_gets_the_unreadable_sentence_never_an_error(code: str) -> None:
    known = {"unreadable_message", "unanswerable", "not_on_offer", "model_unreachable"}
    if code.partition(":")[0] in known:
        return
    for locale in TABLES:
        assert understanding_notice(code, locale) == understanding_notice("unreadable", locale)


def test_a_request_not_on_offer_is_told_so_not_asked_to_rephrase(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: the employee's "pay" gets the not_on_offer sentence (en and pt-PT)."""
    body = (ROOT / "eval" / "expenses" / "01_single_acts.yaml").read_text(encoding="utf-8")
    head = body[: body.index("cases:")]
    cases = (
        'cases:\n  - id: en\n    text: "Pay the Madrid summit report"\n'
        '    unoffered: [{unit: "Pay the Madrid summit report"}]\n'
        '  - id: pt\n    text: "Pague o relatório Madrid summit"\n    locale: pt-PT\n'
        '    unoffered: [{unit: "Pague o relatório Madrid summit"}]\n'
    )
    (tmp_path / "a.yaml").write_text(head + cases, encoding="utf-8")
    seen = spy_cases(monkeypatch)
    report = run(tmp_path, "oracle")
    assert report.perfect == 2, report.table()
    blocks = [
        (seen[k].locale, t) for k in ("en", "pt") for kind, t in seen[k].blocks if kind == "notice"
    ]
    assert blocks == [
        ("en", understanding_notice("not_on_offer", "en")),
        ("pt-PT", understanding_notice("not_on_offer", "pt-PT")),
    ]
    for locale, text in blocks:
        assert text != understanding_notice("unreadable", locale)
