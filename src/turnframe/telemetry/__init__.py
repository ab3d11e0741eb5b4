"""Telemetry of turns: spans, model-call spans and metrics (docs/telemetry.md).

The default is :data:`NO_TELEMETRY`, which does nothing and never imports OpenTelemetry.
:class:`OpenTelemetry` (extra ``otel``) records on the official SDK; it is imported only
when asked for (``from turnframe.telemetry import OpenTelemetry``), so ``import
turnframe.runtime`` never loads ``opentelemetry``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from turnframe.telemetry.base import NO_TELEMETRY, ModelCall, Span, Telemetry, current
from turnframe.telemetry.env import (
    MISSING_EXTRA,
    check_environment,
    quiet_telemetry,
    telemetry_from_environment,
)

if TYPE_CHECKING:
    from turnframe.telemetry.otel import OpenTelemetry

__all__ = [
    "MISSING_EXTRA",
    "NO_TELEMETRY",
    "ModelCall",
    "OpenTelemetry",
    "Span",
    "Telemetry",
    "check_environment",
    "current",
    "quiet_telemetry",
    "telemetry_from_environment",
]


def __getattr__(name: str) -> Any:
    """Import :class:`OpenTelemetry` on first use (``ImportError`` without the extra)."""
    if name == "OpenTelemetry":
        from turnframe.telemetry.otel import OpenTelemetry

        return OpenTelemetry
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
