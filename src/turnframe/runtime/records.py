"""Finding and fitting records, shared by the resolve and look-up steps (I1, I8).

docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md: only records that fit the
operation (or may fill the argument) are candidates.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from turnframe.core.ids import Actor, CaseRef
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.copy import say
from turnframe.runtime.executor import StoredCaseDirectory
from turnframe.runtime.parts import RuntimeParts
from turnframe.runtime.plan import CaseSnapshot
from turnframe.runtime.snapshots import TurnSnapshots

__all__ = [
    "HANDLE",
    "authorized",
    "builtin_directory",
    "find",
    "find_hints",
    "fits",
    "label",
    "no_fit",
    "record_args",
]

HANDLE = re.compile(r"^h[0-9a-f]{10}$")
"""The shape of a per-turn handle: a stale or invented one is never looked up as words."""

_HINTS: dict[type, frozenset[str]] = {}


def find_hints(directory: object) -> frozenset[str]:
    """Return the keyword hints (``operation``, ``argument``, ``today``) ``directory.find`` accepts.

    A directory written before the hints existed takes none of them; it is still called
    with the words alone, and the runtime filters its answer (:func:`find`).
    """
    kind = type(directory)
    known = _HINTS.get(kind)
    if known is None:
        try:
            params = inspect.signature(directory.find).parameters  # type: ignore[attr-defined]
        except (TypeError, ValueError):
            params = {}  # type: ignore[assignment]
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            known = frozenset({"operation", "argument"})  # the protocol's hints only
        else:
            known = frozenset(n for n in ("operation", "argument", "today") if n in params)
        _HINTS[kind] = known
    return known


def builtin_directory(directory: object, store: object) -> bool:
    """Return whether ``directory`` is the default :class:`StoredCaseDirectory` over ``store``.

    Only that exact class (not a subclass, which may authorise or find by rules of its
    own) authorises exactly the cases whose row is in the actor's account and finds by
    the store's word index, so only for it may a turn answer ``authorize`` and ``find``
    from the rows it read and the store's index (docs/adr/0020-what-a-brief-shows.md).
    Every other directory is asked.
    """
    return type(directory) is StoredCaseDirectory and directory.store is store


async def authorized(
    parts: RuntimeParts, actor: Actor, case: CaseRef, snapshots: TurnSnapshots
) -> bool:
    """Return whether ``actor`` may address ``case`` (``CaseDirectory.authorize``).

    The default directory over the turn's own store authorises exactly the cases whose
    row exists in the actor's account; when a row read this turn already showed that
    (:meth:`TurnSnapshots.owned`), the answer is that read's and the store is not read
    again. Any other directory is asked every time (its rule may be its own).

    Raises:
        StoreError: a read failed.
    """
    directory = parts.directory
    if (
        builtin_directory(directory, parts.store)
        and snapshots.account == actor.account
        and snapshots.owned(case)
    ):
        return True
    return await directory.authorize(actor, case)


async def find(
    parts: RuntimeParts,
    actor: Actor,
    workflow: str | None,
    words: str,
    snapshots: TurnSnapshots,
    today: date,
    locale: str,
    *,
    operation: str | None = None,
    argument: str | None = None,
) -> list[CaseRef]:
    """Return the authorised records ``words`` name that fit ``operation``/``argument``.

    The directory is told what the runtime is finding for (``CaseDirectory.find``'s
    keyword hints, passed only when its ``find`` accepts them), and its answer is
    filtered again here by the same rule, so a directory that ignores the hints can
    still never put a record that does not fit on a selection card
    (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md). Every returned
    record has a snapshot (added to ``snapshots``).

    Raises:
        StoreError: a read failed.
    """
    hints: dict[str, Any] = {"operation": operation, "argument": argument, "today": today}
    accepted = find_hints(parts.directory)
    kwargs = {k: v for k, v in hints.items() if k in accepted and v is not None}
    out = []
    for case in await parts.directory.find(actor, workflow, words, **kwargs):
        if case in out or not await authorized(parts, actor, case, snapshots):
            continue
        if case not in snapshots:
            await snapshots.load(case)
        if operation is not None and not fits(
            parts.registry, actor, snapshots[case], operation, argument
        ):
            continue
        out.append(case)
    return out


def fits(
    registry: WorkflowRegistry,
    actor: Actor,
    snap: CaseSnapshot,
    operation: str,
    argument: str | None,
) -> bool:
    """Return whether ``snap``'s record may be the target (or ``argument``) of ``operation``."""
    erased = registry.workflow(snap.case.workflow)
    if argument is not None:
        return not erased.terminal(snap.view)
    return erased.fits(snap.view, actor, operation)


def no_fit(
    registry: WorkflowRegistry, operation: str, argument: str | None, workflow: str, locale: str
) -> str:
    """Return the domain's sentence for words naming only records that do not fit."""
    spec = registry.operation(operation)
    erased = registry.workflow(workflow)
    if spec is not None:
        arg_spec = spec.argument(argument) if argument else None
        sentence = erased.no_candidate(spec, arg_spec, locale)
        if sentence:
            return sentence
    return say("no_fitting_record", locale)


def record_args(
    args: Any, registry: WorkflowRegistry, operation: str | None, handles: dict[str, CaseRef]
) -> tuple[dict[str, CaseRef], dict[str, str]]:
    """Return an act's record arguments named by a handle in view, and the bad ones.

    Returns ``(argument → case, argument → "unknown_handle")``; a literal the argument
    accepts (``arg.literals``) is neither (I1: only a handle of this turn names a record).
    """
    spec = registry.operation(operation) if operation else None
    record: dict[str, CaseRef] = {}
    bad: dict[str, str] = {}
    if spec is None:
        return record, bad
    for arg in spec.arguments:
        if arg.record_workflow is None or arg.name not in args:
            continue
        words = str(args[arg.name]).strip()
        if words.lower() in arg.literals:
            continue
        case = handles.get(words)
        if case is None or case.workflow != arg.record_workflow:
            bad[arg.name] = "unknown_handle"
        else:
            record[arg.name] = case
    return record, bad


def label(
    case: CaseRef, snapshots: Mapping[CaseRef, CaseSnapshot], labels: dict[CaseRef, str]
) -> str:
    """Return the candidate label in the turn's locale (the snapshot's), else the directory's."""
    snap = snapshots.get(case)
    return snap.label if snap is not None else labels.get(case, str(case))
