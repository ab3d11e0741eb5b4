"""The oracle provider: answers every task from an evaluation case's own expectations.

With it the pipeline must score 100%: that proves the chain loses nothing a model got
right. It reads each request's data (the numbered message, the act a task is ``for``)
and answers as a perfect reader would.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import UsageError
from turnframe.eval.dataset import EvalAct, EvalCase
from turnframe.providers import Capabilities, ModelRequest, ScriptedProvider
from turnframe.understand.words import normalize

__all__ = ["OracleReading", "oracle_provider"]


@fast_init
@dataclass(frozen=True, slots=True)
class _Unit:
    id: str
    text: str
    kind: str
    start: int
    end: int
    hypothetical: bool


def _find(words: list[str], text: str, within: tuple[int, int] | None = None) -> tuple[int, int]:
    wanted = [normalize(w) for w in text.split()]
    tokens = [normalize(w) for w in words]
    ranges = [within] if within else []
    ranges.append((0, len(words) - 1))
    for low, high in ranges:
        for i in range(low, high - len(wanted) + 2):
            if tokens[i : i + len(wanted)] == wanted:
                return i, i + len(wanted) - 1
    raise UsageError(f"the words {text!r} are not in the message {' '.join(words)!r}")


class OracleReading:
    """A case's expectations laid out the way the pipeline reads a message.

    Args:
        case: the evaluation case.
    """

    def __init__(self, case: EvalCase) -> None:
        self.case = case
        self.words = case.text.split()
        found: dict[str, tuple[str, bool]] = {}
        for act in case.acts:
            found.setdefault(act.unit, ("request", act.hypothetical))
        for q in case.questions:
            found.setdefault(q.unit, ("question", False))
        for c in case.constraints:
            found.setdefault(c.unit, ("constraint", False))
        for x in case.cancellations:
            found.setdefault(x.unit, ("cancellation", False))
        for k in case.card_answers:
            found.setdefault(k.unit, ("card_answer", False))
        for r in case.unoffered:
            found.setdefault(r.unit, ("request", False))
        spans = sorted((_find(self.words, text), text) for text in found)
        self.units = [
            _Unit(f"u{n}", text, found[text][0], a, b, found[text][1])
            for n, ((a, b), text) in enumerate(spans, start=1)
        ]
        self.by_text = {u.text: u for u in self.units}
        self.act_ids: dict[int, str] = {}
        self.cancellations: dict[str, str] = {}
        self.question_ids: dict[int, str] = {}
        n_act = n_q = 0
        for unit in self.units:
            if unit.kind == "request":
                for i, act in enumerate(case.acts):
                    if act.unit == unit.text:
                        n_act += 1
                        self.act_ids[i] = f"a{n_act}"
            elif unit.kind == "cancellation":
                n_act += 1
                self.cancellations[f"a{n_act}"] = unit.text
            elif unit.kind == "question":
                for i, q in enumerate(case.questions):
                    if q.unit == unit.text:
                        n_q += 1
                        self.question_ids[i] = f"q{n_q}"
        self.acts_by_id = {self.act_ids[i]: a for i, a in enumerate(case.acts)}

    def units_text(self, act_id: str, case: EvalCase) -> str | None:
        """Return the unit words of cancellation act ``act_id``, if it is one."""
        del case
        return self.cancellations.get(act_id)

    def act_id(self, index: int) -> str:
        """Return the id the pipeline gives the ``index``-th expected act."""
        return self.act_ids[index]

    # ----------------------------------------------------------------- answers
    def answer(
        self, request: ModelRequest, handle: Callable[[str], str], card: Callable[[str], str]
    ) -> Any:
        """Return the perfect answer to ``request``."""
        data = json.loads(request.messages[1].content)
        match request.task:
            case "segment":
                return {
                    "units": [
                        {
                            "id": u.id,
                            "kind": u.kind,
                            "from": u.start,
                            "to": u.end,
                            "hypothetical": u.hypothetical,
                            "continues": None,
                        }
                        for u in self.units
                    ]
                }
            case "segment_route" | "read":
                return {
                    "units": [
                        self._merged(u, data, handle, card, acts=request.task == "read")
                        for u in self.units
                    ]
                }
            case "coverage":
                return {"missed": []}
            case "route":
                return {"routes": [self._route(u["id"], card) for u in data["units"]]}
            case "locate":
                return self._locate(data["for"], handle)
            case "extract":
                return self._extract(data, handle)
            case "cross_check":
                return {"findings": []}
            case "verify":
                act = self.acts_by_id.get(data["for"])
                verdict: dict[str, Any] = {
                    "verdict": "ok",
                    "grounding": act.source if act else "user",
                    "findings": [],
                }
                properties = request.schema.get("properties")
                if isinstance(properties, dict) and "reasoning" in properties:
                    # A perfect reader's short reasoning (the schema's bounded field).
                    verdict = {"reasoning": "The unit asks for exactly this act.", **verdict}
                return verdict
        raise UsageError(f"the oracle has no answer for task {request.task!r}")

    def _merged(
        self,
        unit: _Unit,
        data: Mapping[str, Any],
        handle: Callable[[str], str],
        card: Callable[[str], str],
        *,
        acts: bool,
    ) -> dict[str, Any]:
        """Return one unit of a merged read: its segment and route fields (and its acts)."""
        answer: dict[str, Any] = {
            "id": unit.id,
            "kind": unit.kind,
            "from": unit.start,
            "to": unit.end,
            "hypothetical": unit.hypothetical,
            "continues": None,
        }
        route = self._route(unit.id, card)
        if unit.kind == "other":
            route = dict.fromkeys(route, None) | {"operations": []}
        del route["unit"]
        operations = route.pop("operations")
        if not acts:
            return answer | {"operations": operations} | route
        offered = {o["key"]: o for o in data["operations_on_offer"]}
        read = []
        for act_id, act in self.acts_by_id.items():
            if act.unit != unit.text:
                continue
            op = offered[act.op]
            values: list[Any] = []
            if op["arguments"]:
                extract = {
                    "for": act_id,
                    "operation": op,
                    "data": {"allowed_words": data["data"]["allowed_words"].get(act.op, {})},
                }
                values = self._extract(extract, handle)["values"]
            target = self._locate(act_id, handle) if act.op in data["data"]["targets"] else None
            read.append({"operation": act.op, "target": target, "values": values})
        return answer | {"acts": read} | route

    def _unit(self, unit_id: str) -> _Unit:
        return next(u for u in self.units if u.id == unit_id)

    def _route(self, unit_id: str, card: Callable[[str], str]) -> dict[str, Any]:
        unit = self._unit(unit_id)
        c = self.case
        ops = [a.op for a in c.acts if a.unit == unit.text]
        corrects = next((a.corrects for a in c.acts if a.unit == unit.text and a.corrects), None)
        topic = next((q.topic for q in c.questions if q.unit == unit.text), None)
        constraint = next(
            ({"kind": k.kind, "scope": k.scope} for k in c.constraints if k.unit == unit.text), None
        )
        answer = next(
            (
                {"interaction": card(k.card), "option": k.option}
                for k in c.card_answers
                if k.unit == unit.text
            ),
            None,
        )
        cancels = next((x.cancels for x in c.cancellations if x.unit == unit.text), None)
        return {
            "unit": unit_id,
            "operations": ops,
            "topic": topic,
            "constraint": constraint,
            "card": answer,
            "corrects": self.by_text[corrects].id if corrects else None,
            "cancels": self.by_text[cancels].id if cancels else None,
        }

    def _locate(self, item: str, handle: Callable[[str], str]) -> dict[str, Any]:
        if item.startswith("q"):
            index = next(i for i, q in self.question_ids.items() if q == item)
            target: Any = self.case.questions[index].target
        else:
            target = self.acts_by_id[item].target
        if isinstance(target, dict):
            words = target["find"]
            a, b = _find(self.words, words)
            return {"handles": [], "find": {"from": a, "to": b, "copy": words}}
        return {"handles": [handle(k) for k in target], "find": None}

    def _extract(self, data: Mapping[str, Any], handle: Callable[[str], str]) -> dict[str, Any]:
        act: EvalAct = self.acts_by_id[data["for"]]
        unit = self.by_text[act.unit]
        kinds = {a["name"]: a["kind"] for a in data["operation"]["arguments"]}
        literals = data["data"]["allowed_words"]
        values = []
        for name, value in act.args.items():
            words = act.evidence.get(name, value)
            a, b = _find(self.words, words, (unit.start, unit.end))
            item: dict[str, Any] = {
                "argument": name,
                "from": a,
                "to": b,
                "copy": " ".join(self.words[a : b + 1]),
            }
            if kinds.get(name) == "choice":
                item["choice"] = value
            if kinds.get(name) == "record":
                literal = value if value in literals.get(name, []) else None
                item["literal"] = literal
                item["record"] = None if literal else handle(value)
            values.append(item)
        return {"values": values}


def oracle_provider(
    reading: OracleReading, handle: Callable[[str], str], card: Callable[[str], str]
) -> ScriptedProvider:
    """Return a scripted provider answering from ``reading`` (record keys → this turn's handles)."""
    # No vendor reasoning setting: the oracle is asked for verify's reasoning field and
    # answers it, as a capable model without that setting would.
    return ScriptedProvider(
        lambda request: reading.answer(request, handle, card),
        model="oracle",
        capabilities=Capabilities(reasoning_effort=False, seed=True),
    )
