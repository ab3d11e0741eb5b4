"""The ASGI application: :func:`create_app` (docs/serving.md).

``create_app(application, store, ...)`` returns a Starlette app serving the ``/v1`` API
(:mod:`turnframe.serve.routes`), the web chat at ``/``, the inspector at
``/turns/{turn_id}``, the package's ``static/`` files and ``/openapi.json``. Its lifespan
opens the store (when given a factory), builds the runtime and the turn service, and owns
the task group every turn runs in; at shutdown running turns get a grace period, then
stop at their persisted phase (recovery resumes them, docs/architecture.md "Failures").
"""

from __future__ import annotations

import contextlib
import functools
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from turnframe.core.dataclass_init import fast_init
from turnframe.runtime import Application, NarrationConfig, Runtime
from turnframe.runtime.ports import Clock
from turnframe.serve import inspect_routes, routes
from turnframe.serve.agui import agui_endpoint
from turnframe.serve.headers import SecurityHeaders
from turnframe.serve.http import CsrfTokens
from turnframe.serve.recovery import (
    ReaderUnderstanding,
    actor_for,
    can_take_over,
    recover_forever,
    recover_unfinished,
)
from turnframe.serve.service import Reader, RuntimeTurnService
from turnframe.serve.state import Authenticator, ServeConfig, ServeState
from turnframe.store.base import TurnStore
from turnframe.telemetry import Telemetry

__all__ = ["ROUTES", "RouteSpec", "create_app"]

StoreSource = TurnStore | Callable[[], Awaitable[TurnStore]]
"""An open store (the caller closes it), or a factory the lifespan opens and closes."""

_SHUTDOWN_GRACE_SECONDS = 5.0


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class RouteSpec:
    """One route of the table both Starlette and the OpenAPI document are built from.

    Attributes:
        method: the HTTP method.
        path: the Starlette path (``{name}`` parameters).
        endpoint: the handler.
        summary: one line for the OpenAPI document.
        request: the JSON body's model name (``None``: no body).
        response: the 2xx JSON body's model name, ``"stream"`` for SSE, ``"html"``,
            ``None`` for another body.
        tag: the OpenAPI tag.
        query: query parameters ``(name, description, required)``.
        headers: request headers ``(name, description)``.
        problems: the problem statuses it may answer.
    """

    method: str
    path: str
    endpoint: Callable[..., Any]
    summary: str
    request: str | None = None
    response: str | None = None
    tag: str = "turns"
    query: tuple[tuple[str, str, bool], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    problems: tuple[int, ...] = field(default=(401, 403, 404, 503))


ROUTES: tuple[RouteSpec, ...] = (
    RouteSpec(
        method="GET", path="/v1/session", endpoint=routes.session, response="SessionView",
        summary="Who is acting, the CSRF token (also set as a cookie), locales, limits",
        tag="session", problems=(401, 403, 503),
    ),
    RouteSpec(
        method="POST", path="/v1/conversations/{conversation_id}/turns",
        endpoint=routes.start_turn, request="TurnRequestBody", response="TurnView",
        summary="Start a turn (text, a card click, or both); SSE with Accept: text/event-stream",
        headers=(
            ("Idempotency-Key", "the same key and body return the same turn, never a second"),
            ("X-CSRF-Token", "required from a browser: the token GET /v1/session gave"),
        ),
        problems=(400, 401, 403, 404, 409, 413, 415, 422, 429, 503),
    ),
    RouteSpec(
        method="GET", path="/v1/turns/{turn_id}/events", endpoint=routes.turn_events,
        response="stream", summary="Stream a turn's events (SSE) after Last-Event-ID",
        headers=(("Last-Event-ID", "the last event's id received: the rest follow"),),
        query=(("after", "the same as Last-Event-ID", False),),
        problems=(401, 403, 404, 422, 503),
    ),
    RouteSpec(
        method="GET", path="/v1/turns/{turn_id}", endpoint=routes.turn, response="TurnView",
        summary="A replied turn's reply, as stored", problems=(401, 403, 404, 409, 503),
    ),
    RouteSpec(
        method="GET", path="/v1/conversations/{conversation_id}", endpoint=routes.conversation,
        response="ConversationView", summary="Reload a conversation: every turn's blocks",
        tag="conversations",
    ),
    RouteSpec(
        method="GET", path="/v1/conversations/{conversation_id}/cards", endpoint=routes.cards,
        response="CardsView", summary="A conversation's open cards", tag="conversations",
    ),
    RouteSpec(
        method="GET", path="/v1/cards/{interaction_id}", endpoint=routes.card,
        response="CardView", summary="One card", tag="conversations",
        query=(("conversation_id", "the card's conversation", True),),
        problems=(401, 403, 404, 422, 503),
    ),
    RouteSpec(
        method="GET", path="/v1/turns/{turn_id}/inspection", endpoint=inspect_routes.inspection,
        response="InspectionView", summary="A turn as the framework saw it (docs/inspector.md)",
        tag="inspection",
    ),
    RouteSpec(
        method="POST", path="/v1/turns/{turn_id}/replay", endpoint=inspect_routes.replay,
        response="ReplayView", summary="Re-run a turn's reduction from its record; the plan diff",
        tag="inspection",
        headers=(("X-CSRF-Token", "required from a browser: the token GET /v1/session gave"),),
    ),
    RouteSpec(
        method="POST", path="/v1/agui", endpoint=agui_endpoint, request="RunAgentInput",
        response="stream", summary="An AG-UI run: one turn, streamed as AG-UI events (docs/agui.md)",
        tag="agui",
        headers=(("X-CSRF-Token", "required from a browser: the token GET /v1/session gave"),),
        problems=(400, 401, 403, 406, 413, 415, 422),
    ),
    RouteSpec(
        method="GET", path="/healthz", endpoint=routes.healthz, response=None,
        summary="Liveness: {\"status\": \"ok\"}", tag="server", problems=(),
    ),
    RouteSpec(
        method="GET", path="/", endpoint=routes.chat_page, response="html",
        summary="The web chat", tag="pages", problems=(404,),
    ),
    RouteSpec(
        method="GET", path="/turns/{turn_id}", endpoint=routes.inspector_page,
        response="html", summary="The turn inspector page", tag="pages", problems=(404,),
    ),
)  # fmt: skip
"""Every route but ``/openapi.json`` and the ``/static`` mount (both added by :func:`create_app`)."""


def create_app(
    application: Application,
    store: StoreSource,
    *,
    reader: Reader | None = None,
    authenticate: Authenticator | None = None,
    config: ServeConfig | None = None,
    clock: Clock | None = None,
    suggestions: Sequence[str] = (),
    csrf_secret: bytes | None = None,
    extra_routes: Sequence[RouteSpec] = (),
    telemetry: Callable[[], Telemetry] | None = None,
) -> Starlette:
    """Return the ASGI app serving ``application`` over ``store`` (docs/serving.md).

    Args:
        application: the application.
        store: an open store, or an async factory the lifespan opens (and closes).
        reader: how each message is read (``message → (understander, reply_writer)`` or a
            refusal); ``None``: click-only, a text turn gets a notice naming ``--model``.
        authenticate: who is acting (default: the development authenticator, which
            refuses a config that is not ``loopback_only``).
        config: limits and settings.
        clock: the runtime's clock (the travel sample's chat day in the demo).
        suggestions: messages the reader can read (``SessionView.suggestions``).
        csrf_secret: the CSRF signing key every worker shares (default: random, one
            process only).
        extra_routes: more routes (the inspection, replay and AG-UI routes at merge).
        telemetry: builds the runtime's telemetry in each worker's lifespan (after any
            fork) and is shut down, flushing its exporters, when the server stops
            (docs/telemetry.md "From the environment"); default: none.

    Raises:
        UsageError: the development authenticator on a server not bound to loopback.
    """
    from turnframe.serve.auth import DevelopmentAuthenticator
    from turnframe.serve.openapi import openapi_route

    settings = config or ServeConfig()
    if authenticate is None:
        authenticate = DevelopmentAuthenticator(
            "127.0.0.1" if settings.loopback_only else "0.0.0.0"
        )
    table = (*ROUTES, *extra_routes)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        opened = store if not callable(store) else await store()
        observed = telemetry() if telemetry is not None else None
        try:
            # Each turn is read with the understander its message picks (run_turn's
            # understander=); the runtime's own reads a turn resumed by a retried key
            # (Runtime.recover from phase ``received``) with the same reader.
            runtime = Runtime(
                application,
                opened,
                ReaderUnderstanding(reader),
                clock=clock,
                narration=NarrationConfig(steps=True),
                telemetry=observed,
            )
            service = RuntimeTurnService(runtime, reader=reader, config=settings)
            app.state.turnframe = ServeState(
                service=service, authenticate=authenticate, config=settings
            )
            async with anyio.create_task_group() as group:
                service.bind(group)
                if settings.recover_every_seconds is not None and can_take_over(opened):
                    group.start_soon(
                        functools.partial(
                            recover_forever,
                            runtime,
                            reader,
                            every=settings.recover_every_seconds,
                            idle_seconds=settings.recover_idle_seconds,
                            who=actor_for(authenticate),
                        )
                    )
                elif settings.recover_every_seconds is not None:
                    group.start_soon(recover_unfinished, runtime, reader, actor_for(authenticate))
                try:
                    yield
                finally:
                    service.bind(None)
                    with anyio.move_on_after(_SHUTDOWN_GRACE_SECONDS):
                        await service.drained()
                    group.cancel_scope.cancel()
        finally:
            if callable(store):
                await opened.close()
            if observed is not None:
                observed.shutdown()

    starlette_routes: list[BaseRoute] = [
        Route(spec.path, spec.endpoint, methods=[spec.method]) for spec in table
    ]
    starlette_routes.append(Route("/openapi.json", openapi_route(table), methods=["GET"]))
    starlette_routes.append(
        Mount(
            "/static", app=StaticFiles(directory=routes.STATIC_DIR, check_dir=False), name="static"
        )
    )
    app = Starlette(
        routes=starlette_routes,
        lifespan=lifespan,
        middleware=[Middleware(SecurityHeaders)],
        exception_handlers={HTTPException: routes.router_problem},
    )
    app.state.turnframe_app = application
    app.state.turnframe_suggestions = tuple(suggestions)
    app.state.turnframe_csrf = CsrfTokens(csrf_secret or secrets.token_bytes(32))
    app.state.turnframe_routes = table
    return app
