"""Every built-in adapter and profile through the shared conformance suite.

Each class runs all cases once, through the vendor's real SDK and HTTP stack, against
the loopback fake; a target whose extra is missing is skipped with the install hint.
"""

from __future__ import annotations

from turnframe.providers.conformance import ProviderConformance
from turnframe.providers.conformance.targets import builtin_targets

TARGETS = {t.name: t for t in builtin_targets()}


class TestOpenAIChat(ProviderConformance):
    target = TARGETS["openai (chat completions)"]


class TestOpenAIResponses(ProviderConformance):
    target = TARGETS["openai (responses)"]


class TestAzureOpenAI(ProviderConformance):
    target = TARGETS["azure-openai"]


class TestLlamaServer(ProviderConformance):
    target = TARGETS["openai-compatible (llama-server)"]


class TestAnthropic(ProviderConformance):
    target = TARGETS["anthropic"]


class TestGemini(ProviderConformance):
    target = TARGETS["gemini"]


class TestBedrock(ProviderConformance):
    target = TARGETS["bedrock"]


class TestOllama(ProviderConformance):
    target = TARGETS["ollama"]


def test_every_builtin_target_has_a_test_class() -> None:
    classes = [
        c for c in globals().values() if isinstance(c, type) and c.__name__.startswith("Test")
    ]
    assert {c.target.name for c in classes} == set(TARGETS)
