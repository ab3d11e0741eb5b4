"""The OpenAPI 3.1 document, generated from the route table and the wire models.

One source of truth (docs/serving.md "OpenAPI"): every path and method comes from
:data:`turnframe.serve.app.ROUTES` (the table Starlette's routes are built from), every
schema from the pydantic wire models of :mod:`turnframe.serve.models` and the runtime's
own :data:`~turnframe.core.turn.TurnEvent` and :data:`~turnframe.core.reply.ReplyBlock`
types (``TypeAdapter(...).json_schema``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, TypeAdapter
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

import turnframe
from turnframe.core.reply import ReplyBlock
from turnframe.core.turn import TurnEvent
from turnframe.serve import models

if TYPE_CHECKING:
    from turnframe.serve.app import RouteSpec

__all__ = ["REF", "openapi_document", "openapi_route"]

REF = "#/components/schemas/{model}"

_MODELS: tuple[type[BaseModel], ...] = (
    models.TurnRequestBody,
    models.TurnView,
    models.ConversationView,
    models.CardView,
    models.CardsView,
    models.SessionView,
    models.Problem,
)

_TITLES = {400: "Bad request", 401: "Not authenticated", 403: "Forbidden", 404: "Not found",
           409: "Conflict", 413: "Too large", 415: "Unsupported media type",
           422: "Invalid request", 429: "Too many turns", 503: "Unavailable"}  # fmt: skip


def extra_schemas() -> dict[str, Any]:
    """Return the other modules' models the routes name (the inspector's, AG-UI's input)."""
    from ag_ui.core import RunAgentInput

    from turnframe.runtime.inspection import InspectionView, ReplayView

    return {
        "InspectionView": InspectionView,
        "ReplayView": ReplayView,
        "RunAgentInput": RunAgentInput,
    }


def _schemas(extra: dict[str, Any]) -> dict[str, Any]:
    schemas: dict[str, Any] = {}
    adapters: list[tuple[str, TypeAdapter[Any]]] = [
        ("TurnEvent", TypeAdapter(TurnEvent)),
        ("ReplyBlock", TypeAdapter(ReplyBlock)),
    ]
    adapters += [(m.__name__, TypeAdapter(m)) for m in _MODELS]
    for name, model in extra.items():
        adapters.append((name, model if isinstance(model, TypeAdapter) else TypeAdapter(model)))
    for name, adapter in adapters:
        schema = adapter.json_schema(ref_template=REF, mode="serialization")
        schemas.update(schema.pop("$defs", {}))
        schemas[name] = schema
    return schemas


def _operation_id(spec: RouteSpec) -> str:
    return spec.endpoint.__name__.strip("_")


def _body(name: str) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": REF.format(model=name)}}}


def _operation(spec: RouteSpec) -> dict[str, Any]:
    params: list[dict[str, Any]] = [
        {"name": n, "in": "path", "required": True, "schema": {"type": "string"}}
        for n in re.findall(r"{(\w+)}", spec.path)
    ]
    params += [
        {"name": n, "in": "query", "required": req, "description": d, "schema": {"type": "string"}}
        for n, d, req in spec.query
    ]
    params += [
        {
            "name": n,
            "in": "header",
            "required": False,
            "description": d,
            "schema": {"type": "string"},
        }
        for n, d in spec.headers
    ]
    responses: dict[str, Any] = {}
    ok = "201" if spec.method == "POST" and spec.response == "TurnView" else "200"
    if spec.response == "stream":
        responses[ok] = {
            "description": "SSE: id = seq; event = phase|step|blocks|finished|error",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        }
    elif spec.response == "html":
        responses[ok] = {
            "description": "HTML",
            "content": {"text/html": {"schema": {"type": "string"}}},
        }
    elif spec.response is not None:
        content = _body(spec.response)
        if spec.request == "TurnRequestBody":
            again = _body(spec.response)
            again["text/event-stream"] = {"schema": {"type": "string"}}
            responses["200"] = {
                "description": "The same turn again (a retried key); or, with Accept: "
                "text/event-stream, the turn's SSE stream (id = seq; event = "
                "phase|step|blocks|finished|error)",
                "content": again,
            }
        responses[ok] = {"description": spec.summary, "content": content}
    else:
        responses[ok] = {
            "description": spec.summary,
            "content": {"application/json": {"schema": {"type": "object"}}},
        }
    for status in spec.problems:
        responses[str(status)] = {
            "description": _TITLES.get(status, "Problem"),
            "content": {
                "application/problem+json": {"schema": {"$ref": REF.format(model="Problem")}}
            },
        }
    operation: dict[str, Any] = {
        "operationId": _operation_id(spec),
        "summary": spec.summary,
        "tags": [spec.tag],
        "responses": responses,
    }
    if params:
        operation["parameters"] = params
    if spec.request is not None:
        operation["requestBody"] = {"required": True, "content": _body(spec.request)}
    return operation


def openapi_document(
    table: Sequence[RouteSpec], extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Return the OpenAPI 3.1 document for ``table`` (plus ``/openapi.json`` itself).

    Args:
        table: the routes (:data:`turnframe.serve.app.ROUTES` and any added).
        extra: more schemas by name (a route's ``request``/``response`` naming a model
            from another module).
    """
    paths: dict[str, dict[str, Any]] = {}
    for spec in table:
        paths.setdefault(spec.path, {})[spec.method.lower()] = _operation(spec)
    paths["/static/{path}"] = {
        "get": {
            "operationId": "static",
            "summary": "The pages' files (package data src/turnframe/serve/static/)",
            "tags": ["pages"],
            "parameters": [
                {"name": "path", "in": "path", "required": True, "schema": {"type": "string"}}
            ],
            "responses": {
                "200": {"description": "The file", "content": {"*/*": {"schema": {}}}},
                "404": {
                    "description": "Not found",
                    "content": {
                        "application/problem+json": {
                            "schema": {"$ref": REF.format(model="Problem")}
                        }
                    },
                },
            },
        }
    }
    paths["/openapi.json"] = {
        "get": {
            "operationId": "openapi",
            "summary": "This document",
            "tags": ["server"],
            "responses": {
                "200": {
                    "description": "OpenAPI 3.1",
                    "content": {"application/json": {"schema": {"type": "object"}}},
                }
            },
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Turnframe",
            "version": getattr(turnframe, "__version__", "0"),
            "description": "The /v1 API of `turnframe serve` (docs/serving.md).",
        },
        "paths": paths,
        "components": {"schemas": _schemas({**extra_schemas(), **(extra or {})})},
    }


def openapi_route(table: Sequence[RouteSpec]) -> Callable[[Request], Any]:
    """Return the ``GET /openapi.json`` handler for ``table`` (built once, on first use)."""
    built: list[dict[str, Any]] = []

    async def openapi(request: Request) -> Response:
        if not built:
            built.append(
                openapi_document(table, getattr(request.app.state, "turnframe_schemas", None))
            )
        return JSONResponse(built[0])

    return openapi
