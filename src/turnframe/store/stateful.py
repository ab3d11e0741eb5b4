"""A Hypothesis stateful test of any :class:`TurnStore` against a naive reference model.

docs/architecture.md "Stores": rules create cases, commit at the current or a stale
revision, redeliver a command (same key, same hash), reuse a key for another body,
resolve a card inside a commit, and commit through a
:class:`~turnframe.store.faults.FaultInjectingStore` that fails before the commit or
after it ("performed, then the acknowledgement was lost", settled by looking the key
up, never by a blind retry). After every step the store must agree with the model:
revisions, gapless per-case event revisions, outbox rows, journal entries, card states.

The model is deliberately not the in-memory store: dictionaries of expected revisions,
event counts and outcomes, so the in-memory store is tested too. Use it as::

    from turnframe.store.stateful import store_machine

    TestMemoryMachine = store_machine(lambda: InMemoryStore()).TestCase

Hypothesis does not explore thread interleavings; the races are in the conformance
suite. Needs ``hypothesis`` (a dev dependency), like the conformance suite needs pytest.
"""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
)

from turnframe.core.events import EventDraft
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import (
    Interaction,
    InteractionKind,
    InteractionOption,
    InteractionResolution,
    InteractionSpec,
    InteractionStatus,
    OptionMeaning,
)
from turnframe.core.workflow import OutboxDraft
from turnframe.store.base import CommitRequest, CommitResult, InteractionCas, TurnStore
from turnframe.store.errors import (
    IdempotencyKeyReused,
    InjectedFault,
    InteractionAlreadyResolved,
    RevisionConflict,
)
from turnframe.store.faults import FaultInjectingStore, FaultPlan

__all__ = ["ReferenceModel", "store_machine"]

T = TypeVar("T")


@dataclass
class _Sent:
    case: CaseRef
    key: str
    body: str
    result: CommitResult


@dataclass
class ReferenceModel:
    """What the store must hold.

    Per case its revision, events and outbox rows; per key the first outcome; per card
    its status.
    """

    revisions: dict[CaseRef, int] = field(default_factory=dict)
    events: dict[CaseRef, list[int]] = field(default_factory=dict)  # one revision per event
    outbox: dict[CaseRef, int] = field(default_factory=dict)
    journal: dict[str, _Sent] = field(default_factory=dict)
    cards: dict[str, tuple[CaseRef, str]] = field(default_factory=dict)

    def revision(self, case: CaseRef) -> int:
        """Return the case's expected revision (0: absent)."""
        return self.revisions.get(case, 0)

    def apply(self, case: CaseRef, n_events: int, n_outbox: int) -> None:
        """Record one committed batch on ``case``."""
        rev = self.revision(case) + 1
        self.revisions[case] = rev
        self.events.setdefault(case, []).extend([rev] * n_events)
        self.outbox[case] = self.outbox.get(case, 0) + n_outbox


def store_machine(
    make_store: Callable[[], Awaitable[TurnStore]],
    *,
    max_examples: int = 30,
    steps: int = 25,
) -> type[RuleBasedStateMachine]:
    """Return a state machine class testing stores made by ``make_store`` (async factory)."""

    class StoreMachine(RuleBasedStateMachine):
        cases = Bundle("cases")
        sent = Bundle("sent")
        cards = Bundle("cards")

        def __init__(self) -> None:
            super().__init__()
            self.loop = asyncio.new_event_loop()
            self.plan = FaultPlan()
            self.inner = self.run(make_store())
            self.store = FaultInjectingStore(self.inner, self.plan)
            self.model = ReferenceModel()
            self.ns = uuid.uuid4().hex[:10]
            self.account = f"acct-{self.ns}"
            self.counter = itertools.count(1)

        def run(self, coro: Awaitable[T]) -> T:
            return self.loop.run_until_complete(coro)

        def teardown(self) -> None:
            try:
                self.run(self.inner.close())
                self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            finally:
                self.loop.close()

        # builders ----------------------------------------------------------------
        def _request(
            self,
            case: CaseRef,
            expected: int,
            key: str,
            body: str,
            n_events: int,
            n_outbox: int,
            interaction: InteractionCas | None = None,
        ) -> CommitRequest:
            return CommitRequest(
                account=self.account,
                case=case,
                expected_revision=expected,
                state={"body": body, "rev": expected + 1},
                events=tuple(
                    EventDraft(type="x.changed", data={"body": body, "n": i}, operation="x.op")
                    for i in range(n_events)
                ),
                outbox=tuple(OutboxDraft(topic="x.out", payload={"i": i}) for i in range(n_outbox)),
                idempotency_key=f"{self.ns}-{key}",
                request_hash=f"{key}:{body}",
                turn_id=f"turn-{self.ns}",
                operations=("x.op",),
                interaction=interaction,
            )

        def _commit(
            self,
            case: CaseRef,
            expected: int,
            body: str,
            n_events: int,
            n_outbox: int,
            interaction: InteractionCas | None = None,
        ) -> _Sent | None:
            key = f"k{next(self.counter)}"
            request = self._request(case, expected, key, body, n_events, n_outbox, interaction)
            card_state = None
            if interaction is not None:
                card_state = self.model.cards.get(interaction.interaction_id)
            if expected != self.model.revision(case):
                try:
                    self.run(self.store.commit(request))
                except RevisionConflict as exc:
                    assert exc.actual == self.model.revision(case)
                    return None
                raise AssertionError("a stale commit was accepted")
            if card_state is not None and card_state[1] != "open":
                try:
                    self.run(self.store.commit(request))
                except InteractionAlreadyResolved:
                    return None
                raise AssertionError("a closed card was resolved again")
            result = self.run(self.store.commit(request))
            assert not result.replayed
            assert result.revision == expected + 1
            assert len(result.events) == n_events and len(result.outbox_ids) == n_outbox
            self.model.apply(case, n_events, n_outbox)
            if interaction is not None and card_state is not None:
                self.model.cards[interaction.interaction_id] = (card_state[0], "resolved")
            sent = _Sent(case=case, key=key, body=body, result=result)
            self.model.journal[key] = sent
            return sent

        # rules ---------------------------------------------------------------------
        @rule(target=cases, n_events=st.integers(1, 3), n_outbox=st.integers(0, 2))
        def create_case(self, n_events: int, n_outbox: int) -> CaseRef:
            case = CaseRef("x", f"{self.ns}-{next(self.counter)}")
            self._commit(case, 0, "create", n_events, n_outbox)
            return case

        @rule(
            target=sent,
            case=cases,
            stale=st.sampled_from([0, 0, 1, -1]),
            body=st.sampled_from(["a", "b"]),
            n_events=st.integers(1, 3),
            n_outbox=st.integers(0, 2),
        )
        def commit(self, case: CaseRef, stale: int, body: str, n_events: int, n_outbox: int) -> Any:
            expected = max(0, self.model.revision(case) - stale)
            return self._commit(case, expected, body, n_events, n_outbox)

        @precondition(lambda self: bool(self.model.journal))
        @rule(data=st.data())
        def redeliver(self, data: st.DataObject) -> None:
            key = data.draw(st.sampled_from(sorted(self.model.journal)))
            sent = self.model.journal[key]
            rev = sent.result.revision
            n_events, n_outbox = len(sent.result.events), len(sent.result.outbox_ids)
            request = self._request(sent.case, rev - 1, key, sent.body, n_events, n_outbox)
            again = self.run(self.store.commit(request))
            assert again.replayed
            assert (again.revision, again.events, again.outbox_ids) == (
                rev,
                sent.result.events,
                sent.result.outbox_ids,
            )

        @precondition(lambda self: bool(self.model.journal))
        @rule(data=st.data())
        def reuse_key_for_another_body(self, data: st.DataObject) -> None:
            key = data.draw(st.sampled_from(sorted(self.model.journal)))
            sent = self.model.journal[key]
            case = sent.case
            request = self._request(case, self.model.revision(case), key, sent.body + "!", 1, 0)
            try:
                self.run(self.store.commit(request))
            except IdempotencyKeyReused:
                return
            raise AssertionError("a journaled key was reused for another body")

        @rule(case=cases, fault=st.sampled_from(["commit", "commit.ack_lost"]))
        def commit_with_fault(self, case: CaseRef, fault: str) -> None:
            key = f"k{next(self.counter)}"
            expected = self.model.revision(case)
            request = self._request(case, expected, key, "faulty", 1, 1)
            self.plan.arm(fault)
            try:
                self.run(self.store.commit(request))
            except InjectedFault as exc:
                assert exc.performed == (fault == "commit.ack_lost")
            else:
                raise AssertionError("the armed fault did not fire")
            # Settle by looking the key up, exactly as the runtime must (I13, I19).
            entry = self.run(self.store.lookup_command(self.account, request.idempotency_key))
            if fault == "commit":
                assert entry is None
                return
            assert entry is not None and entry.result.revision == expected + 1
            self.model.apply(case, 1, 1)
            self.model.journal[key] = _Sent(case=case, key=key, body="faulty", result=entry.result)

        @rule(target=cards, case=cases)
        def open_card(self, case: CaseRef) -> str:
            card_id = f"card-{self.ns}-{next(self.counter)}"
            spec = InteractionSpec(
                kind=InteractionKind.CONFIRM,
                case=case,
                prompt="?",
                options=(InteractionOption(id="yes", label="Yes", meaning=OptionMeaning.CONFIRM),),
                bound_revision=self.model.revision(case),
            )
            self.run(
                self.store.create_interaction(
                    Interaction(
                        id=card_id,
                        account=self.account,
                        conversation_id=f"conv-{self.ns}",
                        turn_id=f"turn-{self.ns}",
                        spec=spec,
                        payload_hash=spec.payload_hash(),
                    )
                )
            )
            for other, (other_case, status) in list(self.model.cards.items()):
                if other_case == case and status == "open":
                    self.model.cards[other] = (other_case, "superseded")  # I5
            self.model.cards[card_id] = (case, "open")
            return card_id

        @rule(card=cards)
        def resolve_card_in_commit(self, card: str) -> None:
            case, _ = self.model.cards[card]
            cas = InteractionCas(
                interaction_id=card,
                status=InteractionStatus.RESOLVED,
                resolution=InteractionResolution(
                    option_id="yes", turn_id=f"turn-{self.ns}", user="u1"
                ),
            )
            self._commit(case, self.model.revision(case), "card", 1, 0, cas)

        # invariants ----------------------------------------------------------------
        @invariant()
        def store_matches_model(self) -> None:
            outbox = self.run(self.inner.outbox_messages())
            for case, revision in self.model.revisions.items():
                row = self.run(self.inner.load_case(case))
                assert row is not None and row.revision == revision
                events = self.run(self.inner.case_events(case))
                assert [e.revision for e in events] == self.model.events[case]
                assert sum(1 for m in outbox if m.case == case) == self.model.outbox.get(case, 0)
            for key, sent in self.model.journal.items():
                entry = self.run(self.inner.lookup_command(self.account, f"{self.ns}-{key}"))
                assert entry is not None and entry.result == sent.result
            for card, (_, status) in self.model.cards.items():
                got = self.run(self.inner.get_interaction(self.account, f"conv-{self.ns}", card))
                assert got is not None and got.status.value == status

    StoreMachine.TestCase.settings = settings(
        max_examples=max_examples, stateful_step_count=steps, deadline=None
    )
    return StoreMachine
