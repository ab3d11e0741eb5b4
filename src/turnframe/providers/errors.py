"""Provider errors, each classified by a :class:`~turnframe.core.errors.FailureClass`.

See docs/architecture.md "Providers", "Failures".

::

    TurnFailure
    └── ProviderError              a call failed; never carries a raw request, response or secret
        ├── RateLimited            retryable after the hint (``retry_after``)
        ├── QuotaExceeded          a spend or quota limit; not retryable
        ├── ProviderUnavailable    overloaded or a server error; retryable with backoff
        │   ├── Overloaded         the vendor is overloaded (Anthropic 529, 503 UNAVAILABLE…)
        │   └── ServerError        the vendor failed (500…)
        ├── CallDropped            the connection dropped or timed out; sent again in place
        │   └── ProviderTimeout    ``sent`` tells a timeout before sending from one after
        ├── ProviderUnreachable    the request never reached a model (nothing happened)
        │   ├── ConnectionRefused  nothing listens at the address; retryable (a restart)
        │   ├── HostNotFound       the host name does not resolve (DNS); not retryable
        │   └── TlsFailed          the TLS handshake failed (certificate, plain TCP); not retryable
        ├── ModelNotFound          the server has no such model (HTTP 404); not retryable
        ├── StreamInterrupted      a stream broke after it started; ``inner`` is its class
        ├── ProviderCancelled      the call was cancelled; never retried, never fallen back from
        ├── AuthenticationFailed   not retryable
        ├── ContextOverflow        not retryable: shrink the input first
        └── BadRequest             the request itself is wrong; not retryable
    UsageError
    └── CapabilityMissing          no profile meets a task's need: fails loudly, never degrades

A model call has no external effect, so before commit a retry or another provider is
safe even after an unknown outcome; ``effect_may_have_happened`` still says honestly
whether the request reached the vendor (a timeout after sending may have been billed).
"""

from __future__ import annotations

from turnframe.core.errors import FailureClass, Severity, TurnFailure, UsageError

__all__ = [
    "AuthenticationFailed",
    "BadRequest",
    "CallDropped",
    "CapabilityMissing",
    "ConnectionRefused",
    "ContextOverflow",
    "HostNotFound",
    "MissingCredential",
    "ModelNotFound",
    "Overloaded",
    "ProviderCancelled",
    "ProviderError",
    "ProviderTimeout",
    "ProviderUnavailable",
    "ProviderUnreachable",
    "QuotaExceeded",
    "RateLimited",
    "ServerError",
    "StreamInterrupted",
    "TlsFailed",
    "error_kind",
]


class ProviderError(TurnFailure):
    """A model call failed. Before commit another try is safe; after commit only the reply (I18).

    Args:
        message: a developer-facing description, already redacted by the adapter.
        failure: the classification (default: the class's own).
        provider: the profile id that failed (``openai:gpt-4.1-mini``).
        status: the HTTP status, if any.
        code: the vendor's error code or type (``rate_limit_exceeded``), if any.
        retry_after: the vendor's retry hint in seconds, if any.
    """

    default_class = FailureClass(
        retryable=False, effect_may_have_happened=False, message_key="error.provider"
    )

    def __init__(
        self,
        message: str,
        *,
        failure: FailureClass | None = None,
        provider: str = "",
        status: int | None = None,
        code: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, failure=failure)
        self.provider = provider
        self.status = status
        self.code = code
        self.retry_after = retry_after


class RateLimited(ProviderError):
    """The provider asked us to slow down."""

    default_class = FailureClass(
        retryable=True,
        effect_may_have_happened=False,
        message_key="error.provider.busy",
        severity=Severity.WARNING,
    )


class QuotaExceeded(ProviderError):
    """A quota, spend limit or billing problem: waiting does not help."""

    default_class = FailureClass(
        retryable=False,
        effect_may_have_happened=False,
        message_key="error.provider.quota",
        severity=Severity.CRITICAL,
    )


class ProviderUnavailable(ProviderError):
    """The provider is overloaded or failed on its side."""

    default_class = FailureClass(
        retryable=True,
        effect_may_have_happened=False,
        message_key="error.provider.busy",
        severity=Severity.WARNING,
    )


class Overloaded(ProviderUnavailable):
    """The provider is overloaded (Anthropic 529 ``overloaded_error``, 503 ``UNAVAILABLE``)."""


class ServerError(ProviderUnavailable):
    """The provider failed on its side (HTTP 5xx)."""

    default_class = FailureClass(
        retryable=True,
        effect_may_have_happened=False,
        message_key="error.provider.server",
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


_SENT_TIMEOUT = FailureClass(
    retryable=True,
    effect_may_have_happened=True,
    message_key="error.provider.timeout",
    severity=Severity.WARNING,
)


class ProviderTimeout(CallDropped):
    """The call timed out.

    ``sent=False``: it never reached the vendor (connecting timed out), so
    nothing happened. ``sent=True``: it was sent and the outcome is unknown
    (``effect_may_have_happened``); before commit it may still be retried, since a
    model call changes no record.
    """

    def __init__(
        self, message: str, *, sent: bool, provider: str = "", code: str | None = None
    ) -> None:
        failure = _SENT_TIMEOUT if sent else None
        super().__init__(message, failure=failure, provider=provider, code=code)
        self.sent = sent


class ProviderUnreachable(ProviderError):
    """The request never reached a model: no connection was made, so nothing happened."""

    default_class = FailureClass(
        retryable=False,
        effect_may_have_happened=False,
        message_key="error.provider.unreachable",
        severity=Severity.CRITICAL,
    )


class ConnectionRefused(ProviderUnreachable):
    """Nothing accepted the connection (a stopped server); not a timeout. Retryable once."""

    default_class = FailureClass(
        retryable=True,
        effect_may_have_happened=False,
        message_key="error.provider.unreachable",
        severity=Severity.CRITICAL,
    )


class HostNotFound(ProviderUnreachable):
    """The provider's host name does not resolve (DNS); waiting does not help."""


class TlsFailed(ProviderUnreachable):
    """The TLS handshake failed (a bad certificate, a plain-TCP server on an https URL)."""


class ModelNotFound(ProviderError):
    """The provider has no model of that name (HTTP 404 on the model); not retryable."""

    default_class = FailureClass(
        retryable=False,
        effect_may_have_happened=False,
        message_key="error.provider.model_not_found",
        severity=Severity.CRITICAL,
    )


class StreamInterrupted(ProviderError):
    """A stream broke after it had started (an error event, a dropped connection).

    Its classification is that of the inner failure (``inner``: ``overloaded``,
    ``rate_limited``, ``server``, ``dropped``...), with ``effect_may_have_happened`` set:
    output was already flowing.
    """

    def __init__(self, message: str, *, inner: ProviderError, provider: str = "") -> None:
        base = inner.failure
        super().__init__(
            message,
            failure=FailureClass(
                retryable=base.retryable,
                effect_may_have_happened=True,
                message_key="error.provider.stream",
                severity=base.severity,
            ),
            provider=provider,
            status=inner.status,
            code=inner.code,
            retry_after=inner.retry_after,
        )
        self.inner = inner


class ProviderCancelled(ProviderError):
    """The caller cancelled the call; the stream was closed. Never retried or fallen back from."""

    default_class = FailureClass(
        retryable=False,
        effect_may_have_happened=True,
        message_key="error.provider.cancelled",
        severity=Severity.INFO,
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

    default_class = FailureClass(
        retryable=False,
        effect_may_have_happened=False,
        message_key="error.provider.context_overflow",
    )


class BadRequest(ProviderError):
    """The provider rejected the request as malformed (a schema it cannot enforce, say)."""

    default_class = FailureClass(
        retryable=False,
        effect_may_have_happened=False,
        message_key="error.provider.bad_request",
    )


class CapabilityMissing(UsageError):
    """No model profile meets what a task needs; never silently downgraded.

    See docs/architecture.md "Providers".
    """


class MissingCredential(UsageError):
    """A vendor's credential is not configured; the message is one line naming the variable.

    Args:
        variable: the environment variable (or variables) to set.
        vendor: the vendor's name.
    """

    def __init__(self, variable: str, vendor: str) -> None:
        super().__init__(f"{vendor} needs a credential: set {variable}")
        self.variable = variable


_KINDS: tuple[tuple[type[ProviderError], str], ...] = (
    (ConnectionRefused, "connection_refused"),
    (HostNotFound, "dns"),
    (TlsFailed, "tls"),
    (ProviderUnreachable, "unreachable"),
    (AuthenticationFailed, "authentication"),
    (QuotaExceeded, "quota"),
    (ModelNotFound, "model_not_found"),
    (ProviderTimeout, "timeout"),
    (RateLimited, "rate_limited"),
    (ProviderUnavailable, "unavailable"),
    (ContextOverflow, "context_overflow"),
    (BadRequest, "bad_request"),
    (StreamInterrupted, "stream"),
    (CallDropped, "dropped"),
)


def error_kind(error: ProviderError) -> str:
    """Return the error class a user is told about ``error``; the most specific wins.

    One of ``connection_refused``, ``dns``, ``tls``, ``unreachable``, ``authentication``,
    ``quota``, ``model_not_found``, ``timeout``, ``rate_limited``, ``unavailable``,
    ``context_overflow``, ``bad_request``, ``stream``, ``dropped`` or ``provider``
    (docs/adr/0017-no-claim-in-model-words.md).
    """
    for cls, kind in _KINDS:
        if isinstance(error, cls):
            return kind
    return "provider"
