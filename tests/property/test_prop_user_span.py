"""The stored value is the user's words (issue 8 item 7, docs/adr/0015-values-in-the-turns-locale.md).

A model's copy that matches the pointed words only loosely (letter case, spacing,
accents, edge punctuation) is kept as a pointer, and the value stored is the user's own
text at the span: booking references, names and codes keep their exact form.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import replace
from datetime import date
from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.core import Actor, TurnInput
from turnframe.providers import ModelRequest, ScriptedProvider
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import seed_state, travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import ModelUnderstanding
from turnframe.understand.extract import read_values
from turnframe.understand.words import Words

ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
LETTERS = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ0123456789áéíóúçãõâêôÁÉÍÓÚÇÃÕÂÊÔ"
TOKENS = st.text(alphabet=LETTERS, min_size=2, max_size=8)
CODES = st.lists(TOKENS, min_size=1, max_size=2).filter(
    lambda ts: any(c.isalpha() for t in ts for c in t)
)


def _plain(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


VARIATIONS = {
    "upper": lambda ts: " ".join(ts).upper(),
    "lower": lambda ts: " ".join(ts).lower(),
    "swapcase": lambda ts: " ".join(ts).swapcase(),
    "no accents": lambda ts: _plain(" ".join(ts)),
    "no accents, upper": lambda ts: _plain(" ".join(ts)).upper(),
    "joined": lambda ts: "".join(ts),
    "spaced": lambda ts: "  ".join(ts),
    "composed differently": lambda ts: unicodedata.normalize("NFD", " ".join(ts)),
}


def _provider(code: list[str], copy: str, message: Words) -> ScriptedProvider:
    last = len(message) - 1

    def answer(request: ModelRequest) -> Any:
        match request.task:
            case "read":
                # Low effort's merged read carries the same values (the one record is the
                # target code knows).
                unit = {"id": "u1", "kind": "request", "from": 0, "to": last}
                values = answer(replace(request, task="extract"))["values"]
                act = {"operation": "trip.add_extra", "target": None, "values": values}
                extra = {"constraint": None, "card": None, "corrects": None, "cancels": None}
                read = {**unit, "hypothetical": False, "continues": None, "acts": [act]}
                return {"units": [{**read, "topic": None, **extra}]}
            case "segment":
                unit = {"id": "u1", "kind": "request", "from": 0, "to": last}
                return {"units": [{**unit, "hypothetical": False, "continues": None}]}
            case "route":
                route = {"unit": "u1", "operations": ["trip.add_extra"], "topic": None}
                extra = {"constraint": None, "card": None, "corrects": None, "cancels": None}
                return {"routes": [{**route, **extra}]}
            case "extract":
                kind = {"argument": "kind", "from": 3, "to": 3, "copy": "SEAT", "choice": "seat"}
                details = {"argument": "details", "from": 6, "to": last, "copy": copy}
                return {"values": [kind, details]}
            case "verify":
                data = json.loads(request.messages[1].content)
                assert data
                return {"verdict": "ok", "grounding": "user", "findings": []}
        raise AssertionError(request.task)

    return ScriptedProvider(answer)


async def _stored(code: list[str], copy: str, end: str) -> tuple[str, Any]:
    text = f"Please add a seat with reference {' '.join(code)}{end}"
    words = Words.of(text)
    store = InMemoryStore()
    understander = ModelUnderstanding(_provider(code, copy, words), effort="low")
    runtime = Runtime(
        travel_application(),
        store,
        understander,
        clock=FixedClock(date(2026, 5, 1)),
        ids=SequentialIds(),
    )
    workflow, state = seed_state({"key": "T1", "workflow": "trip", "name": "Lisbon"}, {})
    trip = await runtime.seed("acme", workflow, state, case_id="t1")
    result = await runtime.run_turn(ACTOR, "c1", TurnInput(text=text))
    row = await store.load_case(trip)
    assert row is not None
    return text, (result, row.state)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(code=CODES, how=st.sampled_from(sorted(VARIATIONS)), end=st.sampled_from(["", ".", "!"]))
def test_a_loose_copy_stores_the_users_exact_span(code: list[str], how: str, end: str) -> None:
    copy = VARIATIONS[how](code)
    text, (result, state) = anyio.run(_stored, code, copy, end)
    assert result.results["a1"].status.value == "committed", (text, copy, result.results)
    extras = state["extras"]
    assert extras and extras[0]["details"] == " ".join(code), (text, copy, extras)


@settings(max_examples=200, deadline=None)
@given(code=CODES, how=st.sampled_from(sorted(VARIATIONS)), lead=st.sampled_from(["", "(", '"']))
def test_read_values_takes_the_span_not_the_copy(code: list[str], how: str, lead: str) -> None:
    spaced = "   ".join(code)  # the user's own spacing is kept too
    words = Words.of(f"reference {lead}{spaced}{')' if lead == '(' else lead}, please")
    last = len(words) - 2
    copy = VARIATIONS[how](code)
    assert words.pointer_error(copy, 1, last) is None
    args, evidence = read_values(
        {"values": [{"argument": "details", "from": 1, "to": last, "copy": copy}]}, words
    )
    assert args["details"] == spaced and evidence["details"] == spaced


def test_a_copy_that_is_other_words_is_still_refused() -> None:
    words = Words.of("reference AbC12x please")
    assert words.pointer_error("AbC12y", 1, 1) is not None
    assert words.pointer_error("AbC12", 1, 1) is not None
    assert words.pointer_error("abc12x", 1, 1) is None
