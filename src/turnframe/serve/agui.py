"""``POST /v1/agui``: an AG-UI run is one Turnframe turn (docs/agui.md).

The body is the AG-UI SDK's ``RunAgentInput``: ``threadId`` names the conversation,
``runId`` is the turn's idempotency key (a retried run is the same turn, never a second),
and the run's last message is what the turn reads: a user message is its text, a tool
message answering a ``turnframe_card`` call its click (:mod:`turnframe.serve.agui_input`). Who acts comes only from the server's
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

from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from turnframe.serve.agui_events import refused_run, run_events
from turnframe.serve.agui_input import check_ids, turn_request
from turnframe.serve.errors import problem
from turnframe.serve.failures import problem_for
from turnframe.serve.http import read_json, require_csrf
from turnframe.serve.routes import api, authenticate, state_of, tokens_of

__all__ = ["MIN_BODY_BYTES", "acceptable", "agui_endpoint"]

MIN_BODY_BYTES = 1024 * 1024
"""The smallest body an AG-UI run may have, in bytes, whatever ``max_body_bytes`` says.

An AG-UI client sends the whole conversation with every run, so its body grows with the
conversation while a ``/v1`` turn's stays one message; the text read is still held to
``max_message_bytes``. A client may send only the run's last message (all that is
read) to stay far below it.
"""


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


async def _encoded(encoder: EventEncoder, events: AsyncIterator[BaseEvent]) -> AsyncIterator[str]:
    async for event in events:
        yield encoder.encode(event)


@api
async def agui_endpoint(request: Request) -> Response:
    """Run one AG-UI run as a turn and stream it (docs/agui.md "The endpoint").

    Args:
        request: ``POST /v1/agui`` with a ``RunAgentInput`` JSON body; the app's
            ``state.turnframe`` is a :class:`~turnframe.serve.state.ServeState`.

    Returns:
        200 ``text/event-stream`` (the encoder's content type) of AG-UI events, from
        ``RUN_STARTED`` to ``RUN_FINISHED`` or ``RUN_ERROR``; or, for a request refused
        before any turn starts, its problem-details JSON: the authenticator's refusal
        (401/403), ``csrf_failed`` 403 (a browser's request without the session's
        token), ``not_acceptable`` 406 (``Accept`` admits no ``text/event-stream``),
        ``unsupported_media_type`` 415, ``body_too_large`` 413 (over
        :data:`MIN_BODY_BYTES` or the server's ``max_body_bytes``, the larger), ``message_not_utf8``
        400, ``invalid_request`` 422 (not a ``RunAgentInput``, nothing new to run, a
        tool message that is not a card answer), ``message_too_large`` 413.
    """
    state = state_of(request)
    actor = await authenticate(request)
    require_csrf(request, tokens_of(request))
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
    limit = max(state.config.max_body_bytes, MIN_BODY_BYTES)
    run = check_ids(await read_json(request, RunAgentInput, limit))
    turn = turn_request(run, max_message_bytes=state.config.max_message_bytes)
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    events: AsyncIterator[BaseEvent]
    try:
        live = await state.service.start_turn(
            actor, run.thread_id, turn, idempotency_key=run.run_id
        )
    except Exception as exc:
        refusal = problem_for(exc)
        events = refused_run(run.thread_id, run.run_id, refusal.problem)
        headers.update(refusal.headers)
    else:
        events = run_events(live, thread_id=run.thread_id, run_id=run.run_id)
    return StreamingResponse(_encoded(encoder, events), media_type=media_type, headers=headers)
