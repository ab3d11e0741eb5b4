"""The one-line pytest helper: ``assert_explores(app)`` (docs/explorer.md "In a test").

No pytest import: the helper raises a plain ``AssertionError``, which pytest reports with
its message (the findings, each with its shortest path).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from turnframe.runtime.app import Application
from turnframe.testing.explore.explorer import EXPLORE_TODAY, ExploreReport, explore
from turnframe.testing.explore.search import DEFAULT_DEPTH, DEFAULT_STATES

__all__ = ["assert_explores"]


def assert_explores(
    app: Application,
    workflow: str | None = None,
    *,
    depth: int = DEFAULT_DEPTH,
    states: int = DEFAULT_STATES,
    records: Sequence[Mapping[str, object]] | None = None,
    today: date = EXPLORE_TODAY,
) -> ExploreReport:
    """Explore ``app`` (or one of its workflows) and fail on any finding.

    ``from turnframe.testing.explore import assert_explores; assert_explores(app)``.
    The arguments are those of :func:`~turnframe.testing.explore.explore`.

    Returns:
        The report, when it has no finding (its state counts, for a test to read).

    Raises:
        AssertionError: listing every finding with its shortest path from the absent
            state (or its seed).
        UsageError: a bad limit, an unknown workflow, or records that cannot be seeded.
    """
    report = explore(app, workflow, depth=depth, states=states, records=records, today=today)
    if not report.ok:
        count = len(report.findings)
        raise AssertionError(
            f"the state explorer found {count} problem(s) in {app.name!r}:\n"
            + report.describe_findings()
        )
    return report
