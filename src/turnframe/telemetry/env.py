"""Telemetry from the standard ``OTEL_*`` environment variables (docs/telemetry.md "From the environment").

Used by ``turnframe serve`` and ``turnframe chat``. With no ``OTEL_*`` variable set nothing
is imported and the no-op telemetry is returned; with some set and the ``otel`` extra
absent, one line on stderr says so and telemetry stays off (no crash).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from types import ModuleType

from turnframe.core.errors import UsageError
from turnframe.telemetry.base import NO_TELEMETRY, Telemetry

__all__ = ["MISSING_EXTRA", "check_environment", "quiet_telemetry", "telemetry_from_environment"]

MISSING_EXTRA = (
    "turnframe: OTEL_* variables are set but OpenTelemetry is not installed; telemetry is"
    " off (pip install 'turnframe[otel]')"
)
"""The one stderr line when ``OTEL_*`` is set and the extra is absent."""


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def _otel(warn: Callable[[str], None]) -> ModuleType | None:
    """Import :mod:`turnframe.telemetry.otel`, or say the extra is missing and return ``None``.

    Raises:
        UsageError: the SDK refused an ``OTEL_*`` value while being imported (it reads the
            span limits then, e.g. ``OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT=-1``).
    """
    try:
        from turnframe.telemetry import otel
    except ImportError:
        warn(MISSING_EXTRA)
        return None
    except ValueError as exc:
        raise UsageError(f"an OTEL_* variable is invalid: {' '.join(str(exc).split())}") from exc
    return otel


def telemetry_from_environment(
    environ: Mapping[str, str] | None = None, *, warn: Callable[[str], None] = _stderr
) -> Telemetry:
    """Return the telemetry the ``OTEL_*`` variables ask for, or :data:`NO_TELEMETRY`.

    Args:
        environ: the variables to decide by (default ``os.environ``; the SDK itself reads
            ``os.environ`` for the details: resource, exporters, endpoints).
        warn: called with :data:`MISSING_EXTRA` when the extra is absent.

    Raises:
        UsageError: ``OTEL_TRACES_EXPORTER`` / ``OTEL_METRICS_EXPORTER`` names an exporter
            no installed package provides, or the SDK refuses an ``OTEL_*`` value.
    """
    env = os.environ if environ is None else environ
    if not any(key.startswith("OTEL_") for key in env):
        return NO_TELEMETRY
    otel = _otel(warn)
    return NO_TELEMETRY if otel is None else otel.from_otel_environment()


def check_environment(
    environ: Mapping[str, str] | None = None, *, warn: Callable[[str], None] = _stderr
) -> None:
    """Say now what :func:`telemetry_from_environment` would say, building nothing.

    For a server whose workers each build their own telemetry: the missing extra is said
    once (here), and a bad exporter name stops the server before it starts.

    Raises:
        UsageError: an exporter name no installed package provides, or an ``OTEL_*``
            value the SDK refuses.
    """
    env = os.environ if environ is None else environ
    if not any(key.startswith("OTEL_") for key in env):
        return
    otel = _otel(warn)
    if otel is not None:
        otel.check_otel_environment()


def quiet_telemetry() -> Telemetry:
    """Return :func:`telemetry_from_environment` without the stderr line (said once already)."""
    return telemetry_from_environment(warn=lambda line: None)
