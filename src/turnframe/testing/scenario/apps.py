"""Which application a scenario file runs with, and how its records are seeded.

A file's ``sample: NAME`` names its application the way ``--app`` does
(:func:`turnframe.runtime.loading.load_application`: an installed ``turnframe.apps``
entry point such as ``travel``, or ``module:attribute``). A file without ``sample:``
runs with the application the caller gives (``turnframe scenario run --app SPEC``, the
pytest plugin's ``--turnframe-app``). A file whose ``sample:`` names another application
than the one given is invalid (docs/scenario-format.md "Which application").
"""

from __future__ import annotations

from turnframe.core.errors import UsageError
from turnframe.runtime import Application
from turnframe.runtime.app import RecordSeeder
from turnframe.runtime.loading import load_application
from turnframe.testing.scenario.seeding import GenericSeeder

__all__ = ["AppChoice", "application_for", "seeder_for"]

AppChoice = str | Application | None
"""What a caller gives the runner: an ``--app`` spec, an application, or nothing."""


class AppMismatch(UsageError):
    """The file's ``sample:`` and the given application disagree."""


def application_for(sample: str | None, given: AppChoice) -> Application:
    """Return the application a file with ``sample`` runs with when ``given`` is passed.

    Args:
        sample: the file's ``sample:`` value, or ``None``.
        given: the caller's ``--app`` spec or application, or ``None``.

    Returns:
        A freshly loaded application (a callable spec is called again for each file, so
        no state is shared between files).

    Raises:
        UsageError: when neither names an application, one cannot be loaded, or the file
            names a different application (neither the same spec nor the given
            application's ``name``) than ``given``.
    """
    if given is None:
        if sample is None:
            raise UsageError(
                "the file names no application: add `sample: NAME` (an installed app's "
                "name or module:attribute), or pass --app"
            )
        return load_application(sample)
    app = given if isinstance(given, Application) else load_application(given)
    if sample is not None and sample != given and sample != app.name:
        shown = given if isinstance(given, str) else app.name
        raise AppMismatch(
            f"the file names application {sample!r}, but --app gives {shown!r} "
            f"(named {app.name!r}); remove `sample:` or run it with --app {sample}"
        )
    return app


def seeder_for(app: Application) -> RecordSeeder:
    """Return the application's own record seeder, or the generic one over its registry."""
    if app.seeder is not None:
        return app.seeder
    return GenericSeeder(app.registry)
