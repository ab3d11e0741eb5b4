"""A workflow's glossary hook that raises or answers garbage, and an application built with a
budget of the wrong type, are refused with the framework's typed errors
(docs/adr/0020-what-a-brief-shows.md), at registration, before any turn.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnframe.core.errors import RegistryError, UsageError
from turnframe.samples.travel import travel_application
from turnframe.samples.travel.trip import TripWorkflow


class _Boom(Exception):
    pass


def _raise(self: Any, locale: str) -> Any:
    raise _Boom("no glossary today")


def test_a_glossary_hook_that_raises_is_a_registry_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(TripWorkflow, "glossary", _raise, raising=False)
    with pytest.raises(RegistryError, match="glossary") as refused:
        travel_application()
    assert isinstance(refused.value.__cause__, _Boom)


_GARBAGE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(inner.filter(lambda v: v.__hash__ is not None), inner, max_size=3)
    ),
    max_leaves=6,
)


@given(answer=_GARBAGE)
def test_any_glossary_answer_is_a_glossary_or_a_registry_error(answer: Any) -> None:
    """Whatever a hook answers, registration accepts it as entries or raises RegistryError."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(TripWorkflow, "glossary", lambda self, locale: answer, raising=False)
        try:
            app = travel_application()
        except RegistryError:
            return
    assert all(isinstance(e.term, str) for e in app.registry.glossary("en"))


@pytest.mark.parametrize("field", ["briefing_budget", "brief_limits"])
@pytest.mark.parametrize("value", ["lots", 800, None])
def test_an_application_refuses_a_budget_of_the_wrong_type(field: str, value: object) -> None:
    with pytest.raises(UsageError, match=field):
        replace(travel_application(), **{field: value})
