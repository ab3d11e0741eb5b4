"""Provider errors, each classified by a :class:`~turnframe.core.errors.FailureClass` (guide §10, §14).

::

    TurnFailure
    └── ProviderError              a call failed; never carries a raw request or secret
        ├── RateLimited            retryable after the hint
        ├── ProviderUnavailable    overloaded or a server error; retryable with backoff
        ├── CallDropped            the connection dropped or timed out; sent again in place
        ├── AuthenticationFailed   not retryable
        ├── ContextOverflow        not retryable: shrink the input first
        └── BadRequest             the request itself is wrong; not retryable
    UsageError
    └── CapabilityMissing          no profile meets a task's need: fails loudly, never degrades
"""

from __future__ import annotations

from turnframe.core.errors import FailureClass, Severity, TurnFailure, UsageError

__all__ = [
    "AuthenticationFailed",
    "BadRequest",
    "CallDropped",
    "CapabilityMissing",
    "ContextOverflow",
    "ProviderError",
    "ProviderUnavailable",
    "RateLimited",
]


class ProviderError(TurnFailure):
    """A model call failed. Before commit another try is safe; after commit only the reply (I18)."""

    default_class = FailureClass(
        retryable=False, effect_may_have_happened=False, message_key="error.provider"
    )


class RateLimited(ProviderError):
    """The provider asked us to slow down."""

    default_class = FailureClass(
        retryable=True,
        effect_may_have_happened=False,
        message_key="error.provider.busy",
        severity=Severity.WARNING,
    )


class ProviderUnavailable(ProviderError):
    """The provider is overloaded or failed on its side."""

    default_class = FailureClass(
        retryable=True,
        effect_may_have_happened=False,
        message_key="error.provider.busy",
        severity=Severity.WARNING,
    )


class CallDropped(ProviderError):
    """The call was dropped or timed out before an answer arrived (understanding has no effects)."""

    default_class = FailureClass(
        retryable=True,
        effect_may_have_happened=False,
        message_key="error.provider.dropped",
        severity=Severity.WARNING,
    )


class AuthenticationFailed(ProviderError):
    """The credentials were refused."""

    default_class = FailureClass(
        retryable=False,
        effect_may_have_happened=False,
        message_key="error.provider.auth",
        severity=Severity.CRITICAL,
    )


class ContextOverflow(ProviderError):
    """The request does not fit the model's context."""


class BadRequest(ProviderError):
    """The provider rejected the request as malformed (a schema it cannot enforce, say)."""


class CapabilityMissing(UsageError):
    """No model profile meets what a task needs; never silently downgraded (guide §10)."""
