"""Properties of the serving core: replay after any event, tokens, ids (hypothesis)."""

from __future__ import annotations

import anyio
from hypothesis import given
from hypothesis import strategies as st

from turnframe.core.ids import Actor
from turnframe.core.turn import (
    InteractionResponse,
    TurnInput,
    TurnPhase,
    TurnPhaseChanged,
    TurnStep,
)
from turnframe.runtime.steps.accept import input_json
from turnframe.serve.errors import problem
from turnframe.serve.http import CsrfTokens
from turnframe.serve.live import BufferedTurn
from turnframe.serve.models import ClickInputView, TurnView
from turnframe.serve.reload import input_view
from turnframe.serve.views import turn_id_for_key

EVENT = st.one_of(
    st.builds(TurnStep, turn_id=st.just("t"), name=st.sampled_from(["segment", "route"])),
    st.builds(TurnPhaseChanged, turn_id=st.just("t"), phase=st.sampled_from(list(TurnPhase))),
)


async def _collect(live: BufferedTurn, after: int) -> list[int]:
    return [item.seq async for item in live.events(after)]


@given(events=st.lists(EVENT, max_size=12), after=st.integers(-3, 20), failed=st.booleans())
def test_a_reconnect_after_any_event_gets_exactly_the_rest(
    events: list[object], after: int, failed: bool
) -> None:
    live = BufferedTurn("t", "c")
    for event in events:
        live.push(event)  # type: ignore[arg-type]
    if failed:
        live.fail(problem(503, "turn_interrupted", "Turn interrupted", "retry"))
    else:
        live.finish(TurnView(turn_id="t", conversation_id="c", blocks=[], inspect="/i"))
    every = anyio.run(_collect, live, 0)
    assert every == list(range(1, len(every) + 1))
    assert len(every) == len(events) + (1 if failed else 2)
    assert anyio.run(_collect, live, after) == every[max(after, 0) :]
    live.push(events[0] if events else TurnStep(turn_id="t", name="late"))
    assert anyio.run(_collect, live, 0) == every  # nothing after the end


@given(token=st.text(max_size=80))
def test_only_minted_tokens_pass(token: str) -> None:
    tokens = CsrfTokens(b"k" * 32)
    assert tokens.valid(tokens.mint())
    assert not tokens.valid(token)
    assert not CsrfTokens(b"other-secret-16b").valid(tokens.mint())


@given(
    account=st.text(min_size=1, max_size=10),
    users=st.lists(st.text(min_size=1, max_size=10), min_size=2, max_size=2, unique=True),
    key=st.text(min_size=1, max_size=20),
)
def test_keys_name_turns_per_user(account: str, users: list[str], key: str) -> None:
    one, two = (Actor(account=account, user=u) for u in users)
    assert turn_id_for_key(one, key) == turn_id_for_key(one, key)
    assert turn_id_for_key(one, key) != turn_id_for_key(two, key)


def test_a_stream_of_a_stopping_server_ends_with_not_ready_or_finishes() -> None:
    from turnframe.serve.routes import frames

    async def run() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
        held = BufferedTurn("t", "c")
        held.push(TurnStep(turn_id="t", name="segment"))
        stopping = anyio.Event()
        stopping.set()
        cut = [f async for f in frames(held, 0, stopping, grace=0.05)]
        done = BufferedTurn("t", "c")
        stopping2 = anyio.Event()
        stopping2.set()

        async def finish_soon() -> None:
            await anyio.sleep(0.02)
            done.finish(TurnView(turn_id="t", conversation_id="c", blocks=[], inspect="/i"))

        async with anyio.create_task_group() as group:
            group.start_soon(finish_soon)
            whole = [f async for f in frames(done, 0, stopping2, grace=2)]
        return cut, whole

    cut, whole = anyio.run(run)
    assert [f["event"] for f in cut] == ["step", "error"]
    assert "id" not in cut[-1] and '"not_ready"' in cut[-1]["data"]
    assert [f["event"] for f in whole] == ["blocks", "finished"]  # finished within the grace


TEXT = st.one_of(st.none(), st.text(max_size=40))
CLICK = st.one_of(
    st.none(),
    st.builds(
        InteractionResponse,
        interaction_id=st.text(min_size=1, max_size=12),
        option_id=st.text(min_size=1, max_size=6),
        expected_revision=st.one_of(st.none(), st.integers(0, 9)),
    ),
)


@given(text=TEXT, click=CLICK, label=st.one_of(st.none(), st.text(max_size=12)))
def test_the_reloaded_input_is_what_the_runtime_stored(
    text: str | None, click: InteractionResponse | None, label: str | None
) -> None:
    """``serve/reload.py`` reads the very JSON ``accept.input_json`` stores, losing nothing."""
    actor = Actor(account="acme", user="maria")
    stored = input_json(TurnInput(text=text, interaction_response=click), actor, None)
    labels = (
        {} if click is None or label is None else {(click.interaction_id, click.option_id): label}
    )
    shown = input_view(stored, labels)
    if text is None and click is None:
        assert shown is None
        return
    assert shown is not None and shown.text == text
    if click is None:
        assert shown.click is None
    else:
        assert shown.click == ClickInputView(
            interaction_id=click.interaction_id, option_id=click.option_id, label=label
        )
