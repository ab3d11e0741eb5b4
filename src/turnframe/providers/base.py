"""The provider-neutral model layer: normalized requests, responses and profiles.

See docs/architecture.md "Providers".

The runtime and the tasks depend on these shapes only, never on a vendor's wire format.
A :class:`ModelProfile` declares what one (provider, model) pair can do; a task states
what it needs (:class:`Needs`) and :func:`require` fails loudly when the profile falls
short (:class:`~turnframe.providers.errors.CapabilityMissing`).
"""

from __future__ import annotations

import hashlib
import json
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import JSONObject
from turnframe.providers.errors import CapabilityMissing

__all__ = [
    "SCHEMA_KEYWORDS",
    "Capabilities",
    "Enforcement",
    "Message",
    "ModelProfile",
    "ModelRequest",
    "ModelResponse",
    "Needs",
    "Provider",
    "StopReason",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "estimate_tokens",
    "require",
]


def estimate_tokens(text: str) -> int:
    """Return a rough token count for ``text`` (four characters a token, at least one)."""
    return max(1, math.ceil(len(text) / 4))


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Capabilities:
    """What a (provider, model) pair can do, declared, never guessed at run time.

    Attributes:
        structured_output: the provider enforces a JSON schema at decode time.
        prompt_only_json: it can only be asked for JSON in the prompt.
        streaming: it streams output.
        reasoning_effort: it takes a reasoning-effort setting.
        max_context: its context window, in tokens.
        structured_mode: how the schema is enforced (``strict json_schema``, ``forced
            tool``, ``output_config.format``...); ``""`` when not by a vendor.
        schema_subset: the JSON-Schema keywords enforced at decode time (``None``: all).
            Every other keyword of a request's schema is left out of what is sent and
            only checked afterwards against the full schema; the response says so.
        tool_calls: it returns tool calls with identifiers.
        refusal_state: it reports a refusal as its own state (others show a filter).
        temperature: it accepts a sampling temperature (reasoning models often do not).
        seed: it accepts a sampling seed.
        respelled: keywords outside ``schema_subset`` the adapter sends in an equivalent
            spelling the vendor enforces (``const`` as a one-value ``enum``).
    """

    structured_output: bool = True
    prompt_only_json: bool = False
    streaming: bool = False
    reasoning_effort: bool = False
    max_context: int = 32_000
    structured_mode: str = ""
    schema_subset: frozenset[str] | None = None
    tool_calls: bool = False
    refusal_state: bool = False
    temperature: bool = True
    seed: bool = False
    respelled: frozenset[str] = frozenset()

    def enforces(self, keyword: str) -> bool:
        """Whether the vendor enforces JSON-Schema ``keyword`` while decoding."""
        return (
            self.schema_subset is None or keyword in self.schema_subset or keyword in self.respelled
        )


SCHEMA_KEYWORDS = (
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minimum",
    "maximum",
)
"""Every JSON-Schema keyword the task schemas use (``turnframe.tasks.schema``)."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ModelProfile:
    """One (provider, model) pair with its declared capabilities.

    Attributes:
        provider: the provider's name (``"scripted"``, ``"openai"``…).
        model: the model's id.
        capabilities: what it can do.
    """

    provider: str
    model: str
    capabilities: Capabilities = field(default_factory=Capabilities)

    @property
    def id(self) -> str:
        """``provider:model``."""
        return f"{self.provider}:{self.model}"

    def keyword_enforcement(self) -> dict[str, bool]:
        """Return task-schema keyword → whether this profile enforces it at decode time.

        A keyword mapped to ``False`` is dropped from what is sent; the rule it carries is
        then kept only by the full-schema check after decoding and by the task's own check
        (I2, docs/adr/0018-decoder-enforceable-schemas.md, the table in docs/providers.md).
        """
        return {k: self.capabilities.enforces(k) for k in SCHEMA_KEYWORDS}


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Needs:
    """What a task needs of a model.

    Attributes:
        structured_output: genuine schema-enforced output (understanding always needs it).
        allow_prompt_only_json: accept prompt-only JSON instead (explicit opt-in, never default).
        reasoning: the task asks for some reasoning when the profile supports it.
        min_context: the smallest context window that fits the task.
    """

    structured_output: bool = True
    allow_prompt_only_json: bool = False
    reasoning: bool = False
    min_context: int = 0


def require(profile: ModelProfile, needs: Needs) -> None:
    """Check that ``profile`` meets ``needs``.

    Raises:
        CapabilityMissing: when it does not; nothing is ever degraded silently.
    """
    caps = profile.capabilities
    if needs.structured_output and not caps.structured_output:
        if not (needs.allow_prompt_only_json and caps.prompt_only_json):
            raise CapabilityMissing(
                f"{profile.id} has no genuine structured output and this task does not allow "
                "prompt-only JSON"
            )
    if needs.min_context and caps.max_context < needs.min_context:
        raise CapabilityMissing(
            f"{profile.id} has a {caps.max_context}-token context; the task needs {needs.min_context}"
        )


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """One message of a request.

    Attributes:
        role: ``system``, ``user`` or ``assistant``.
        content: its text.
    """

    role: Literal["system", "user", "assistant"]
    content: str


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    """A tool the model may call.

    Attributes:
        name: the tool's name.
        description: what it does.
        schema: the JSON schema of its arguments.
    """

    name: str
    description: str
    schema: JSONObject


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """One tool call the model made, in the order it made them.

    Attributes:
        id: the vendor's call identifier (echo it back with the tool's result).
        name: the tool's name.
        arguments: the arguments as JSON text (vendors send a string or an object).
        synthetic_id: the vendor sent no identifier; ``id`` was made up from the
            call's position (``call_<index>``), stable for one response.
    """

    id: str
    name: str
    arguments: str
    synthetic_id: bool = False


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ModelRequest:
    """A normalized request: messages and the strict output schema.

    Attributes:
        task: the task's name (``"route"``), for scripts, records and routing.
        messages: the conversation with the model, system first.
        schema: the JSON schema the answer must follow (strict, built for the turn).
        schema_name: a name for the schema.
        reasoning: ``None`` or a reasoning effort (``"low"``) when the profile supports it.
        max_output_tokens: an output cap.
        prompt_id: the prompt's identity (name and content digest) for records.
        tools: tools the model may call instead of answering (adapters with
            ``tool_calls``); empty for the framework's own tasks.
        stream: ask the vendor to stream; the adapter rebuilds the same response.
        strict_schema: fail before sending when a keyword of ``schema`` is outside the
            profile's enforced subset (default: send the subset, validate the rest).
        allow_prompt_only_json: accept a profile that can only be asked for JSON in
            the prompt (explicit opt-in, never the default).
        temperature: the sampling temperature, sent where the profile accepts one
            (``None``: the vendor's default).
        seed: the sampling seed, sent where the profile accepts one (``None``: none).
    """

    task: str
    messages: tuple[Message, ...]
    schema: JSONObject
    schema_name: str = "answer"
    reasoning: str | None = None
    max_output_tokens: int = 1024
    prompt_id: str = ""
    tools: tuple[ToolSpec, ...] = ()
    stream: bool = False
    strict_schema: bool = False
    allow_prompt_only_json: bool = False
    temperature: float | None = None
    seed: int | None = None

    def fingerprint(self) -> str:
        """Return the digest of what decides an answer: task, messages, schema, reasoning.

        It equals ``digest((task, [(role, content)...], schema, reasoning))``, with
        ``(temperature, seed)`` appended when either is set; every part is already plain
        JSON, so the canonical text is written directly (no conversion).
        """
        parts: list[object] = [
            self.task,
            [(m.role, m.content) for m in self.messages],
            self.schema,
            self.reasoning,
        ]
        if self.temperature is not None or self.seed is not None:
            parts.append([self.temperature, self.seed])
        text = json.dumps(parts, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def prompt_tokens(self) -> int:
        """Return the estimated prompt size in tokens (messages and schema)."""
        schema = json.dumps(self.schema, separators=(",", ":"))
        return sum(estimate_tokens(m.content) for m in self.messages) + estimate_tokens(schema)


class StopReason(StrEnum):
    """How a call that came back ended; none of these is an error.

    See docs/provider-adapters.md "What every adapter does the same way".

    ``MALFORMED``: the output is not JSON or breaks the full schema (the vendor's own
    malformed states included). ``TOOL_CALLS``: the model called tools instead.
    """

    COMPLETE = "complete"
    REFUSAL = "refusal"
    CONTENT_FILTER = "content_filter"
    TRUNCATED = "truncated"
    EMPTY = "empty"
    MALFORMED = "malformed"
    TOOL_CALLS = "tool_calls"


class Enforcement(StrEnum):
    """How much of a response's schema the vendor enforced while decoding.

    ``GENUINE``: every keyword. ``SUBSET``: the profile's enforced subset; the rest was
    checked only afterwards. ``PROMPT_ONLY``: JSON asked for in the prompt (explicit
    opt-in). ``NONE``: not a vendor call (scripted, replayed).
    """

    GENUINE = "genuine"
    SUBSET = "subset"
    PROMPT_ONLY = "prompt_only"
    NONE = "none"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Usage:
    """Tokens a call used."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ModelResponse:
    """A normalized response.

    Attributes:
        text: the raw output text (the JSON answer, unparsed).
        stop: how it ended.
        usage: tokens used.
        model: the model that served it (``provider:model``).
        latency_ms: how long it took.
        tool_calls: the tool calls, in order (``stop`` is ``TOOL_CALLS``).
        enforcement: how much of the schema the vendor enforced.
        unenforced: the schema keywords left to the full-schema check.
        problems: why the output is ``MALFORMED`` (parse or full-schema errors).
        detail: the vendor's own reason (``finish_reason``, a refusal's words, a
            filter category), redacted; for logs, never for users.
    """

    text: str
    stop: StopReason = StopReason.COMPLETE
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    latency_ms: float = 0.0
    tool_calls: tuple[ToolCall, ...] = ()
    enforcement: Enforcement = Enforcement.NONE
    unenforced: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    detail: str = ""


class Provider(ABC):
    """A model provider serving one profile. Adapters translate every vendor error.

    Implementations never put a credential or a raw request into an error or a record.
    """

    profile: ModelProfile

    @abstractmethod
    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Return the model's answer to ``request``.

        Raises:
            ProviderError: a classified failure (rate limit, drop, auth, overflow...).
        """
