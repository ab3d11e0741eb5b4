"""The provider-neutral model layer: normalized calls, profiles, routing.

See docs/architecture.md "Providers".

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
    ConnectionRefused,
    ContextOverflow,
    HostNotFound,
    MissingCredential,
    ModelNotFound,
    Overloaded,
    ProviderCancelled,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    ProviderUnreachable,
    QuotaExceeded,
    RateLimited,
    ServerError,
    StreamInterrupted,
    TlsFailed,
    error_kind,
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
    "ConnectionRefused",
    "CommitFence",
    "ContextOverflow",
    "HostNotFound",
    "Enforcement",
    "FallbackProvider",
    "FixedLatencyProvider",
    "Message",
    "MissingCredential",
    "ModelNotFound",
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
    "ProviderUnreachable",
    "QuotaExceeded",
    "RateLimited",
    "ReplayMismatch",
    "ReplayProvider",
    "ScriptedProvider",
    "ServerError",
    "StopReason",
    "StreamInterrupted",
    "TlsFailed",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "estimate_tokens",
    "require",
    "error_kind",
]
