"""Serving an application over HTTP: the ``/v1`` API, streaming, AG-UI, the web chat.

``turnframe serve --app module:attribute`` runs :func:`turnframe.serve.app.create_app`
on uvicorn (extra ``serve``). The wire shapes are :mod:`turnframe.serve.models`; the
interfaces the routes share are :mod:`turnframe.serve.state` (docs/serving.md).
"""
