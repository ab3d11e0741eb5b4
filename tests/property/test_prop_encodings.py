"""The fast encoders give the values the stdlib gives (a class of defect: a faster path
that changes what is stored, hashed or read back).

* ``codec.loads`` (pydantic-core's parser, stdlib fallback) reads every text the stdlib
  reads to the same value, and refuses what the stdlib refuses;
* ``codec.dumps_record`` (pydantic-core's encoder) writes text that decodes to what
  ``codec.dumps``'s text decodes to, ``NaN``, infinities, big integers and lone
  surrogates included;
* ``codec.commit_result_text`` decodes to ``commit_result_to_json``;
* ``canonical.to_json_value`` (a per-type dispatch table) equals the plain recursive
  definition it replaced, on dataclasses, enums, dates, decimals, sets and mappings
  (empty ones included), so request hashes and idempotency keys keep their meaning;
* ``canonical.canonical_json`` (the stdlib's C encoder, built once) writes the bytes
  ``json.dumps`` writes, after a refused value too.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass
from datetime import date, datetime
from decimal import Decimal
from enum import Enum, StrEnum
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from turnframe.core.canonical import canonical_json, digest, to_json_value
from turnframe.core.events import DomainEvent
from turnframe.core.ids import CaseRef
from turnframe.store import CommitResult, StoreError, codec

RUNS = settings(max_examples=200)

# any text, lone surrogates included
texts = st.text(st.characters(codec="utf-8") | st.characters(categories=["Cs"]), max_size=10)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63, max_value=2**90)
    | st.floats()
    | texts
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(texts, inner, max_size=4)
    ),
    max_leaves=16,
)


def _same(a: Any, b: Any) -> bool:
    """Equality that holds ``NaN`` equal to itself and tells ``1`` from ``1.0`` and ``True``."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and repr(a) == repr(b))
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@RUNS
@given(values)
@example(2**64)
@example({"big": -(2**70), "nan": float("nan"), "inf": [float("inf"), float("-inf")]})
@example("\ud800 lone")
def test_loads_reads_what_the_stdlib_reads(value: Any) -> None:
    for text in (
        json.dumps(value, separators=(",", ":"), ensure_ascii=False),
        json.dumps(value),
    ):
        assert _same(codec.loads(text), json.loads(text))


@pytest.mark.parametrize("text", ["", "[1,", '{"a" 1}', "[1,]", "01", "'a'", "1 2", "nan"])
def test_loads_refuses_what_the_stdlib_refuses(text: str) -> None:
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    with pytest.raises(StoreError):
        codec.loads(text)


@RUNS
@given(values)
@example({"nan": float("nan"), "big": 2**80, "s": "\udfff", "t": ("é", 1.5)})
@example("top-level text ✓")
@example(float("-inf"))
def test_dumps_keeps_the_stdlib_text(value: Any) -> None:
    """``dumps`` (its C encoder built once) writes ``json.dumps``'s compact text exactly.

    UTF-8 kept as is, or everything escaped when the text holds a lone surrogate.
    """
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, separators=(",", ":"))
    assert codec.dumps(value) == text


@pytest.mark.parametrize(
    "bad", [{1, 2}, {"d": date(2026, 5, 1)}, [b"bytes"], {("tuple", "key"): 1}, object()]
)
def test_dumps_refuses_what_the_stdlib_refuses(bad: object) -> None:
    with pytest.raises(TypeError):
        json.dumps(bad)
    with pytest.raises(StoreError, match="not JSON-serialisable"):
        codec.dumps(bad)


def test_dumps_refuses_a_value_that_holds_itself() -> None:
    looped: list[Any] = []
    looped.append(looped)
    with pytest.raises(StoreError, match="not JSON-serialisable"):
        codec.dumps(looped)


@RUNS
@given(values)
@example({"nan": float("nan"), "big": 2**80, "s": "\udfff"})
def test_dumps_record_decodes_to_what_dumps_decodes_to(value: Any) -> None:
    expected = json.loads(codec.dumps(value))
    text = codec.dumps_record(value)
    assert _same(json.loads(text), expected)
    assert _same(codec.loads(text), expected)
    assert _same(codec.record_copy(value), codec.json_copy(value))


words = st.text(max_size=8)


@RUNS
@given(
    st.lists(
        st.tuples(words, words, words, words, st.dictionaries(words, st.integers() | words)),
        max_size=3,
    ),
    words,
    words,
    st.integers(min_value=0, max_value=2**40),
    st.lists(words, max_size=3),
    st.booleans(),
)
@example([("e\ud800", "t", "o", "turn", {})], "trip", "t\udc00", 1, ["ob-\ud801"], False)
def test_commit_result_text_decodes_to_commit_result_to_json(
    drafts: list[tuple[str, str, str, str, dict[str, Any]]],
    workflow: str,
    case_id: str,
    revision: int,
    outbox: list[str],
    replayed: bool,
) -> None:
    case = CaseRef(workflow, case_id)
    events = tuple(
        DomainEvent(
            id=event_id,
            case=case,
            revision=revision,
            type=kind,
            data=data,
            operation=operation,
            turn_id=turn_id,
            idempotency_key=event_id + kind,
        )
        for event_id, kind, operation, turn_id, data in drafts
    )
    result = CommitResult(
        case=case, revision=revision, events=events, outbox_ids=tuple(outbox), replayed=replayed
    )
    text = codec.commit_result_text(result, [codec.dumps(e.data) for e in events])
    text.encode("utf-8")  # storable in any UTF-8 database
    assert json.loads(text) == json.loads(codec.dumps(codec.commit_result_to_json(result)))
    assert codec.commit_result_from_json(codec.loads(text)) == result


# to_json_value against the plain recursive definition ----------------------------------
def _reference(value: object) -> Any:
    """The recursive definition of ``to_json_value`` (its documented rule, check by check)."""
    kind = type(value)
    if kind in (str, int, float, bool, type(None)):
        return value
    if kind is dict:
        return {str(k): _reference(v) for k, v in value.items()}  # type: ignore[attr-defined]
    if kind is list or kind is tuple:
        return [_reference(v) for v in value]  # type: ignore[attr-defined]
    if kind is CaseRef:
        return str(value)
    if isinstance(value, Enum):
        return _reference(value.value)
    if isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _reference(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _reference(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted((_reference(v) for v in value), key=lambda v: json.dumps(v))
    if isinstance(value, list | tuple):
        return [_reference(v) for v in value]
    raise TypeError(f"no JSON form for {kind.__name__}")


class Colour(Enum):
    RED = "red"
    BLUE = 2


class Level(int, Enum):
    LOW = 1


class Name(StrEnum):
    ANA = "ana"


@dataclass(frozen=True)
class Empty:
    pass


@dataclass(frozen=True)
class One:
    only: object


@dataclass(frozen=True)
class Many:
    first: object
    second: object
    third: object = None


class Frozen(Mapping[str, object]):
    """A mapping that is not a dict."""

    def __init__(self, data: dict[str, object]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> object:
        return self._data[key]

    def __iter__(self) -> Any:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | words
    | st.sampled_from([*Colour, *Level, *Name])
    | st.dates()
    | st.datetimes()
    | st.decimals(allow_nan=False, allow_infinity=False)
    | st.builds(CaseRef, words, words)
    | st.frozensets(st.integers() | words, max_size=3)
    | st.sets(st.integers() | words, max_size=2)
    # the empty containers ``to_json_value`` answers without converting anything
    | st.sampled_from([(), [], {}, frozenset(), set(), Frozen({}), Empty()])
)
structures = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(words | st.integers(), inner, max_size=3)
        | st.dictionaries(words, inner, max_size=3).map(Frozen)
        | st.just(Empty())
        | st.builds(One, inner)
        | st.builds(Many, inner, inner, inner)
    ),
    max_leaves=12,
)


@RUNS
@given(structures)
@example(Many((), frozenset(), {}))
@example({"t": (), "l": [], "s": set(), "m": Frozen({}), "d": {1: ()}})
def test_to_json_value_keeps_its_definition(value: object) -> None:
    assert to_json_value(value) == _reference(value)
    assert canonical_json(value) == json.dumps(
        _reference(value), sort_keys=True, separators=(",", ":")
    )


@pytest.mark.parametrize("bad", [object(), b"bytes", 1j, [object()], {"k": {1, object()}}])
def test_to_json_value_refuses_what_has_no_json_form(bad: object) -> None:
    with pytest.raises(TypeError):
        _reference(bad)
    with pytest.raises(TypeError):
        to_json_value(bad)


hashed = st.recursive(
    leaves | scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, st.tuples(inner))
        | st.just(())
        | st.dictionaries(texts, inner, max_size=3)
        | st.builds(Many, inner, inner, inner)
    ),
    max_leaves=12,
)


@RUNS
@given(hashed)
@example({"nan": float("nan"), "big": 2**90, "lone": "\udc80", "t": ((1,), (Decimal("1.5"),))})
def test_canonical_json_and_digest_keep_their_bytes(value: object) -> None:
    # NaN, infinities, big integers, lone surrogates, nested tuples, decimals, dates:
    # request hashes and idempotency keys are the digest of exactly this text.
    import hashlib

    text = json.dumps(_reference(value), sort_keys=True, separators=(",", ":"))
    assert canonical_json(value) == text
    assert digest(value) == hashlib.sha256(text.encode("utf-8")).hexdigest()


@RUNS
@given(hashed)
def test_canonical_json_keeps_its_bytes_after_a_refused_value(value: object) -> None:
    # ``canonical_json`` runs a C encoder built once: a value it refused before (mid-way
    # through a container, past ``to_json_value``) leaves nothing behind that changes
    # the next text.
    from turnframe.core import canonical

    for bad in ([1, {"k": object()}], {"a": [2, [3, 1j]]}):
        with pytest.raises(TypeError):
            canonical_json(bad)
        with pytest.raises(TypeError):
            canonical._canonical(bad)
    text = json.dumps(_reference(value), sort_keys=True, separators=(",", ":"))
    assert canonical_json(value) == text
    assert canonical_json([value, value]) == f"[{text},{text}]"  # the same object twice
