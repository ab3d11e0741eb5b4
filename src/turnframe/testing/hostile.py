"""A hostile provider: arbitrary answers that are valid under each request's schema.

It stands for a model that answers on contract but means nothing in particular (or the
worst): every operation, handle, option and span the schema allows, at random. The
framework must still produce no command without a server origin, no compilation of a
non-Exact target and no receipt without events (I4, I8, I15).

It also answers off contract in the shapes that break parsers rather than checks
(:data:`SHAPES`, :func:`hostile_text`: nesting 100,000 deep, 200,000-item arrays,
megabyte strings, over-long fields, keys spelled in JSON escapes), and
:class:`HostileVendor` sends such text, and errors carrying a key in every field, through
the shared adapter machinery a real vendor adapter uses (docs/adr/0019).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from turnframe.providers import ModelProfile, ModelRequest, ModelResponse, Provider, Usage
from turnframe.providers.adapter import Raw, VendorProvider, status_error
from turnframe.providers.base import Capabilities
from turnframe.providers.errors import ProviderError

__all__ = [
    "ENCODINGS",
    "SHAPES",
    "HostileProvider",
    "HostileVendor",
    "VendorFailure",
    "encode_json_string",
    "hostile_text",
    "random_valid",
]

SHAPES = ("deep", "wide", "huge_string", "long_field", "escaped_key")
"""Off-contract answer shapes that break parsers rather than checks."""

ENCODINGS = ("raw", "escaped", "escaped_upper", "mixed", "double", "solidus")
"""The ways :func:`encode_json_string` spells a text inside a JSON string literal."""


def encode_json_string(text: str, encoding: str, rng: random.Random | None = None) -> str:
    r"""Return the body of a JSON string literal (no quotes) that decodes to ``text``.

    ``raw``: as written (quotes and backslashes short-escaped); ``escaped``: every
    character as ``\uXXXX`` (a surrogate pair above U+FFFF); ``escaped_upper``: the same
    with upper-case hex; ``mixed``: each character raw or escaped at random;
    ``double``: escaped for a JSON string that is itself inside a JSON string (decodes
    to ``text`` only after two decodings); ``solidus``: ``/`` as ``\/``, the rest raw.
    """
    rng = rng or random.Random(0)

    def esc(ch: str, upper: bool = False) -> str:
        code = ord(ch)
        units = (
            [code]
            if code <= 0xFFFF
            else [0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)]
        )
        return "".join((f"\\u{u:04X}" if upper else f"\\u{u:04x}") for u in units)

    def raw(ch: str) -> str:
        return json.dumps(ch, ensure_ascii=False)[1:-1]

    if encoding == "raw":
        return "".join(raw(c) for c in text)
    if encoding == "escaped":
        return "".join(esc(c) for c in text)
    if encoding == "escaped_upper":
        return "".join(esc(c, upper=True) for c in text)
    if encoding == "mixed":
        return "".join(esc(c, rng.random() < 0.5) if rng.random() < 0.5 else raw(c) for c in text)
    if encoding == "double":
        return "".join(esc(c).replace("\\", "\\\\") for c in text)
    if encoding == "solidus":
        return "".join("\\/" if c == "/" else raw(c) for c in text)
    raise ValueError(f"unknown encoding {encoding!r}")


def _plant(value: Any, marker: str, rng: random.Random) -> tuple[Any, bool]:
    """Replace one string (a value or an object key) of ``value`` with ``marker``."""
    strings: list[tuple[Any, Any, bool]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                strings.append((node, k, True))
                if isinstance(v, str):
                    strings.append((node, k, False))
                walk(v)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, str):
                    strings.append((node, i, False))
                walk(v)

    walk(value)
    if not strings:
        return {marker: value}, True
    node, where, is_key = rng.choice(strings)
    if is_key:
        node[marker] = node.pop(where)
    else:
        node[where] = marker
    return value, True


def hostile_text(
    shape: str,
    rng: random.Random,
    *,
    valid: Any = None,
    key: str = "sk-hostile-PLANTED-0123456789",
    encoding: str = "escaped",
) -> str:
    """Return an answer text of ``shape`` (one of :data:`SHAPES`).

    ``deep``: arrays and objects nested 100,000 levels; ``wide``: a 200,000-item array
    under the answer's first field; ``huge_string``: a 1,000,000-character string;
    ``long_field``: ``valid`` with one string 30,000 characters long (within the size
    bound, so the validator sees it); ``escaped_key``: ``valid`` with one string or
    object key replaced by ``key`` spelled in ``encoding``.
    """
    base: Any = valid if isinstance(valid, dict) else {"value": "x"}
    first = next(iter(base), "value")
    if shape == "deep":
        depth = 100_000
        return '{"' + first + '": ' + '[{"a": ' * (depth // 2) + "1" + "}]" * (depth // 2) + "}"
    if shape == "wide":
        return '{"' + first + '": [' + ",".join(["1"] * 200_000) + "]}"
    if shape == "huge_string":
        return json.dumps({first: "A" * 1_000_000})
    if shape == "long_field":
        planted, _ = _plant(json.loads(json.dumps(base)), "L" * 30_000, rng)
        return json.dumps(planted, ensure_ascii=False)
    if shape == "escaped_key":
        marker = "\u0000MARK\u0000"
        planted, _ = _plant(json.loads(json.dumps(base)), marker, rng)
        text = json.dumps(planted, ensure_ascii=False)
        return text.replace(json.dumps(marker)[1:-1], encode_json_string(key, encoding, rng))
    raise ValueError(f"unknown shape {shape!r}")


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
        shapes: the share of answers (0 to 1) sent instead in one of the parser-breaking
            :data:`SHAPES` (default 0: every answer is schema-valid).
    """

    def __init__(self, seed: int = 0, *, plausible: bool = True, shapes: float = 0.0) -> None:
        self.profile = ModelProfile(provider="hostile", model="random-valid")
        self.rng = random.Random(seed)
        self.plausible = plausible
        self.shapes = shapes
        self.calls = 0
        self.shaped: list[str] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Return a random answer valid under the request's schema."""
        self.calls += 1
        answer = random_valid(request.schema, self.rng)
        if self.plausible and self.rng.random() < 0.9:
            answer = self._plausible(request, answer)
        text = json.dumps(answer)
        if self.shapes and self.rng.random() < self.shapes:
            shape = self.rng.choice(SHAPES)
            self.shaped.append(shape)
            text = hostile_text(shape, self.rng, valid=answer)
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
        if not isinstance(data, dict):
            return answer
        # The understanding tasks number their words (``n:word``); other tasks (the
        # judge, the reply's words) carry plain text: a word without a colon is itself.
        words = [w.split(":", 1)[-1] for w in str(data.get("message", "")).split()]
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


class VendorFailure(Exception):
    """What a vendor SDK raises for an HTTP error: every field may echo what was sent.

    Args:
        status: the HTTP status.
        code: the vendor's error code.
        message: the vendor's message.
        body: the raw error body (JSON text).
        headers: the response headers.
    """

    def __init__(
        self,
        status: int,
        *,
        code: str = "",
        message: str = "",
        body: str = "",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(f"Error code: {status} - {body}")
        self.status = status
        self.code = code
        self.message = message
        self.body = body
        self.headers = dict(headers or {})


class HostileVendor(VendorProvider):
    """A vendor adapter whose wire is a function, for hostile text and hostile errors.

    Everything it returns goes through :class:`~turnframe.providers.adapter.VendorProvider`
    as a real adapter's output does: the size and depth bounds, redaction of its
    ``secrets`` in every spelling and every error field, full validation. Its
    ``_classify`` copies a :class:`VendorFailure`'s every field (code, message, body,
    headers) into the error, as a careless adapter would.

    Args:
        answer: request → the raw answer text, or an exception to raise from the wire.
        secrets: the credentials the adapter was configured with.
    """

    def __init__(
        self,
        answer: Callable[[ModelRequest], str | BaseException],
        *,
        secrets: Iterable[str] = (),
    ) -> None:
        super().__init__(
            ModelProfile(
                provider="hostile-vendor",
                model="wire",
                capabilities=Capabilities(structured_mode="a function"),
            ),
            secrets=secrets,
        )
        self._answer = answer
        self.requests: list[ModelRequest] = []

    async def _call(self, request: ModelRequest, schema: Any, prompt_only: bool) -> Raw:
        del schema, prompt_only
        self.requests.append(request)
        out = self._answer(request)
        if isinstance(out, BaseException):
            raise out
        return Raw(text=out, usage=Usage(prompt_tokens=1, completion_tokens=1))

    def _classify(self, exc: Exception) -> ProviderError:
        if isinstance(exc, VendorFailure):
            error = status_error(
                exc.status,
                f"{exc.status} {exc.code}: {exc.message}; body {exc.body}; headers {exc.headers}",
                provider=self.profile.id,
                code=exc.code,
            )
            return error
        return status_error(500, f"{type(exc).__name__}: {exc}", provider=self.profile.id)
