"""Finding an :class:`~turnframe.runtime.Application` by name (docs/guides/your-first-app.md).

Every command-line entry point takes ``--app SPEC``. ``SPEC`` is either

- ``module:attribute`` (``myhelpdesk.app:application``): the attribute of an importable
  module, an :class:`Application` or a callable taking no argument that returns one; or
- a bare name (``travel``, ``helpdesk``): the entry point of that name in the
  ``turnframe.apps`` group, which an installed package declares in its
  ``pyproject.toml``::

      [project.entry-points."turnframe.apps"]
      helpdesk = "helpdesk.app:application"

  A bare name no entry point declares is then tried as a module holding an attribute
  ``application`` (so a package made by ``turnframe new NAME`` is found before it is
  installed, from its own directory).
"""

from __future__ import annotations

import importlib
import sys
from importlib import metadata
from pathlib import Path

from turnframe.core.errors import UsageError
from turnframe.runtime.app import Application

__all__ = ["APPS_GROUP", "application_names", "load_application"]

APPS_GROUP = "turnframe.apps"
"""The entry-point group installed applications are declared in."""


def application_names() -> tuple[str, ...]:
    """Return the names of the applications installed packages declare, sorted."""
    return tuple(sorted({ep.name for ep in metadata.entry_points(group=APPS_GROUP)}))


def load_application(spec: str) -> Application:
    """Return the application ``spec`` names (the module docstring says how it is read).

    Args:
        spec: ``module:attribute`` or an installed application's name.

    Raises:
        UsageError: when nothing by that name is found, the module cannot be imported
            (missing, or it raised while importing: any exception, a ``SyntaxError``, a
            ``ModuleNotFoundError`` for a module *it* imports, which is named), the
            attribute is missing, a factory raised when called (a missing argument
            too), or it is (or returns) something other than an :class:`Application`.
            The message is one line naming the spec, the exception's type and message,
            and the fix.
    """
    spec = spec.strip()
    if not spec:
        raise UsageError("--app needs a value: module:attribute or an installed app's name")
    if ":" in spec:
        module_name, _, attribute = spec.partition(":")
        return _resolve(spec, _import(spec, module_name), attribute)
    for ep in metadata.entry_points(group=APPS_GROUP):
        if ep.name == spec:
            try:
                target = ep.load()
            except Exception as exc:
                raise UsageError(
                    f"--app {spec!r}: its entry point {ep.value!r} failed to load: "
                    f"{type(exc).__name__}: {_one_line(str(exc))}"
                ) from exc
            return _resolve(spec, target, None)
    if spec.isidentifier():
        if str(Path.cwd()) not in sys.path and "" not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        module = _import_bare(spec)
        if module is not None:
            return _resolve(spec, module, "application")
    known = ", ".join(application_names()) or "none installed"
    raise UsageError(
        f"no application {spec!r}: give module:attribute, or install a package that declares "
        f"it in the {APPS_GROUP!r} entry-point group (installed: {known})"
    )


def _import(spec: str, module_name: str) -> object:
    if not module_name:
        raise UsageError(f"--app {spec!r}: the module before ':' is empty")
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if not _names_itself(exc, module_name):
            raise _import_failed(spec, module_name, exc) from exc
        raise UsageError(
            f"--app {spec!r}: cannot import module {module_name!r} ({exc}); is its package "
            "installed (pip install -e .) or on PYTHONPATH?"
        ) from exc
    except Exception as exc:  # SyntaxError, or whatever the module raises on import
        raise _import_failed(spec, module_name, exc) from exc


def _import_bare(spec: str) -> object | None:
    """Import the module a bare name names; ``None`` when no module has that name."""
    try:
        return importlib.import_module(spec)
    except ModuleNotFoundError as exc:
        if _names_itself(exc, spec):
            return None
        raise _import_failed(spec, spec, exc) from exc
    except Exception as exc:
        raise _import_failed(spec, spec, exc) from exc


def _names_itself(exc: ModuleNotFoundError, module_name: str) -> bool:
    """Whether ``exc`` says ``module_name`` (or a package above it) is missing, not a module it imports."""
    missing = exc.name or ""
    return bool(missing) and (module_name == missing or module_name.startswith(missing + "."))


def _import_failed(spec: str, module_name: str, exc: BaseException) -> UsageError:
    """The one-line error for a module that exists but raised while it was imported."""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        return UsageError(
            f"--app {spec!r}: importing module {module_name!r} failed: it imports "
            f"{exc.name!r}, which is not installed ({type(exc).__name__}: {exc}); install it "
            "or fix the import"
        )
    where = ""
    if isinstance(exc, SyntaxError):
        where = f" ({exc.filename}, line {exc.lineno})" if exc.filename else ""
        message = exc.msg
    else:
        message = str(exc)
    return UsageError(
        f"--app {spec!r}: importing module {module_name!r} raised "
        f"{type(exc).__name__}: {_one_line(message)}{where}"
    )


def _one_line(text: str) -> str:
    """``text`` with its line breaks folded, for a one-line error."""
    return " ".join(str(text).split()) or "(no message)"


def _resolve(spec: str, target: object, attribute: str | None) -> Application:
    if attribute is not None:
        if not attribute:
            raise UsageError(f"--app {spec!r}: the attribute after ':' is empty")
        found: object = target
        for part in attribute.split("."):
            try:
                found = getattr(found, part)
            except AttributeError:
                raise UsageError(
                    f"--app {spec!r}: {getattr(target, '__name__', target)!r} has no "
                    f"attribute {attribute!r}"
                ) from None
        target = found
    if isinstance(target, Application):
        return target
    if callable(target):
        try:
            made = target()
        except Exception as exc:
            raise UsageError(
                f"--app {spec!r}: calling {getattr(target, '__name__', 'it')}() raised "
                f"{type(exc).__name__}: {_one_line(str(exc))}; an application factory takes "
                "no argument and returns an Application"
            ) from exc
        if isinstance(made, Application):
            return made
        raise UsageError(
            f"--app {spec!r}: calling it returned {_article(type(made).__name__)}, not an Application"
        )
    raise UsageError(
        f"--app {spec!r} is {_article(type(target).__name__)}, not an Application or a callable "
        "returning one"
    )


def _article(noun: str) -> str:
    """``noun`` with ``a`` or ``an`` before it (``an int``, ``a str``)."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"
