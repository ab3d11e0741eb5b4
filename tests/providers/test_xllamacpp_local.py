"""The local adapter's request shape, without a model: compact grammar, threads (docs/adr/0019)."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("xllamacpp", reason='the local adapter needs "turnframe[local]"')

from turnframe.core.errors import UsageError
from turnframe.providers import xllamacpp_local as local
from turnframe.providers.base import Message, ModelRequest
from turnframe.providers.registry import vendor_provider

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "units": {
            "type": "array",
            "maxItems": 4,
            "items": {
                "type": "object",
                "properties": {"id": {"enum": ["u1", "u2"]}, "text": {"type": "string"}},
                "required": ["id", "text"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["units"],
    "additionalProperties": False,
}


def _request() -> ModelRequest:
    return ModelRequest(
        task="segment",
        messages=(
            Message(role="system", content="Split."),
            Message(role="user", content="Rename it"),
        ),
        schema=SCHEMA,
    )


def test_the_grammar_allows_no_whitespace_between_tokens() -> None:
    grammar = local.compact_grammar(SCHEMA)
    assert grammar is not None
    if grammar.startswith("%llguidance"):
        _, _, body = grammar.partition("%json")
        sent = json.loads(body)
        assert sent["x-guidance"] == {"whitespace_flexible": False}
        assert sent["properties"] == SCHEMA["properties"]
    else:  # a GBNF build of llama.cpp
        assert local._NARROW_SPACE in grammar.splitlines()


def test_a_gbnf_build_gets_its_space_rule_narrowed(monkeypatch: pytest.MonkeyPatch) -> None:
    gbnf = 'root ::= "{" space "}" space\nspace ::= | " " | "\\n"{1,2} [ \\t]{0,20}'
    monkeypatch.setattr(local.xllamacpp, "json_schema_to_grammar", lambda schema: gbnf)
    grammar = local.compact_grammar(SCHEMA)
    assert grammar == 'root ::= "{" space "}" space\nspace ::= | " "'


def test_a_schema_the_converter_refuses_falls_back_to_json_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(schema: object) -> str:
        raise ValueError("unsupported")

    monkeypatch.setattr(local.xllamacpp, "json_schema_to_grammar", refuse)
    provider = object.__new__(local.XLlamaCppProvider)
    body = provider._body(_request(), SCHEMA)
    assert "grammar" not in body
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA


def test_the_request_carries_the_compact_grammar_and_temperature_zero() -> None:
    provider = object.__new__(local.XLlamaCppProvider)
    body = provider._body(_request(), SCHEMA)
    assert body["grammar"] == local.compact_grammar(SCHEMA)
    assert "response_format" not in body
    assert body["temperature"] == 0.0
    assert body["max_tokens"] == 1024


@pytest.mark.parametrize(("cores", "threads"), [(1, 1), (2, 1), (4, 2), (8, 4), (64, 8)])
def test_threads_default_to_half_the_usable_cores(
    monkeypatch: pytest.MonkeyPatch, cores: int, threads: int
) -> None:
    monkeypatch.setattr(local.os, "sched_getaffinity", lambda pid: set(range(cores)))
    assert local.default_threads() == threads


@pytest.mark.parametrize("value", ["0", "two", "-1", "999"])
def test_a_bad_thread_count_is_a_usage_error(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("TURNFRAME_LOCAL_THREADS", value)
    with pytest.raises(UsageError, match="TURNFRAME_LOCAL_THREADS"):
        vendor_provider("local:/nonexistent/model.gguf")
