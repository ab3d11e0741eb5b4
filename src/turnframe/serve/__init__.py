"""Serving an application over HTTP: the ``/v1`` API, streaming, AG-UI, the web chat.

``turnframe serve --app module:attribute`` runs :func:`turnframe.serve.app.create_app`
on uvicorn (extra ``serve``). The wire shapes are :mod:`turnframe.serve.models`; the
interfaces the routes share are :mod:`turnframe.serve.state` (docs/serving.md).
"""

try:  # the extra `serve` (docs/adr/0008-package-layout.md rule 2: name the extra)
    import ag_ui.core  # noqa: F401
    import sse_starlette  # noqa: F401
    import starlette  # noqa: F401
except ImportError as _e:  # pragma: no cover - exercised without the extra
    raise ImportError(
        f'turnframe.serve needs the extra serve: pip install "turnframe[serve]" ({_e})'
    ) from _e
