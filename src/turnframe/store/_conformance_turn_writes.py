"""Conformance tests of a turn's folded writes (docs/adr/0024-four-writes-per-turn.md).

:meth:`TurnStore.commit_plan` stores a turn's plan and runs every commit of it in one
transaction, each commit atomic on its own; :meth:`TurnStore.finish_turn` records the
reply with phase ``replied``; the replay record is stored in two parts, each once, and
read back as one. Mixed into :class:`~turnframe.store.conformance.StoreConformance`.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from turnframe.core.interactions import InteractionResolution, InteractionStatus
from turnframe.store._conformance_base import ConformanceBase, sample_blocks
from turnframe.store.base import (
    CommitResult,
    InteractionCas,
    JSONText,
    PlanCommit,
    TurnReply,
    TurnStore,
)
from turnframe.store.errors import (
    IdempotencyKeyReused,
    InteractionAlreadyResolved,
    RevisionConflict,
    StoreError,
)

__all__ = ["TurnWriteTests"]


class TurnWriteTests(ConformanceBase):
    """The plan write, the reply write and the two-part replay record."""

    def test_commit_plan_stores_the_plan_and_commits_each_request_alone(self) -> None:
        """The plan and phase ``committing`` persist with the commits; a refusal is per request.

        A stale request is refused in its slot while the requests before and after it
        commit; a journaled key replays; nothing of the refused one is written.
        """

        async def body(store: TurnStore) -> None:
            turn = await store.begin_turn(self.turn(1))
            await store.commit(self.request("k0", case=self.case(2)))
            outcome = await store.commit_plan(
                PlanCommit(
                    turn_id=turn.turn_id,
                    account=self.account,
                    plan={"batches": ["b1", "b2", "b3"]},
                    requests=(
                        self.request("k1"),
                        self.request("k2", case=self.case(2), expected=7),
                        self.request("k0", case=self.case(2)),
                        self.request("k3", case=self.case(3)),
                    ),
                )
            )
            first, stale, again, last = outcome.commits
            assert isinstance(first, CommitResult) and first.revision == 1
            assert not first.replayed
            assert isinstance(stale, RevisionConflict) and stale.actual == 1
            assert isinstance(again, CommitResult) and again.replayed
            assert isinstance(last, CommitResult) and last.revision == 1
            assert outcome.closed == ()
            got = await store.get_turn(self.account, turn.turn_id)
            assert got is not None
            assert (got.phase, got.data) == ("committing", {"batches": ["b1", "b2", "b3"]})
            row = await store.load_case(self.case(2))
            assert row is not None and row.revision == 1
            assert len(await store.case_events(self.case(2))) == 2
            assert await store.lookup_command(self.account, f"{self.ns}-k2") is None
            for n in (1, 3):
                assert len(await store.case_events(self.case(n))) == 2

        self.run(body)

    def test_commit_plan_takes_the_plan_as_its_json_text(self) -> None:
        """A plan handed over as :class:`JSONText` reads back as the object its text holds.

        The runtime hands the plan over this way (``turn_writes.plan_text``); a store that
        wrote the text as a JSON string, or kept the ``str``, could not resume the turn.
        """

        async def body(store: TurnStore) -> None:
            turn = await store.begin_turn(self.turn(1))
            text = JSONText('{"batches":["b1"],"note":"ção \\u2028","n":12345678901234567890}')
            await store.commit_plan(
                PlanCommit(turn_id=turn.turn_id, account=self.account, plan=text)
            )
            got = await store.get_turn(self.account, turn.turn_id)
            assert got is not None and got.phase == "committing"
            assert got.data == {"batches": ["b1"], "note": "ção \u2028", "n": 12345678901234567890}

        self.run(body)

    def test_commit_plan_refusals_are_returned_not_raised(self) -> None:
        """A lost card compare-and-set and a reused key are returned in their slots."""

        async def body(store: TurnStore) -> None:
            turn = await store.begin_turn(self.turn(1))
            await store.commit(self.request("k1"))
            card = await store.create_interaction(self.card(1, case=self.case()))
            await store.close_interaction(self.resolve(card, "no"))
            outcome = await store.commit_plan(
                PlanCommit(
                    turn_id=turn.turn_id,
                    account=self.account,
                    requests=(
                        self.request("k2", expected=1, interaction=self.resolve(card)),
                        self.request("k1", request_hash="other"),
                    ),
                )
            )
            lost, reused = outcome.commits
            assert isinstance(lost, InteractionAlreadyResolved)
            assert isinstance(reused, IdempotencyKeyReused)
            row = await store.load_case(self.case())
            assert row is not None and row.revision == 1
            stored = await store.get_turn(self.account, turn.turn_id)
            assert stored is not None and stored.phase == "received"  # no plan given

        self.run(body)

    def test_commit_plan_closes_only_open_cards_of_its_account(self) -> None:
        """Each close compare-and-sets in the same transaction and reports whether it closed."""

        async def body(store: TurnStore) -> None:
            turn = await store.begin_turn(self.turn(1))
            open_card = await store.create_interaction(self.card(1, case=None))
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
                        option_id="", turn_id=turn.turn_id, user="u1", results={}
                    ),
                )

            outcome = await store.commit_plan(
                PlanCommit(
                    turn_id=turn.turn_id,
                    account=self.account,
                    plan={},
                    requests=(self.request("k1"),),
                    closes=tuple(withdrawal(c.id) for c in (open_card, done, theirs)),
                )
            )
            assert outcome.closed == (True, False, False)
            got = await store.get_interaction(self.account, self.conversation, open_card.id)
            assert got is not None
            assert (got.status, got.resolution) == (
                InteractionStatus.WITHDRAWN,
                withdrawal(open_card.id).resolution,
            )
            kept = await store.get_interaction(self.account, self.conversation, done.id)
            assert kept is not None and kept.status is InteractionStatus.RESOLVED
            foreign = await store.get_interaction(self.other_account, self.conversation, theirs.id)
            assert foreign is not None and foreign.status is InteractionStatus.OPEN

        self.run(body)

    def test_commit_plan_for_a_missing_turn_writes_nothing(self) -> None:
        """A plan for no turn raises StoreError and none of its commits is written."""

        async def body(store: TurnStore) -> None:
            with pytest.raises(StoreError):
                await store.commit_plan(
                    PlanCommit(
                        turn_id=f"missing-{self.ns}",
                        account=self.account,
                        plan={"x": 1},
                        requests=(self.request("k1"),),
                    )
                )
            assert await store.load_case(self.case()) is None
            assert await store.lookup_command(self.account, f"{self.ns}-k1") is None

        self.run(body)

    def test_finish_turn_records_reply_results_replay_and_state_together(self) -> None:
        """Phase ``replied``, data, blocks, the replay rest and the conversation state persist.

        The replay record reads back as its first part with the second part's keys over it.
        """

        async def body(store: TurnStore) -> None:
            turn = await store.begin_turn(self.turn(1))
            await store.commit_plan(
                PlanCommit(
                    turn_id=turn.turn_id,
                    account=self.account,
                    plan={"batches": []},
                    replay={"turn_id": turn.turn_id, "calls": [1, 2], "results": "planned"},
                )
            )
            blocks = sample_blocks(self.case())
            await store.finish_turn(
                TurnReply(
                    turn_id=turn.turn_id,
                    account=self.account,
                    conversation_id=self.conversation,
                    blocks=blocks,
                    data={"results": [{"item_id": "a1"}]},
                    replay={"results": {"a1": "committed"}, "events": ["ev-1"]},
                    conversation_state={"standing": True},
                )
            )
            got = await store.get_turn(self.account, turn.turn_id)
            assert got is not None
            assert (got.phase, got.data) == ("replied", {"results": [{"item_id": "a1"}]})
            assert await store.load_reply(self.account, turn.turn_id) == blocks
            assert await store.unfinished_turns(self.account) == []
            assert await store.load_replay(self.account, turn.turn_id) == {
                "turn_id": turn.turn_id,
                "calls": [1, 2],
                "results": {"a1": "committed"},
                "events": ["ev-1"],
            }
            assert await store.get_conversation_state(self.account, self.conversation) == {
                "standing": True
            }
            # A whole record saved later replaces both parts.
            await store.save_replay(self.account, turn.turn_id, {"whole": 1})
            assert await store.load_replay(self.account, turn.turn_id) == {"whole": 1}

        self.run(body)

    def test_finish_turn_of_a_missing_turn_writes_nothing(self) -> None:
        """No such turn: StoreError, and neither the state nor the replay rest is written."""

        async def body(store: TurnStore) -> None:
            missing = f"missing-{self.ns}"
            with pytest.raises(StoreError):
                await store.finish_turn(
                    TurnReply(
                        turn_id=missing,
                        account=self.account,
                        conversation_id=self.conversation,
                        blocks=(),
                        data={},
                        replay={"x": 1},
                        conversation_state={"standing": True},
                    )
                )
            assert await store.get_conversation_state(self.account, self.conversation) == {}
            assert await store.load_replay(self.account, missing) is None

        self.run(body)

    def test_begin_turn_numbers_after_the_highest_seq(self) -> None:
        """``seq`` continues after the conversation's last turn, also past many turns."""

        async def body(store: TurnStore) -> None:
            seqs = [(await store.begin_turn(self.turn(n))).seq for n in range(1, 26)]
            assert seqs == list(range(1, 26))

        self.run(body)
