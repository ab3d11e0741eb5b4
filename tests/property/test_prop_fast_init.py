"""``fast_init`` builds exactly what ``@dataclass``'s own ``__init__`` builds (core/dataclass_init.py).

The class: any frozen slots dataclass shape. Hypothesis draws the shape (how many fields;
each with no default, a default or a default factory; keyword-only or not; ``init=False``
with a default; a frozen slots base class with fields of its own; a ``__post_init__`` that
derives a field) and the arguments of one call (some left out, some unknown, some passed
by position). The class with ``fast_init`` and the same class without it must then agree
on everything a caller can see: the fields' values, a fresh object from every factory,
the ``TypeError`` of a bad call, ``FrozenInstanceError`` on assignment, equality, hash,
``repr``, ``dataclasses.replace``, ``copy`` and ``pickle``. A last test keeps every frozen
slots dataclass of the package on ``fast_init`` unless it writes its own ``__init__``.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import pickle
import sys
import types
import typing
from dataclasses import FrozenInstanceError, dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnframe.core.dataclass_init import fast_init

SRC = Path(__file__).resolve().parents[2] / "src" / "turnframe"

# Every generated class lives in this module so that pickle can find it by name.
_module = types.ModuleType("tf_fast_init_shapes")
sys.modules[_module.__name__] = _module


@dataclass(frozen=True)
class FieldShape:
    """One field: ``kind`` is ``"required"``, ``"default"``, ``"factory"`` or ``"no_init"``."""

    kind: str
    kw_only: bool


NAMES = ("type", "object", "self", "len", "id", "print", "value", "cls", "x")
"""Field names a generated class draws from: builtins and the init's own ``self`` among them."""


@dataclass(frozen=True)
class ClassShape:
    names: tuple[str, ...]
    fields: tuple[FieldShape, ...]
    base_fields: tuple[FieldShape, ...]
    kw_only: bool
    post_init: bool


def _ordered(shapes: list[FieldShape]) -> tuple[FieldShape, ...]:
    # @dataclass refuses a field without a default after one with a default (positional
    # fields only); keep the draw valid by putting required positional fields first.
    positional = [s for s in shapes if not s.kw_only and s.kind != "no_init"]
    rest = [s for s in shapes if s.kw_only or s.kind == "no_init"]
    positional.sort(key=lambda s: s.kind != "required")
    return tuple(positional + rest)


field_shapes = st.builds(
    FieldShape,
    kind=st.sampled_from(["required", "default", "factory", "no_init"]),
    kw_only=st.booleans(),
)
class_shapes = st.builds(
    ClassShape,
    names=st.permutations(NAMES).map(tuple),
    fields=st.lists(field_shapes, max_size=6).map(_ordered),
    base_fields=st.lists(field_shapes, max_size=3).map(_ordered),
    kw_only=st.booleans(),
    post_init=st.booleans(),
)


class Box:
    """What a default factory makes: equal to every other box, yet a new object each time."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Box)

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "Box()"


def _field(shape: FieldShape, index: int, *, kw_only: bool | None = None) -> Any:
    kw = shape.kw_only if kw_only is None else kw_only
    if shape.kind == "required":
        return field(kw_only=kw)
    if shape.kind == "default":
        return field(default=f"d{index}", kw_only=kw)
    if shape.kind == "factory":
        return field(default_factory=Box, kw_only=kw)
    return field(default=f"n{index}", init=False)


_counter = iter(range(10**9))


def _build(shape: ClassShape, fast: bool) -> type:
    """Return a fresh frozen slots dataclass of ``shape``, with or without ``fast_init``."""
    number = next(_counter)
    base: type = object
    if shape.base_fields:
        namespace: dict[str, Any] = {"__annotations__": {}}
        for i, s in enumerate(shape.base_fields):
            namespace["__annotations__"][f"b{i}"] = "object"
            namespace[f"b{i}"] = _field(s, 100 + i, kw_only=True)
        base = dataclass(frozen=True, slots=True, kw_only=True)(
            type(f"Base{number}", (), {**namespace, "__module__": _module.__name__})
        )
        base.__qualname__ = base.__name__
        setattr(_module, base.__name__, base)
        if fast:
            fast_init(base)
    namespace = {"__annotations__": {}, "__module__": _module.__name__}
    for i, s in enumerate(shape.fields):
        namespace["__annotations__"][shape.names[i]] = "object"
        namespace[shape.names[i]] = _field(s, i)
    if shape.post_init:
        namespace["__annotations__"]["derived"] = "object"
        namespace["derived"] = field(default=None, init=False)

        def __post_init__(self: Any) -> None:
            values = [getattr(self, f.name) for f in dataclasses.fields(self)]
            object.__setattr__(self, "derived", len(values))

        namespace["__post_init__"] = __post_init__
    cls = dataclass(frozen=True, slots=True, kw_only=shape.kw_only)(
        type(f"Shape{number}", (base,), namespace)
    )
    cls.__qualname__ = cls.__name__
    setattr(_module, cls.__name__, cls)
    return fast_init(cls) if fast else cls


def _call(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, Any]:
    try:
        return "ok", cls(*args, **kwargs)
    except TypeError as exc:
        return "TypeError", str(exc)


def _arguments(draw: st.DrawFn, cls: type) -> tuple[tuple[Any, ...], dict[str, Any], set[str]]:
    """Draw a call of ``cls``: each init field given or left out, some by position."""
    init_fields = [f for f in dataclasses.fields(cls) if f.init]
    kwargs: dict[str, Any] = {}
    for f in init_fields:
        if draw(st.integers(0, 4)):  # mostly given
            kwargs[f.name] = draw(st.one_of(st.integers(), st.text(max_size=3), st.none()))
    given = set(kwargs)
    if draw(st.integers(0, 9)) == 0:
        kwargs["unknown"] = 1
    positional: list[Any] = []
    for f in init_fields:
        if f.kw_only or f.name not in kwargs or not draw(st.booleans()):
            break
        positional.append(kwargs.pop(f.name))
    if draw(st.integers(0, 9)) == 0:
        positional.append("extra")  # fills the next positional field, or is one too many
    by_position = [f.name for f in init_fields if not f.kw_only][: len(positional)]
    return tuple(positional), kwargs, given | set(by_position)


@given(st.data(), class_shapes)
def test_fast_init_builds_what_the_generated_init_builds(
    data: st.DataObject, shape: ClassShape
) -> None:
    plain, fast = _build(shape, fast=False), _build(shape, fast=True)
    args, kwargs, given = _arguments(data.draw, plain)
    got_plain, got_fast = _call(plain, args, kwargs), _call(fast, args, kwargs)
    assert got_plain[0] == got_fast[0]
    if got_plain[0] == "TypeError":
        # The same message, with the class's own name in it.
        assert got_fast[1] == got_plain[1].replace(plain.__name__, fast.__name__)
        return
    a, b = got_plain[1], got_fast[1]
    names = [f.name for f in dataclasses.fields(plain)]
    assert [getattr(a, n) for n in names] == [getattr(b, n) for n in names]
    assert repr(b) == repr(a).replace(plain.__name__, fast.__name__)
    # Every factory made a fresh object for this instance.
    again = fast(*args, **kwargs)
    for f in dataclasses.fields(fast):
        if f.default_factory is not dataclasses.MISSING and f.name not in given:
            assert getattr(again, f.name) is not getattr(b, f.name)
    assert again == b and hash(again) == hash(b)
    for name in names:
        with pytest.raises(FrozenInstanceError):
            setattr(b, name, 1)
    outcomes = []
    for obj in (a, b):
        try:
            obj.not_a_field = 1
            outcomes.append("set")
        except (AttributeError, TypeError) as exc:  # FrozenInstanceError is an AttributeError
            outcomes.append(type(exc).__name__)
    assert outcomes[0] == outcomes[1]
    assert copy.copy(b) == b and copy.deepcopy(b) == b
    assert pickle.loads(pickle.dumps(b)) == b
    if names:
        changed = dataclasses.replace(b, **{f.name: "r" for f in dataclasses.fields(b) if f.init})
        expected = dataclasses.replace(a, **{f.name: "r" for f in dataclasses.fields(a) if f.init})
        assert [getattr(changed, n) for n in names] == [getattr(expected, n) for n in names]


def test_refuses_what_it_cannot_speed_up() -> None:
    @dataclass(frozen=True)
    class NoSlots:
        x: int

    @dataclass(slots=True)
    class NotFrozen:
        x: int

    @dataclass(frozen=True, slots=True)
    class OwnInit:
        x: int

        def __init__(self, x: int) -> None:
            object.__setattr__(self, "x", x)

    @dataclass(frozen=True, slots=True)
    class WithInitVar:
        x: int
        seed: dataclasses.InitVar[int] = 0

        def __post_init__(self, seed: int) -> None:
            pass

    for cls in (NoSlots, NotFrozen, OwnInit, WithInitVar, int):
        with pytest.raises(TypeError):
            fast_init(cls)


def test_annotations_resolve_in_the_module_as_before() -> None:
    from turnframe.core.reply import AnswerBlock
    from turnframe.runtime.turn import BatchRequest

    for cls in (AnswerBlock, BatchRequest):
        assert typing.get_type_hints(cls.__init__)  # the module's names, as @dataclass's
        assert inspect.signature(cls, eval_str=True).parameters


def test_a_subclass_that_shadows_a_field_is_filled_as_before() -> None:
    def base(fast: bool) -> type:
        cls = dataclass(frozen=True, slots=True)(type("A", (), {"__annotations__": {"x": "int"}}))
        return fast_init(cls) if fast else cls

    for fast in (False, True):
        a = base(fast)
        shadowed = type("B", (a,), {"x": 5})
        assert shadowed(1).x == 1  # the instance's own value, not the class attribute

        def read_only(self: Any) -> int:
            return 42

        with pytest.raises(AttributeError):
            type("C", (a,), {"x": property(read_only)})(1)
        assert a(2).x == 2


def test_fields_named_like_builtins_are_kept() -> None:
    @fast_init
    @dataclass(frozen=True, slots=True)
    class Odd:
        self: int
        type: str = "t"
        object: str = "o"
        len: int = 0

    assert Odd(1).self == 1 and Odd(self=3, type="x").type == "x"
    assert Odd(1, "a", "b", 2) == Odd(self=1, type="a", object="b", len=2)
    assert type("Sub", (Odd,), {})(5, "u").type == "u"


def _frozen_slots(decorator: ast.expr) -> bool:
    if not (isinstance(decorator, ast.Call) and getattr(decorator.func, "id", "") == "dataclass"):
        return False
    flags = {k.arg: getattr(k.value, "value", None) for k in decorator.keywords}
    return flags.get("frozen") is True and flags.get("slots") is True


def test_every_frozen_slots_dataclass_of_the_package_uses_fast_init() -> None:
    missing = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            if not any(_frozen_slots(d) for d in node.decorator_list):
                continue
            own_init = any(
                isinstance(item, ast.FunctionDef) and item.name == "__init__" for item in node.body
            )
            decorated = any(getattr(d, "id", "") == "fast_init" for d in node.decorator_list)
            if not decorated and not own_init:
                missing.append(f"{path.relative_to(SRC)}:{node.lineno} {node.name}")
    assert missing == [], "add @fast_init above @dataclass: " + ", ".join(missing)
