"""The ``/v1`` route handlers (docs/serving.md "Routes").

Every handler reads :class:`~turnframe.serve.state.ServeState` from
``request.app.state.turnframe``, authenticates, and answers JSON or an SSE stream; a
:class:`~turnframe.serve.errors.ProblemError` anywhere becomes its problem-details body
(:func:`problem_response`), byte-identical for the same problem.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from pydantic import TypeAdapter
from sse_starlette import EventSourceResponse
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from turnframe.core.ids import Actor
from turnframe.core.turn import TurnEvent
from turnframe.serve.errors import ProblemError, not_found, problem
from turnframe.serve.failures import problem_for
from turnframe.serve.http import CSRF_COOKIE, CsrfTokens, read_json, require_csrf
from turnframe.serve.live import BufferedTurn
from turnframe.serve.models import (
    ActorView,
    CardsView,
    Problem,
    SessionView,
    TurnRequestBody,
    TurnView,
)
from turnframe.serve.state import LiveTurn, ServeState, StreamEvent
from turnframe.serve.views import served_locales

__all__ = [
    "STATIC_DIR",
    "card",
    "cards",
    "chat_page",
    "conversation",
    "healthz",
    "inspector_page",
    "path_id",
    "problem_response",
    "session",
    "start_turn",
    "turn",
    "turn_events",
]

STATIC_DIR = Path(__file__).parent / "static"
"""The package data the pages and ``/static`` are served from."""

PROBLEM_MEDIA = "application/problem+json"
_EVENT: TypeAdapter[Any] = TypeAdapter(TurnEvent)

Handler = Callable[[Request], Awaitable[Response]]


def problem_response(error: ProblemError) -> Response:
    """Return ``error`` as problem-details JSON with its status and headers."""
    body = error.problem.model_dump_json().encode()
    return Response(
        body, status_code=error.problem.status, headers=error.headers, media_type=PROBLEM_MEDIA
    )


def state_of(request: Request) -> ServeState:
    """Return the server's :class:`ServeState` (set by the lifespan).

    Raises:
        ProblemError: ``not_ready`` (503) before start-up finished.
    """
    found = getattr(request.app.state, "turnframe", None)
    if not isinstance(found, ServeState):
        raise problem(503, "not_ready", "Not ready", "The server is starting; retry.")
    return found


def tokens_of(request: Request) -> CsrfTokens:
    """Return the server's CSRF token signer."""
    tokens: CsrfTokens = request.app.state.turnframe_csrf
    return tokens


def api(handler: Handler) -> Handler:
    """Wrap a handler: any failure is answered as problem-details JSON."""

    @functools.wraps(handler)
    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except Exception as exc:
            return problem_response(problem_for(exc))

    return wrapped


async def authenticate(request: Request) -> Actor:
    """Return who is acting (the server's authenticator).

    Raises:
        ProblemError: the authenticator's refusal (401/403), or ``not_authenticated`` for
            one that returned no :class:`Actor`.
    """
    found: Any = state_of(request).authenticate(request)
    actor = await found if inspect.isawaitable(found) else found  # a plain function too
    if not isinstance(actor, Actor):
        raise problem(401, "not_authenticated", "Not authenticated", "Sign in first.")
    return actor


@api
async def session(request: Request) -> Response:
    """``GET /v1/session`` → :class:`SessionView`; sets the ``turnframe_csrf`` cookie."""
    state = state_of(request)
    actor = await authenticate(request)
    tokens = tokens_of(request)
    token = request.cookies.get(CSRF_COOKIE)
    if not tokens.valid(token):
        token = tokens.mint()
    assert token is not None
    app = request.app.state.turnframe_app
    locales = list(served_locales(app))
    view = SessionView(
        app=app.name,
        actor=ActorView(account=actor.account, user=actor.user),
        csrf_token=token,
        locales=locales,
        default_locale=app.default_locale,
        max_message_bytes=state.config.max_message_bytes,
        suggestions=list(request.app.state.turnframe_suggestions),
    )
    response = Response(view.model_dump_json(), media_type="application/json")
    response.set_cookie(
        CSRF_COOKIE, token, httponly=True, samesite="strict", path="/", secure=False
    )
    return response


def _wants_stream(request: Request) -> bool:
    return "text/event-stream" in request.headers.get("accept", "")


@api
async def start_turn(request: Request) -> Response:
    """``POST /v1/conversations/{conversation_id}/turns``: JSON reply or the SSE stream."""
    state = state_of(request)
    actor = await authenticate(request)
    require_csrf(request, tokens_of(request))
    conversation_id = path_id(request, "conversation_id")
    key = request.headers.get("idempotency-key")
    if key is not None and not (0 < len(key) <= 200 and key.isprintable() and key.isascii()):
        raise problem(
            422, "invalid_request", "Invalid request", "Idempotency-Key: 1–200 printable ASCII"
        )
    body = await read_json(request, TurnRequestBody, state.config.max_body_bytes)
    live = await state.service.start_turn(actor, conversation_id, body, idempotency_key=key)
    created = bool(getattr(live, "created", True))
    headers = {"Location": f"/v1/turns/{live.turn_id}", "X-Turn-Id": live.turn_id}
    if _wants_stream(request):
        return _stream(live, 0, headers)
    view = await live.result()
    return Response(
        view.model_dump_json(),
        status_code=201 if created else 200,
        headers=headers,
        media_type="application/json",
    )


SHUTDOWN_GRACE_SECONDS = 4.0
"""How long a stream keeps going once the server is stopping (the turn may finish in it)."""


def _frame(item: StreamEvent, view: TurnView | None) -> dict[str, str]:
    event = item.event
    if isinstance(event, Problem):
        return {"id": str(item.seq), "event": "error", "data": event.model_dump_json()}
    if event.kind == "finished" and view is not None:
        return {"id": str(item.seq), "event": "finished", "data": view.model_dump_json()}
    return {"id": str(item.seq), "event": event.kind, "data": _EVENT.dump_json(event).decode()}


async def frames(
    live: LiveTurn,
    after: int,
    stopping: anyio.Event | None = None,
    grace: float = SHUTDOWN_GRACE_SECONDS,
) -> AsyncIterator[dict[str, str]]:
    """Yield the SSE frames of ``live`` after ``after`` (docs/serving.md "Streaming").

    ``id`` is the event's seq; ``event`` its kind (``phase``, ``step``, ``blocks``,
    ``finished``) or ``error``; ``data`` the runtime's event as JSON, the
    :class:`TurnView` for ``finished``, the :class:`Problem` for ``error``. Once
    ``stopping`` is set (the server is shutting down) the stream goes on for ``grace``
    seconds; a turn not finished by then gets a last ``error`` frame ``not_ready``
    without an ``id`` (reconnect with the last id to get the rest).
    """
    buffer = getattr(live, "buffered", live)
    if not isinstance(buffer, BufferedTurn):
        async for item in live.events(after):
            view = await live.result() if _is_finished(item) else None
            yield _frame(item, view)
        return
    seen = max(after, 0)
    deadline: float | None = None
    while True:
        for item in buffer.since(seen):
            seen = item.seq
            yield _frame(item, buffer.view if _is_finished(item) else None)
        if buffer.done and not buffer.since(seen):
            return
        if stopping is not None and stopping.is_set():
            deadline = deadline if deadline is not None else anyio.current_time() + grace
            if anyio.current_time() >= deadline:
                gone = problem(
                    503, "not_ready", "Not ready", "The server is stopping; reconnect to follow.",
                ).problem  # fmt: skip
                yield {"event": "error", "data": gone.model_dump_json()}
                return
        with anyio.move_on_after(0.25):
            await buffer.changed()


def _is_finished(item: StreamEvent) -> bool:
    return not isinstance(item.event, Problem) and item.event.kind == "finished"


def _stream(live: LiveTurn, after: int, headers: dict[str, str] | None = None) -> Response:
    stopping = anyio.Event()
    return EventSourceResponse(
        frames(live, after, stopping),
        headers=headers,
        ping=15,
        shutdown_event=stopping,
        shutdown_grace_period=SHUTDOWN_GRACE_SECONDS + 0.5,
    )


def _after(request: Request) -> int:
    raw = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
    try:
        value = int(raw)
    except ValueError:
        raise problem(
            422, "invalid_request", "Invalid request", "Last-Event-ID is an event's number"
        ) from None
    return max(value, 0)


@api
async def turn_events(request: Request) -> Response:
    """``GET /v1/turns/{turn_id}/events``: the turn's SSE stream after ``Last-Event-ID``."""
    state = state_of(request)
    actor = await authenticate(request)
    after = _after(request)
    live = await state.service.live_turn(actor, path_id(request, "turn_id"))
    ended = getattr(live, "done", False) and after >= getattr(live, "last_seq", after + 1)
    if ended:  # nothing more will come: 204 tells an EventSource to stop reconnecting
        return Response(status_code=204)
    return _stream(live, after)


@api
async def turn(request: Request) -> Response:
    """``GET /v1/turns/{turn_id}`` → the stored :class:`TurnView`."""
    state = state_of(request)
    actor = await authenticate(request)
    service: Any = state.service
    view = await service.turn(actor, path_id(request, "turn_id"))
    return Response(view.model_dump_json(), media_type="application/json")


@api
async def conversation(request: Request) -> Response:
    """``GET /v1/conversations/{conversation_id}`` → :class:`ConversationView`."""
    state = state_of(request)
    actor = await authenticate(request)
    view = await state.service.conversation(actor, path_id(request, "conversation_id"))
    return Response(view.model_dump_json(), media_type="application/json")


@api
async def cards(request: Request) -> Response:
    """``GET /v1/conversations/{conversation_id}/cards`` → :class:`CardsView` (open cards)."""
    state = state_of(request)
    actor = await authenticate(request)
    found = await state.service.open_cards(actor, path_id(request, "conversation_id"))
    return Response(CardsView(cards=found).model_dump_json(), media_type="application/json")


@api
async def card(request: Request) -> Response:
    """``GET /v1/cards/{interaction_id}?conversation_id=C`` → :class:`CardView`."""
    state = state_of(request)
    actor = await authenticate(request)
    conversation_id = request.query_params.get("conversation_id", "")
    if not conversation_id:
        raise problem(422, "invalid_request", "Invalid request", "give ?conversation_id=")
    service: Any = state.service
    view = await service.card(actor, path_id(request, "interaction_id"), conversation_id)
    return Response(view.model_dump_json(), media_type="application/json")


async def router_problem(request: Request, exc: Exception) -> Response:
    """Answer the router's own refusals as problems: no route → the one ``not_found``.

    A method a route does not take → 405 ``method_not_allowed`` (with ``Allow``); any
    other HTTP error keeps its status with code ``http_<status>``.
    """
    status = int(getattr(exc, "status_code", 500))
    if status == 404:
        return problem_response(not_found())
    headers = dict(getattr(exc, "headers", None) or {})
    if status == 405:
        error = problem(
            405, "method_not_allowed", "Method not allowed", "this route does not take that method"
        )
    else:
        error = problem(status, f"http_{status}", "HTTP error", str(getattr(exc, "detail", "")))
    return problem_response(ProblemError(error.problem, headers=headers))


async def healthz(request: Request) -> Response:
    """``GET /healthz`` → ``{"status": "ok"}``."""
    return JSONResponse({"status": "ok"})


def _page(name: str) -> Handler:
    async def page(request: Request) -> Response:
        path = STATIC_DIR / name
        if not path.is_file():
            return problem_response(not_found())
        return FileResponse(path, media_type="text/html")

    page.__name__ = page.__qualname__ = name.replace(".", "_")
    page.__doc__ = f"Serve the package page ``static/{name}``."
    return page


chat_page = _page("chat.html")
inspector_page = _page("inspector.html")


def path_id(request: Request, name: str) -> str:
    """Return the path parameter ``name``.

    Raises:
        ProblemError: ``invalid_request`` (422) for an id over 200 characters.
    """
    value = str(request.path_params[name])
    if not 0 < len(value) <= 200:
        raise problem(422, "invalid_request", "Invalid request", f"{name} is 1–200 characters")
    return value
