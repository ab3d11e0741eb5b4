"""JSON forms of the runtime's plan records, so a turn can resume after a crash.

See docs/architecture.md "Failures".
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from turnframe.core.ids import JSONObject
from turnframe.core.interactions import InteractionSpec
from turnframe.core.results import PlannedActResult
from turnframe.runtime.plan import CardClose, WaitingAct
from turnframe.runtime.turn import PreparedTurn
from turnframe.store.base import CommitRequest

__all__ = [
    "dump",
    "dump_waiting",
    "load_card_close",
    "load_commit_request",
    "load_result",
    "load_spec",
    "load_waiting",
]

_SPEC: TypeAdapter[InteractionSpec] = TypeAdapter(InteractionSpec)
_RESULT: TypeAdapter[PlannedActResult] = TypeAdapter(PlannedActResult)
_CLOSE: TypeAdapter[CardClose] = TypeAdapter(CardClose)
_REQUEST: TypeAdapter[CommitRequest] = TypeAdapter(CommitRequest)
_ANY: TypeAdapter[Any] = TypeAdapter(Any)
_PREPARED: TypeAdapter[PreparedTurn] = TypeAdapter(PreparedTurn)
_WAITING: TypeAdapter[tuple[WaitingAct, ...]] = TypeAdapter(tuple[WaitingAct, ...])


def dump_waiting(waiting: tuple[WaitingAct, ...]) -> list[Any]:
    """Return the acts waiting for a record as JSON (conversation state, ADR 0007)."""
    out = _WAITING.dump_python(waiting, mode="json")
    assert isinstance(out, list)
    return out


def load_waiting(data: Any) -> tuple[WaitingAct, ...]:
    """Return the acts waiting for a record that ``data`` holds (empty for none)."""
    return _WAITING.validate_python(data) if data else ()


def dump(value: object) -> JSONObject:
    """Return ``value`` (a runtime or core dataclass) as a JSON object."""
    # The schema-driven adapter writes a PreparedTurn alike, about twice as fast as
    # inferring every value's type (it is dumped twice per turn).
    if type(value) is PreparedTurn:
        out = _PREPARED.dump_python(value, mode="json")
    else:
        out = _ANY.dump_python(value, mode="json")
    assert isinstance(out, dict)
    return out


def load_spec(data: JSONObject) -> InteractionSpec:
    """Return the :class:`InteractionSpec` stored as ``data``."""
    return _SPEC.validate_python(data)


def load_result(data: JSONObject) -> PlannedActResult:
    """Return the :class:`PlannedActResult` stored as ``data``."""
    return _RESULT.validate_python(data)


def load_card_close(data: JSONObject) -> CardClose:
    """Return the :class:`CardClose` stored as ``data``."""
    return _CLOSE.validate_python(data)


def load_commit_request(data: JSONObject) -> CommitRequest:
    """Return the :class:`CommitRequest` stored as ``data``."""
    return _REQUEST.validate_python(data)
