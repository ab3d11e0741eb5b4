"""A case's snapshot from its stored row, and the cross-turn memo of the unchanged ones.

docs/adr/0020-what-a-brief-shows.md rule 8. Every turn reads its rows from the store
(:class:`~turnframe.runtime.snapshots.TurnSnapshots`); what :class:`SnapshotMemo` saves is
the typing, projecting and labelling of a row that comes back unchanged. A memoised
snapshot is served only when all of these hold, checked on every hit:

- the key is the same: case, account of the row, revision, recording workflow version,
  today and locale;
- the live definition is the very object that made the entry (a rollout, a re-registered
  workflow or another registry never shares one);
- the stored JSON equals the remembered JSON by type as well as value (:func:`same_json`;
  the stored text itself when the store hands it over, ``CaseRow.state_text``): a row
  rewritten at the same revision is never served stale;
- the typed state is immutable all the way down (:func:`immutable_state`: a mapping
  field is a :class:`~turnframe.core.frozen.FrozenMap`), as turns share it;
- the definition does not opt out (``memo_snapshots = False``).

It relies on the contract of :class:`~turnframe.core.workflow.WorkflowDefinition`:
``load_state`` is a function of the JSON, ``project`` of the state and the day,
``candidate_label`` of the case, the state and the locale.
"""

from __future__ import annotations

import contextlib
import dataclasses
import decimal
import enum
import functools
import marshal
import uuid
from collections import OrderedDict
from datetime import date, datetime, time, timedelta
from typing import Any

from turnframe.core.frozen import FrozenMap
from turnframe.core.ids import CaseRef
from turnframe.core.ports import LoadedCase
from turnframe.core.versions import read_state
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.plan import CaseSnapshot
from turnframe.store.base import CaseRow

__all__ = [
    "MEMO_CAPACITY",
    "SnapshotMemo",
    "immutable_state",
    "json_fingerprint",
    "row_of",
    "row_state",
    "same_json",
    "snapshot_of",
    "snapshot_through",
]

MEMO_CAPACITY = 4096
"""How many snapshots one runtime's :class:`SnapshotMemo` keeps (least recently used go)."""


def row_of(loaded: LoadedCase) -> CaseRow | None:
    """Return an adopter executor's loaded case as a row (``None``: not created yet).

    The row's ``account`` is ``""``: an adopter's record is never taken as the actor's
    without its directory's ``authorize`` (I1).
    """
    if loaded.state is None:
        return None
    return CaseRow(case=loaded.case, account="", state=loaded.state, revision=loaded.revision)


def row_state(registry: WorkflowRegistry, case: CaseRef, row: CaseRow | None) -> Any:
    """Return ``row``'s state typed by the live version of ``case``'s workflow.

    Raises:
        CaseVersionMismatch: the state does not load and another version wrote it
            (docs/guides/canary-and-rollback.md "What a case remembers").
        DomainError: the state does not load (no other version wrote it).
    """
    if row is None:
        return None
    erased = registry.workflow(case.workflow)
    return read_state(erased, str(case), row.state, row.workflow_version)


def snapshot_of(
    registry: WorkflowRegistry,
    case: CaseRef,
    row: CaseRow | None,
    today: date,
    locale: str,
    typed: Any = None,
) -> CaseSnapshot:
    """Return the snapshot of ``case`` from its stored row (``None``: not created yet).

    Types the state (unless ``typed`` is given, already typed from ``row``), projects it
    for ``today`` and labels it in ``locale`` (docs/architecture.md "One turn" step 2; I3).
    Always computed afresh; :meth:`SnapshotMemo.snapshot` is the memoised form.

    Raises:
        RegistryError: when ``case``'s workflow is not registered.
        ValueError: when the stored state does not load as the workflow's state.
    """
    erased = registry.workflow(case.workflow)
    if typed is None:
        typed = row_state(registry, case, row)
    definition = erased.definition
    return CaseSnapshot(
        case=case,
        state=typed,
        state_json=row.state if row else None,
        revision=row.revision if row else 0,
        view=definition.project(typed, today),
        label=definition.candidate_label(case, typed, locale),
    )


def snapshot_through(
    memo: SnapshotMemo | None,
    registry: WorkflowRegistry,
    case: CaseRef,
    row: CaseRow | None,
    today: date,
    locale: str,
    typed: Any = None,
) -> CaseSnapshot:
    """Return :func:`snapshot_of`'s answer, through ``memo`` when there is one.

    ``memo`` is the runtime's :class:`SnapshotMemo` (``None``: computed afresh); the
    answer is the same either way (docs/adr/0020-what-a-brief-shows.md rule 8).

    Raises:
        Whatever :func:`snapshot_of` raises.
    """
    if memo is None:
        return snapshot_of(registry, case, row, today, locale, typed)
    return memo.snapshot(registry, case, row, today, locale, typed)


def same_json(a: Any, b: Any) -> bool:
    """Return whether two JSON values are the same by type as well as value, at every depth.

    ``1``, ``1.0`` and ``True`` differ (``==`` says they are equal, but a state typed from
    one need not equal a state typed from another); so do ``[1]`` and ``(1,)``, ``"a"``
    and a ``str`` subclass's ``"a"``, ``0.0`` and ``-0.0``. Objects compare key by key in
    order (a reordered object counts as different: a memo miss, never a wrong hit). Built
    for JSON (``dict``, ``list``, ``str``, ``int``, ``float``, ``bool``, ``None``); the
    other built-in data types ``marshal`` writes (tuples, sets, bytes) compare the same
    way, and a value it cannot write (a subclass's or another class's instance, or one
    nested too deep) is never the same as anything.
    """
    fingerprint = json_fingerprint(a)
    return fingerprint is not None and fingerprint == json_fingerprint(b)


def json_fingerprint(value: Any) -> bytes | None:
    """Return bytes equal for two values exactly when :func:`same_json` holds (``None``: not data).

    ``marshal`` format 2: it writes each value's exact type with its value (a float's
    IEEE bits), keeps dict order, and refuses subclasses and other classes; format 2 has
    no back-references, so the bytes depend on the values alone, never on which objects
    are shared. Computed once per row read; the memo keeps the bytes, never the dict.
    """
    try:
        return marshal.dumps(value, 2)
    except ValueError:
        return None


_ATOMS: frozenset[type] = frozenset(
    {type(None), bool, int, float, complex, str, bytes, date, datetime, time, timedelta}
    | {decimal.Decimal, uuid.UUID, range}
)
"""Types whose values never change (exact types: a subclass may add mutable fields)."""


def immutable_state(value: Any) -> bool:
    """Return whether ``value`` is immutable all the way down (a memoisable typed state).

    Immutable: ``None``, numbers, strings, bytes, dates and times, decimals, UUIDs, enum
    members with an immutable value, tuples and frozensets of immutable values,
    :class:`~turnframe.core.frozen.FrozenMap` of immutable keys and values, frozen
    dataclasses and frozen pydantic models whose fields (and any other instance
    attributes) are all immutable. Anything else, e.g. a ``list``, ``dict`` or ``set`` at
    any depth, an object of an unknown class, or an instance of a class with a
    ``functools.cached_property`` (it sets an attribute after the check), is not.
    """
    return _immutable(value, 0)


def _immutable(value: Any, depth: int) -> bool:
    kind = type(value)
    if kind in _ATOMS:
        return True
    if depth > 64:
        return False  # too deep to vouch for
    if kind is tuple or kind is frozenset:
        return _all_immutable(value, depth)
    if kind is FrozenMap:
        return _all_immutable(value.keys(), depth) and _all_immutable(value.values(), depth)
    names = _frozen_fields.get(kind)
    if names is None:
        names = _frozen_fields[kind] = _fields_if_frozen(kind)
    if names is False:
        return False
    if names is True:  # an enum
        return _immutable(value.value, depth + 1)
    held = getattr(value, "__dict__", None)
    if held is None:
        values = [getattr(value, n) for n in names]
    else:  # the fields (and any other attribute) set on the instance
        values = [*held.values(), *(getattr(value, n) for n in names if n not in held)]
    private = getattr(value, "__pydantic_private__", None)
    if private:
        values.extend(private.values())
    return _all_immutable(values, depth)


def _all_immutable(values: Any, depth: int) -> bool:
    atoms = _ATOMS
    for v in values:  # most are atoms: no call for them
        if type(v) not in atoms and not _immutable(v, depth + 1):
            return False
    return True


_frozen_fields: dict[type, tuple[str, ...] | bool] = {}
"""Per class: its field names when its instances are frozen, ``True`` for an enum,
``False`` when they are not frozen (a class's frozenness never changes)."""


def _fields_if_frozen(kind: type) -> tuple[str, ...] | bool:
    if issubclass(kind, enum.Enum):
        return True
    if _caches_later(kind):
        # A ``functools.cached_property`` sets an attribute on first read, past the
        # freezing: what it holds then cannot be vouched for now.
        return False
    if dataclasses.is_dataclass(kind):
        params = getattr(kind, "__dataclass_params__", None)
        if params is None or not params.frozen:
            return False
        return tuple(f.name for f in dataclasses.fields(kind))
    config = getattr(kind, "model_config", None)
    fields = getattr(kind, "model_fields", None)
    if isinstance(config, dict) and isinstance(fields, dict) and hasattr(kind, "model_dump"):
        if not config.get("frozen") or config.get("extra") == "allow":
            return False
        return tuple(fields)
    return False


def _caches_later(kind: type) -> bool:
    """Whether ``kind`` (or a base) has a ``functools.cached_property``."""
    return any(
        isinstance(attribute, functools.cached_property)
        for base in kind.__mro__
        for attribute in vars(base).values()
    )


class _Entry:
    """One remembered snapshot (``fingerprint``: the stored text or :func:`json_fingerprint`).

    ``immutable`` is ``None`` until its first hit checks it.
    """

    __slots__ = ("definition", "fingerprint", "immutable", "label", "state", "view")

    def __init__(self, definition: object, fingerprint: str | bytes, snap: CaseSnapshot) -> None:
        self.definition = definition
        self.fingerprint = fingerprint
        self.state = snap.state
        self.view = snap.view
        self.label = snap.label
        self.immutable: bool | None = None


_Key = tuple[CaseRef, str, int, str | None, date, str]


class SnapshotMemo:
    """One runtime's memo of case snapshots across turns (docs/adr/0020 rule 8).

    Least recently used first out, at most ``capacity`` entries. It never reads the
    store: :meth:`snapshot` is handed the row the turn just read, and serves the
    remembered typed state, view and label only when every check of the module's
    docstring holds, else computes them (:func:`snapshot_of`) and remembers them.

    The typed state is checked immutable (:func:`immutable_state`) once, on an entry's
    first hit, before it is ever served: a state immutable then was immutable since it
    was built, so nothing can have changed it meanwhile; one that is not is never served
    (its entry stays, so the check is not repeated). A case whose row changes every turn
    thus never pays for the check.

    Args:
        capacity: the most entries kept (≥ 1); :data:`MEMO_CAPACITY` by default.

    Raises:
        ValueError: ``capacity`` < 1.
    """

    def __init__(self, capacity: int = MEMO_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError("a snapshot memo keeps at least one entry")
        self._capacity = capacity
        self._entries: OrderedDict[_Key, _Entry] = OrderedDict()
        self.hits = 0
        self.misses = 0
        """Snapshots served from the memo (``hits``) and computed (no entry, a failed check,
        a mutable state); tests read them."""

    @property
    def capacity(self) -> int:
        """The most entries kept."""
        return self._capacity

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Forget every entry (the counters stay)."""
        self._entries.clear()

    def snapshot(
        self,
        registry: WorkflowRegistry,
        case: CaseRef,
        row: CaseRow | None,
        today: date,
        locale: str,
        typed: Any = None,
    ) -> CaseSnapshot:
        """Return ``case``'s snapshot from ``row``: equal to :func:`snapshot_of`'s answer.

        The snapshot carries ``row``'s own JSON and revision; only its typed state, view
        and label may be the remembered ones. A case with no row is not memoised, nor
        one whose definition says ``memo_snapshots = False``.

        Raises:
            Whatever :func:`snapshot_of` raises (nothing is remembered then).
        """
        if row is None:
            return snapshot_of(registry, case, row, today, locale, typed)
        erased = registry.workflow(case.workflow)
        if getattr(erased.raw, "memo_snapshots", True) is False:
            return snapshot_of(registry, case, row, today, locale, typed)
        definition = erased.definition
        key = (case, row.account, row.revision, row.workflow_version, today, locale)
        # The stored text when the store read one (equal texts decode to the same JSON,
        # by type as well as value), else the decoded JSON's; a text (``str``) never
        # equals a fingerprint (``bytes``), so a row read both ways is only a miss.
        text = row.state_text
        fingerprint = json_fingerprint(row.state) if text is None else text
        entry = self._entries.get(key)
        if (
            entry is not None
            and entry.definition is definition
            and fingerprint is not None
            and fingerprint == entry.fingerprint
        ):
            if entry.immutable is None:
                entry.immutable = immutable_state(entry.state)
            if entry.immutable:
                self.hits += 1
                try:
                    self._entries.move_to_end(key)
                except KeyError:  # another thread evicted it meanwhile
                    pass
                return CaseSnapshot(
                    case=case,
                    state=entry.state,
                    state_json=row.state,
                    revision=row.revision,
                    view=entry.view,
                    label=entry.label,
                )
            self.misses += 1
            return snapshot_of(registry, case, row, today, locale, typed)
        self.misses += 1
        snap = snapshot_of(registry, case, row, today, locale, typed)
        if fingerprint is not None:
            self._remember(key, _Entry(definition, fingerprint, snap))
        return snap

    def _remember(self, key: _Key, entry: _Entry) -> None:
        """Keep ``entry`` as the newest; drop the least recently used beyond capacity.

        Thread-safe: a ``KeyError`` only means another turn moved or dropped the entry.
        """
        entries = self._entries
        entries[key] = entry
        with contextlib.suppress(KeyError):
            entries.move_to_end(key)
            while len(entries) > self._capacity:
                entries.popitem(last=False)
