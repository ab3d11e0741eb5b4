"""The provider-neutral model layer: normalized requests, responses and profiles (guide §10).

The runtime and the tasks depend on these shapes only, never on a vendor's wire format.
A :class:`ModelProfile` declares what one (provider, model) pair can do; a task states
what it needs (:class:`Needs`) and :func:`require` fails loudly when the profile falls
short (:class:`~turnframe.providers.errors.CapabilityMissing`).
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from turnframe.core.canonical import digest
from turnframe.core.ids import JSONObject
from turnframe.providers.errors import CapabilityMissing

__all__ = [
    "Capabilities",
    "Message",
    "ModelProfile",
    "ModelRequest",
    "ModelResponse",
    "Needs",
    "Provider",
    "StopReason",
    "Usage",
    "estimate_tokens",
    "require",
]


def estimate_tokens(text: str) -> int:
    """Return a rough token count for ``text`` (four characters a token, at least one)."""
    return max(1, math.ceil(len(text) / 4))


@dataclass(frozen=True, slots=True, kw_only=True)
class Capabilities:
    """What a (provider, model) pair can do, declared, never guessed at run time.

    Attributes:
        structured_output: the provider enforces a JSON schema at decode time.
        prompt_only_json: it can only be asked for JSON in the prompt.
        streaming: it streams output.
        reasoning_effort: it takes a reasoning-effort setting.
        max_context: its context window, in tokens.
    """

    structured_output: bool = True
    prompt_only_json: bool = False
    streaming: bool = False
    reasoning_effort: bool = False
    max_context: int = 32_000


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


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """One message of a request.

    Attributes:
        role: ``system``, ``user`` or ``assistant``.
        content: its text.
    """

    role: Literal["system", "user", "assistant"]
    content: str


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
    """

    task: str
    messages: tuple[Message, ...]
    schema: JSONObject
    schema_name: str = "answer"
    reasoning: str | None = None
    max_output_tokens: int = 1024
    prompt_id: str = ""

    def fingerprint(self) -> str:
        """Return the digest of what decides an answer: task, messages, schema, reasoning."""
        return digest(
            (
                self.task,
                [(m.role, m.content) for m in self.messages],
                self.schema,
                self.reasoning,
            )
        )

    def prompt_tokens(self) -> int:
        """Return the estimated prompt size in tokens (messages and schema)."""
        schema = json.dumps(self.schema, separators=(",", ":"))
        return sum(estimate_tokens(m.content) for m in self.messages) + estimate_tokens(schema)


class StopReason(StrEnum):
    """How a call that came back ended (providers.md §3.1); none of these is an error."""

    COMPLETE = "complete"
    REFUSAL = "refusal"
    CONTENT_FILTER = "content_filter"
    TRUNCATED = "truncated"
    EMPTY = "empty"


@dataclass(frozen=True, slots=True, kw_only=True)
class Usage:
    """Tokens a call used."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelResponse:
    """A normalized response.

    Attributes:
        text: the raw output text (the JSON answer, unparsed).
        stop: how it ended.
        usage: tokens used.
        model: the model that served it (``provider:model``).
        latency_ms: how long it took.
    """

    text: str
    stop: StopReason = StopReason.COMPLETE
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    latency_ms: float = 0.0


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
