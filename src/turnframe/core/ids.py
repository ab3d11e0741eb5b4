"""Identity values: actors, case references and JSON shapes (I1).

See docs/architecture.md "One turn" step 7.

A :class:`CaseRef` is a server-side identity and never reaches a model; models see only
opaque per-turn handles (strings minted by the runtime).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TypeAlias

from typing_extensions import TypeAliasType

from turnframe.core.dataclass_init import fast_init

__all__ = ["Actor", "CaseRef", "JSONValue", "JSONObject", "case_ref"]

JSONValue = TypeAliasType(
    "JSONValue",
    'str | int | float | bool | None | list["JSONValue"] | dict[str, "JSONValue"]',
)
"""A value that survives ``json.dumps``/``json.loads`` unchanged (recursive alias)."""

JSONObject: TypeAlias = dict[str, JSONValue]
"""A JSON object: the serialised shape of states, event data and payloads."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Actor:
    """Who acts in a turn.

    Attributes:
        account: the tenant; every record, card and handle is scoped to it.
        user: the user id within the account.
        roles: role names (``"customer"``, ``"agent"``) used by review requirements (I17).
    """

    account: str
    user: str
    roles: frozenset[str] = field(default_factory=frozenset)

    def has_role(self, role: str) -> bool:
        """Return whether the actor holds ``role``."""
        return role in self.roles


@dataclass(frozen=True, order=True)
class CaseRef:
    """A server-side reference to one case of one workflow.

    Never shown to a model (I1): briefs carry per-turn handles instead.

    Equality, order and hash are those of the pair ``(workflow, case_id)``; the hash is
    computed once, at construction (a turn hashes its cases about a hundred times), and
    a pickled or copied reference is rebuilt from the pair, so the cached hash never
    crosses processes (``str`` hashes are salted per process).

    Attributes:
        workflow: the workflow name, e.g. ``"trip"``.
        case_id: the server-side id, unique within the workflow.
    """

    __slots__ = ("workflow", "case_id", "_hash")

    workflow: str
    case_id: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.workflow, self.case_id)))

    def __hash__(self) -> int:
        cached: int = self._hash  # type: ignore[attr-defined]
        return cached

    def __reduce__(self) -> tuple[type[CaseRef], tuple[str, str]]:
        return (CaseRef, (self.workflow, self.case_id))

    def __str__(self) -> str:
        return f"{self.workflow}/{self.case_id}"


case_ref = lru_cache(maxsize=4096)(CaseRef)
case_ref.__doc__ = """Return ``CaseRef(workflow, case_id)``, one shared instance per pair.

Args:
    workflow: the workflow name (``str``).
    case_id: the case id within the workflow (``str``).

Returns:
    A :class:`CaseRef` equal to ``CaseRef(workflow, case_id)``: a caller may mix both.
    A dict or set holding this instance finds it by identity, without ``__eq__`` (a turn
    looks the same few cases up about a hundred times, from the store's rows and the
    conversation's state; docs/adr/0020-what-a-brief-shows.md). Safe to share: a
    reference is immutable (I1). At most 4,096 pairs are kept, least recently used
    dropped.

Raises:
    TypeError: an argument is unhashable.
"""
