"""The pytest plugin (entry point ``turnframe``): scenario files as tests, for any application.

Adopters parametrize over their scenario files with :func:`scenario_files` and call the
``turnframe_scenario`` fixture::

    @pytest.mark.parametrize("path", scenario_files("scenarios"), ids=str)
    def test_scenario(path, turnframe_scenario):
        turnframe_scenario(path)

Which application a file runs with (docs/scenario-format.md "Which application"): the
file's own ``sample: NAME`` when it has one; otherwise, in this order, the ``app``
argument of the call, the ``--turnframe-app SPEC`` command-line option, or the
``turnframe_app`` ini option (``pyproject.toml``: ``[tool.pytest.ini_options]
turnframe_app = "helpdesk"``). ``SPEC`` is read as ``--app`` is: ``module:attribute`` or
an installed ``turnframe.apps`` name.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from turnframe.runtime import Application
from turnframe.testing.scenario import ScenarioFileError, discover, run_scenario_file

__all__ = ["pytest_addoption", "scenario_files", "turnframe_scenario"]

_OPTION = "--turnframe-app"
_INI = "turnframe_app"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--turnframe-app SPEC`` and the ``turnframe_app`` ini option."""
    parser.addoption(
        _OPTION,
        default=None,
        metavar="SPEC",
        help="the application for scenario files without `sample:` (module:attribute or "
        "an installed turnframe.apps name)",
    )
    parser.addini(_INI, "the application for scenario files without `sample:`", default="")


def scenario_files(*paths: str | Path) -> list[Path]:
    """Return the scenario files under ``paths`` (for ``pytest.mark.parametrize``).

    A path that does not exist, and a directory with no scenario file, give none.
    """
    existing = [p for p in paths if Path(p).exists()]
    return discover(existing, allow_empty=True) if existing else []


@pytest.fixture
def turnframe_scenario(request: pytest.FixtureRequest) -> Callable[..., None]:
    """Return a function that runs one scenario file and fails the test on any failure.

    The function takes the path, an optional ``store`` (``"memory"``, ``"sqlite"`` or
    ``"postgres"``) and an optional ``app`` (a spec or an :class:`Application`; default:
    ``--turnframe-app``, then the ``turnframe_app`` ini option). An invalid file fails the
    test with its path and the YAML path of what is wrong.
    """
    configured = request.config.getoption(_OPTION) or request.config.getini(_INI) or None

    def run(path: str | Path, store: str = "memory", app: str | Application | None = None) -> None:
        try:
            outcome = run_scenario_file(path, store=store, app=app or configured)
        except ScenarioFileError as exc:
            pytest.fail(f"invalid scenario file: {exc}", pytrace=False)
        if not outcome.passed:
            pytest.fail("\n".join(f.line() for f in outcome.failures), pytrace=False)

    return run
