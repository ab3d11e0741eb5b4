"""A hostile provider: arbitrary answers that are valid under each request's schema.

It stands for a model that answers on contract but means nothing in particular (or the
worst): every operation, handle, option and span the schema allows, at random. The
framework must still produce no command without a server origin, no compilation of a
non-Exact target and no receipt without events (I4, I8, I15).
"""

from __future__ import annotations

import json
import random
from typing import Any

from turnframe.providers import ModelProfile, ModelRequest, ModelResponse, Provider, Usage

__all__ = ["HostileProvider", "random_valid"]


def random_valid(schema: Any, rng: random.Random, depth: int = 0) -> Any:
    """Return a random value valid under ``schema`` (the subset ``turnframe.tasks.schema`` builds)."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        values = list(schema["enum"])
        return rng.choice(values) if values else None
    if "anyOf" in schema:
        options = list(schema["anyOf"])
        return random_valid(rng.choice(options), rng, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = rng.choice(kind)
    if kind == "null":
        return None
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "integer":
        low = int(schema.get("minimum", 0))
        return rng.randint(low, int(schema.get("maximum", low + 12)))
    if kind == "string":
        length = int(schema.get("maxLength", 20))
        words = ["yes", "the", "42", "2026-05-12", "company", "u1", "E1", "x", "Lisbon"]
        return " ".join(rng.choice(words) for _ in range(rng.randint(1, 3)))[:length]
    if kind == "array":
        items = schema.get("items", {})
        top = min(int(schema.get("maxItems", 4)), 4)
        least = int(schema.get("minItems", 0))
        count = rng.randint(least, max(least, top))
        values = [random_valid(items, rng, depth + 1) for _ in range(count)]
        if schema.get("uniqueItems"):
            unique: list[Any] = []
            for v in values:
                if v not in unique:
                    unique.append(v)
            values = unique
        return values
    if kind == "object":
        props = schema.get("properties", {})
        return {k: random_valid(v, rng, depth + 1) for k, v in props.items()}
    return None


class HostileProvider(Provider):
    """Answers every request with a random schema-valid value (seeded, so runs repeat).

    Args:
        seed: the random seed.
        plausible: make spans point at real words and copy them, split segments without
            overlap and route each unit as its kind allows, so more answers pass their
            checks and reach the later tasks (still arbitrary in what they mean).
    """

    def __init__(self, seed: int = 0, *, plausible: bool = True) -> None:
        self.profile = ModelProfile(provider="hostile", model="random-valid")
        self.rng = random.Random(seed)
        self.plausible = plausible
        self.calls = 0

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Return a random answer valid under the request's schema."""
        self.calls += 1
        answer = random_valid(request.schema, self.rng)
        if self.plausible and self.rng.random() < 0.9:
            answer = self._plausible(request, answer)
        text = json.dumps(answer)
        return ModelResponse(
            text=text,
            usage=Usage(prompt_tokens=1, completion_tokens=1),
            model=self.profile.id,
        )

    def _plausible(self, request: ModelRequest, answer: Any) -> Any:
        try:
            data = json.loads(request.messages[1].content)
        except (ValueError, IndexError):
            return answer
        words = [w.split(":", 1)[1] for w in str(data.get("message", "")).split()]
        rng = self.rng
        if request.task == "route" and isinstance(answer, dict):
            return self._route(request, data)
        if not words:
            return answer
        if request.task == "segment" and isinstance(answer, dict):
            cuts = sorted(rng.sample(range(1, len(words)), min(rng.randint(0, 3), len(words) - 1)))
            bounds = [0, *cuts, len(words)]
            units = []
            for n, (a, b) in enumerate(zip(bounds, bounds[1:], strict=False), start=1):
                schema: Any = request.schema
                unit = random_valid(schema["properties"]["units"]["items"], rng)
                unit.update({"id": f"u{n}", "from": a, "to": b - 1, "continues": None})
                units.append(unit)
            return {"units": units}
        return _fix_spans(answer, words, rng)

    def _route(self, request: ModelRequest, data: Any) -> Any:
        # The route schema has one branch per unit allowing only what its kind takes
        # (docs/adr/0018): a random value of the unit's own branch is plausible.
        rng = self.rng
        root: Any = request.schema
        item_schema: Any = root["properties"]["routes"]["items"]
        branches = {
            b["properties"]["unit"].get("const"): b for b in item_schema.get("anyOf", [item_schema])
        }
        routes = []
        for unit in data.get("units", []):
            branch = branches.get(unit["id"])
            if branch is not None:
                routes.append(random_valid(branch, rng))
        return {"routes": routes}


def _fix_spans(value: Any, words: list[str], rng: random.Random) -> Any:
    if isinstance(value, list):
        return [_fix_spans(v, words, rng) for v in value]
    if isinstance(value, dict):
        fixed = {k: _fix_spans(v, words, rng) for k, v in value.items()}
        if {"from", "to", "copy"} <= fixed.keys():
            a = rng.randrange(len(words))
            b = min(len(words) - 1, a + rng.randint(0, 2))
            fixed.update({"from": a, "to": b, "copy": " ".join(words[a : b + 1])})
        return fixed
    return value
