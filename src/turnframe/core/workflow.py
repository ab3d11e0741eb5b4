"""What a domain author writes, and the registry that erases it (guide §4, §13).

A :class:`WorkflowDefinition` is typed domain code: a projector, the operations each view
offers, act compilation (with the domain check of §2 step 5), command policy, pure
execution, receipts, candidate labels and a briefing. The :class:`WorkflowRegistry`
holds several behind :class:`ErasedWorkflow`, which only serialises at the boundary.
Every method here is synchronous and pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any, Generic, Protocol, TypeAlias, TypeVar

from turnframe.core.acts import SemanticAct
from turnframe.core.commands import CONSERVATIVE_POLICY, Command, CommandPolicy
from turnframe.core.errors import RegistryError
from turnframe.core.events import DomainEvent, EventDraft
from turnframe.core.ids import Actor, CaseRef, JSONObject
from turnframe.core.operations import ArgumentSpec, OperationSpec
from turnframe.core.view import Obligation, WorkflowView

__all__ = [
    "Amount",
    "ArgValue",
    "CompileRequest",
    "Compiled",
    "ErasedWorkflow",
    "Execution",
    "ExecutionContext",
    "OutboxDraft",
    "Refusal",
    "WorkflowDefinition",
    "WorkflowRegistry",
]

S = TypeVar("S")


@dataclass(frozen=True, slots=True, kw_only=True)
class Amount:
    """A sum of money as code read it from the user's words (docs/adr/0015-values-in-the-turns-locale.md).

    Attributes:
        value: the number, exactly (never a float).
        currency: the ISO 4217 code the words named (``"EUR"``), or ``None`` when they
            named none and the domain decides.
    """

    value: Decimal
    currency: str | None = None


ArgValue: TypeAlias = str | int | Decimal | Amount | date | CaseRef
"""An argument after code evaluated the user's words: text, a whole or decimal number, an
amount, a date or a record."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Refusal:
    """The domain refuses an act or command, in its own words (guide §2 step 5).

    Attributes:
        code: a stable code, e.g. ``"end_before_start"``.
        sentence: the domain's user-facing sentence, in the turn's locale.
    """

    code: str
    sentence: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Compiled:
    """The typed commands an act compiles to; empty means "no change".

    Attributes:
        commands: the commands, in order.
    """

    commands: tuple[Command, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class CompileRequest(Generic[S]):
    """Everything compilation may read (pure).

    Attributes:
        act: the act as proposed.
        operation: its operation spec.
        case: the Exact target.
        state: the case's typed state (``None`` when the act creates the case).
        view: the case's view.
        values: argument name → evaluated value (dates parsed, records resolved).
        prior: commands already planned for this case earlier in the turn (D3).
        actor: who acts.
        today: the turn's today.
        locale: the reply's locale, for refusal sentences.
    """

    act: SemanticAct
    operation: OperationSpec
    case: CaseRef
    state: S | None
    view: WorkflowView
    values: Mapping[str, ArgValue]
    prior: tuple[Command, ...]
    actor: Actor
    today: date
    locale: str = "en"


@dataclass(frozen=True, slots=True, kw_only=True)
class ExecutionContext:
    """What pure execution may read besides state and command.

    Attributes:
        case: the case.
        actor: who acts.
        today: the turn's today.
        turn_id: the turn.
    """

    case: CaseRef
    actor: Actor
    today: date
    turn_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class OutboxDraft:
    """An external effect to commit with the events (guide §11).

    Attributes:
        topic: e.g. ``"airline.submit_manifest"``.
        payload: the message body.
    """

    topic: str
    payload: JSONObject = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Execution(Generic[S]):
    """The pure result of applying one command to a state.

    Attributes:
        state: the new state.
        events: the events it produced (at least one for a real change).
        outbox: external effects to deliver.
    """

    state: S
    events: tuple[EventDraft, ...]
    outbox: tuple[OutboxDraft, ...] = ()


class WorkflowDefinition(Protocol[S]):
    """A workflow, as a domain author writes it (guide §4, §13). Pure and synchronous.

    Implementations must uphold I3: ``project`` is a pure function of the state, with
    exactly one phase, stable obligation ids and an outcome only when complete; an
    absent state (``None``) means "not yet", never "no longer".
    """

    @property
    def name(self) -> str:
        """The workflow name, e.g. ``"trip"``."""
        ...

    @property
    def version(self) -> str:
        """The projection version; changes whenever a projection's meaning changes."""
        ...

    def operations(self) -> tuple[OperationSpec, ...]:
        """Return every operation the workflow registers."""
        ...

    def load_state(self, data: JSONObject) -> S:
        """Return the typed state stored as ``data``."""
        ...

    def dump_state(self, state: S) -> JSONObject:
        """Return ``state`` as JSON."""
        ...

    def project(self, state: S | None, today: date) -> WorkflowView:
        """Return the view of ``state`` (``None``: named but not created yet)."""
        ...

    def offered(self, view: WorkflowView, actor: Actor) -> tuple[str, ...]:
        """Return the operation keys this view offers to ``actor``."""
        ...

    def compile(self, request: CompileRequest[S]) -> Compiled | Refusal:
        """Compile a resolved act into typed commands, or refuse it (domain check)."""
        ...

    def policy(self, state: S | None, command: Command) -> CommandPolicy:
        """Return the command's policy, given the state it would apply to."""
        ...

    def execute(self, state: S | None, command: Command, ctx: ExecutionContext) -> Execution[S]:
        """Apply one command purely; raise nothing but return events (refuse via validate)."""
        ...

    def validate(self, state: S | None, command: Command, today: date) -> Refusal | None:
        """Return a refusal when the command may not apply to ``state`` now, else ``None``."""
        ...

    def render_receipt(self, event: DomainEvent, state: S | None, locale: str) -> str | None:
        """Return the receipt words for a committed event, or ``None`` for a silent event."""
        ...

    def candidate_label(self, case: CaseRef, state: S | None, locale: str) -> str:
        """Return a label that tells this case apart from its homonyms (ADR)."""
        ...

    def search_text(self, state: S) -> str:
        """Return the words a user may name the case by (``CaseDirectory.find``)."""
        ...

    def briefing(self, view: WorkflowView) -> str:
        """Return server-authored guidance for this view; never interpolates user text."""
        ...

    def ask_obligation(self, view: WorkflowView, obligation: Obligation, locale: str) -> str:
        """Return the code-written question that discharges ``obligation``."""
        ...

    def ask_argument(self, operation: OperationSpec, argument: ArgumentSpec, locale: str) -> str:
        """Return the code-written question for a missing argument value."""
        ...


AnyWorkflow: TypeAlias = WorkflowDefinition[Any]


class ErasedWorkflow:
    """A workflow behind the type-erased boundary: JSON state in, JSON state out.

    The runtime talks to this; the domain stays typed behind it.

    Args:
        definition: the typed workflow.
    """

    __slots__ = ("_def", "_ops")

    def __init__(self, definition: AnyWorkflow) -> None:
        self._def = definition
        self._ops = {op.key: op for op in definition.operations()}

    @property
    def definition(self) -> AnyWorkflow:
        """The typed definition."""
        return self._def

    @property
    def name(self) -> str:
        """The workflow name."""
        return self._def.name

    @property
    def version(self) -> str:
        """The workflow version."""
        return self._def.version

    def operation(self, key: str) -> OperationSpec | None:
        """Return the operation spec for ``key``, or ``None`` when unknown."""
        return self._ops.get(key)

    def operations(self) -> tuple[OperationSpec, ...]:
        """Return every registered operation spec."""
        return tuple(self._ops.values())

    def typed(self, data: JSONObject | None) -> Any:
        """Return the typed state for stored ``data`` (``None`` stays ``None``)."""
        return None if data is None else self._def.load_state(data)

    def policy(self, state: Any, command: Command) -> CommandPolicy:
        """Return the command's policy; conservative for an operation it does not know."""
        if command.operation not in self._ops:
            return CONSERVATIVE_POLICY
        return self._def.policy(state, command)


class WorkflowRegistry:
    """Holds several workflows by name; operation keys are global and unique.

    Raises:
        RegistryError: on a duplicate workflow or operation, or an unknown name.
    """

    def __init__(self, definitions: Sequence[AnyWorkflow] = ()) -> None:
        self._workflows: dict[str, ErasedWorkflow] = {}
        self._operations: dict[str, OperationSpec] = {}
        for definition in definitions:
            self.register(definition)

    def register(self, definition: AnyWorkflow) -> None:
        """Register ``definition``.

        Raises:
            RegistryError: when its name or one of its operation keys is taken.
        """
        erased = ErasedWorkflow(definition)
        if erased.name in self._workflows:
            raise RegistryError(f"workflow {erased.name!r} is already registered")
        for op in erased.operations():
            if op.key in self._operations:
                raise RegistryError(f"operation {op.key!r} is already registered")
            if op.workflow != erased.name:
                raise RegistryError(f"operation {op.key!r} names workflow {op.workflow!r}")
        self._workflows[erased.name] = erased
        for op in erased.operations():
            self._operations[op.key] = op

    def workflow(self, name: str) -> ErasedWorkflow:
        """Return the workflow ``name``.

        Raises:
            RegistryError: when no workflow has that name.
        """
        try:
            return self._workflows[name]
        except KeyError:
            raise RegistryError(f"no workflow named {name!r}") from None

    def operation(self, key: str) -> OperationSpec | None:
        """Return the operation spec for ``key``, or ``None`` when no workflow registers it."""
        return self._operations.get(key)

    def names(self) -> tuple[str, ...]:
        """Return the registered workflow names, in registration order."""
        return tuple(self._workflows)
