"""``GET /v1/turns/{turn_id}/inspection`` and ``POST /v1/turns/{turn_id}/replay`` (docs/inspector.md).

Both read the turn's replay record through :mod:`turnframe.runtime.inspection`, scoped to
the acting account: another account's turn is the one ``not_found`` 404, as an absent one.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from turnframe.serve.errors import not_found
from turnframe.serve.http import require_csrf
from turnframe.serve.routes import api, authenticate, path_id, state_of, tokens_of

__all__ = ["inspection", "replay"]


def _runtime(request: Request) -> Any:
    service: Any = state_of(request).service
    return service.runtime


@api
async def inspection(request: Request) -> Response:
    """``GET /v1/turns/{turn_id}/inspection`` → the turn's ``InspectionView``.

    Raises:
        ProblemError: ``not_found`` (absent or another account's), ``store_unavailable``.
    """
    from turnframe.runtime.inspection import inspection_for

    actor = await authenticate(request)
    runtime = _runtime(request)
    view = await inspection_for(
        runtime.store, runtime.registry, actor.account, path_id(request, "turn_id")
    )
    if view is None:
        raise not_found()
    return Response(view.model_dump_json(), media_type="application/json")


@api
async def replay(request: Request) -> Response:
    """``POST /v1/turns/{turn_id}/replay`` → the turn's ``ReplayView`` (plan diff).

    Nothing is committed: the reduction is re-run from the recorded inputs.

    Raises:
        ProblemError: ``csrf_failed``, ``not_found``, ``store_unavailable``.
    """
    from turnframe.runtime.inspection import replay_for

    actor = await authenticate(request)
    require_csrf(request, tokens_of(request))
    runtime = _runtime(request)
    view = await replay_for(
        runtime.store, runtime.registry, actor.account, path_id(request, "turn_id")
    )
    if view is None:
        raise not_found()
    return Response(view.model_dump_json(), media_type="application/json")
