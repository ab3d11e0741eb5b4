"""Vendor providers by name: ``openai:gpt-4.1-mini``, ``anthropic:...``, ``local:PATH``...

The one place that turns a model spec into a vendor adapter. Vendor modules are
imported by name on demand (they are leaves: no library module imports them), so a
missing extra is reported as a usage error naming the extra to install, and a missing
credential as one line naming the environment variable.
"""

from __future__ import annotations

import importlib
from typing import Any

from turnframe.core.errors import UsageError
from turnframe.providers.base import Provider

__all__ = ["VENDOR_SPECS", "is_vendor_spec", "vendor_provider"]

VENDOR_SPECS = (
    "openai:MODEL, openai-responses:MODEL, azure:DEPLOYMENT, anthropic:MODEL, gemini:MODEL, "
    "bedrock:MODEL_ID, ollama:MODEL, openai-compatible:URL#MODEL (llama-server, vLLM...), "
    "local:PATH.gguf (or local:smollm2; llama.cpp in process via xllamacpp), "
    "llama-cpp-python:PATH.gguf"
)

_KINDS = {
    "openai": "openai",
    "openai-responses": "openai",
    "azure": "openai",
    "openai-compatible": "openai",
    "llama-server": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "bedrock": "bedrock",
    "ollama": "ollama",
    "local": "xllamacpp_local",
    "llama-cpp-python": "local",
}


def is_vendor_spec(spec: str) -> bool:
    """Whether ``spec`` names a vendor adapter (``kind:...``)."""
    return spec.partition(":")[0] in _KINDS


def _module(kind: str) -> Any:
    try:
        return importlib.import_module(f"turnframe.providers.{_KINDS[kind]}")
    except ImportError as exc:
        raise UsageError(str(exc)) from None


def vendor_provider(spec: str) -> Provider:
    """Return the adapter ``spec`` names, with credentials from the vendor's usual variables.

    Raises:
        UsageError: an unknown kind, a missing extra, or (as ``MissingCredential``) a
            missing credential.
    """
    kind, _, rest = spec.partition(":")
    if kind not in _KINDS:
        raise UsageError(f"unknown model {spec!r}; vendor models: {VENDOR_SPECS}")
    if not rest:
        raise UsageError(f"name a model after the colon: {kind}:MODEL")
    module = _module(kind)
    provider: Provider
    if kind == "openai":
        provider = module.OpenAIProvider(rest)
        return provider
    if kind == "openai-responses":
        provider = module.OpenAIProvider(rest, api="responses")
        return provider
    if kind == "azure":
        provider = module.AzureOpenAIProvider(rest)
        return provider
    if kind in ("openai-compatible", "llama-server"):
        url, _, model = rest.rpartition("#")
        if not url:
            raise UsageError(
                f"{kind} needs URL#MODEL, e.g. {kind}:http://127.0.0.1:8080/v1#smollm2"
            )
        provider = module.OpenAICompatibleProvider(model, base_url=url)
        return provider
    if kind == "anthropic":
        provider = module.AnthropicProvider(rest)
        return provider
    if kind == "gemini":
        provider = module.GeminiProvider(rest)
        return provider
    if kind == "bedrock":
        provider = module.BedrockProvider(rest)
        return provider
    if kind == "ollama":
        provider = module.OllamaProvider(rest)
        return provider
    if kind == "local":
        # Context sizes are configurable: TURNFRAME_LOCAL_N_CTX (start), _MAX_CTX (ceiling).
        sizes = {name: _int_env(f"TURNFRAME_LOCAL_{name.upper()}") for name in ("n_ctx", "max_ctx")}
        # TURNFRAME_LOCAL_THREADS: CPU threads (default: half the usable cores).
        sizes["threads"] = _threads_env("TURNFRAME_LOCAL_THREADS")
        provider = module.XLlamaCppProvider(
            rest, **{k: v for k, v in sizes.items() if v is not None}
        )
        return provider
    provider = module.LocalProvider(rest)
    return provider


def _threads_env(name: str) -> int | None:
    import os

    value = os.environ.get(name)
    if not value:
        return None
    if not value.isdecimal() or not 1 <= int(value) <= 256:
        raise UsageError(f"{name} is a thread count from 1 to 256, not {value!r}")
    return int(value)


def _int_env(name: str) -> int | None:
    import os

    value = os.environ.get(name)
    if not value:
        return None
    if not value.isdecimal() or int(value) < 256:
        raise UsageError(f"{name} is a token count of at least 256, not {value!r}")
    return int(value)
