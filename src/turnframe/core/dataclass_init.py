"""``fast_init``: the same ``__init__`` for a frozen slots dataclass, about a third cheaper.

A frozen dataclass cannot assign its own fields, so the ``__init__`` that
:func:`dataclasses.dataclass` writes stores each one with ``object.__setattr__``: a call
through a generic wrapper per field, several times the cost of a plain attribute
store. A turn builds a few hundred such records (commands, results, snapshots, rows), so
that wrapper was about a tenth of a turn's CPU (profiled on ``benchmarks/turn_overhead.py``).
:func:`fast_init` replaces the generated ``__init__`` with one that stores each field
through the slot's own descriptor (``member_descriptor.__set__``), which skips the
wrapper and keeps every guarantee: the class, its fields, defaults, default factories,
keyword-only markers, ``__post_init__``, equality, hashing, pickling and the
``FrozenInstanceError`` on assignment are exactly what ``@dataclass`` made.

Pure and synchronous, like the core. Use it under ``@dataclass``::

    @fast_init
    @dataclass(frozen=True, slots=True, kw_only=True)
    class Receipt: ...
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
from typing import Any, TypeVar

__all__ = ["fast_init"]

_T = TypeVar("_T", bound=type)


def fast_init(cls: _T) -> _T:
    """Give the frozen slots dataclass ``cls`` an ``__init__`` that skips ``object.__setattr__``.

    The new ``__init__`` has the generated one's exact signature (names, order,
    defaults, keyword-only parameters), stores every field through its slot
    descriptor, fills ``init=False`` fields that have a default as ``@dataclass`` does,
    calls ``__post_init__`` when the class has one, and raises the same ``TypeError``
    for a missing or unexpected argument. Its globals are the class's module, as for
    the generated one (``typing.get_type_hints(cls.__init__)`` resolves). An instance
    of a subclass (one without an ``__init__`` of its own) is filled the generated
    way, through ``object.__setattr__``, so a subclass that shadows a field behaves as
    before. ``cls`` is returned, changed in place.

    Raises:
        TypeError: ``cls`` is not a dataclass with ``frozen=True`` and ``slots=True``
            whose ``__init__`` ``@dataclass`` generated (a hand-written ``__init__`` is
            left to its author), or it declares an ``InitVar`` (not supported: write
            the value as a field or keep the generated ``__init__``).
    """
    params = getattr(cls, "__dataclass_params__", None)
    generated = cls.__dict__.get("__init__")
    if (
        params is None
        or not params.frozen
        or not params.init
        or "__slots__" not in cls.__dict__
        or generated is None
        or getattr(generated, "__code__", None) is None
        or generated.__code__.co_filename != "<string>"
    ):
        raise TypeError(
            f"fast_init needs a @dataclass(frozen=True, slots=True) with a generated "
            f"__init__; {cls.__qualname__} is not one"
        )
    fields = {f.name: f for f in dataclasses.fields(cls)}
    signature = inspect.signature(generated)
    namespace: dict[str, Any] = {}
    me = "__dataclass_self__" if "self" in fields else "self"
    arguments: list[str] = [me]
    keyword_only = False
    for name, parameter in list(signature.parameters.items())[1:]:
        if name not in fields:
            raise TypeError(
                f"fast_init does not support InitVar fields ({cls.__qualname__}.{name})"
            )
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and not keyword_only:
            arguments.append("*")
            keyword_only = True
        if parameter.default is inspect.Parameter.empty:
            arguments.append(name)
        else:
            namespace[f"__tf_default_{name}"] = parameter.default
            arguments.append(f"{name}=__tf_default_{name}")
    namespace["__tf_cls"] = cls
    namespace["__tf_setattr"] = object.__setattr__
    namespace["__tf_type"] = type  # a field may be called ``type``
    fast: list[str] = []
    generic: list[str] = []
    for name, field in fields.items():  # declaration order, as @dataclass assigns them
        has_factory = field.default_factory is not dataclasses.MISSING
        if field.init:
            value = name
            if has_factory:
                value = f"__tf_factory_{name}() if {name} is __tf_default_{name} else {name}"
        elif field.default is not dataclasses.MISSING:
            namespace[f"__tf_default_{name}"] = field.default
            value = f"__tf_default_{name}"
        elif has_factory:
            value = f"__tf_factory_{name}()"
        else:
            continue
        if has_factory:
            namespace[f"__tf_factory_{name}"] = field.default_factory
        namespace[f"__tf_set_{name}"] = _slot_setter(cls, name)
        fast.append(f"__tf_set_{name}({me}, {value})")
        generic.append(f"__tf_setattr({me}, {name!r}, {value})")
    # An instance of a subclass takes @dataclass's own path (object.__setattr__, which
    # honours a subclass that shadows a field); the class's own instances the slots'.
    lines = [f"if __tf_type({me}) is __tf_cls:", *(f"    {x}" for x in fast or ["pass"])]
    lines += ["else:", *(f"    {x}" for x in generic or ["pass"])]
    if hasattr(cls, "__post_init__"):
        lines.append(f"{me}.__post_init__()")
    # Built like @dataclass builds its own: the helpers are the closure of a factory
    # function, the globals are the class's module (so string annotations resolve).
    source = (
        f"def __create_fn__({', '.join(namespace)}):\n"
        f"    def __init__({', '.join(arguments)}):\n"
        + "".join(f"        {line}\n" for line in lines)
        + "    return __init__\n"
    )
    module = sys.modules.get(cls.__module__)
    made: dict[str, Any] = {}
    # The source is built above from the field names only.
    exec(source, module.__dict__ if module is not None else {}, made)
    init = made["__create_fn__"](**namespace)
    init.__qualname__ = generated.__qualname__
    init.__module__ = generated.__module__
    init.__doc__ = generated.__doc__
    init.__annotations__ = dict(generated.__annotations__)
    type.__setattr__(cls, "__init__", init)
    return cls


def _slot_setter(cls: type, name: str) -> Any:
    """Return the bound ``__set__`` of the slot ``name`` (own or inherited) of ``cls``.

    Raises:
        TypeError: ``name`` is not a slot of ``cls`` or of a base (a base without
            ``__slots__`` keeps it in an instance ``__dict__``).
    """
    for klass in cls.__mro__:
        descriptor = klass.__dict__.get(name)
        if descriptor is not None:
            if inspect.ismemberdescriptor(descriptor):
                return descriptor.__set__
            break
    raise TypeError(f"fast_init: {cls.__qualname__}.{name} is not a slot")
