"""A locale the application does not serve is refused before any turn runs, in an
evaluation set and in a scenario file alike (docs/eval-sets.md "Locale").

Found while writing the pt-PT set: an expenses file saying ``locale: fr`` ran, read its
amounts with French CLDR data ("14.50 euros" was no amount) and answered in English, with
nothing saying the locale was not served.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tf_eval_sets import EVAL, run

from turnframe.core.errors import UsageError
from turnframe.runtime.loading import load_application
from turnframe.testing.scenario.model import ScenarioModel
from turnframe.testing.scenario.runner import ScenarioFileError, run_scenario

_SERVED = set(load_application("expenses").locales)
_TAGS = st.from_regex(r"\A[a-z]{2,3}(-[A-Z]{2})?\Z").filter(lambda t: t not in _SERVED)


@settings(max_examples=10)
@given(tag=_TAGS, on_turn=st.booleans())
def test_a_scenario_in_an_unserved_locale_is_refused_naming_it(tag: str, on_turn: bool) -> None:
    turn: dict[str, object] = {"text": "Open a report called Rome"}
    if on_turn:
        turn["locale"] = tag
    scenario = ScenarioModel.model_validate(
        {
            "name": "x",
            "sample": "expenses",
            "today": "2026-05-01",
            "actor": {"account": "acme", "user": "u1", "roles": ["employee"]},
            **({} if on_turn else {"locale": tag}),
            "turns": [turn],
        }
    )
    with pytest.raises(ScenarioFileError, match=f"does not serve locale '{tag}'") as info:
        asyncio.run(run_scenario(scenario, "x.yaml"))
    assert info.value.where == ("turns[0].locale" if on_turn else "locale")


def test_an_eval_file_in_an_unserved_locale_is_a_usage_error(tmp_path: Path) -> None:
    body = (EVAL / "expenses" / "05_manager_review.yaml").read_text(encoding="utf-8")
    (tmp_path / "a.yaml").write_text(body.replace("cases:", "locale: fr\ncases:", 1), "utf-8")
    with pytest.raises(UsageError, match="does not serve locale 'fr'"):
        run(tmp_path, "oracle")


def test_the_served_locales_still_run() -> None:
    assert {"en", "pt-PT"} <= _SERVED
    report = run(EVAL / "expenses" / "05_manager_review.yaml", "oracle", "low")
    assert report.perfect == report.cases
