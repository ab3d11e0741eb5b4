"""The span tree of a three-act travel turn (docs/telemetry.md "Spans")."""

from __future__ import annotations

from collections import Counter

import anyio
from opentelemetry.sdk.trace import ReadableSpan
from telemetry_kit import Recorded, travel

from turnframe.core.results import ResultStatus


def _tree(spans: list[ReadableSpan]) -> dict[int | None, list[ReadableSpan]]:
    children: dict[int | None, list[ReadableSpan]] = {}
    for span in sorted(spans, key=lambda s: s.start_time or 0):
        parent = span.parent.span_id if span.parent else None
        children.setdefault(parent, []).append(span)
    return children


def test_a_three_act_turn_is_one_turn_span_over_its_steps(recorded: Recorded) -> None:
    async def run() -> None:
        app = await travel(recorded.telemetry)
        result = await app.three_acts()
        assert {r.status for r in result.results.values()} == {ResultStatus.COMMITTED}

    anyio.run(run)
    spans = recorded.spans()
    tree = _tree(spans)
    (root,) = tree[None]
    assert root.name == "turnframe.turn"
    assert root.attributes["turnframe.turn.id"] == "t-1"
    assert root.attributes["turnframe.turn.phase"] == "replied"
    assert root.attributes["turnframe.turn.entry"] == "run"
    assert list(root.attributes["turnframe.workflows"]) == ["trip"]
    assert list(root.attributes["turnframe.operations"]) == [
        "trip.add_extra",
        "trip.rename",
        "trip.set_extra_payer",
    ]
    steps = [s.name.removeprefix("turnframe.step.") for s in tree[root.context.span_id]]
    assert steps == [
        "accept",
        "load",
        "domain_check",
        "brief",
        "understand",
        *["resolve", "look_up"] * 3,
        "load",
        "reduce",
        "policy",
        "resolve",
        "journal",
        "commit",
        "persist_cards",
        "reproject",
        "compose",
        "record",
    ]
    by_name = {s.name: s for s in tree[root.context.span_id]}
    # every step span carries its turn and step names, and belongs to the turn's trace
    for span in tree[root.context.span_id]:
        assert span.attributes["turnframe.turn.id"] == "t-1"
        assert span.attributes["turnframe.step"] == span.name.removeprefix("turnframe.step.")
        assert span.context.trace_id == root.context.trace_id
    commit = by_name["turnframe.step.commit"]
    batches = tree[commit.context.span_id]
    assert [b.name for b in batches] == ["turnframe.commit.batch"] * 2  # one per trip
    assert Counter(b.attributes["turnframe.commit.outcome"] for b in batches) == {"committed": 2}
    assert sorted(tuple(b.attributes["turnframe.operations"]) for b in batches) == [
        ("trip.add_extra", "trip.set_extra_payer"),
        ("trip.rename",),
    ]
    (receipts,) = tree[by_name["turnframe.step.reproject"].context.span_id]
    assert receipts.name == "turnframe.receipts"
    composed = [s.name for s in tree[by_name["turnframe.step.compose"].context.span_id]]
    assert composed == ["turnframe.reply.words", "turnframe.claim_guard"]
    # nothing else hangs anywhere: every span is the root, a step, or one of the above
    assert len(spans) == 1 + len(steps) + len(batches) + 1 + 2


def test_a_failing_step_marks_its_span_and_the_turn_with_the_error_class(
    recorded: Recorded,
) -> None:
    class Broken(Exception):
        pass

    async def run() -> None:
        app = await travel(recorded.telemetry)

        async def fail(brief: object) -> object:
            raise Broken("a message that may quote the user: Lisbon")

        app.runtime.understander.understand = fail  # type: ignore[union-attr,method-assign]
        try:
            await app.three_acts()
        except Broken:
            return
        raise AssertionError("the turn should have failed")

    anyio.run(run)
    spans = {s.name: s for s in recorded.spans()}
    for name in ("turnframe.step.understand", "turnframe.turn"):
        assert str(spans[name].attributes["error.type"]).endswith("<locals>.Broken")
        assert not spans[name].status.is_ok
        assert spans[name].events == ()  # the message is never recorded


def test_an_interrupted_turn_says_the_phase_it_is_left_in(recorded: Recorded) -> None:
    from turnframe.runtime.errors import TurnInterrupted
    from turnframe.store.errors import StoreError

    async def run() -> str:
        app = await travel(recorded.telemetry)

        async def down(write: object) -> object:
            raise StoreError("the disk is gone")

        app.runtime.store.commit_plan = down  # type: ignore[method-assign,assignment]
        try:
            await app.three_acts()
        except TurnInterrupted as exc:
            return exc.phase
        raise AssertionError("the turn should have been interrupted")

    phase = anyio.run(run)
    (turn,) = [s for s in recorded.spans() if s.name == "turnframe.turn"]
    assert turn.attributes["turnframe.turn.phase"] == phase == "received"
    assert turn.attributes["error.type"] == "turnframe.runtime.errors.TurnInterrupted"
