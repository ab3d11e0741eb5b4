"""Telemetry fixtures (helpers in ``telemetry_kit``)."""

from __future__ import annotations

import pytest
from telemetry_kit import Recorded, recording


@pytest.fixture
def recorded() -> Recorded:
    """An OpenTelemetry wired to the SDK's in-memory span exporter and metric reader."""
    return recording()
