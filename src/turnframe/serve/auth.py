"""Who is acting: the adopter's authenticator, or the development one (docs/serving.md "Auth").

An :data:`~turnframe.serve.state.Authenticator` is an async callable from the request to
an :class:`~turnframe.core.ids.Actor`; it refuses by raising
:func:`not_authenticated` (401) or :func:`forbidden` (403), or any
:class:`~turnframe.serve.errors.ProblemError`. The shipped default,
:class:`DevelopmentAuthenticator`, accepts everyone as one fixed actor, and is refused
unless the server is bound to a loopback address.
"""

from __future__ import annotations

import importlib
import ipaddress
import socket
from typing import Any

from starlette.requests import Request

from turnframe.core.errors import UsageError
from turnframe.core.ids import Actor
from turnframe.serve.errors import ProblemError, problem
from turnframe.serve.state import Authenticator

__all__ = [
    "DEVELOPMENT_ACTOR",
    "DevelopmentAuthenticator",
    "forbidden",
    "is_loopback",
    "load_authenticator",
    "not_authenticated",
]

DEVELOPMENT_ACTOR = Actor(account="acme", user="maria", roles=frozenset({"customer"}))
"""The development authenticator's one actor (the chat's)."""


def not_authenticated(detail: str = "Sign in first.") -> ProblemError:
    """Return the ``not_authenticated`` 401 an authenticator raises to refuse a request."""
    return problem(401, "not_authenticated", "Not authenticated", detail)


def forbidden(detail: str = "You may not do this.") -> ProblemError:
    """Return the ``forbidden`` 403 an authenticator raises for a known but refused user."""
    return problem(403, "forbidden", "Forbidden", detail)


def is_loopback(host: str) -> bool:
    """Return whether ``host`` (an address or a name) is only a loopback address.

    ``localhost`` and names resolve to their addresses; every one must be loopback.
    ``0.0.0.0``/``::`` (every interface) is not.
    """
    name = host.strip("[]")
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(name, None)
    except OSError:
        return False
    addresses = {info[4][0] for info in infos}
    return bool(addresses) and all(ipaddress.ip_address(a).is_loopback for a in addresses)


class DevelopmentAuthenticator:
    """Accepts every request as one fixed actor: for a server on this machine only.

    Args:
        host: the address the server binds.
        actor: the actor (default :data:`DEVELOPMENT_ACTOR`).

    Raises:
        UsageError: ``host`` is not a loopback address (anyone on the network would
            act as the development actor); give ``--auth module:attribute``.
    """

    def __init__(self, host: str = "127.0.0.1", actor: Actor = DEVELOPMENT_ACTOR) -> None:
        if not is_loopback(host):
            raise UsageError(
                f"the development authenticator (every request acts as "
                f"{actor.account}/{actor.user}) only serves a loopback address, not {host!r}; "
                'give --auth module:attribute (docs/serving.md "Auth")'
            )
        self.actor = actor
        self.banner = (
            f"auth: development: every request acts as {actor.account}/{actor.user} "
            "(loopback only; --auth module:attribute for your own)"
        )

    async def __call__(self, request: Request) -> Actor:
        """Return the fixed actor."""
        return self.actor


def load_authenticator(spec: str) -> Authenticator:
    """Return the authenticator ``module:attribute`` names (or a zero-argument factory's).

    Raises:
        UsageError: the spec is malformed, the module or attribute is missing, or the
            attribute is not callable (one line naming it).
    """
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise UsageError(f"--auth {spec!r}: give module:attribute")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"--auth {spec!r}: cannot import {module_name}: {exc}") from exc
    found: Any = module
    for part in attribute.split("."):
        found = getattr(found, part, None)
        if found is None:
            raise UsageError(f"--auth {spec!r}: {module_name} has no {attribute}")
    if not callable(found):
        raise UsageError(f"--auth {spec!r}: {attribute} is not callable")
    if _takes_no_argument(found):
        found = found()
        if not callable(found):
            raise UsageError(f"--auth {spec!r}: {attribute}() did not return a callable")
    authenticate: Authenticator = found
    return authenticate


def _takes_no_argument(func: Any) -> bool:
    import inspect

    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return False
    required = [
        p
        for p in params
        if p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return not required
