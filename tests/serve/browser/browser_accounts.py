"""A test authenticator acting as one of two accounts (tests/serve/browser only).

``turnframe serve --auth browser_accounts:authenticate``: the account is read from the
``turnframe_test_account`` cookie, else the ``X-Test-Account`` header (a test's own API
calls, which are no browser's and so need no CSRF token), default ``acme``, the account
the travel records are seeded for. One browser context is one account and a second
context is another account on the same server. Never for production: the client
chooses who it is.
"""

from __future__ import annotations

from starlette.requests import Request

from turnframe.core.ids import Actor
from turnframe.serve.errors import problem

ACCOUNT_COOKIE = "turnframe_test_account"
ACCOUNTS = {
    "acme": Actor(account="acme", user="maria", roles=frozenset({"customer"})),
    "globex": Actor(account="globex", user="gil", roles=frozenset({"customer"})),
}


async def authenticate(request: Request) -> Actor:
    """Return the actor the request's test cookie names (``acme`` without one).

    Raises:
        ProblemError: 401 ``not_authenticated``, the cookie names no test account.
    """
    name = request.cookies.get(ACCOUNT_COOKIE) or request.headers.get("x-test-account", "acme")
    actor = ACCOUNTS.get(name)
    if actor is None:
        raise problem(401, "not_authenticated", "Not authenticated", "Unknown test account.")
    return actor
