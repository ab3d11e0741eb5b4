"""The app template behind ``turnframe new NAME``: names checked, files rendered, written.

The template (``turnframe/cli/templates/app``, package data) is a one-workflow app on
the authoring kit (docs/authoring.md): state, commands, workflow, copy and app modules,
a pyproject declaring the ``turnframe.apps`` entry point, four scenario files
(docs/scenario-format.md) and tests. Each template file ends in ``.tmpl`` and is filled
by :class:`string.Template` with ``name`` (the package), ``record`` (the workflow name),
``Record`` (its class-name form), ``noun`` (its English noun) and ``turnframe_version``;
a path segment ``__name__`` becomes the package name and ``gitignore`` becomes
``.gitignore``. ``examples/helpdesk`` in the repository is this template rendered with
``name="helpdesk"`` and ``record="ticket"`` (a test compares them).
"""

from __future__ import annotations

import importlib.util
import keyword
import re
import sys
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path, PurePosixPath
from string import Template

import turnframe
from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import UsageError

__all__ = [
    "DEFAULT_RECORD",
    "RESERVED_NAMES",
    "AppFiles",
    "check_name",
    "check_record",
    "render_app",
    "template_files",
    "write_app",
]

DEFAULT_RECORD = "ticket"
"""The record kind of ``turnframe new NAME`` without ``--record``."""

RESERVED_NAMES = frozenset({"turnframe", "tests", "test", "bench", "conftest", "setup"})
"""Package names refused besides the standard library's: Turnframe itself and the
modules the generated tests import by their bare names."""

_SUFFIX = ".tmpl"
_NAME = re.compile(r"[a-z][a-z0-9_]*")
_RECORD = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
# Names the template's modules define or import next to the record's class
_TEMPLATE_CLASSES = frozenset(
    {
        "Priority", "Status", "SetPriority", "Assign", "Comment", "Close", "Reopen",
        "Command", "Execution", "ExecutionContext", "Op", "RiskClass", "Workflow",
        "TypedCommand", "Application", "WorkflowRegistry", "Bench", "Actor", "CaseRef",
        "InteractionResponse", "ProposedTarget", "SemanticAct", "TurnInput", "Understanding",
        "FixedClock", "Runtime", "SequentialIds", "InMemoryStore", "ScriptedUnderstanding",
        "Any", "Literal", "Path",
    }
)  # fmt: skip


@fast_init
@dataclass(frozen=True, slots=True)
class AppFiles:
    """A rendered app: relative POSIX paths → file text (UTF-8), and the names it used."""

    name: str
    record: str
    files: dict[str, str]


def template_files() -> dict[str, str]:
    """Return the template's files: path relative to the template root → raw text.

    Raises:
        UsageError: the template is missing from the installation (a broken wheel).
    """
    root = resources.files("turnframe.cli").joinpath("templates", "app")
    found: dict[str, str] = {}
    _collect(root, PurePosixPath(), found)
    if not found:
        raise UsageError(
            "the app template is missing from this Turnframe installation "
            "(turnframe/cli/templates/app); reinstall turnframe"
        )
    return found


def _collect(node: Traversable, at: PurePosixPath, found: dict[str, str]) -> None:
    for child in node.iterdir():
        if child.is_dir():
            if child.name != "__pycache__":
                _collect(child, at / child.name, found)
        elif child.name.endswith(_SUFFIX):
            found[str(at / child.name)] = child.read_text(encoding="utf-8")


def check_name(name: str) -> None:
    """Refuse a package name that cannot be, or must not be, a new importable package.

    A name is lowercase letters, digits and underscores, starting with a letter (PEP 8
    package names); not a Python keyword, a standard-library module, one of
    :data:`RESERVED_NAMES`, or a module already importable here (the new package would
    shadow it or be shadowed by it).

    Raises:
        UsageError: the name and what to pick instead.
    """
    if not _NAME.fullmatch(name):
        raise UsageError(
            f"{name!r} is not a package name: use lowercase letters, digits and "
            "underscores, starting with a letter (e.g. helpdesk, work_orders)"
        )
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        raise UsageError(f"{name!r} is a Python keyword; pick another package name")
    if name in RESERVED_NAMES or name in sys.stdlib_module_names:
        raise UsageError(
            f"{name!r} is taken (Turnframe, the standard library or the generated tests "
            "use it); pick another package name"
        )
    spec = importlib.util.find_spec(name)
    if spec is not None and spec.origin is not None:
        raise UsageError(
            f"a module named {name!r} is already importable (from {spec.origin}); "
            "a package of that name would clash with it, pick another name"
        )


def check_record(record: str) -> None:
    """Refuse a record kind that cannot name the workflow, its operations and its class.

    A record kind is lowercase words of letters and digits joined by single underscores
    (``ticket``, ``work_order``); its class-name form (``Ticket``, ``WorkOrder``) must not
    be a name the template already uses.

    Raises:
        UsageError: the record kind and what to pick instead.
    """
    if not _RECORD.fullmatch(record):
        raise UsageError(
            f"--record {record!r}: use lowercase words of letters and digits joined by "
            "single underscores, starting with a letter (e.g. ticket, work_order)"
        )
    if _class_name(record) in _TEMPLATE_CLASSES:
        raise UsageError(
            f"--record {record!r}: its class {_class_name(record)!r} clashes with a name "
            "the template defines; pick another record kind"
        )


def _class_name(record: str) -> str:
    return "".join(part.capitalize() for part in record.split("_"))


def render_app(name: str, *, record: str = DEFAULT_RECORD) -> AppFiles:
    """Render the app template for package ``name`` and record kind ``record``.

    Returns the files in memory, nothing written. Paths: ``__name__`` → ``name``,
    ``gitignore`` → ``.gitignore``, the ``.tmpl`` suffix dropped.

    Raises:
        UsageError: an invalid name or record kind (:func:`check_name`,
            :func:`check_record`), or a template naming an unknown placeholder.
    """
    check_name(name)
    check_record(record)
    values = {
        "name": name,
        "record": record,
        "Record": _class_name(record),
        "noun": record.replace("_", " "),
        "turnframe_version": turnframe.__version__,
    }
    files: dict[str, str] = {}
    for raw_path, text in sorted(template_files().items()):
        parts = [name if p == "__name__" else p for p in PurePosixPath(raw_path).parts]
        parts[-1] = parts[-1].removesuffix(_SUFFIX)
        if parts[-1] == "gitignore":
            parts[-1] = ".gitignore"
        try:
            files["/".join(parts)] = Template(text).substitute(values)
        except (KeyError, ValueError) as exc:
            raise UsageError(f"app template {raw_path}: bad placeholder {exc}") from exc
    return AppFiles(name=name, record=record, files=files)


def write_app(app: AppFiles, target: Path) -> list[Path]:
    """Write ``app`` under ``target`` and return the files written, in path order.

    ``target`` may be absent (it is made, with its parents) or an empty directory.
    Nothing is written when it is refused.

    Raises:
        UsageError: ``target`` is a file, a directory that is not empty, or a place
            that cannot be written (``/proc/nope``, a path under a file, no permission,
            a full disk): one line naming the path and the system's reason.
    """
    try:
        if target.exists() and not target.is_dir():
            raise UsageError(f"{target} exists and is not a directory; give another --dir")
        if target.is_dir() and any(target.iterdir()):
            raise UsageError(
                f"{target} is not empty; turnframe new writes only into a new or empty "
                "directory (give another --dir, or move it away)"
            )
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(_cannot_write(target, exc)) from exc
    written = []
    for relative, text in sorted(app.files.items()):
        path = target.joinpath(*relative.split("/"))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(_cannot_write(path, exc)) from exc
        written.append(path)
    return written


def _cannot_write(path: Path, exc: OSError) -> str:
    reason = exc.strerror or type(exc).__name__
    return f"cannot write {path}: {reason}; give a --dir you can write to"
