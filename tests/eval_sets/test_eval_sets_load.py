"""Every shipped evaluation set loads, names an application that serves its locales, and
the format refuses what it cannot run (docs/eval-sets.md "Writing a case", "Locale")."""

from __future__ import annotations

from pathlib import Path

import pytest
from tf_eval_sets import EVAL, NEW_SETS, shipped_sets

from turnframe.core.errors import UsageError
from turnframe.eval.dataset import load_set
from turnframe.eval.oracle import OracleReading
from turnframe.runtime.loading import load_application


def test_the_shipped_sets_are_found() -> None:
    names = {d.name for d in shipped_sets()}
    assert {"travel", *NEW_SETS} <= names


@pytest.mark.parametrize("path", shipped_sets(), ids=lambda p: p.name)
def test_every_shipped_set_loads_and_each_case_lays_out(path: Path) -> None:
    files = load_set(path)
    assert files
    for file, data in files:
        for case in data.cases:
            # The oracle finds every unit's words in the message (a typo is an error).
            reading = OracleReading(case)
            assert reading.units, f"{file.name}#{case.id} expects nothing"


@pytest.mark.parametrize("name", NEW_SETS)
def test_each_new_set_holds_enough_varied_cases(name: str) -> None:
    files = load_set(EVAL / name)
    cases = [c for _, data in files for c in data.cases]
    assert len(cases) >= 25
    # The same words may come back only in another context (who writes, what is on screen).
    seen = [
        (" ".join(c.text.casefold().split()), repr(c.before), repr(data.actor))
        for _, data in files
        for c in data.cases
    ]
    assert len(set(seen)) == len(seen), "two cases read the same message in the same context"
    tags = {t for c in cases for t in c.tags}
    for shape in ("multi_act", "homonyms", "card_answer", "constraint", "domain_refusal"):
        assert shape in tags, f"{name} covers no {shape} case"


@pytest.mark.parametrize("path", shipped_sets(), ids=lambda p: p.name)
def test_every_file_names_an_application_that_serves_its_locales(path: Path) -> None:
    for file, data in load_set(path):
        app = load_application(data.sample)
        for case in data.cases:
            locale = data.locale_of(case)
            assert locale in app.locales, f"{file.name}#{case.id}: {app.name} has no {locale}"


def _write(tmp_path: Path, body: str, name: str = "a.yaml") -> Path:
    (tmp_path / name).write_text(body, encoding="utf-8")
    return tmp_path


_HEAD = """sample: expenses
today: 2026-05-01
actor: {account: acme, user: u1, roles: [employee]}
"""
_CASE = """  - id: {id}
    text: "Open a report called Rome"
    acts: [{{unit: "Open a report called Rome", op: expense_report.create, target: new, args: {{title: Rome}}}}]
"""


def test_a_locale_defaults_to_english_and_a_case_may_name_its_own(tmp_path: Path) -> None:
    body = (
        _HEAD + "cases:\n" + _CASE.format(id="c1") + _CASE.format(id="c2") + "    locale: pt-PT\n"
    )
    [(_, data)] = load_set(_write(tmp_path, body))
    assert data.locale == "en"
    assert [data.locale_of(c) for c in data.cases] == ["en", "pt-PT"]


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (_HEAD + "locale: Portuguese!\ncases:\n" + _CASE.format(id="c1"), "locale"),
        (_HEAD + "cases:\n" + _CASE.format(id="c1") + "    locale: pt_PT\n", "locale"),
        (_HEAD + "cases:\n" + _CASE.format(id="c1") + "    unoffered: [{}]\n", "unit"),
        (_HEAD + "cases:\n" + _CASE.format(id="c1") + "    actor: {user: m1}\n", "actor"),
        ("cases: []\n", "sample"),
    ],
    ids=["file_locale", "case_locale", "unoffered_without_unit", "unknown_field", "no_sample"],
)
def test_a_file_that_breaks_the_format_is_a_usage_error_naming_it(
    tmp_path: Path, body: str, needle: str
) -> None:
    with pytest.raises(UsageError, match=needle) as info:
        load_set(_write(tmp_path, body))
    assert "a.yaml" in str(info.value)
    assert "\n" not in str(info.value), "a CLI error is one line"


def test_two_cases_of_one_set_never_share_an_id(tmp_path: Path) -> None:
    _write(tmp_path, _HEAD + "cases:\n" + _CASE.format(id="c1"), "a.yaml")
    _write(tmp_path, _HEAD + "cases:\n" + _CASE.format(id="c1"), "b.yaml")
    with pytest.raises(UsageError, match="'c1' is used twice"):
        load_set(tmp_path)


def test_unit_words_missing_from_the_message_are_refused(tmp_path: Path) -> None:
    body = _HEAD + "cases:\n" + _CASE.format(id="c1") + '    unoffered: [{unit: "Pay it"}]\n'
    [(_, data)] = load_set(_write(tmp_path, body))
    with pytest.raises(UsageError, match="'Pay it' are not in the message"):
        OracleReading(data.cases[0])
