"""Hooks, fresh ids and record builders of the store conformance suite.

See :class:`turnframe.store.conformance.StoreConformance`, the class adopters subclass.
"""

from __future__ import annotations

import abc
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest

from turnframe.core.acts import ProposedTarget, SemanticAct
from turnframe.core.events import EventDraft, Receipt
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import (
    Interaction,
    InteractionKind,
    InteractionOption,
    InteractionResolution,
    InteractionSpec,
    InteractionStatus,
    OptionMeaning,
    PendingAct,
)
from turnframe.core.reply import (
    AnswerBlock,
    ArtifactBlock,
    InteractionBlock,
    NoticeBlock,
    OptionView,
    ReceiptBlock,
    ReplyBlock,
    TransitionBlock,
)
from turnframe.core.workflow import OutboxDraft
from turnframe.store.base import CommitRequest, InteractionCas, TurnRecord, TurnStore

__all__ = ["Body", "ConformanceBase", "sample_blocks"]

Body = Callable[[TurnStore], Awaitable[None]]
"""An async test body, run against a fresh store."""


def sample_blocks(case: CaseRef) -> tuple[ReplyBlock, ...]:
    """Return one block of every kind, with optional fields set (docs/architecture.md "Claims")."""
    return (
        AnswerBlock(question_id="q1", topic="baggage", text="23 kg.", basis="hypothetical"),
        TransitionBlock(text="Which date?", asks="date", case=case),
        ReceiptBlock(
            receipt=Receipt(
                case=case, operation="rename", text="Renamed.", event_ids=("ev-1",), locale="pt"
            )
        ),
        NoticeBlock(code="constraint.standing", text="Nothing will be submitted.", item_id="a2"),
        InteractionBlock(
            interaction_id="card-1",
            interaction_kind="confirm",
            prompt="Submit?",
            options=(OptionView(id="yes", label="Yes"), OptionView(id="no", label="No")),
            expected_revision=3,
        ),
        ArtifactBlock(name="summary.md", media_type="text/markdown", text="# Trip\n\nÜber…"),
    )


class ConformanceBase(abc.ABC):
    """Hooks and builders every conformance test uses.

    Attributes:
        tmp_path: a fresh directory for this test (pytest's ``tmp_path``).
        ns: a fresh id prefix for this test; every id the suite writes contains it, so
            a store over a shared database needs no reset between tests.
        races: how many tasks each concurrency test starts.
    """

    tmp_path: Path
    ns: str
    races: int = 8

    @pytest.fixture(autouse=True)
    def _conformance_namespace(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.ns = uuid.uuid4().hex[:12]

    # hooks ------------------------------------------------------------------------
    @abc.abstractmethod
    async def make_store(self) -> TurnStore:
        """Return a fresh, open store (it may live under :attr:`tmp_path`)."""

    async def make_peer_store(self, store: TurnStore) -> TurnStore | None:
        """Return another store on ``store``'s database (another connection), or ``None``.

        ``None`` (the default) skips the cross-connection races.
        """
        return None

    async def dispose_store(self, store: TurnStore) -> None:
        """Release a store the suite made (default: ``await store.close()``)."""
        await store.close()

    def run(self, body: Body) -> None:
        """Run ``body`` against a fresh store on the asyncio backend, then dispose of it."""

        async def main() -> None:
            store = await self.make_store()
            try:
                await body(store)
            finally:
                await self.dispose_store(store)

        anyio.run(main, backend="asyncio")

    # ids and builders ---------------------------------------------------------------
    @property
    def account(self) -> str:
        """This test's account."""
        return f"acct-{self.ns}"

    @property
    def other_account(self) -> str:
        """A second account, to prove scoping."""
        return f"other-{self.ns}"

    @property
    def conversation(self) -> str:
        """This test's conversation."""
        return f"conv-{self.ns}"

    def case(self, n: int = 1) -> CaseRef:
        """Return this test's ``n``-th case."""
        return CaseRef("trip", f"{self.ns}-{n}")

    def turn(
        self, n: int = 1, *, account: str | None = None, conversation: str | None = None
    ) -> TurnRecord:
        """Return a new turn record (``seq`` unassigned)."""
        return TurnRecord(
            turn_id=f"turn-{self.ns}-{n}",
            account=account or self.account,
            conversation_id=conversation or self.conversation,
            input={"text": f"message {n}", "attachments": []},
        )

    def card(
        self,
        n: int = 1,
        *,
        case: CaseRef | None,
        conversation: str | None = None,
        **spec_changes: Any,
    ) -> Interaction:
        """Return a new open card with a parked act (a Confirm card unless changed).

        Args:
            n: distinguishes the card's id.
            case: the case it blocks (``None``: a card on no case).
            conversation: its conversation (default: this test's).
            **spec_changes: fields of :class:`InteractionSpec` to replace.
        """
        act = SemanticAct(
            id="a1",
            operation="submit",
            target=ProposedTarget(handles=("h1",), mention="my trip"),
            args={"date": "next friday"},
            evidence={"date": "next friday"},
        )
        spec = InteractionSpec(
            kind=InteractionKind.CONFIRM,
            case=case,
            prompt="Submit the manifest?",
            options=(
                InteractionOption(id="yes", label="Submit", meaning=OptionMeaning.CONFIRM),
                InteractionOption(id="no", label="Not now", meaning=OptionMeaning.DECLINE),
            ),
            bound_revision=1,
            pending=(
                PendingAct(
                    act=act,
                    case=case,
                    record_args={} if case is None else {"trip": case},
                ),
            ),
            operations=("submit",),
        )
        spec = replace(spec, **spec_changes)
        return Interaction(
            id=f"card-{self.ns}-{n}",
            account=self.account,
            conversation_id=conversation or self.conversation,
            turn_id=f"turn-{self.ns}-1",
            spec=spec,
            payload_hash=spec.payload_hash(),
        )

    def request(
        self, key: str, *, case: CaseRef | None = None, expected: int = 0, **changes: Any
    ) -> CommitRequest:
        """Return a commit request of two events and one outbox message.

        Args:
            key: the idempotency key's suffix; the request hash is ``hash-<key>``.
            case: the case (default: :meth:`case` 1).
            expected: the expected revision.
            **changes: other :class:`CommitRequest` fields to replace.
        """
        target = case or self.case()
        request = CommitRequest(
            account=self.account,
            case=target,
            expected_revision=expected,
            state={"name": "Lisbon", "extras": [1, 2], "rev": expected + 1},
            events=(
                EventDraft(type="trip.renamed", data={"name": "Lisbon"}, operation="rename"),
                EventDraft(type="trip.extra_added", data={"extra": 2}, operation="add_extra"),
            ),
            outbox=(OutboxDraft(topic="airline.notify", payload={"trip": target.case_id}),),
            idempotency_key=f"{self.ns}-{key}",
            request_hash=f"hash-{key}",
            turn_id=f"turn-{self.ns}-1",
            operations=("rename", "add_extra"),
        )
        return replace(request, **changes)

    def resolve(self, card: Interaction, option: str = "yes") -> InteractionCas:
        """Return the compare-and-set that resolves ``card`` with ``option``."""
        return InteractionCas(
            interaction_id=card.id,
            status=InteractionStatus.RESOLVED,
            resolution=InteractionResolution(
                option_id=option, turn_id=f"turn-{self.ns}-2", user="u1", results={"a1": "done"}
            ),
        )

    async def snapshot(self, store: TurnStore, case: CaseRef, key: str) -> tuple[object, ...]:
        """Return what a refused commit must leave unchanged (I12: nothing written)."""
        return (
            await store.load_case(case),
            list(await store.case_events(case)),
            await store.lookup_command(self.account, f"{self.ns}-{key}"),
            [m for m in await store.outbox_messages() if m.case == case],
            list(await store.open_interactions(self.account, self.conversation)),
        )
