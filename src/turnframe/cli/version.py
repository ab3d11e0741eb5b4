"""``turnframe --version``: the installed distribution's version (docs/release-checklist.md)."""

from __future__ import annotations

from importlib import metadata

__all__ = ["DISTRIBUTION", "installed_version"]

DISTRIBUTION = "turnframe"
"""The distribution whose metadata names the version (``[project] name`` in pyproject.toml)."""


def installed_version() -> str:
    """Return the version in the ``turnframe`` distribution's metadata (``0.1.0.dev0``).

    Read with :func:`importlib.metadata.version`, so it is the version pip installed,
    not a constant that could drift. From a source tree that was never installed (no
    metadata), it is ``turnframe.__version__`` followed by `` (not installed)``.
    """
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        import turnframe

        return f"{turnframe.__version__} (not installed)"
