"""The guarded definition: a domain exception is wrapped with the workflow and member.

:class:`~turnframe.core.workflow.ErasedWorkflow` hands the runtime a
:class:`GuardedDefinition` instead of the adopter's object, so every call the runtime
makes into the domain (``project``, ``compile``, ``validate``, ``execute``, ``policy``,
``render_receipt``, ``candidate_label``, ``briefing``, ``ask_*``, the optional hooks)
passes one place: an exception that is not a :class:`~turnframe.core.errors.TurnframeError`
is re-raised as :class:`~turnframe.core.errors.DomainError` naming the workflow and the
member, chained from the original (docs/architecture.md "Checked at registration,
isolated at run time"). Pure and synchronous, like the core.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from turnframe.core.errors import DomainError, TurnframeError

__all__ = ["GuardedDefinition", "unguarded"]


class GuardedDefinition:
    """A workflow definition whose callable members wrap a domain exception.

    Attribute reads pass through; a callable member is returned as a wrapper that looks
    the member up on the definition at each call (so a member replaced later, by a test
    or a hot reload, is the one called) and turns any exception except a Turnframe error
    into ``DomainError(workflow, member)`` raised ``from`` the original. The wrapper is
    kept in the instance's ``__dict__``: the second read of a member costs a dict lookup.

    Args:
        definition: the adopter's workflow object.
        workflow: its name (for the error).
    """

    def __init__(self, definition: Any, workflow: str) -> None:
        object.__setattr__(self, "_tf_definition", definition)
        object.__setattr__(self, "_tf_workflow", workflow)

    def __getattr__(self, member: str) -> Any:
        definition = object.__getattribute__(self, "_tf_definition")
        value = getattr(definition, member)
        if member.startswith("__") or isinstance(value, type) or not callable(value):
            return value
        wrapper = _guarded_member(definition, object.__getattribute__(self, "_tf_workflow"), member)
        self.__dict__[member] = wrapper
        return wrapper

    def __setattr__(self, member: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "_tf_definition"), member, value)
        self.__dict__.pop(member, None)

    def __repr__(self) -> str:
        return f"GuardedDefinition({object.__getattribute__(self, '_tf_definition')!r})"


def _guarded_member(definition: Any, workflow: str, member: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return getattr(definition, member)(*args, **kwargs)
        except TurnframeError:
            raise
        except Exception as exc:
            raise DomainError(workflow, member, exc) from exc

    call.__name__ = member
    call.__qualname__ = f"{workflow}.{member}"
    return call


def unguarded(definition: Any) -> Any:
    """Return the adopter's own object behind a :class:`GuardedDefinition` (else ``definition``)."""
    if type(definition) is GuardedDefinition:
        return object.__getattribute__(definition, "_tf_definition")
    return definition
