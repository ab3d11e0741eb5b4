"""``POST /v1/agui``: an AG-UI run is one Turnframe turn (docs/agui.md).

The body is the AG-UI SDK's ``RunAgentInput``: ``threadId`` names the conversation,
``runId`` is the turn's idempotency key (a retried run is the same turn, never a second),
the new user message is the text and a tool message answering a ``turnframe_card`` call
is the click (:mod:`turnframe.serve.agui_input`). Who acts comes only from the server's
authenticator, never from the body. The response is the turn as AG-UI events
(:mod:`turnframe.serve.agui_events`) encoded by the SDK's ``EventEncoder``.

A request that is refused before a turn exists (not authenticated, not JSON, too large,
not a ``RunAgentInput``, nothing new to run, not acceptable) is a problem-details
response with its HTTP status. Once the request is a run, what happens to the turn is
told in the stream: a turn the service refuses to start (a card that is not the actor's,
a reused ``runId`` with other input, too many turns) is ``RUN_STARTED`` then
``RUN_ERROR`` with the problem's code.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from ag_ui.core import BaseEvent
from ag_ui.encoder import EventEncoder
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from turnframe.serve.agui_events import refused_run, run_events
from turnframe.serve.agui_input import parse_run_input, turn_request
from turnframe.serve.errors import ProblemError, problem
from turnframe.serve.state import ServeState

__all__ = ["acceptable", "agui_endpoint", "read_body"]


def acceptable(accept: str | None, media_type: str) -> bool:
    """Return whether an ``Accept`` header admits ``media_type`` (absent admits anything).

    A media range with ``q=0`` refuses; parameters other than ``q`` are ignored.
    """
    if accept is None or not accept.strip():
        return True
    kind, _, sub = media_type.partition("/")
    for item in accept.split(","):
        rng, *params = (p.strip() for p in item.split(";"))
        if not rng:
            continue
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        want_kind, _, want_sub = rng.lower().partition("/")
        if quality > 0 and want_kind in ("*", kind) and want_sub in ("*", sub):
            return True
    return False


async def read_body(request: Request, limit: int) -> bytes:
    """Return the request body of at most ``limit`` bytes.

    Raises:
        ProblemError: 415 ``unsupported_media_type`` (not ``application/json``);
            413 ``body_too_large`` (over ``limit``; read no further than that).
    """
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        raise problem(
            415,
            "unsupported_media_type",
            "Unsupported media type",
            "Send the RunAgentInput as application/json.",
        )
    too_large = problem(
        413, "body_too_large", "Body too large", f"A request body is at most {limit} bytes."
    )
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


async def _encoded(encoder: EventEncoder, events: AsyncIterator[BaseEvent]) -> AsyncIterator[str]:
    async for event in events:
        yield encoder.encode(event)


async def agui_endpoint(request: Request) -> Response:
    """Run one AG-UI run as a turn and stream it (docs/agui.md "The endpoint").

    Args:
        request: ``POST /v1/agui`` with a ``RunAgentInput`` JSON body; the app's
            ``state.turnframe`` is a :class:`~turnframe.serve.state.ServeState`.

    Returns:
        200 ``text/event-stream`` (the encoder's content type) of AG-UI events, from
        ``RUN_STARTED`` to ``RUN_FINISHED`` or ``RUN_ERROR``.

    Raises:
        ProblemError: answered as problem-details JSON before any turn starts: the
            authenticator's refusal (401/403); 415, 413 (:func:`read_body`); 422
            ``invalid_request`` (not a ``RunAgentInput``, nothing new to run, a tool
            message that is not a card answer); 413 ``message_too_large``; 406
            ``not_acceptable`` (``Accept`` admits no ``text/event-stream``).
    """
    state: ServeState = request.app.state.turnframe
    actor = await state.authenticate(request)
    accept = request.headers.get("accept")
    encoder = EventEncoder(accept=accept)  # type: ignore[arg-type]
    media_type = encoder.get_content_type()
    if not acceptable(accept, media_type):
        raise problem(
            406,
            "not_acceptable",
            "Not acceptable",
            f"This endpoint streams {media_type}; the Accept header admits none of it.",
        )
    body = await read_body(request, state.config.max_body_bytes)
    run = parse_run_input(body)
    turn = turn_request(run, max_message_bytes=state.config.max_message_bytes)
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    events: AsyncIterator[BaseEvent]
    try:
        live = await state.service.start_turn(
            actor, run.thread_id, turn, idempotency_key=run.run_id
        )
    except ProblemError as exc:
        events = refused_run(run.thread_id, run.run_id, exc.problem)
        headers.update(exc.headers)
    else:
        events = run_events(live, thread_id=run.thread_id, run_id=run.run_id)
    return StreamingResponse(_encoded(encoder, events), media_type=media_type, headers=headers)
