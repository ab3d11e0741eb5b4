"""Concurrency tests of the store conformance suite (docs/architecture.md "Stores").

Each race starts :attr:`~ConformanceBase.races` tasks behind one start signal, on one
store and, when the store can open peers (:meth:`~ConformanceBase.make_peer_store`), on
as many connections to one database.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
import pytest

from turnframe.core.interactions import InteractionStatus
from turnframe.store._conformance_base import ConformanceBase
from turnframe.store.base import CommitResult, TurnStore
from turnframe.store.errors import InteractionAlreadyResolved, RevisionConflict, StoreError

__all__ = ["RaceTests"]

T = TypeVar("T")
Attempt = Callable[[int, TurnStore], Awaitable[T]]


class RaceTests(ConformanceBase):
    """Races every store must settle: one winner, the rest refused or replayed."""

    async def _race(
        self, store: TurnStore, peers: bool, attempt: Attempt[T]
    ) -> list[T | StoreError] | None:
        """Run ``attempt(i, store_i)`` for every task at once; ``None`` if peers are missing."""
        stores: list[TurnStore] = [store]
        extra: list[TurnStore] = []
        try:
            if peers:
                for _ in range(self.races - 1):
                    peer = await self.make_peer_store(store)
                    if peer is None:
                        return None
                    extra.append(peer)
                stores += extra
            outcomes: list[T | StoreError | None] = [None] * self.races
            start = anyio.Event()

            async def one(i: int) -> None:
                await start.wait()
                try:
                    outcomes[i] = await attempt(i, stores[i % len(stores)])
                except StoreError as exc:
                    outcomes[i] = exc

            async with anyio.create_task_group() as tg:
                for i in range(self.races):
                    tg.start_soon(one, i)
                await anyio.sleep(0)
                start.set()
        finally:
            for peer in extra:
                await self.dispose_store(peer)
        return [o for o in outcomes if o is not None]

    def _run_race(self, body: Callable[[TurnStore], Awaitable[bool]]) -> None:
        ran: list[bool] = []

        async def wrapped(store: TurnStore) -> None:
            ran.append(await body(store))

        self.run(wrapped)
        if not all(ran):
            pytest.skip("the store cannot open a second connection to its database")

    # different commands at one expected revision --------------------------------
    def _commits_at_one_revision(self, peers: bool) -> None:
        async def body(store: TurnStore) -> bool:
            first = await store.commit(self.request("seed"))

            async def attempt(i: int, s: TurnStore) -> CommitResult:
                return await s.commit(self.request(f"k{i}", expected=1, state={"winner": i}))

            outcomes = await self._race(store, peers, attempt)
            if outcomes is None:
                return False
            wins = [o for o in outcomes if isinstance(o, CommitResult)]
            assert len(outcomes) == self.races and len(wins) == 1, outcomes
            assert all(isinstance(o, RevisionConflict) for o in outcomes if o is not wins[0])
            row = await store.load_case(self.case())
            assert row is not None and row.revision == 2
            assert list(await store.case_events(self.case())) == [*first.events, *wins[0].events]
            return True

        self._run_race(body)

    def test_race_commits_at_one_revision(self) -> None:
        """Concurrent commits at one expected revision: one wins, the rest conflict (I12)."""
        self._commits_at_one_revision(peers=False)

    def test_race_commits_at_one_revision_across_connections(self) -> None:
        """As above, each task on its own connection to one database."""
        self._commits_at_one_revision(peers=True)

    # the same command delivered many times --------------------------------------
    def _same_command(self, peers: bool) -> None:
        async def body(store: TurnStore) -> bool:
            async def attempt(i: int, s: TurnStore) -> CommitResult:
                return await s.commit(self.request("same"))

            outcomes = await self._race(store, peers, attempt)
            if outcomes is None:
                return False
            assert all(isinstance(o, CommitResult) for o in outcomes), outcomes
            results = [o for o in outcomes if isinstance(o, CommitResult)]
            assert sum(not r.replayed for r in results) == 1
            first = results[0]
            assert all(
                (r.revision, r.events, r.outbox_ids)
                == (first.revision, first.events, first.outbox_ids)
                for r in results
            )
            assert len(await store.case_events(self.case())) == 2
            mine = [m for m in await store.outbox_messages() if m.case == self.case()]
            assert len(mine) == 1
            return True

        self._run_race(body)

    def test_race_same_command(self) -> None:
        """One command delivered concurrently: one write, every caller the same outcome (I13)."""
        self._same_command(peers=False)

    def test_race_same_command_across_connections(self) -> None:
        """As above, each task on its own connection to one database."""
        self._same_command(peers=True)

    # many clicks on one card ----------------------------------------------------
    def _close_one_card(self, peers: bool) -> None:
        async def body(store: TurnStore) -> bool:
            card = await store.create_interaction(self.card(1, case=self.case()))

            async def attempt(i: int, s: TurnStore) -> bool:
                return await s.close_interaction(self.resolve(card, f"o{i}"))

            outcomes = await self._race(store, peers, attempt)
            if outcomes is None:
                return False
            assert outcomes.count(True) == 1 and outcomes.count(False) == self.races - 1
            got = await store.get_interaction(self.account, self.conversation, card.id)
            assert got is not None and got.resolution is not None
            assert got.status is InteractionStatus.RESOLVED
            assert got.resolution.option_id == f"o{outcomes.index(True)}"
            return True

        self._run_race(body)

    def test_race_close_interaction(self) -> None:
        """Concurrent clicks on one card: exactly one compare-and-set wins (I16)."""
        self._close_one_card(peers=False)

    def test_race_close_interaction_across_connections(self) -> None:
        """As above, each task on its own connection to one database."""
        self._close_one_card(peers=True)

    def _commits_resolving_one_card(self, peers: bool) -> None:
        async def body(store: TurnStore) -> bool:
            card = await store.create_interaction(self.card(1, case=None))

            async def attempt(i: int, s: TurnStore) -> CommitResult:
                cas = self.resolve(card, f"o{i}")
                return await s.commit(self.request(f"k{i}", case=self.case(i), interaction=cas))

            outcomes = await self._race(store, peers, attempt)
            if outcomes is None:
                return False
            wins = [i for i, o in enumerate(outcomes) if isinstance(o, CommitResult)]
            assert len(wins) == 1, outcomes
            losers = [o for o in outcomes if not isinstance(o, CommitResult)]
            assert all(isinstance(o, InteractionAlreadyResolved) for o in losers)
            assert [r.case for r in await store.list_cases(self.account)] == [self.case(wins[0])]
            got = await store.get_interaction(self.account, self.conversation, card.id)
            assert got is not None and got.resolution is not None
            assert got.resolution.option_id == f"o{wins[0]}"
            return True

        self._run_race(body)

    def test_race_commits_resolving_one_card(self) -> None:
        """Concurrent commits resolving one card: one commits, the rest roll back (I16)."""
        self._commits_resolving_one_card(peers=False)

    def test_race_commits_resolving_one_card_across_connections(self) -> None:
        """As above, each task on its own connection to one database."""
        self._commits_resolving_one_card(peers=True)
