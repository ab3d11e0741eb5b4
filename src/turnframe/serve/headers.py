"""Response headers every answer carries (docs/serving.md "CSRF").

A pure ASGI middleware (streams pass through untouched): pages load only this server's
own files (``default-src 'self'``: no inline script, no other origin) and may not be
framed (a card's Confirm button cannot be clickjacked), content types are not sniffed, no
referrer leaves the site, and API answers are never cached (they are one account's).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["SecurityHeaders"]

_ALWAYS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"default-src 'self'; frame-ancestors 'none'"),
    (b"referrer-policy", b"no-referrer"),
)
_API = ((b"cache-control", b"no-store"),)


class SecurityHeaders:
    """Adds :data:`_ALWAYS` to every HTTP response, and ``Cache-Control: no-store`` under ``/v1``.

    Args:
        app: the application it wraps.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on; add the headers to the response's start."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = _ALWAYS + (_API if str(scope.get("path", "")).startswith("/v1/") else ())

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                added = [(n, v) for n, v in extra if n not in present]
                message = {**message, "headers": [*message.get("headers", []), *added]}
            await send(message)

        await self.app(scope, receive, sending)
