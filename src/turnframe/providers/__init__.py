"""The provider-neutral model layer (guide §10): normalized calls, profiles, test providers.

Vendor adapters live in their own modules (a later issue) and depend on this facade only.
"""

from turnframe.providers.base import (
    Capabilities,
    Message,
    ModelProfile,
    ModelRequest,
    ModelResponse,
    Needs,
    Provider,
    StopReason,
    Usage,
    estimate_tokens,
    require,
)
from turnframe.providers.errors import (
    AuthenticationFailed,
    BadRequest,
    CallDropped,
    CapabilityMissing,
    ContextOverflow,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
)
from turnframe.providers.scripted import (
    Answer,
    FixedLatencyProvider,
    ReplayMismatch,
    ReplayProvider,
    ScriptedProvider,
)

__all__ = [
    "Answer",
    "AuthenticationFailed",
    "BadRequest",
    "CallDropped",
    "Capabilities",
    "CapabilityMissing",
    "ContextOverflow",
    "FixedLatencyProvider",
    "Message",
    "ModelProfile",
    "ModelRequest",
    "ModelResponse",
    "Needs",
    "Provider",
    "ProviderError",
    "ProviderUnavailable",
    "RateLimited",
    "ReplayMismatch",
    "ReplayProvider",
    "ScriptedProvider",
    "StopReason",
    "Usage",
    "estimate_tokens",
    "require",
]
