"""The telemetry port and its no-op default (docs/telemetry.md "Turning it on").

:class:`Telemetry` is what the runtime, the task runner and the serving layer call: a
span per turn, per pipeline step and per model call, and counters. This base class does
nothing, cheaply (one shared context manager, no allocation per call), so a runtime built
without telemetry, or without the ``otel`` extra, pays nothing measurable and never
imports OpenTelemetry. :class:`turnframe.telemetry.otel.OpenTelemetry` is the one real
implementation, on the official SDK.

The turn's telemetry reaches code deeper down (the task runner's model calls) through a
context variable the turn span sets (:func:`current`): the task runner has no
``RuntimeParts``, and every call of a turn runs in the turn's context (anyio task groups
copy it), so no argument threads through the understanding pipeline.

Attribute values are always code identifiers (step, task, workflow and operation names,
ids, counts), never user text or case content (docs/telemetry.md "What is never recorded").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from contextvars import ContextVar
from types import TracebackType
from typing import Literal, TypeAlias

__all__ = [
    "NO_TELEMETRY",
    "AttributeValue",
    "ModelCall",
    "Span",
    "Telemetry",
    "current",
]

AttributeValue: TypeAlias = "str | bool | int | float | Sequence[str]"
"""A span attribute or metric label value: a scalar or a list of strings."""


class Span:
    """A started span: attributes may be set until it ends. This base records nothing."""

    __slots__ = ()

    def set(self, key: str, value: AttributeValue) -> None:
        """Set the attribute ``key`` (a ``turnframe.*`` or semantic-convention name)."""
        del key, value

    def set_many(self, attributes: Mapping[str, AttributeValue]) -> None:
        """Set every attribute of ``attributes``."""
        del attributes


class ModelCall(Span):
    """A started model-call span (docs/telemetry.md "Model calls"). This base records nothing.

    ``capture_content`` says whether the deployment asked for message content; only then
    does the caller build and redact it (the cost is not paid otherwise).
    """

    __slots__ = ()

    capture_content: bool = False

    def response(
        self,
        *,
        model: str,
        input_tokens: int,
        output_tokens: int,
        finish_reason: str,
    ) -> None:
        """Record the response: the model that served it, token usage, how it ended."""
        del model, input_tokens, output_tokens, finish_reason

    def failed(self, error_type: str) -> None:
        """Mark the call failed with ``error_type`` (an exception class name or a stop reason)."""
        del error_type

    def content(
        self, messages: Sequence[tuple[str, str]], output: str | None, finish_reason: str
    ) -> None:
        """Record the (already redacted) messages ``(role, text)`` and output text.

        Called only when :attr:`capture_content` is true.
        """
        del messages, output, finish_reason


class _Nothing(AbstractContextManager[ModelCall]):
    """One shared context manager that yields the no-op span and swallows nothing."""

    __slots__ = ()

    def __enter__(self) -> ModelCall:
        return _NO_SPAN

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        return False


_NO_SPAN = ModelCall()
_NOTHING = _Nothing()


class Telemetry:
    """Spans and metrics of turns (docs/telemetry.md). This base is the no-op default.

    Every method is safe to call from any step; none raises for telemetry's own sake.
    ``enabled`` is ``False`` here and ``True`` for a real implementation.
    """

    enabled: bool = False

    def turn(self, turn_id: str, *, entry: str) -> AbstractContextManager[Span]:
        """Open the turn's span (``entry``: ``run`` or ``recover``) and make this current.

        Inside the block :func:`current` returns this telemetry, so a model call made by
        any task of the turn is recorded under the turn's span.
        """
        del turn_id, entry
        return _NOTHING

    def describe_turn(self, attributes: Mapping[str, AttributeValue]) -> None:
        """Set ``attributes`` on the current turn's span (effort, workflows, operations)."""
        del attributes

    def step(self, name: str) -> AbstractContextManager[Span]:
        """Open the span of pipeline step ``name`` (``load``, ``commit``...)."""
        del name
        return _NOTHING

    def span(
        self, name: str, attributes: Mapping[str, AttributeValue] | None = None
    ) -> AbstractContextManager[Span]:
        """Open a span named ``turnframe.<name>`` with ``attributes`` (a part of a step)."""
        del name, attributes
        return _NOTHING

    def model_call(
        self, *, provider: str, model: str, task: str, attempt: str
    ) -> AbstractContextManager[ModelCall]:
        """Open a model-call span (OpenTelemetry GenAI conventions, docs/telemetry.md "Model calls").

        Args:
            provider: the provider's name (``openai``, ``scripted``...).
            model: the requested model id.
            task: the task asked (``segment``, ``verify``, ``reply_words``...).
            attempt: ``first``, ``repair``, ``vote``, ``tiebreak`` or ``escalate``.
        """
        del provider, model, task, attempt
        return _NOTHING

    def count(self, name: str, value: int = 1, labels: Mapping[str, str] | None = None) -> None:
        """Add ``value`` to counter ``name`` (the runtime's ``Metrics`` protocol)."""
        del name, value, labels

    def shutdown(self, timeout_seconds: float = 3.0) -> None:
        """Flush and stop whatever exports, waiting ``timeout_seconds`` at most (nothing here)."""
        del timeout_seconds


NO_TELEMETRY = Telemetry()
"""The no-op telemetry every runtime has unless given one."""

_CURRENT: ContextVar[Telemetry] = ContextVar("turnframe_telemetry", default=NO_TELEMETRY)


def current() -> Telemetry:
    """Return the telemetry of the turn running in this context (:data:`NO_TELEMETRY` outside one)."""
    return _CURRENT.get()


def set_current(telemetry: Telemetry) -> object:
    """Make ``telemetry`` current in this context; return the token :func:`reset_current` takes."""
    return _CURRENT.set(telemetry)


def reset_current(token: object) -> None:
    """Restore the telemetry current before :func:`set_current` returned ``token``."""
    _CURRENT.reset(token)  # type: ignore[arg-type]
