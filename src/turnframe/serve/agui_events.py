"""A Turnframe turn's stream said as AG-UI events (docs/agui.md "From a turn to AG-UI events").

Pure mapping, no I/O but the :class:`~turnframe.serve.state.LiveTurn` it reads:

- each runtime step (:class:`~turnframe.core.turn.TurnStep`) is a ``STEP_STARTED`` and
  ``STEP_FINISHED`` pair under the step's name (a step is reported once it is decided);
- each phase is a ``CUSTOM`` event ``turnframe.phase``;
- after commit, each reply block is one assistant text message (``TEXT_MESSAGE_START`` /
  ``CONTENT`` / ``END``, id ``{turn_id}.{index}``) whose words are the block's ``text``
  and whose start event carries the block itself under ``metadata.turnframe.block``;
- a card (an ``interaction`` block) is, after its question's text message, a call of the
  frontend tool ``turnframe_card`` (``TOOL_CALL_START`` / ``ARGS`` / ``END``) whose
  arguments are the card: the client renders the options as buttons and answers the
  call with a tool message (:class:`~turnframe.serve.agui_input.CardAnswer`);
- the end is ``RUN_FINISHED`` with the turn's ``TurnView`` as ``result`` and the cards'
  calls as ``pendingToolCallIds``; a problem is ``RUN_ERROR`` with the problem's code.

No event carries a timestamp, so a retried run (same ``runId``, the same turn) streams
the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    CustomEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    Tool,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from pydantic import TypeAdapter

from turnframe.core.interactions import InteractionKind
from turnframe.core.reply import InteractionBlock, ReplyBlock
from turnframe.core.turn import TurnBlocks, TurnPhaseChanged, TurnStep
from turnframe.serve.failures import problem_for
from turnframe.serve.models import Problem, TurnView
from turnframe.serve.state import LiveTurn

__all__ = [
    "CARD_TOOL",
    "CARD_TOOL_NAME",
    "METADATA_KEY",
    "PHASE_EVENT",
    "block_events",
    "card_arguments",
    "card_call_id",
    "message_id",
    "phase_event",
    "refused_run",
    "run_error",
    "run_events",
    "run_finished",
    "run_started",
    "step_events",
]

CARD_TOOL_NAME = "turnframe_card"
"""The frontend tool a card is a call of: the client shows it and answers it with a click."""

PHASE_EVENT = "turnframe.phase"
"""The ``CUSTOM`` event name of a turn's phase (value ``{turn_id, phase}``)."""

METADATA_KEY = "turnframe"
"""The key under which events carry Turnframe's own data in ``metadata``."""

_BLOCK: TypeAdapter[ReplyBlock] = TypeAdapter(ReplyBlock)

CARD_TOOL = Tool(
    name=CARD_TOOL_NAME,
    description=(
        "Show the user a Turnframe card: its prompt and one button per option. Answer the "
        "call with a tool message whose content is the JSON object "
        '{"interaction_id", "option_id", "expected_revision"} of the option clicked.'
    ),
    parameters={
        "type": "object",
        "properties": {
            "interaction_id": {"type": "string"},
            "kind": {"type": "string", "enum": [kind.value for kind in InteractionKind]},
            "prompt": {"type": "string"},
            "options": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}, "label": {"type": "string"}},
                    "required": ["id", "label"],
                },
            },
            "expected_revision": {"type": ["integer", "null"]},
        },
        "required": ["interaction_id", "kind", "prompt", "options", "expected_revision"],
    },
)
"""The card tool as a client may declare it in ``RunAgentInput.tools`` (docs/agui.md)."""


def message_id(turn_id: str, index: int) -> str:
    """Return the text message id of the turn's block ``index`` (from 0): stable per turn."""
    return f"{turn_id}.{index}"


def card_call_id(turn_id: str, index: int) -> str:
    """Return the ``turnframe_card`` call id of the card that is the turn's block ``index``."""
    return f"{turn_id}.{index}.card"


def _meta(**values: Any) -> dict[str, Any]:
    return {METADATA_KEY: values}


def run_started(thread_id: str, run_id: str, turn_id: str | None) -> RunStartedEvent:
    """Return the ``RUN_STARTED`` that opens a run (``metadata.turnframe.turn_id``, if any)."""
    return RunStartedEvent(
        thread_id=thread_id,
        run_id=run_id,
        protocol_version=PROTOCOL_VERSION,
        metadata=_meta(turn_id=turn_id) if turn_id is not None else None,
    )


def phase_event(event: TurnPhaseChanged) -> CustomEvent:
    """Return the ``CUSTOM`` ``turnframe.phase`` event of a phase change."""
    return CustomEvent(name=PHASE_EVENT, value={"turn_id": event.turn_id, "phase": event.phase})


def step_events(event: TurnStep) -> list[BaseEvent]:
    """Return the ``STEP_STARTED``/``STEP_FINISHED`` pair of a decided step.

    The step's ``detail`` and ``text`` (its words, when narration is on) ride on
    ``metadata.turnframe`` of both events.
    """
    meta = _meta(turn_id=event.turn_id, detail=event.detail, text=event.text)
    return [
        StepStartedEvent(step_name=event.name, metadata=meta),
        StepFinishedEvent(step_name=event.name, metadata=meta),
    ]


def card_arguments(block: InteractionBlock) -> dict[str, Any]:
    """Return a card's ``turnframe_card`` arguments (the :data:`CARD_TOOL` parameters)."""
    return {
        "interaction_id": block.interaction_id,
        "kind": block.interaction_kind,
        "prompt": block.prompt,
        "options": [{"id": o.id, "label": o.label} for o in block.options],
        "expected_revision": block.expected_revision,
    }


def block_events(turn_id: str, index: int, block: ReplyBlock) -> list[BaseEvent]:
    """Return the events of the turn's reply block ``index`` (from 0).

    Args:
        turn_id: the turn.
        index: the block's position in the reply.
        block: the block, as committed.

    Returns:
        One assistant text message (``START`` with ``metadata.turnframe`` = the turn id
        and the block as JSON, one ``CONTENT`` with the block's text when it has any,
        ``END``); for a card, then its ``turnframe_card`` call (``START`` naming the
        message as parent, one ``ARGS`` with the arguments as JSON, ``END``).
    """
    mid = message_id(turn_id, index)
    out: list[BaseEvent] = [
        TextMessageStartEvent(
            message_id=mid,
            role="assistant",
            metadata=_meta(turn_id=turn_id, block=_BLOCK.dump_python(block, mode="json")),
        )
    ]
    if block.text:
        out.append(TextMessageContentEvent(message_id=mid, delta=block.text))
    out.append(TextMessageEndEvent(message_id=mid))
    if isinstance(block, InteractionBlock):
        call = card_call_id(turn_id, index)
        arguments = json.dumps(card_arguments(block), ensure_ascii=False, separators=(",", ":"))
        out += [
            ToolCallStartEvent(
                tool_call_id=call, tool_call_name=CARD_TOOL_NAME, parent_message_id=mid
            ),
            ToolCallArgsEvent(tool_call_id=call, delta=arguments),
            ToolCallEndEvent(tool_call_id=call),
        ]
    return out


def run_finished(
    thread_id: str, run_id: str, view: TurnView, pending: list[str]
) -> RunFinishedEvent:
    """Return the ``RUN_FINISHED`` of a replied turn.

    Args:
        thread_id: the conversation.
        run_id: the run.
        view: the turn's reply (``result``, as ``GET /v1/turns/{turn_id}`` returns it).
        pending: the card calls the run made, in order (``pendingToolCallIds``).
    """
    return RunFinishedEvent(
        thread_id=thread_id,
        run_id=run_id,
        result=view.model_dump(mode="json"),
        outcome=RunFinishedSuccessOutcome(pending_tool_call_ids=pending or None),
    )


def run_error(problem: Problem) -> RunErrorEvent:
    """Return the ``RUN_ERROR`` of a problem: its ``code``, its ``detail`` and the whole body.

    The event holds nothing but the problem, so two equal problems (an unknown card and
    another account's, both :func:`~turnframe.serve.errors.not_found`) are the same bytes.
    """
    return RunErrorEvent(
        message=problem.detail,
        code=problem.code,
        metadata=_meta(problem=problem.model_dump(mode="json")),
    )


async def refused_run(thread_id: str, run_id: str, problem: Problem) -> AsyncIterator[BaseEvent]:
    """Yield the run of a turn that could not start: ``RUN_STARTED`` then ``RUN_ERROR``."""
    yield run_started(thread_id, run_id, None)
    yield run_error(problem)


async def run_events(live: LiveTurn, *, thread_id: str, run_id: str) -> AsyncIterator[BaseEvent]:
    """Yield the AG-UI run of a started turn, from ``RUN_STARTED`` to its end.

    Reads ``live.events()`` from the start (a retried run streams the whole turn again),
    then ``live.result()`` for the ``RUN_FINISHED`` result. A :class:`Problem` in the
    stream, or a failure of either, ends the run with ``RUN_ERROR`` carrying the
    problem :func:`~turnframe.serve.failures.problem_for` gives it (``turn_interrupted``,
    ``store_unavailable``, ``internal_error``...); the turn runs on the server
    regardless of its stream.
    """
    yield run_started(thread_id, run_id, live.turn_id)
    pending: list[str] = []
    try:
        async for item in live.events():
            event = item.event
            if isinstance(event, Problem):
                yield run_error(event)
                return
            if isinstance(event, TurnPhaseChanged):
                yield phase_event(event)
            elif isinstance(event, TurnStep):
                for out in step_events(event):
                    yield out
            elif isinstance(event, TurnBlocks):
                for index, block in enumerate(event.blocks):
                    if isinstance(block, InteractionBlock):
                        pending.append(card_call_id(event.turn_id, index))
                    for out in block_events(event.turn_id, index, block):
                        yield out
            else:
                break
        view = await live.result()
    except Exception as exc:
        yield run_error(problem_for(exc).problem)
        return
    yield run_finished(thread_id, run_id, view, pending)
