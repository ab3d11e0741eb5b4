"""The OpenAPI document lists every route and validates (docs/serving.md "OpenAPI")."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from openapi_spec_validator import validate
from starlette.routing import Mount, Route

pytestmark = pytest.mark.anyio


async def test_every_route_is_in_the_document_and_it_validates(tmp_path: Path, serve: Any) -> None:
    async with serve(tmp_path) as client:
        document = (await client.get("/openapi.json")).json()
        validate(document)
        assert document["openapi"].startswith("3.1")
        listed = {
            (method.upper(), path)
            for path, operations in document["paths"].items()
            for method in operations
        }
        served = set()
        for route in client.app.routes:  # type: ignore[attr-defined]
            if isinstance(route, Mount):
                served.add(("GET", f"{route.path}/{{path}}"))  # /static/{path}
                continue
            assert isinstance(route, Route)
            for method in route.methods or ():
                if method != "HEAD":
                    served.add((method, route.path))
        assert served == listed
        schemas = document["components"]["schemas"]
        for name in ("TurnRequestBody", "TurnView", "TurnEvent", "ReplyBlock", "Problem"):
            assert name in schemas
        refs = set(re.findall(r'"#/components/schemas/([^"]+)"', str(document).replace("'", '"')))
        assert refs <= set(schemas), refs - set(schemas)
        turns = document["paths"]["/v1/conversations/{conversation_id}/turns"]["post"]
        body = turns["requestBody"]["content"]["application/json"]["schema"]
        assert body == {"$ref": "#/components/schemas/TurnRequestBody"}
        assert "text/event-stream" in turns["responses"]["200"]["content"]  # the stream: 200
        assert list(turns["responses"]["201"]["content"]) == ["application/json"]
