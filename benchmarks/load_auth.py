"""The load benchmark's authenticator: the actor named by the ``X-Load-Actor`` header.

``benchmarks/load_http.py`` starts ``turnframe serve --auth load_auth:authenticator`` with
this directory on ``PYTHONPATH``, so each of its clients acts for its own accounts. It is
a benchmark tool, not a way to serve people: anyone who can reach the server could name
any account. It therefore refuses every request that does not come from a loopback
address to a server bound to one (403 ``forbidden``), and a missing or malformed header
is 401 ``not_authenticated`` (docs/serving.md "Auth").

The header holds an account name (letters, digits, ``-`` and ``_``, at most 64); the
actor is ``Actor(account=<header>, user="load", roles={"customer"})``.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Awaitable, Callable

from starlette.requests import Request

from turnframe.core import Actor
from turnframe.serve.errors import problem

__all__ = ["HEADER", "authenticate", "authenticator", "is_loopback"]

HEADER = "X-Load-Actor"
_ACCOUNT = re.compile(r"[A-Za-z0-9_-]{1,64}")


def is_loopback(host: str | None) -> bool:
    """Return whether ``host`` (an address, or ``localhost``) is a loopback address."""
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


async def authenticate(request: Request) -> Actor:
    """Return the actor the ``X-Load-Actor`` header names (loopback only).

    Raises:
        ProblemError: 403 ``forbidden`` when the client or the server's bound address is
            not loopback; 401 ``not_authenticated`` when the header is missing or is not
            an account name.
    """
    client = request.client.host if request.client else None
    server = request.scope.get("server")
    bound = server[0] if server else None
    if not is_loopback(client) or not is_loopback(bound):
        raise problem(
            403,
            "forbidden",
            "Forbidden",
            "the load benchmark's authenticator serves loopback clients of a loopback server only",
        )
    account = request.headers.get(HEADER, "")
    if not _ACCOUNT.fullmatch(account):
        raise problem(
            401,
            "not_authenticated",
            "Not authenticated",
            f"send {HEADER}: <account> (letters, digits, - and _, at most 64)",
        )
    return Actor(account=account, user="load", roles=frozenset({"customer"}))


def authenticator() -> Callable[[Request], Awaitable[Actor]]:
    """Return :func:`authenticate` (the zero-argument factory form ``--auth`` accepts)."""
    return authenticate
