"""A batch's span and counters (docs/telemetry.md): counters always, the span only when on.

``observe_batch`` builds the ``turnframe.commit.batch`` span's attributes only for a
telemetry that is ``enabled`` (the span tree itself is ``tests/telemetry/``).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from types import SimpleNamespace
from typing import Any

import pytest

from turnframe.core import CaseRef
from turnframe.runtime.metrics import IDEMPOTENT_REPLAYS, InMemoryMetrics
from turnframe.runtime.observe import observe_batch
from turnframe.store.base import CommitRequest, CommitResult
from turnframe.telemetry import Telemetry

CASE = CaseRef("trip", "t1")


class Recording(Telemetry):
    """Records every span asked for; ``enabled`` as the test sets it."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.spans: list[tuple[str, dict[str, Any]]] = []

    def span(
        self, name: str, attributes: Mapping[str, Any] | None = None
    ) -> AbstractContextManager[Any]:
        self.spans.append((name, dict(attributes or {})))
        return nullcontext()


def _request() -> CommitRequest:
    return CommitRequest(
        account="acme",
        case=CASE,
        expected_revision=1,
        state={},
        events=(),
        idempotency_key="k",
        request_hash="h",
        turn_id="t",
        operations=("trip.rename",),
    )


@pytest.mark.parametrize("enabled", [True, False])
def test_a_replayed_batch_is_counted_and_spanned_only_when_telemetry_is_on(enabled: bool) -> None:
    """The replay counter moves either way; the span (and its attributes) only when on."""
    metrics, telemetry = InMemoryMetrics(), Recording(enabled)
    parts: Any = SimpleNamespace(metrics=metrics, telemetry=telemetry)
    done = CommitResult(case=CASE, revision=2, events=(), replayed=True)
    observe_batch(parts, _request(), done)
    assert metrics.total(IDEMPOTENT_REPLAYS) == 1
    expected = [
        (
            "commit.batch",
            {
                "turnframe.workflow": "trip",
                "turnframe.operations": ["trip.rename"],
                "turnframe.commit.outcome": "replayed",
            },
        )
    ]
    assert telemetry.spans == (expected if enabled else [])
