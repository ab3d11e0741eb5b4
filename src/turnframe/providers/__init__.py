"""The provider-neutral model layer (guide §10): normalized calls, profiles, routing.

Vendor adapters live in their own modules, each behind its extra, and are never
imported by this facade: ``turnframe.providers.openai`` (OpenAI, Azure OpenAI,
OpenAI-compatible servers), ``.anthropic``, ``.gemini``, ``.bedrock``, ``.ollama`` and
``.local`` (llama-cpp-python); :func:`~turnframe.providers.registry.vendor_provider`
builds one from a spec such as ``openai:gpt-4.1-mini``. Their shared machinery is
:class:`~turnframe.providers.adapter.VendorProvider`; the conformance suite every
adapter passes is :mod:`turnframe.providers.conformance`.
"""

from turnframe.providers.base import (
    Capabilities,
    Enforcement,
    Message,
    ModelProfile,
    ModelRequest,
    ModelResponse,
    Needs,
    Provider,
    StopReason,
    ToolCall,
    ToolSpec,
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
    MissingCredential,
    Overloaded,
    ProviderCancelled,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    QuotaExceeded,
    RateLimited,
    ServerError,
    StreamInterrupted,
)
from turnframe.providers.routing import REPLY_TASKS, Attempt, CommitFence, FallbackProvider
from turnframe.providers.scripted import (
    Answer,
    FixedLatencyProvider,
    ReplayMismatch,
    ReplayProvider,
    ScriptedProvider,
)

__all__ = [
    "REPLY_TASKS",
    "Answer",
    "Attempt",
    "AuthenticationFailed",
    "BadRequest",
    "CallDropped",
    "Capabilities",
    "CapabilityMissing",
    "CommitFence",
    "ContextOverflow",
    "Enforcement",
    "FallbackProvider",
    "FixedLatencyProvider",
    "Message",
    "MissingCredential",
    "ModelProfile",
    "ModelRequest",
    "ModelResponse",
    "Needs",
    "Overloaded",
    "Provider",
    "ProviderCancelled",
    "ProviderError",
    "ProviderTimeout",
    "ProviderUnavailable",
    "QuotaExceeded",
    "RateLimited",
    "ReplayMismatch",
    "ReplayProvider",
    "ScriptedProvider",
    "ServerError",
    "StopReason",
    "StreamInterrupted",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "estimate_tokens",
    "require",
]
