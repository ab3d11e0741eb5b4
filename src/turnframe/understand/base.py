"""The understanding interface and the scripted implementation.

See docs/architecture.md "Understanding".

An :class:`Understander` reads a :class:`~turnframe.understand.brief.Brief` and returns a
proposal (:class:`~turnframe.core.acts.Understanding`); it authorizes nothing (I9).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from turnframe.core.acts import Understanding
from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import UsageError
from turnframe.core.ids import JSONObject
from turnframe.core.workflow import WorkflowRegistry
from turnframe.understand.brief import Brief
from turnframe.understand.contract import require_on_contract

__all__ = ["ScriptedUnderstanding", "Understander", "UnderstandingResult"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class UnderstandingResult:
    """A proposal plus how it was read (I20).

    Attributes:
        understanding: the proposal.
        model_calls: how many model calls it took.
        calls: one JSON record per model call (prompt, model, tokens, latency, verdict).
        trace: how the turn was read: effort, the brief, the steps and any typed error.
    """

    understanding: Understanding
    model_calls: int = 0
    calls: tuple[JSONObject, ...] = field(default=())
    trace: JSONObject = field(default_factory=dict)


class Understander(Protocol):
    """Reads one turn's text against its brief (docs/architecture.md "One turn" step 4)."""

    async def understand(self, brief: Brief) -> UnderstandingResult:
        """Return the proposal for ``brief.text``.

        A unit that no reading could pass is not an error: it comes back as a notice code
        in ``Understanding.notices`` and reaches the user as a notice (docs/architecture.md
        "Understanding").
        """
        ...


class ScriptedUnderstanding:
    """Understanding from a script: what a model would have proposed, for tests and the demo.

    Makes no model call. Each turn with text takes the next script entry; an entry is an
    :class:`Understanding` or a function of the brief returning one (so a script can name
    the turn's per-turn handles).

    Args:
        script: the proposals, in turn order.
        registry: the workflows (``None``: not checked here). With it, every
            :class:`Understanding` entry is checked against the understander's contract
            when it is scripted (:meth:`push` too): an act naming an argument its
            operation does not declare is refused then, naming the act, the argument
            and the operation's arguments. The runtime checks every proposal anyway
            before it resolves anything (docs/invariants.md I2).

    Raises:
        OffContractUnderstanding: (a ``UsageError``) an entry breaks the contract.
        UsageError: from :meth:`understand` when the script is exhausted.
    """

    def __init__(
        self,
        script: Sequence[Understanding | Callable[[Brief], Understanding]] = (),
        *,
        registry: WorkflowRegistry | None = None,
    ) -> None:
        self._registry = registry
        self._script: list[Understanding | Callable[[Brief], Understanding]] = []
        for entry in script:
            self.push(entry)

    def push(self, entry: Understanding | Callable[[Brief], Understanding]) -> None:
        """Append a proposal for a later turn.

        Raises:
            OffContractUnderstanding: with a registry, ``entry`` breaks the contract.
        """
        if self._registry is not None and not callable(entry):
            require_on_contract(entry, self._registry.operation)
        self._script.append(entry)

    async def understand(self, brief: Brief) -> UnderstandingResult:
        """Return the next scripted proposal (zero model calls)."""
        if not self._script:
            raise UsageError("scripted understanding has no proposal left for this turn")
        entry = self._script.pop(0)
        proposal = entry(brief) if callable(entry) else entry
        return UnderstandingResult(understanding=proposal, model_calls=0)
