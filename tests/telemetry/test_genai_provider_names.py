"""``gen_ai.provider.name`` of each hosted vendor adapter is the GenAI conventions' value.

A backend filtering on ``aws.bedrock`` or ``gcp.gemini`` finds Turnframe's calls
(docs/telemetry.md "Model calls"); providers with no well-known value keep their name.
"""

from __future__ import annotations

import pytest
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from telemetry_kit import Recorded

from turnframe.providers.anthropic import anthropic_profile
from turnframe.providers.bedrock import bedrock_profile
from turnframe.providers.gemini import gemini_profile
from turnframe.providers.openai import openai_profile

WELL_KNOWN = {v.value for v in gen_ai.GenAiProviderNameValues}


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        (openai_profile("gpt-4o"), "openai"),
        (openai_profile("dep", provider="azure-openai"), "azure.ai.openai"),
        (anthropic_profile("claude-x"), "anthropic"),
        (gemini_profile("gemini-2.5-flash"), "gcp.gemini"),
        (bedrock_profile("anthropic.claude-x"), "aws.bedrock"),
    ],
)
def test_hosted_vendors_use_the_well_known_provider_name(
    recorded: Recorded, profile: object, expected: str
) -> None:
    provider = profile.provider  # type: ignore[attr-defined]
    with recorded.telemetry.model_call(provider=provider, model="m", task="route", attempt="first"):
        pass
    (span,) = recorded.spans()
    assert span.attributes is not None
    assert span.attributes[gen_ai.GEN_AI_PROVIDER_NAME] == expected
    assert span.attributes[gen_ai.GEN_AI_SYSTEM] == expected
    assert expected in WELL_KNOWN
    (point,) = recorded.metrics()["gen_ai.client.operation.duration"]
    assert point[0][gen_ai.GEN_AI_PROVIDER_NAME] == expected


def test_a_provider_without_a_well_known_value_keeps_its_name(recorded: Recorded) -> None:
    with recorded.telemetry.model_call(provider="ollama", model="m", task="route", attempt="first"):
        pass
    (span,) = recorded.spans()
    assert span.attributes is not None
    assert span.attributes[gen_ai.GEN_AI_PROVIDER_NAME] == "ollama"
