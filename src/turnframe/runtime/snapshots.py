"""The turn's snapshots: each case loaded from the store at most once (docs/adr/0020-what-a-brief-shows.md).

A :class:`TurnSnapshots` is created per turn. Every step that needs a case's state asks it
(:meth:`TurnSnapshots.load`), so a case is read, typed, labelled and projected once, and
only when some step needs it: the cost of a turn follows the records it is about, not the
size of the account. It also counts its store calls (:attr:`TurnSnapshots.store_calls`),
which the tests and benchmarks read instead of timing. Given the runtime's
:class:`~turnframe.runtime.case_snapshots.SnapshotMemo`, the typing, projecting and
labelling of a row that comes back unchanged since an earlier turn is reused (the row
itself is still read every turn; docs/adr/0020-what-a-brief-shows.md rule 8).

The reducer is handed a :class:`SnapshotReads` view: it records which snapshots the
reducer read, so the reduction record (``runtime/replay.py``) stores only those, and a
replay reads the same keys again (docs/invariants.md I20).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, MutableMapping
from datetime import date
from typing import Any

from turnframe.core.ids import CaseRef
from turnframe.core.ports import WorkflowExecutor
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.case_snapshots import (
    SnapshotMemo,
    row_of,
    row_state,
    snapshot_of,
    snapshot_through,
)
from turnframe.runtime.plan import CaseSnapshot
from turnframe.store.base import CaseRow, TurnStore
from turnframe.store.search import fold

__all__ = [
    "SnapshotMemo",
    "SnapshotReads",
    "TurnSnapshots",
    "row_of",
    "row_state",
    "snapshot_of",
]


class TurnSnapshots(MutableMapping[CaseRef, CaseSnapshot]):
    """Every case snapshot of one turn, each loaded from the store at most once.

    A mapping over the snapshots taken so far (``in``, ``[]``, ``get``, iteration in
    first-load order); :meth:`load` and :meth:`load_rows` take new ones. Assigning a
    snapshot replaces one (a step that must see a case again after a commit of this turn
    does so explicitly); deleting raises ``TypeError``.

    Args:
        registry: the workflows (typing, projection, labels).
        store: the store the cases are read from.
        account: the actor's account; :meth:`load_rows` reads only its cases.
        today: the day views are projected for.
        locale: the labels' locale.
        executor: an adopter's :class:`~turnframe.core.ports.WorkflowExecutor` whose
            records live in its own tables (``None``: the store's case table, the
            default). With one, every snapshot's state and revision come from
            ``executor.load`` (or ``load_many``): a row the store's listings return
            (the directory's pages, the default view) only says which cases to load,
            and :meth:`settle` loads them through the executor before the turn reads
            them (docs/adr/0025-adopter-executors.md).
        memo: the runtime's cross-turn memo of unchanged snapshots
            (:class:`~turnframe.runtime.case_snapshots.SnapshotMemo`); ``None``: every
            snapshot is computed afresh. Either way every row is read from the store.
    """

    def __init__(
        self,
        registry: WorkflowRegistry,
        store: TurnStore,
        account: str,
        today: date,
        locale: str,
        executor: WorkflowExecutor | None = None,
        memo: SnapshotMemo | None = None,
    ) -> None:
        self._executor = executor
        self._memo = memo
        self._unsettled: dict[CaseRef, None] = {}
        self._registry = registry
        self._store = store
        self._account = account
        self._today = today
        self._locale = locale
        self._snaps: dict[CaseRef, CaseSnapshot] = {}
        self._texts: dict[CaseRef, str] = {}
        self._owned: set[CaseRef] = set()
        self._calls = 0

    # ------------------------------------------------------------------ loading
    async def load(self, case: CaseRef) -> CaseSnapshot:
        """Return ``case``'s snapshot, reading the store only the first time.

        The case is read by reference (``TurnStore.load_case``): authorising it for the
        actor is the caller's business, as before (``CaseDirectory.authorize``).

        Raises:
            StoreError: the read failed (nothing is cached then).
        """
        snap = self._snaps.get(case)
        if snap is None:
            self._calls += 1
            row = await self._read(case)
            self._own(row)
            snap = self._snaps[case] = self._snapshot(case, row)
        return snap

    async def refresh(self, case: CaseRef) -> CaseSnapshot:
        """Read ``case`` again and replace its snapshot (a case taken as absent may exist now).

        Raises:
            StoreError: the read failed (the old snapshot stays).
        """
        self._calls += 1
        row = await self._read(case)
        self._own(row)
        self._texts.pop(case, None)
        self._unsettled.pop(case, None)
        snap = self._snaps[case] = self._snapshot(case, row)
        return snap

    async def load_rows(self, cases: Collection[CaseRef]) -> dict[CaseRef, CaseSnapshot]:
        """Return the snapshots of those of ``cases`` that are the account's stored cases.

        The ones not yet cached are read in one store call
        (``TurnStore.list_cases_page(account, cases=...)``); a foreign or absent case is
        left out of the answer (and not cached), so an in-view list naming another
        account's record shows nothing of it (I1).

        Raises:
            StoreError: the read failed.
        """
        wanted = list(dict.fromkeys(cases))
        missing = [c for c in wanted if c not in self._snaps]
        if missing:
            self._calls += 1
            for row in await self._rows(missing):
                if row.account == self._account and row.case not in self._snaps:
                    self.add_row(row)
            await self.settle()
        return {
            c: snap
            for c in wanted
            if (snap := self._snaps.get(c)) is not None and snap.state_json is not None
        }

    def _snapshot(self, case: CaseRef, row: CaseRow | None, typed: Any = None) -> CaseSnapshot:
        return snapshot_through(
            self._memo, self._registry, case, row, self._today, self._locale, typed
        )

    async def _read(self, case: CaseRef) -> CaseRow | None:
        if self._executor is None:
            return await self._store.load_case(case)
        return row_of(await self._executor.load(case))

    async def settle(self) -> None:
        """Load every case :meth:`add_row` took from a store listing through the executor.

        A no-op without an adopter executor (the store's row is the record) and when
        nothing is unsettled. With one, each such snapshot is replaced by the one of
        the executor's state and revision, in one ``load_many`` call when the executor
        has it (else one ``load`` per case).

        Raises:
            Whatever the executor's ``load`` raises (the old snapshots stay).
        """
        if not self._unsettled or self._executor is None:
            return
        cases = list(self._unsettled)
        many = getattr(self._executor, "load_many", None)
        loaded = (
            list(await many(cases))
            if callable(many)
            else [await self._executor.load(case) for case in cases]
        )
        self._calls += 1
        for item in loaded:
            self._texts.pop(item.case, None)
            self._unsettled.pop(item.case, None)
            self._snaps[item.case] = self._snapshot(item.case, row_of(item))

    async def _rows(self, cases: list[CaseRef]) -> list[CaseRow]:
        page = getattr(self._store, "list_cases_page", None)
        if callable(page):
            rows: list[CaseRow] = []
            for start in range(0, len(cases), _IDS_PER_CALL):
                chunk = cases[start : start + _IDS_PER_CALL]
                found = await page(self._account, cases=chunk, limit=len(chunk))
                rows.extend(found.rows)
            return rows
        out = []
        for case in cases:  # a store without the paged listing: one read per case
            row = await self._store.load_case(case)
            if row is not None:
                out.append(row)
        return out

    def add_row(self, row: CaseRow, typed: Any = None, folded: str | None = None) -> CaseSnapshot:
        """Return the snapshot of a row another read returned (a listing, a find page).

        A case already cached keeps its snapshot (the first read of the turn wins, so
        every step sees the same revision). ``folded`` is the row's folded search text
        as the store's index holds it with the row (``CasePage.texts``; ``None``: not
        known), kept for :meth:`folded_text` when this row becomes the snapshot.
        """
        snap = self._snaps.get(row.case)
        if snap is None:
            self._own(row)
            snap = self._snaps[row.case] = self._snapshot(row.case, row, typed)
            if self._executor is not None:
                self._unsettled[row.case] = None  # the store's mirror: :meth:`settle`
            elif folded is not None:
                self._texts[row.case] = folded
        return snap

    def folded_text(self, case: CaseRef) -> str:
        """Return the snapshotted case's folded search text (``""`` with no state).

        The text the store's index held with the snapshot's row when a page said it
        (:meth:`add_row`), else ``fold(definition.search_text(state))`` computed once
        per snapshot: both are of the same state (the store indexes the text the
        runtime computed for that commit). See ``turnframe.store.search``.

        Raises:
            KeyError: ``case`` has no snapshot.
        """
        text = self._texts.get(case)
        if text is None:
            snap = self._snaps[case]
            if snap.state is None:
                text = ""
            else:
                definition = self._registry.workflow(case.workflow).definition
                text = fold(definition.search_text(snap.state))
            self._texts[case] = text
        return text

    def label(self, case: CaseRef, locale: str) -> str:
        """Return the snapshotted case's candidate label in ``locale`` (ADR 0001).

        The snapshot's own label when ``locale`` is the turn's (labelled once, when the
        snapshot was taken), else ``candidate_label`` of the snapshot's state in
        ``locale``: the same answer either way, since a label is a function of the case,
        the state and the locale (``WorkflowDefinition.candidate_label``).

        Raises:
            KeyError: ``case`` has no snapshot.
        """
        snap = self._snaps[case]
        if locale == self._locale:
            return snap.label
        definition = self._registry.workflow(case.workflow).definition
        return definition.candidate_label(case, snap.state, locale)

    def _own(self, row: CaseRow | None) -> None:
        if row is not None and row.account == self._account:
            self._owned.add(row.case)

    def owned(self, case: CaseRef) -> bool:
        """Return whether a row read this turn showed ``case`` stored in the turn's account.

        A case's row never changes account, so this answers what
        :meth:`~turnframe.runtime.executor.StoredCaseDirectory.authorize` would read
        again (the row exists and belongs to the account) without a second read. ``False``
        says only that no such row was read (absent, foreign, or not read yet).
        """
        return case in self._owned

    def absent(self, case: CaseRef) -> CaseSnapshot:
        """Return the snapshot of a case minted this turn (not stored yet): no read."""
        snap = self._snaps.get(case)
        if snap is None:
            snap = self._snaps[case] = snapshot_of(
                self._registry, case, None, self._today, self._locale
            )
        return snap

    # ------------------------------------------------------------------ reading
    @property
    def store(self) -> TurnStore:
        """The store the snapshots are read from."""
        return self._store

    @property
    def account(self) -> str:
        """The account whose turn this is (:meth:`owned` answers for it)."""
        return self._account

    @property
    def loaded(self) -> tuple[CaseRef, ...]:
        """Every case with a snapshot, in first-load order."""
        return tuple(self._snaps)

    @property
    def store_calls(self) -> int:
        """How many store reads this turn's snapshots took so far."""
        return self._calls

    def recording(self) -> SnapshotReads:
        """Return a read-only view over the current snapshots that records what is read."""
        return SnapshotReads(dict(self._snaps))

    def __getitem__(self, case: CaseRef) -> CaseSnapshot:
        return self._snaps[case]

    def __setitem__(self, case: CaseRef, snap: CaseSnapshot) -> None:
        self._texts.pop(case, None)
        self._snaps[case] = snap

    def __delitem__(self, case: CaseRef) -> None:
        raise TypeError("a turn's snapshot is never forgotten")

    def __contains__(self, case: object) -> bool:
        return case in self._snaps

    def __iter__(self) -> Iterator[CaseRef]:
        return iter(self._snaps)

    def __len__(self) -> int:
        return len(self._snaps)


_IDS_PER_CALL = 500
"""The most case ids one paged read is asked for (a SQL ``IN`` list stays small)."""


class SnapshotReads(Mapping[CaseRef, CaseSnapshot]):
    """A read-only mapping of snapshots that records which of them were read.

    ``[]``, ``get`` and ``in`` record the key when it is present; iterating (``keys``,
    ``values``, ``items``, ``iter``, ``len``) counts as reading every key. The reducer
    is handed one; :meth:`subset` is then what the reduction record must hold for a
    replay to read the same (docs/invariants.md I20).

    Args:
        snapshots: the snapshots to serve (not copied again).
    """

    def __init__(self, snapshots: dict[CaseRef, CaseSnapshot]) -> None:
        self._snaps = snapshots
        self._read: dict[CaseRef, None] = {}
        self._all = False

    def read(self) -> tuple[CaseRef, ...]:
        """Return the cases read, in first-read order (every case once the view was iterated)."""
        if self._all:
            return tuple(self._snaps)
        return tuple(self._read)

    def subset(self) -> dict[CaseRef, CaseSnapshot]:
        """Return ``{case: snapshot}`` for the cases :meth:`read` returns."""
        return {c: self._snaps[c] for c in self.read()}

    def __getitem__(self, case: CaseRef) -> CaseSnapshot:
        snap = self._snaps[case]
        self._read[case] = None
        return snap

    def __contains__(self, case: object) -> bool:
        present = case in self._snaps
        if present:
            self._read[case] = None  # type: ignore[index]
        return present

    def __iter__(self) -> Iterator[CaseRef]:
        self._all = True
        return iter(self._snaps)

    def __len__(self) -> int:
        self._all = True
        return len(self._snaps)
