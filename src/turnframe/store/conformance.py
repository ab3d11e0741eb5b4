"""The store conformance suite: what every :class:`TurnStore` must pass.

See docs/architecture.md "Stores".

Ship-with-the-protocol tests in the style of eventsourcing's recorder test cases
(docs/architecture.md "Stores"). An adopter proves a store by subclassing
:class:`StoreConformance` in a ``test_*.py`` module::

    from turnframe.store.conformance import StoreConformance

    class TestMyStore(StoreConformance):
        async def make_store(self):
            return await MyStore.connect(DSN)

The base class is not named ``Test…``, so pytest collects only the subclass. Tests are
plain synchronous methods that drive async bodies with :func:`anyio.run`, so no async
pytest plugin is needed. Each test draws fresh account, conversation, case and key ids,
so a store over a shared database needs no reset between tests.

The suite covers conversations, turns, replies, interactions (I5, I16), the atomic
commit (I12 revision check, I13 idempotency, I16 card compare-and-set, all-or-nothing),
outbox, events, replay records, a turn's folded writes (plan with its commits, the
reply, docs/adr/0024-four-writes-per-turn.md), the paged listing and word-search index
(:mod:`turnframe.store.search`) and concurrent races on one store and, through
:meth:`StoreConformance.make_peer_store`, across connections to one database.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from turnframe.core.ids import JSONObject
from turnframe.core.interactions import (
    InteractionKind,
    InteractionOption,
    InteractionResolution,
    InteractionStatus,
    OptionMeaning,
)
from turnframe.core.workflow import OutboxDraft
from turnframe.store._conformance_base import sample_blocks
from turnframe.store._conformance_races import RaceTests
from turnframe.store._conformance_search import SearchTests
from turnframe.store._conformance_turn_writes import TurnWriteTests
from turnframe.store._conformance_versions import VersionTests
from turnframe.store.base import InteractionCas, TurnStore
from turnframe.store.errors import (
    IdempotencyKeyReused,
    InteractionAlreadyResolved,
    RevisionConflict,
    StoreError,
    TurnIdTaken,
)

__all__ = ["StoreConformance"]


class StoreConformance(TurnWriteTests, RaceTests, SearchTests, VersionTests):
    """Base class of the conformance suite; subclass it as ``Test<YourStore>``.

    Override :meth:`make_store` (abstract: return a fresh open store); optionally
    :meth:`make_peer_store` (a second store on the same database, enabling the
    cross-connection races; ``None`` skips them) and :meth:`dispose_store` (default:
    ``close()``). Test bodies run under :func:`anyio.run` on the asyncio backend, so the
    suite runs under plain pytest with ``filterwarnings = error``.

    Attributes:
        tmp_path: a fresh directory for this test (pytest's ``tmp_path``).
        ns: a fresh id prefix for this test.
        races: how many tasks each concurrency test starts (default 8).
    """

    # conversations and turns -------------------------------------------------------------
    def test_conversation_state_round_trip(self) -> None:
        """A conversation's state round-trips, is copied both ways and is account-scoped."""

        async def body(store: TurnStore) -> None:
            assert await store.get_conversation_state(self.account, self.conversation) == {}
            state: JSONObject = {"standing": ["do_not_submit"], "n": 1, "nested": {"a": None}}
            await store.put_conversation_state(self.account, self.conversation, state)
            state["n"] = 99  # the caller's dict is not aliased
            got = await store.get_conversation_state(self.account, self.conversation)
            assert got == {"standing": ["do_not_submit"], "n": 1, "nested": {"a": None}}
            got["n"] = 7
            assert (await store.get_conversation_state(self.account, self.conversation))["n"] == 1
            await store.put_conversation_state(self.account, self.conversation, {"n": 2})
            assert await store.get_conversation_state(self.account, self.conversation) == {"n": 2}
            assert await store.get_conversation_state(self.other_account, self.conversation) == {}

        self.run(body)

    def test_turn_begin_seq_phase_get_unfinished(self) -> None:
        """Turns get a per-conversation ``seq``; phases persist; unfinished list.

        See docs/architecture.md "Failures".
        """

        async def body(store: TurnStore) -> None:
            first = await store.begin_turn(self.turn(1))
            second = await store.begin_turn(self.turn(2))
            elsewhere = await store.begin_turn(self.turn(3, conversation=f"c2-{self.ns}"))
            assert (first.seq, second.seq, elsewhere.seq) == (1, 2, 1)
            assert first == replace(self.turn(1), seq=1)
            assert await store.get_turn(self.account, first.turn_id) == first
            await store.set_turn_phase(first.turn_id, "committing", {"plan": ["a1"]})
            await store.set_turn_phase(first.turn_id, "committed")
            got = await store.get_turn(self.account, first.turn_id)
            assert got is not None
            assert (got.phase, got.data) == ("committed", {"plan": ["a1"]})
            await store.set_turn_phase(second.turn_id, "replied", {})
            unfinished = [t.turn_id for t in await store.unfinished_turns(self.account)]
            assert unfinished == [first.turn_id, elsewhere.turn_id]
            everyone = [t.turn_id for t in await store.unfinished_turns()]
            assert first.turn_id in everyone and second.turn_id not in everyone
            with pytest.raises(StoreError):
                await store.set_turn_phase(f"missing-{self.ns}", "replied")
            with pytest.raises(TurnIdTaken):
                await store.begin_turn(self.turn(1))  # duplicate id

        self.run(body)

    def test_a_taken_turn_id_is_refused_whoever_holds_it(self) -> None:
        """``begin_turn`` with a taken id raises TurnIdTaken and writes nothing (ADR 0016).

        The same error for the account's own turn and another account's, naming neither
        account; the held turn is unchanged and stays invisible to the other account.
        """

        async def body(store: TurnStore) -> None:
            mine = await store.begin_turn(self.turn(1))
            for account in (self.account, self.other_account):
                again = replace(self.turn(1, account=account), input={"text": "other"})
                with pytest.raises(TurnIdTaken) as caught:
                    await store.begin_turn(again)
                assert caught.value.turn_id == mine.turn_id
                assert self.account not in str(caught.value)
            assert await store.get_turn(self.account, mine.turn_id) == mine
            assert await store.get_turn(self.other_account, mine.turn_id) is None
            assert await store.unfinished_turns(self.other_account) == []
            fresh = await store.begin_turn(self.turn(2))
            assert fresh.seq == 2  # the refused attempts took no seq

        self.run(body)

    def test_turn_of_another_account_is_invisible(self) -> None:
        """Another account sees neither the turn nor its reply."""

        async def body(store: TurnStore) -> None:
            mine = await store.begin_turn(self.turn(1))
            await store.save_reply(mine.turn_id, sample_blocks(self.case()))
            assert await store.get_turn(self.other_account, mine.turn_id) is None
            assert await store.load_reply(self.other_account, mine.turn_id) is None
            assert await store.unfinished_turns(self.other_account) == []
            assert await store.conversation_replies(self.other_account, self.conversation) == []

        self.run(body)

    def test_reply_blocks_persisted_exactly(self) -> None:
        """Every block kind comes back equal, in order, per turn (docs/architecture.md "Claims")."""

        async def body(store: TurnStore) -> None:
            one = await store.begin_turn(self.turn(1))
            two = await store.begin_turn(self.turn(2))
            three = await store.begin_turn(self.turn(3))
            blocks = sample_blocks(self.case())
            assert await store.load_reply(self.account, one.turn_id) is None
            await store.save_reply(three.turn_id, blocks[:2])
            await store.save_reply(one.turn_id, blocks)
            assert await store.load_reply(self.account, one.turn_id) == blocks
            assert {type(b).__name__ for b in blocks} >= {
                "AnswerBlock",
                "TransitionBlock",
                "ReceiptBlock",
                "NoticeBlock",
                "InteractionBlock",
                "ArtifactBlock",
            }
            replies = await store.conversation_replies(self.account, self.conversation)
            assert list(replies) == [(one.turn_id, blocks), (three.turn_id, blocks[:2])]
            assert two.turn_id not in [t for t, _ in replies]
            with pytest.raises(StoreError):
                await store.save_reply(f"missing-{self.ns}", blocks)

        self.run(body)

    # interactions -------------------------------------------------------------------------
    def test_interaction_create_get_open_close(self) -> None:
        """A card is created with ``seq``, read back, closed once by compare-and-set (I16)."""

        async def body(store: TurnStore) -> None:
            card = self.card(1, case=self.case())
            created = await store.create_interaction(card)
            assert created == replace(card, seq=1)
            assert created.payload_hash == created.spec.payload_hash()
            got = await store.get_interaction(self.account, self.conversation, card.id)
            assert got == created
            assert got is not None and got.spec.payload_hash() == card.payload_hash
            assert list(await store.open_interactions(self.account, self.conversation)) == [got]
            cas = self.resolve(card)
            assert await store.close_interaction(cas) is True
            assert await store.close_interaction(self.resolve(card, "no")) is False
            closed = await store.get_interaction(self.account, self.conversation, card.id)
            assert closed is not None
            assert (closed.status, closed.resolution) == (cas.status, cas.resolution)
            assert await store.open_interactions(self.account, self.conversation) == []
            missing = replace(cas, interaction_id=f"missing-{self.ns}")
            assert await store.close_interaction(missing) is False
            second = await store.create_interaction(self.card(2, case=None))
            assert second.seq == 2
            with pytest.raises(StoreError):
                await store.create_interaction(self.card(2, case=None))  # duplicate id

        self.run(body)

    def test_foreign_card_is_indistinguishable_from_missing(self) -> None:
        """A card of another account or conversation reads as ``None``, like a missing one (I16)."""

        async def body(store: TurnStore) -> None:
            card = await store.create_interaction(self.card(1, case=self.case()))
            assert (
                await store.get_interaction(self.other_account, self.conversation, card.id) is None
            )
            assert await store.get_interaction(self.account, f"x-{self.ns}", card.id) is None
            assert await store.get_interaction(self.account, self.conversation, "nope") is None
            assert await store.open_interactions(self.other_account, self.conversation) == []

        self.run(body)

    def test_one_blocking_interaction_per_case(self) -> None:
        """A new open card on a case supersedes the case's open card, in any conversation (I5)."""

        async def body(store: TurnStore) -> None:
            first = await store.create_interaction(self.card(1, case=self.case(1)))
            other_case = await store.create_interaction(self.card(2, case=self.case(2)))
            caseless = await store.create_interaction(self.card(3, case=None))
            second = await store.create_interaction(self.card(4, case=self.case(1)))
            old = await store.get_interaction(self.account, self.conversation, first.id)
            assert old is not None and old.status is InteractionStatus.SUPERSEDED
            open_ids = [
                i.id for i in await store.open_interactions(self.account, self.conversation)
            ]
            assert open_ids == [other_case.id, caseless.id, second.id]
            assert [c.seq for c in (first, other_case, caseless, second)] == [1, 2, 3, 4]
            # a card elsewhere (another conversation) on the same case also displaces it (I5)
            await store.create_interaction(
                self.card(5, case=self.case(1), conversation=f"c2-{self.ns}")
            )
            again = await store.get_interaction(self.account, self.conversation, second.id)
            assert again is not None and again.status is InteractionStatus.SUPERSEDED

        self.run(body)

    # the atomic commit ----------------------------------------------------------------------
    def test_commit_creates_case_and_appends_events(self) -> None:
        """A commit at revision 0 creates the case at 1 and appends events (I12, I15)."""

        async def body(store: TurnStore) -> None:
            case = self.case()
            assert await store.load_case(case) is None
            first = await store.commit(self.request("k1"))
            assert (first.case, first.revision, first.replayed) == (case, 1, False)
            assert [e.revision for e in first.events] == [1, 1]
            assert [e.type for e in first.events] == ["trip.renamed", "trip.extra_added"]
            assert all(e.case == case and e.turn_id == f"turn-{self.ns}-1" for e in first.events)
            assert all(e.idempotency_key == f"{self.ns}-k1" for e in first.events)
            assert len({e.id for e in first.events}) == 2 and all(e.id for e in first.events)
            row = await store.load_case(case)
            assert row is not None
            assert (row.account, row.revision, row.state["rev"]) == (self.account, 1, 1)
            second = await store.commit(self.request("k2", expected=1, state={"rev": 2}))
            assert second.revision == 2 and {e.revision for e in second.events} == {2}
            assert not {e.id for e in first.events} & {e.id for e in second.events}
            assert list(await store.case_events(case)) == [*first.events, *second.events]
            entry = await store.lookup_command(self.account, f"{self.ns}-k1")
            assert entry is not None and entry.result == first
            assert entry.request_hash == "hash-k1"
            assert await store.lookup_command(self.other_account, f"{self.ns}-k1") is None

        self.run(body)

    def test_stale_revision_conflicts_and_writes_nothing(self) -> None:
        """A stale expected revision is a RevisionConflict and writes nothing anywhere (I12)."""

        async def body(store: TurnStore) -> None:
            case = self.case()
            await store.commit(self.request("k1"))
            card = await store.create_interaction(self.card(1, case=case))
            before = await self.snapshot(store, case, "stale")
            for expected in (0, 5):
                request = self.request("stale", expected=expected, interaction=self.resolve(card))
                with pytest.raises(RevisionConflict) as caught:
                    await store.commit(request)
                assert (caught.value.case, caught.value.expected) == (case, expected)
                assert caught.value.actual == 1
                assert caught.value.failure.retryable is True
                assert await self.snapshot(store, case, "stale") == before
            missing = self.case(9)
            with pytest.raises(RevisionConflict) as caught:
                await store.commit(self.request("k9", case=missing, expected=3))
            assert caught.value.actual == 0
            assert await store.load_case(missing) is None

        self.run(body)

    def test_commit_to_another_accounts_case_is_refused(self) -> None:
        """A commit to another account's case is refused, not retryable, and writes nothing."""

        async def body(store: TurnStore) -> None:
            case = self.case()
            await store.commit(self.request("k1"))
            before = await self.snapshot(store, case, "k1")
            for expected in (0, 1):
                intruder = self.request("k2", expected=expected, account=self.other_account)
                with pytest.raises(RevisionConflict) as caught:
                    await store.commit(intruder)
                assert caught.value.failure.retryable is False
            assert await self.snapshot(store, case, "k1") == before
            assert await store.lookup_command(self.other_account, f"{self.ns}-k2") is None
            assert await store.list_cases(self.other_account) == []

        self.run(body)

    def test_same_key_same_hash_replays_original(self) -> None:
        """The same key and hash replay the original result and write nothing (I13)."""

        async def body(store: TurnStore) -> None:
            case = self.case()
            original = await store.commit(self.request("k1"))
            before = await self.snapshot(store, case, "k1")
            again = await store.commit(self.request("k1"))  # stale revision: still a replay
            assert again == replace(original, replayed=True)
            assert await self.snapshot(store, case, "k1") == before

        self.run(body)

    def test_same_key_other_hash_is_refused(self) -> None:
        """The same key with another request hash is IdempotencyKeyReused, writing nothing (I13)."""

        async def body(store: TurnStore) -> None:
            case = self.case()
            await store.commit(self.request("k1"))
            before = await self.snapshot(store, case, "k1")
            with pytest.raises(IdempotencyKeyReused):
                await store.commit(self.request("k1", expected=1, request_hash="other"))
            assert await self.snapshot(store, case, "k1") == before

        self.run(body)

    def test_keys_are_scoped_per_account(self) -> None:
        """Idempotency keys are scoped per account (I13)."""

        async def body(store: TurnStore) -> None:
            mine = await store.commit(self.request("k1"))
            theirs = await store.commit(
                self.request("k1", case=self.case(2), account=self.other_account)
            )
            assert not mine.replayed and not theirs.replayed
            assert [r.case for r in await store.list_cases(self.other_account)] == [self.case(2)]

        self.run(body)

    def test_commit_resolves_card_or_rolls_back(self) -> None:
        """A commit resolves its card in the same transaction, or rolls back entirely (I16)."""

        async def body(store: TurnStore) -> None:
            case = self.case()
            await store.commit(self.request("k1"))
            card = await store.create_interaction(self.card(1, case=case))
            cas = self.resolve(card)
            await store.commit(self.request("k2", expected=1, interaction=cas))
            got = await store.get_interaction(self.account, self.conversation, card.id)
            assert got is not None
            assert (got.status, got.resolution) == (InteractionStatus.RESOLVED, cas.resolution)
            before = await self.snapshot(store, case, "k3")
            with pytest.raises(InteractionAlreadyResolved) as caught:
                await store.commit(self.request("k3", expected=2, interaction=cas))
            assert caught.value.status == InteractionStatus.RESOLVED.value
            assert await self.snapshot(store, case, "k3") == before
            missing = replace(cas, interaction_id=f"missing-{self.ns}")
            with pytest.raises(InteractionAlreadyResolved) as caught:
                await store.commit(self.request("k3", expected=2, interaction=missing))
            assert caught.value.status == "missing"
            assert await self.snapshot(store, case, "k3") == before
            mine = await store.create_interaction(self.card(2, case=None))
            theirs = self.request(
                "k3", case=self.case(2), account=self.other_account, interaction=self.resolve(mine)
            )
            with pytest.raises(InteractionAlreadyResolved):
                await store.commit(theirs)  # another account's card is as good as missing
            assert await store.load_case(self.case(2)) is None
            assert await store.get_interaction(self.account, self.conversation, mine.id) == mine

        self.run(body)

    def test_commit_withdraws_open_cards_in_its_transaction(self) -> None:
        """A commit withdraws the still-open cards it names, atomically (ADR 0012).

        A refused commit withdraws nothing; a named card that is no longer open (or is
        another account's) keeps its status and resolution and does not fail the commit.
        """

        async def body(store: TurnStore) -> None:
            await store.commit(self.request("k1"))
            open_card = await store.create_interaction(self.card(1, case=self.case(3)))
            done = await store.create_interaction(self.card(2, case=None))
            await store.close_interaction(self.resolve(done))
            theirs = await store.create_interaction(
                replace(self.card(3, case=None), account=self.other_account)
            )

            def withdrawal(card_id: str) -> InteractionCas:
                return InteractionCas(
                    interaction_id=card_id,
                    status=InteractionStatus.WITHDRAWN,
                    resolution=InteractionResolution(
                        option_id="",
                        turn_id=f"turn-{self.ns}-3",
                        user="u1",
                        results={f"{card_id}:a1": "superseded"},
                    ),
                )

            cards = (open_card.id, done.id, theirs.id)
            stale = self.request("k2", expected=5, withdraw=tuple(withdrawal(c) for c in cards))
            with pytest.raises(RevisionConflict):
                await store.commit(stale)
            got = await store.get_interaction(self.account, self.conversation, open_card.id)
            assert got is not None and got.status is InteractionStatus.OPEN
            request = replace(stale, expected_revision=1)
            await store.commit(request)
            got = await store.get_interaction(self.account, self.conversation, open_card.id)
            assert got is not None
            assert (got.status, got.resolution) == (
                InteractionStatus.WITHDRAWN,
                withdrawal(open_card.id).resolution,
            )
            kept = await store.get_interaction(self.account, self.conversation, done.id)
            assert kept is not None
            assert (kept.status, kept.resolution) == (
                InteractionStatus.RESOLVED,
                self.resolve(done).resolution,
            )
            foreign = await store.get_interaction(self.other_account, self.conversation, theirs.id)
            assert foreign is not None and foreign.status is InteractionStatus.OPEN
            assert await store.open_interactions(self.account, self.conversation) == []

        self.run(body)

    def test_outbox_written_with_commit(self) -> None:
        """Outbox rows are written by the commit that produced them and take status changes."""

        async def body(store: TurnStore) -> None:
            case = self.case()
            drafts = (OutboxDraft(topic="a.one", payload={"n": 1}), OutboxDraft(topic="a.two"))
            result = await store.commit(self.request("k1", outbox=drafts))
            assert len(result.outbox_ids) == 2 and len(set(result.outbox_ids)) == 2
            mine = [m for m in await store.outbox_messages() if m.case == case]
            assert [(m.id, m.topic, m.payload, m.status) for m in mine] == [
                (result.outbox_ids[0], "a.one", {"n": 1}, "pending"),
                (result.outbox_ids[1], "a.two", {}, "pending"),
            ]
            await store.set_outbox_status(result.outbox_ids[0], "delivered")
            delivered = [m.id for m in await store.outbox_messages("delivered") if m.case == case]
            pending = [m.id for m in await store.outbox_messages("pending") if m.case == case]
            assert (delivered, pending) == ([result.outbox_ids[0]], [result.outbox_ids[1]])
            with pytest.raises(StoreError):
                await store.set_outbox_status(f"missing-{self.ns}", "delivered")

        self.run(body)

    def test_events_by_id(self) -> None:
        """Events are found by id in journal order; unknown ids are left out (I15)."""

        async def body(store: TurnStore) -> None:
            first = await store.commit(self.request("k1"))
            second = await store.commit(self.request("k2", expected=1))
            wanted = [second.events[0].id, "nope", first.events[1].id]
            assert list(await store.events_by_id(wanted)) == [first.events[1], second.events[0]]
            assert list(await store.events_by_id([])) == []

        self.run(body)

    def test_list_cases_scoped_by_account(self) -> None:
        """``list_cases`` returns only the account's cases, in creation order."""

        async def body(store: TurnStore) -> None:
            await store.commit(self.request("k2", case=self.case(2)))
            await store.commit(self.request("k1", case=self.case(1)))
            await store.commit(self.request("k3", case=self.case(3), account=self.other_account))
            mine = await store.list_cases(self.account)
            assert [r.case for r in mine] == [self.case(2), self.case(1)]
            assert all(r.account == self.account and r.revision == 1 for r in mine)
            assert [r.case for r in await store.list_cases(self.other_account)] == [self.case(3)]

        self.run(body)

    def test_replay_record_round_trip(self) -> None:
        """Replay records round-trip, are replaced on save and are account-scoped (I20)."""

        async def body(store: TurnStore) -> None:
            turn_id = f"turn-{self.ns}-1"
            assert await store.load_replay(self.account, turn_id) is None
            record: JSONObject = {"steps": [{"task": "route", "verdict": "ok"}], "n": 1.5}
            await store.save_replay(self.account, turn_id, record)
            assert await store.load_replay(self.account, turn_id) == record
            assert await store.load_replay(self.other_account, turn_id) is None
            await store.save_replay(self.account, turn_id, {"steps": []})
            assert await store.load_replay(self.account, turn_id) == {"steps": []}

        self.run(body)

    def test_card_options_survive(self) -> None:
        """Server-owned options survive unchanged, and so does the payload hash (I7)."""

        async def body(store: TurnStore) -> None:
            option = InteractionOption(
                id="t2", label="Porto", meaning=OptionMeaning.SELECT, case=self.case(2)
            )
            card = self.card(1, case=None, kind=InteractionKind.SELECT_TARGET, options=(option,))
            await store.create_interaction(card)
            got = await store.get_interaction(self.account, self.conversation, card.id)
            assert got is not None and got.spec.options == (option,)
            assert got.spec.payload_hash() == card.payload_hash

        self.run(body)

    def test_close_is_idempotent(self) -> None:
        """``close`` may be called twice."""

        async def body(store: TurnStore) -> None:
            await store.close()
            await store.close()

        self.run(body)
