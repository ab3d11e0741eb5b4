"""Verifying external callbacks before they become an origin (docs/architecture.md "Commands", I4).

An external system signs each callback with HMAC-SHA256 over ``"<timestamp>.<body>"``
with a shared secret. :func:`verify_callback` checks the signature in constant time and
the timestamp against a tolerance, and only then returns a
:class:`~turnframe.core.commands.VerifiedCallback` origin with the parsed body. Nothing
else in Turnframe builds that origin from request data.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass

from turnframe.core.commands import VerifiedCallback
from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import FailureClass, Severity, TurnFailure
from turnframe.core.ids import JSONObject

__all__ = ["CallbackRejected", "SignedCallback", "sign_callback", "verify_callback"]


class CallbackRejected(TurnFailure):
    """A callback whose signature, timestamp or body did not verify; nothing was done."""

    default_class = FailureClass(
        retryable=False,
        effect_may_have_happened=False,
        message_key="error.callback_rejected",
        severity=Severity.WARNING,
    )


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class SignedCallback:
    """A verified callback: its origin and its JSON body.

    Attributes:
        origin: the server-issued origin (I4).
        body: the parsed JSON object.
    """

    origin: VerifiedCallback
    body: JSONObject


def sign_callback(secret: bytes, timestamp: str, body: bytes) -> str:
    """Return the hex HMAC-SHA256 of ``timestamp + "." + body`` under ``secret``."""
    return hmac.new(secret, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def verify_callback(
    secret: bytes,
    body: bytes,
    *,
    signature: str,
    timestamp: str,
    now: float,
    source: str,
    tolerance: float = 300.0,
) -> SignedCallback:
    """Return the verified callback, or raise :class:`CallbackRejected`.

    Args:
        secret: the shared secret.
        body: the raw request body, exactly as received.
        signature: the sender's hex signature.
        timestamp: the sender's Unix timestamp (seconds, as text).
        now: the receiver's current Unix time.
        source: the external system (``"airline"``).
        tolerance: how many seconds the timestamp may differ from ``now`` (replays).

    Raises:
        CallbackRejected: a bad signature, a stale or malformed timestamp, a body that
            is not a JSON object, or one without a ``reference``.
    """
    if not secret:
        raise CallbackRejected("no callback secret is configured")
    expected = sign_callback(secret, timestamp, body)
    if not hmac.compare_digest(expected, signature.strip().lower()):
        raise CallbackRejected(f"{source} callback signature does not verify")
    try:
        sent = float(timestamp)
    except ValueError:
        raise CallbackRejected(
            f"{source} callback timestamp {timestamp!r} is not a number"
        ) from None
    if abs(now - sent) > tolerance:
        raise CallbackRejected(f"{source} callback timestamp is outside {tolerance:g} s")
    try:
        data = json.loads(body)
    except ValueError:
        raise CallbackRejected(f"{source} callback body is not JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("reference"), str):
        raise CallbackRejected(f"{source} callback body has no reference")
    return SignedCallback(
        origin=VerifiedCallback(source=source, reference=str(data["reference"])), body=data
    )
