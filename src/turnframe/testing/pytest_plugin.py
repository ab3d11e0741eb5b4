"""The pytest plugin (entry point ``turnframe``): scenario files as tests.

Adopters parametrize over their scenario files with :func:`scenario_files` and call the
``turnframe_scenario`` fixture::

    @pytest.mark.parametrize("path", scenario_files("scenarios"), ids=str)
    def test_scenario(path, turnframe_scenario):
        turnframe_scenario(path)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from turnframe.testing.scenario import discover, run_scenario_file

__all__ = ["scenario_files", "turnframe_scenario"]


def scenario_files(*paths: str | Path) -> list[Path]:
    """Return the scenario files under ``paths`` (for ``pytest.mark.parametrize``)."""
    existing = [p for p in paths if Path(p).exists()]
    return discover(existing) if existing else []


@pytest.fixture
def turnframe_scenario() -> Callable[..., None]:
    """Return a function that runs one scenario file and fails the test on any failure.

    The function takes the path and an optional ``store`` (``"memory"`` or ``"sqlite"``).
    """

    def run(path: str | Path, store: str = "memory") -> None:
        outcome = run_scenario_file(path, store=store)
        if not outcome.passed:
            pytest.fail("\n".join(f.line() for f in outcome.failures), pytrace=False)

    return run
