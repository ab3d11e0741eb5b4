"""A model call inside its GenAI span (docs/telemetry.md "Model calls").

The task runner sends every request through :func:`traced_complete`: with the turn's
telemetry off (the default) it is ``provider.complete(request)`` and nothing else; on,
the call gets one span following the OpenTelemetry GenAI conventions, and its messages
only when the deployment turned content capture on, redacted first with the provider's
own :class:`~turnframe.providers.redact.Redactor` (a vendor adapter's, which knows its
credentials) or, for a provider without one, the credential patterns alone.
"""

from __future__ import annotations

from turnframe.providers.base import ModelRequest, ModelResponse, Provider, StopReason
from turnframe.providers.redact import Redactor
from turnframe.telemetry import ModelCall, current

__all__ = ["FINISH_REASONS", "traced_complete"]

FINISH_REASONS = {
    StopReason.COMPLETE: "stop",
    StopReason.TRUNCATED: "length",
    StopReason.CONTENT_FILTER: "content_filter",
    StopReason.TOOL_CALLS: "tool_calls",
}
"""``gen_ai.response.finish_reasons`` for stop reasons with a common name; the others
(``refusal``, ``empty``, ``malformed``) are reported by their own value."""


def _finish(stop: StopReason) -> str:
    return FINISH_REASONS.get(stop, stop.value)


def _content(
    call: ModelCall, provider: Provider, request: ModelRequest, response: ModelResponse | None
) -> None:
    redact = getattr(provider, "redact", None)
    if not isinstance(redact, Redactor):
        redact = Redactor()
    call.content(
        [(m.role, redact(m.content)) for m in request.messages],
        redact(response.text) if response is not None else None,
        _finish(response.stop) if response is not None else "error",
    )


async def traced_complete(provider: Provider, request: ModelRequest, attempt: str) -> ModelResponse:
    """Return ``await provider.complete(request)``, in a model-call span when telemetry is on.

    Raises:
        ProviderError: whatever the provider raises (the span keeps its class name as
            ``error.type``, never its message).
    """
    telemetry = current()
    if not telemetry.enabled:
        return await provider.complete(request)
    profile = provider.profile
    with telemetry.model_call(
        provider=profile.provider, model=profile.model, task=request.task, attempt=attempt
    ) as call:
        try:
            response = await provider.complete(request)
        except Exception:
            if call.capture_content:
                _content(call, provider, request, None)
            raise
        call.response(
            model=response.model or profile.model,
            input_tokens=response.usage.prompt_tokens,
            output_tokens=response.usage.completion_tokens,
            finish_reason=_finish(response.stop),
        )
        if call.capture_content:
            _content(call, provider, request, response)
        return response
