from typing import Any

import anyio
import pytest

from turnframe.core.acts import SemanticAct
from turnframe.core.events import EventDraft
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import Interaction, InteractionKind, InteractionSpec, PendingAct
from turnframe.core.workflow import OutboxDraft
from turnframe.store import CommitRequest, InMemoryStore, StoreError, TurnStore
from turnframe.store.conformance import StoreConformance


class TestInMemoryStore(StoreConformance):
    async def make_store(self) -> TurnStore:
        return InMemoryStore()


def test_ids_are_deterministic_and_nothing_is_aliased() -> None:
    async def main() -> None:
        store = InMemoryStore()
        case = CaseRef("trip", "t1")
        data: dict[str, Any] = {"names": ["a"]}
        draft = EventDraft(type="x", data=data, operation="o")
        first = await store.commit(
            CommitRequest(
                account="a",
                case=case,
                expected_revision=0,
                state={"s": [1]},
                events=(draft, draft),
                outbox=(OutboxDraft(topic="t"),),
                idempotency_key="k1",
                request_hash="h",
                turn_id="t",
            )
        )
        assert [e.id for e in first.events] == ["ev-1", "ev-2"]
        assert first.outbox_ids == ("ob-1",)
        data["names"].append("mutated")
        returned: Any = first.events[0].data
        returned["names"].append("mutated too")
        assert [e.data for e in await store.case_events(case)] == [{"names": ["a"]}] * 2
        row = await store.load_case(case)
        assert row is not None
        state: Any = row.state
        state["s"].append(2)
        again = await store.load_case(case)
        assert again is not None and again.state == {"s": [1]}

        args = {"date": "friday"}
        spec = InteractionSpec(
            kind=InteractionKind.CONFIRM,
            case=case,
            prompt="?",
            options=(),
            pending=(PendingAct(act=SemanticAct(id="a1", operation="o", args=args)),),
        )
        card = Interaction(
            id="i1",
            account="a",
            conversation_id="c",
            turn_id="t",
            spec=spec,
            payload_hash=spec.payload_hash(),
        )
        await store.create_interaction(card)
        args["date"] = "monday"
        got = await store.get_interaction("a", "c", "i1")
        assert got is not None and got.spec.pending[0].act.args == {"date": "friday"}

    anyio.run(main)


def test_non_json_state_is_refused_before_anything_is_written() -> None:
    async def main() -> None:
        store = InMemoryStore()
        case = CaseRef("trip", "t1")
        bad = CommitRequest(
            account="a",
            case=case,
            expected_revision=0,
            state={"when": {1, 2}},  # type: ignore[dict-item]
            events=(),
            idempotency_key="k",
            request_hash="h",
            turn_id="t",
        )
        with pytest.raises(StoreError):
            await store.commit(bad)
        assert await store.load_case(case) is None
        assert await store.lookup_command("a", "k") is None

    anyio.run(main)
