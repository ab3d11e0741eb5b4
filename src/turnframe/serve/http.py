"""Request checks every route shares: body limits, JSON bodies and CSRF (docs/serving.md "Limits").

* a body longer than ``max_body_bytes`` (by ``Content-Length`` or by the bytes that
  actually arrive) → 413 ``body_too_large``; not UTF-8 → 400 ``message_not_utf8``;
  a content type other than JSON → 415 ``unsupported_media_type``; malformed JSON or
  fields the model refuses → 422 ``invalid_request`` with pydantic's messages;
* CSRF: a state-changing request from a browser (it carries ``Origin``,
  ``Sec-Fetch-Site`` or a ``Cookie``) must send ``X-CSRF-Token`` equal to the
  ``turnframe_csrf`` cookie, both a token this server signed (HMAC with the secret every
  worker shares), compared in constant time → else 403 ``csrf_failed``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from turnframe.serve.errors import ProblemError, problem

__all__ = ["CSRF_COOKIE", "CSRF_HEADER", "CsrfTokens", "read_json", "require_csrf"]

CSRF_COOKIE = "turnframe_csrf"
CSRF_HEADER = "x-csrf-token"

_Model = TypeVar("_Model", bound=BaseModel)


def _too_large(limit: int) -> ProblemError:
    return problem(
        413, "body_too_large", "Body too large", f"a request body is at most {limit} bytes"
    )


async def read_body(request: Request, limit: int) -> bytes:
    """Return the request's body, refusing it past ``limit`` bytes without reading the rest.

    Raises:
        ProblemError: ``body_too_large`` (413); ``invalid_request`` for a bad
            ``Content-Length``.
    """
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            size = int(declared)
        except ValueError:
            raise problem(
                422, "invalid_request", "Invalid request", "Content-Length is not a number"
            ) from None
        if size > limit:
            raise _too_large(limit)
    chunks: list[bytes] = []
    total = 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > limit:
            raise _too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _json_utf8(content_type: str) -> bool:
    """Whether ``content_type`` is JSON (``application/json`` or ``+json``) in UTF-8."""
    media, _, params = content_type.partition(";")
    media = media.strip().lower()
    charset = "utf-8"
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip('"').lower()
    is_json = media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )
    return is_json and charset in ("utf-8", "utf8")


async def read_json(request: Request, model: type[_Model], limit: int) -> _Model:
    """Return the body as ``model``, checked (docs/serving.md "Limits").

    Raises:
        ProblemError: ``unsupported_media_type`` (415), ``body_too_large`` (413),
            ``message_not_utf8`` (400), ``invalid_request`` (422, pydantic's messages).
    """
    if not _json_utf8(request.headers.get("content-type", "")):
        raise problem(
            415,
            "unsupported_media_type",
            "Unsupported media type",
            "send the body as application/json (UTF-8)",
        )
    raw = await read_body(request, limit)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise problem(
            400, "message_not_utf8", "Not UTF-8", "the request body is not valid UTF-8"
        ) from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise problem(422, "invalid_request", "Invalid request", f"not JSON: {exc}") from None
    except RecursionError:
        raise problem(
            422, "invalid_request", "Invalid request", "the JSON is nested too deeply"
        ) from None
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate escape (\ud800): not text
        raise problem(
            400, "message_not_utf8", "Not UTF-8", "the body holds a character UTF-8 cannot encode"
        ) from None
    except RecursionError:
        raise problem(
            422, "invalid_request", "Invalid request", "the JSON is nested too deeply"
        ) from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        messages = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()
        )
        raise problem(422, "invalid_request", "Invalid request", messages) from None


class CsrfTokens:
    """Mints and checks CSRF tokens: ``nonce.signature``, HMAC-SHA256 with ``secret``.

    Args:
        secret: shared by every worker of one server (the parent passes it through the
            environment), so a token minted by one worker passes in another.
    """

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("a CSRF secret has at least 16 bytes")
        self._secret = secret

    def mint(self) -> str:
        """Return a new token."""
        nonce = secrets.token_urlsafe(18)
        return f"{nonce}.{self._sign(nonce)}"

    def valid(self, token: str | None) -> bool:
        """Return whether ``token`` is one this server signed."""
        if not token or token.count(".") != 1:
            return False
        nonce, signature = token.split(".")
        given = signature.encode("utf-8", "surrogatepass")
        return hmac.compare_digest(given, self._sign(nonce).encode())

    def _sign(self, nonce: str) -> str:
        raw = nonce.encode("utf-8", "surrogatepass")
        return hmac.new(self._secret, raw, hashlib.sha256).hexdigest()[:32]


def from_browser(request: Request) -> bool:
    """Return whether the request looks like a browser's (``Origin``, ``Sec-Fetch-Site``, ``Cookie``)."""
    headers = request.headers
    return any(name in headers for name in ("origin", "sec-fetch-site", "cookie"))


def require_csrf(request: Request, tokens: CsrfTokens) -> None:
    """Refuse a browser's state-changing request without a matching CSRF token.

    Raises:
        ProblemError: ``csrf_failed`` (403): the header is missing, differs from the
            cookie, or was not signed by this server.
    """
    if not from_browser(request):
        return
    header = request.headers.get(CSRF_HEADER)
    cookie = request.cookies.get(CSRF_COOKIE)
    if (
        header is None
        or cookie is None
        or not hmac.compare_digest(
            header.encode("utf-8", "surrogatepass"), cookie.encode("utf-8", "surrogatepass")
        )
        or not tokens.valid(header)
    ):
        raise problem(
            403,
            "csrf_failed",
            "CSRF check failed",
            "send X-CSRF-Token with the token GET /v1/session gave (and its cookie)",
        )
