"""Sample applications scenario files can name with ``sample:``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from turnframe.core.errors import UsageError
from turnframe.core.ids import CaseRef, JSONObject
from turnframe.core.workflow import Execution
from turnframe.runtime import Application

__all__ = ["ScenarioSample", "TravelScenarioSample", "sample_named"]


class ScenarioSample(Protocol):
    """What the scenario runner needs of a sample application."""

    name: str

    def application(self) -> Application:
        """Return a fresh application."""
        ...

    def seed_order(self, records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        """Return ``records`` completed and ordered so referenced records come first.

        Raises:
            ValueError: naming the key of an unknown or cyclic reference.
        """
        ...

    def seed_state(
        self, record: Mapping[str, Any], refs: Mapping[str, CaseRef]
    ) -> tuple[str, JSONObject]:
        """Return (workflow, JSON state) for one record.

        Raises:
            ValueError: naming a bad field.
        """
        ...

    def external(self, state: Any, status: str | None, timeout: bool) -> Execution[Any]:
        """Return the execution of an external callback or timeout on a case's typed state.

        Raises:
            ValueError: for a transition the case cannot take.
        """
        ...


class TravelScenarioSample:
    """The travel sample (``shared/spec/travel-sample.md``) for scenario files."""

    name = "travel"

    def application(self) -> Application:
        """Return the travel application."""
        from turnframe.samples.travel import travel_application

        return travel_application()

    def seed_order(self, records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        """Order records so references come first (see :func:`seed_order`)."""
        from turnframe.samples.travel import complete_records, seed_order

        return list(seed_order(complete_records(records)))

    def seed_state(
        self, record: Mapping[str, Any], refs: Mapping[str, CaseRef]
    ) -> tuple[str, JSONObject]:
        """Return (workflow, JSON state) for one travel record."""
        from turnframe.samples.travel import seed_state

        return seed_state(record, refs)

    def external(self, state: Any, status: str | None, timeout: bool) -> Execution[Any]:
        """Move a manifest to an external status, or to ``outcome_unknown`` on a timeout."""
        from turnframe.samples.travel import ManifestWorkflow

        return ManifestWorkflow().external_update(
            state, "outcome_unknown" if timeout else status or ""
        )


_SAMPLES: dict[str, ScenarioSample] = {"travel": TravelScenarioSample()}


def sample_named(name: str) -> ScenarioSample:
    """Return the sample called ``name``.

    Raises:
        UsageError: for an unknown sample.
    """
    try:
        return _SAMPLES[name]
    except KeyError:
        raise UsageError(f"unknown sample {name!r} (known: {', '.join(_SAMPLES)})") from None
