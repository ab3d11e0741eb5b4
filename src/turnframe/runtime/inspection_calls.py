"""The model calls and reading trace of a turn, read from its replay record (docs/inspector.md).

The replay record's ``calls`` (one ``CallRecord.to_json`` each) and ``reading`` (the
understanding's trace, ``understand/pipeline.py``) become a :class:`ModelView`; the
accepted extract and locate answers give each act's word pointers
(:func:`act_pointers`), the prompts' ``for`` key the act a call read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from turnframe.runtime.inspection_trace import CallView, ModelView

__all__ = ["Pointers", "act_pointers", "call_data", "model_view"]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def call_data(call: Mapping[str, Any]) -> dict[str, Any]:
    """Return the task data a call sent (its last user message that is a JSON object), or ``{}``."""
    for message in reversed(_list(call.get("prompt"))):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        try:
            data = json.loads(str(message.get("content", "")))
        except ValueError:
            continue
        if isinstance(data, dict) and ("unit" in data or "for" in data or "message" in data):
            return data
    return {}


def _answer(call: Mapping[str, Any]) -> dict[str, Any]:
    """Return a call's answer as JSON (``{}`` when it has none or it is not an object)."""
    response = _dict(call.get("response"))
    try:
        answer = json.loads(str(response.get("text", "")))
    except ValueError:
        return {}
    return _dict(answer)


def _int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _float(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def model_view(record: Mapping[str, Any]) -> ModelView:
    """Return the model calls and reading trace ``record`` holds (empty parts when absent)."""
    reading = _dict(record.get("reading"))
    calls: list[CallView] = []
    for n, raw in enumerate(_list(record.get("calls"))):
        if not isinstance(raw, dict):
            continue
        act = call_data(raw).get("for")
        response = _dict(raw.get("response"))
        calls.append(
            CallView(
                index=n,
                task=str(raw.get("task", "")),
                attempt=str(raw.get("attempt", "")),
                for_act=act if isinstance(act, str) else None,
                model=raw.get("model") if isinstance(raw.get("model"), str) else None,
                verdict=str(raw.get("verdict", "")),
                prompt_id=raw.get("prompt_id") if isinstance(raw.get("prompt_id"), str) else None,
                prompt=[
                    {"role": str(m.get("role", "")), "content": str(m.get("content", ""))}
                    for m in _list(raw.get("prompt"))
                    if isinstance(m, dict)
                ],
                response=response.get("text") if isinstance(response.get("text"), str) else None,
                prompt_tokens=_int(raw.get("prompt_tokens")),
                completion_tokens=_int(raw.get("completion_tokens")),
                latency_ms=_float(raw.get("latency_ms")),
                ended_ms=_float(raw.get("ended_ms")),
            )
        )
    error = reading.get("error")
    return ModelView(
        effort=reading.get("effort") if isinstance(reading.get("effort"), str) else None,
        merge=reading.get("merge") if isinstance(reading.get("merge"), str) else None,
        steps=[[str(x) for x in s] for s in _list(reading.get("steps")) if isinstance(s, list)],
        units=[u for u in _list(reading.get("units")) if isinstance(u, dict)],
        votes=[v for v in _list(reading.get("votes")) if isinstance(v, dict)],
        repairs=sum(1 for c in calls if c.attempt == "repair"),
        errors=[
            {"step": str(e.get("step", "")), "error": str(e.get("error", ""))}
            for e in _list(reading.get("errors"))
            if isinstance(e, dict)
        ],
        error=error if isinstance(error, str) else None,
        calls=calls,
        prompt_tokens=sum(c.prompt_tokens for c in calls),
        completion_tokens=sum(c.completion_tokens for c in calls),
    )


@dataclass(slots=True)
class Pointers:
    """What the accepted answers say about one act's words.

    Attributes:
        unit: the act's unit id (from its prompts), if known.
        values: argument → ``(copy, from, to)`` of the last accepted extract answer.
        target: ``(copy, from, to)`` of the last accepted locate answer's ``find``.
    """

    unit: str | None = None
    values: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    target: tuple[str, int, int] | None = None


def _pointer(item: Any) -> tuple[str, int, int] | None:
    item = _dict(item)
    copy, start, end = item.get("copy"), item.get("from"), item.get("to")
    if isinstance(copy, str) and isinstance(start, int) and isinstance(end, int):
        return copy, start, end
    return None


def act_pointers(record: Mapping[str, Any], acts: list[str]) -> dict[str, Pointers]:
    """Return each act's unit and word pointers from the accepted (``ok``) calls.

    A call is an act's when its prompt's ``for`` names it, or when the turn has one act
    only. Later accepted answers replace earlier ones (a re-read after a finding).
    """
    out: dict[str, Pointers] = {a: Pointers() for a in acts}
    for raw in _list(record.get("calls")):
        if not isinstance(raw, dict) or raw.get("task") not in ("extract", "locate"):
            continue
        data = call_data(raw)
        act = data.get("for")
        if not isinstance(act, str):
            act = acts[0] if len(acts) == 1 else None
        if act not in out:
            continue
        unit = _dict(data.get("unit")).get("id")
        if isinstance(unit, str):
            out[act].unit = unit
        if raw.get("verdict") != "ok":
            continue
        answer = _answer(raw)
        if raw.get("task") == "extract":
            for value in _list(answer.get("values")):
                found = _pointer(value)
                name = _dict(value).get("argument")
                if found is not None and isinstance(name, str):
                    out[act].values[name] = found
        else:
            found = _pointer(answer.get("find"))
            if found is not None:
                out[act].target = found
    return out
