"""What a domain author writes, and the registry that erases it.

See docs/architecture.md "Workflows", "What you write".

A :class:`WorkflowDefinition` is typed domain code: a projector, the operations each view
offers, act compilation (with the domain check of docs/architecture.md "One turn" step 5), command
policy, pure execution, receipts, candidate labels and a briefing. The :class:`WorkflowRegistry`
holds several behind :class:`ErasedWorkflow`, which only serialises at the boundary. Every method
here is synchronous and pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any, Generic, Protocol, TypeAlias, TypeVar

from turnframe.core.acts import SemanticAct
from turnframe.core.commands import (
    CONSERVATIVE_POLICY,
    Command,
    CommandPolicy,
    policy_at_least,
)
from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import DomainError, RegistryError, RiskPolicyError
from turnframe.core.events import DomainEvent, EventDraft
from turnframe.core.glossary import GlossaryEntry, checked_glossary
from turnframe.core.guard import GuardedDefinition
from turnframe.core.ids import Actor, CaseRef, JSONObject, JSONValue
from turnframe.core.interactions import ProposedCommand, RenderedArgument
from turnframe.core.operations import ArgumentKind, ArgumentSpec, OperationSpec
from turnframe.core.registration import (
    application_problems,
    hook_problems,
    member_problems,
    operation_problems,
)
from turnframe.core.versions import VersionRouting
from turnframe.core.view import Obligation, WorkflowView

__all__ = [
    "Amount",
    "ArgValue",
    "CommandText",
    "CompileRequest",
    "Compiled",
    "ErasedWorkflow",
    "Execution",
    "Executed",
    "ExecutionContext",
    "OutboxDraft",
    "PartCandidate",
    "Refusal",
    "Replayed",
    "WorkflowDefinition",
    "WorkflowRegistry",
]

S = TypeVar("S")


@fast_init
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


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Refusal:
    """The domain refuses an act or command, in its own words.

    See docs/architecture.md "One turn" step 5.

    Attributes:
        code: a stable code, e.g. ``"end_before_start"``.
        sentence: the domain's user-facing sentence, in the turn's locale.
    """

    code: str
    sentence: str


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CommandText:
    """A proposed command as the domain words it for a card (ADR 0003, ``render_command``).

    Attributes:
        text: one sentence in the card's locale, e.g. ``"Book hotel Avenida for 3 nights"``.
        arguments: the command's arguments as rendered into ``text``; an argument of
            ``to_json()`` left out here (or whose value ``text`` lacks) is added by the
            framework, so a card never hides one (docs/adr/0013-cards-show-what-they-do.md).
    """

    text: str
    arguments: tuple[RenderedArgument, ...] = ()


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PartCandidate:
    """A part of a record (an extra, a passenger, a line item) the user's words could name.

    Returned by a workflow's optional ``find_parts`` hook for an argument of kind
    :attr:`~turnframe.core.operations.ArgumentKind.PART`; one candidate fills the
    argument, several go on a choice card, none is refused with the domain's sentence
    (no guess, I8; docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).

    Attributes:
        id: the part's stable id inside the record (e.g. ``"E1"``); the argument's value.
        label: the domain's label for it in the turn's locale (a choice card's option).
    """

    id: str
    label: str


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Replayed:
    """A case's state after the turn's planned commands, carried to its next compile (ADR 0004).

    A compilation that applied the turn's earlier commands (``CompileRequest.prior``) and
    its own to the state may hand the result back in :attr:`Compiled.replayed`; the runtime
    passes it, unread, to the next compilation of the same case in the same turn as
    :attr:`CompileRequest.replayed`, so the earlier commands are applied once per turn,
    not once per act. It stands for ``commands`` applied in order to ``base`` for ``case``
    by ``actor`` on ``today``; a compilation may use it only when its own request has the
    very same ``state`` object (identity, never an equal-looking one) as ``base``, its
    ``prior`` begins with the very same command objects, and ``case``, ``actor`` and
    ``today`` are equal (:meth:`fits`); anything else is replayed from ``request.state``.

    Attributes:
        base: the typed state the commands were applied to (``CompileRequest.state``).
        commands: the commands applied, in order.
        state: the typed state after them.
        case: the case.
        actor: who acted (execution may read it).
        today: the turn's today (execution may read it).
    """

    base: Any
    commands: tuple[Command, ...]
    state: Any
    case: CaseRef
    actor: Actor
    today: date

    def fits(self, request: CompileRequest[Any]) -> bool:
        """Return whether this replay may stand for a prefix of ``request.prior``.

        True when ``request.state`` is :attr:`base` itself, ``request.prior`` starts with
        :attr:`commands` (the same objects, in order) and the case, actor and today are
        the request's.
        """
        prior = request.prior
        count = len(self.commands)
        return (
            request.state is self.base
            and count <= len(prior)
            and all(a is b for a, b in zip(self.commands, prior, strict=False))
            and request.case == self.case
            and request.actor == self.actor
            and request.today == self.today
        )


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Compiled:
    """The typed commands an act compiles to; empty means "no change".

    Attributes:
        commands: the commands, in order.
        replayed: optionally, the state after ``request.prior`` and ``commands`` (a
            :class:`Replayed` whose ``commands`` are both), for the case's next compile
            in the turn; ``None``: the next one replays from the stored state.
        validated: ``True`` only when the compilation ran the definition's own
            ``validate`` rules on every command against ``request.state`` itself with
            ``request.today`` and they passed (possible only when ``request.prior`` is
            empty), so the reducer does not ask ``validate`` the same question again
            (docs/architecture.md "One turn" step 5).
        executed: what the compilation checked and executed on the way, one
            :class:`Executed` per command it ran (``()``: none). The policy step takes
            an entry instead of validating and executing the same command on the same
            state again (:class:`Executed` says when).

    Two compilations are equal when their commands are: ``replayed``, ``validated`` and
    ``executed`` are what the compilation already knows, not part of what it decided.
    """

    commands: tuple[Command, ...] = ()
    replayed: Replayed | None = field(default=None, compare=False)
    validated: bool = field(default=False, compare=False)
    executed: tuple[Executed, ...] = field(default=(), compare=False)


@fast_init
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
        prior: commands already planned for this case earlier in the turn (ADR 0004).
        actor: who acts.
        today: the turn's today.
        locale: the reply's locale, for refusal sentences.
        replayed: what the case's previous compilation in this turn handed back
            (:attr:`Compiled.replayed`), or ``None``; usable only when
            :meth:`Replayed.fits` this request.
        turn_id: the turn (``""`` outside one): the ``turn_id`` of the
            :class:`ExecutionContext` a compilation executes in, the one the policy step
            executes in too.
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
    replayed: Replayed | None = None
    turn_id: str = ""


@fast_init
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


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class OutboxDraft:
    """An external effect to commit with the events (docs/architecture.md "Stores").

    Attributes:
        topic: e.g. ``"airline.submit_manifest"``.
        payload: the message body.
    """

    topic: str
    payload: JSONObject = field(default_factory=dict)


@fast_init
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


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Executed:
    """One command a compilation checked and then executed (:attr:`Compiled.executed`).

    An entry promises that the definition's ``check`` rules passed for ``command`` on
    ``state`` with ``context.today`` and that ``execute(state, command, context)``
    returned ``execution``. The store-backed executor
    (:func:`turnframe.runtime.apply_commands`) takes ``execution`` instead of running
    ``validate`` and ``execute`` again only when all of these hold: the definition's
    ``compile``, ``replay`` and ``validate`` are the authoring kit's own
    (:func:`~turnframe.core.authoring.base.compile_validates`, so ``validate`` is those
    very ``check`` rules); the batch applies the very same ``command`` object to the very
    same ``state`` object (identity, never an equal-looking one); and its execution
    context equals ``context``. ``execute`` and ``check`` are pure (docs/authoring.md
    "Compile", docs/architecture.md "What each step decides"), so the answer is the one a second run
    would give; the origin check (I4, I17), the
    state's dump, its load-back and its search text still run at policy time.

    Attributes:
        state: the typed state the command was checked against and applied to.
        command: the command.
        context: the execution context it ran in.
        execution: what ``execute`` returned.
    """

    state: Any
    command: Command
    context: ExecutionContext
    execution: Execution[Any]


class WorkflowDefinition(Protocol[S]):
    """A workflow, as a domain author writes it. Pure and synchronous.

    See docs/architecture.md "Workflows", "What you write".

    Implementations must uphold I3: ``project`` is a pure function of the state, with
    exactly one phase, stable obligation ids and an outcome only when complete; an
    absent state (``None``) means "not yet", never "no longer".

    The runtime relies on more purity to reuse a snapshot across turns
    (docs/adr/0020-what-a-brief-shows.md rule 8): ``load_state`` is a function of the
    JSON alone, ``project`` of the state and ``today`` alone, and ``candidate_label`` of
    the case, the state and the locale alone (no clock, no store, no counter, nothing
    read from elsewhere). Only a state immutable all the way down (frozen dataclasses or
    frozen pydantic models, tuples, atoms) is ever reused. A definition that cannot
    promise this sets ``memo_snapshots = False`` (a class or instance attribute): its
    snapshots are then computed afresh every time.

    Optional hooks (read through :class:`ErasedWorkflow`, so a workflow written without
    them stays valid; docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md):

    - ``terminal_phases() -> Collection[str]``: the phases (statuses) from which a record
      never moves on, e.g. a Deleted traveler. A record in one is never a candidate,
      target or argument of a mutation. Without the hook, a view with an ``outcome``
      is terminal (I3 gives an outcome only to a finished record).
    - ``find_parts(state, operation, argument, words, locale) -> Sequence[PartCandidate]
      | Refusal``: the parts of ``state`` the user's ``words`` name, for an argument of
      kind ``PART``; a :class:`Refusal` (or no candidate) when none does. Required by
      the registry when an operation declares a ``PART`` argument.
    - ``no_candidate(operation, argument, locale) -> str``: the domain's sentence when
      the user's words name records of this workflow but none on which ``operation``
      (or its record ``argument``) is on offer now.
    - ``glossary(locale) -> Mapping[str, str] | Sequence[GlossaryEntry]``: what the
      domain's own words mean, in ``locale`` (server-authored copy); it reaches the
      understanding tasks that map words to the domain through the brief, beside the
      operation summaries and argument labels (docs/adr/0020-what-a-brief-shows.md).
      Registration checks it in every declared locale.
    A definition may also carry ``locales`` (a tuple of locale tags, ``("en",)`` when
    absent): every operation summary and argument label must exist in each, which
    registration checks, and every code-written sentence it returns is worded in the
    locale asked for (docs/adr/0013-cards-show-what-they-do.md). ``render_command`` and
    ``select_prompt`` are optional; :class:`ErasedWorkflow` has safe defaults for both.
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
        """Return the typed state stored as ``data`` (a function of ``data`` alone).

        The runtime may reuse the answer for the same JSON (docs/adr/0020 rule 8) when it
        is immutable all the way down.
        """
        ...

    def dump_state(self, state: S) -> JSONObject:
        """Return ``state`` as JSON."""
        ...

    def project(self, state: S | None, today: date) -> WorkflowView:
        """Return the view of ``state`` (``None``: named but not created yet).

        A pure function of ``state`` and ``today`` (I3): the runtime reuses the view of
        an unchanged row for the same day (docs/adr/0020-what-a-brief-shows.md rule 8;
        ``memo_snapshots = False`` opts out). The view is never mutated afterwards.
        """
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

    def validate(
        self, state: S | None, command: Command, today: date, locale: str = "en"
    ) -> Refusal | None:
        """Return a refusal when the command may not apply to ``state`` now, else ``None``.

        The refusal's sentence is in ``locale``, the turn's (no English in another
        locale's reply; docs/adr/0013-cards-show-what-they-do.md).
        """
        ...

    def render_receipt(self, event: DomainEvent, state: S | None, locale: str) -> str | None:
        """Return the receipt words for a committed event, or ``None`` for a silent event."""
        ...

    def candidate_label(self, case: CaseRef, state: S | None, locale: str) -> str:
        """Return a label that tells this case apart from its homonyms (ADR 0001).

        A pure function of ``case``, ``state`` and ``locale``: the runtime reuses the
        label of an unchanged row in the same locale (docs/adr/0020-what-a-brief-shows.md
        rule 8; ``memo_snapshots = False`` opts out).
        """
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

    def render_command(
        self, state: S | None, command: Command, locale: str, labels: Mapping[CaseRef, str]
    ) -> CommandText:
        """Return ``command`` worded for a Confirm or Review card in ``locale`` (ADR 0003).

        ``labels`` holds the candidate labels of the records the turn loaded, for record
        arguments. Optional: :meth:`ErasedWorkflow.propose` falls back to the operation's
        summary followed by every argument as ``label: value``, and adds any argument the
        domain's words leave out (docs/adr/0013-cards-show-what-they-do.md).
        """
        ...

    def select_prompt(
        self, operation: OperationSpec, argument: ArgumentSpec | None, locale: str
    ) -> str:
        """Return the question of a selection card offering records of this workflow.

        ``argument`` is the record argument the choice fills, ``None`` when the choice
        is the act's target ("Which trip did you mean?"). Optional: the runtime's generic
        question is used when a workflow lacks it.
        """
        ...


AnyWorkflow: TypeAlias = WorkflowDefinition[Any]

_GLOSSARIES_KEPT = 32
"""Checked glossary answers an :class:`ErasedWorkflow` remembers (a few per locale)."""


_FLOORS_KEPT = 256
"""``policy`` answers an :class:`ErasedWorkflow` remembers (by the definition's policy object)."""


def _glossary_key(answer: object) -> tuple[object, ...] | None:
    """Return a hashable copy of a glossary answer's whole content, or ``None``.

    Only a plain ``dict`` of strings (the common answer) is keyed; anything else is
    checked every time.
    """
    if type(answer) is not dict:
        return None
    items = tuple(answer.items())
    for term, meaning in items:
        if type(term) is not str or type(meaning) is not str:
            return None
    return items


class ErasedWorkflow:
    """A workflow behind the type-erased boundary: JSON state in, JSON state out.

    The runtime talks to this; the domain stays typed behind it.

    Args:
        definition: the typed workflow.
    """

    __slots__ = ("_def", "_floors", "_glossaries", "_name", "_ops", "_raw", "_version")

    def __init__(self, definition: AnyWorkflow) -> None:
        self._raw = definition
        guarded: Any = GuardedDefinition(definition, str(getattr(definition, "name", "?")))
        self._def: AnyWorkflow = guarded
        # Read once: the registry files the workflow under this name and version.
        self._name = str(self._def.name)
        self._version = str(self._def.version)
        self._ops = {op.key: op for op in self._def.operations()}
        self._glossaries: dict[tuple[object, ...], tuple[GlossaryEntry, ...]] = {}
        self._floors: dict[int, tuple[CommandPolicy, CommandPolicy, CommandPolicy]] = {}

    @property
    def definition(self) -> AnyWorkflow:
        """The typed definition, guarded (:mod:`turnframe.core.guard`).

        A domain exception in any of its members is raised as
        :class:`~turnframe.core.errors.DomainError` naming the workflow and the member,
        chained from the original.
        """
        return self._def

    @property
    def raw(self) -> AnyWorkflow:
        """The adopter's own definition object, unguarded (for ``isinstance`` checks)."""
        return self._raw

    @property
    def name(self) -> str:
        """The workflow name, as read when the workflow was erased (the registry's key)."""
        return self._name

    @property
    def version(self) -> str:
        """The workflow version, as read when the workflow was erased (the registry's key)."""
        return self._version

    def operation(self, key: str) -> OperationSpec | None:
        """Return the operation spec for ``key``, or ``None`` when unknown."""
        return self._ops.get(key)

    def operations(self) -> tuple[OperationSpec, ...]:
        """Return every registered operation spec."""
        return tuple(self._ops.values())

    def typed(self, data: JSONObject | None) -> Any:
        """Return the typed state for stored ``data`` (``None`` stays ``None``)."""
        return None if data is None else self._def.load_state(data)

    @property
    def locales(self) -> tuple[str, ...]:
        """The locales the workflow declares (``locales`` attribute; ``("en",)`` when absent)."""
        declared = getattr(self._def, "locales", None)
        return tuple(declared) if declared else ("en",)

    def policy(self, state: Any, command: Command) -> CommandPolicy:
        """Return the command's policy, never weaker than its operation declares (I17).

        Conservative for an operation it does not know. The definition's policy may add
        to the declaration (a review role for a minor) but never lowers its risk or drops
        its confirmation (``policy_at_least``).
        """
        op = self._ops.get(command.operation)
        if op is None:
            return CONSERVATIVE_POLICY
        given = self._def.policy(state, command)
        floor = op.policy
        # ``policy_at_least`` is a pure function of two frozen policies: the answer for
        # the very same pair of objects (identity, held here so no id is reused) is kept.
        kept = self._floors.get(id(given))
        if kept is not None and kept[0] is given and kept[1] is floor:
            return kept[2]
        merged = policy_at_least(given, floor)
        if len(self._floors) >= _FLOORS_KEPT:
            self._floors.clear()
        self._floors[id(given)] = (given, floor, merged)
        return merged

    def propose(
        self, state: Any, command: Command, locale: str, labels: Mapping[CaseRef, str]
    ) -> ProposedCommand:
        """Return ``command`` as a card shows it: the domain's words plus every argument (ADR 0003).

        Uses the definition's ``render_command`` when it has one, else the operation's
        summary. Every argument of ``command.to_json()`` with a value is rendered; one the
        domain's words do not show is appended as ``label: value``, so no card omits
        what it authorises (docs/adr/0013-cards-show-what-they-do.md).
        """
        arguments = command.to_json()
        op = self._ops.get(command.operation)
        render = getattr(self._def, "render_command", None)
        given = render(state, command, locale, labels) if render is not None else None
        if given is None:
            summary = op.summary_in(locale).rstrip(".") if op else command.operation
            given = CommandText(text=summary)
        rendered = {a.name: a for a in given.arguments}
        present: list[RenderedArgument] = []
        for name, value in arguments.items():
            if value is None or value in ("", [], {}):
                continue
            if name not in rendered:
                rendered[name] = RenderedArgument(
                    name=name,
                    label=_argument_label(op, name, locale),
                    value=_default_value(value, labels),
                )
            present.append(rendered[name])
        missing = _unshown(given.text, present)
        text = given.text.strip().rstrip(".")
        if missing:
            shown = "; ".join(f"{a.label}: {a.value}" for a in missing)
            text = f"{text} ({shown})" if text else shown
        order = [n for n in arguments if n in rendered] + [
            n for n in rendered if n not in arguments
        ]
        return ProposedCommand(
            operation=command.operation,
            arguments=arguments,
            text=text,
            rendered=tuple(rendered[n] for n in order),
        )

    def select_prompt(
        self, operation: OperationSpec, argument: ArgumentSpec | None, locale: str
    ) -> str | None:
        """Return the domain's selection question, or ``None`` when the workflow has none."""
        ask = getattr(self._def, "select_prompt", None)
        if ask is None:
            return None
        words = ask(operation, argument, locale)
        return str(words) if words else None

    def terminal(self, view: WorkflowView) -> bool:
        """Return whether ``view``'s phase is terminal: no mutation may target or name it.

        The domain declares its terminal phases with an optional ``terminal_phases()``
        hook; without one, a view with an outcome is terminal (I3). An absent record
        (``exists=False``) is never terminal.
        """
        if not view.exists:
            return False
        declared = getattr(self._def, "terminal_phases", None)
        if callable(declared):
            return view.phase in tuple(declared())
        return view.outcome is not None

    def fits(self, view: WorkflowView, actor: Actor, operation: str) -> bool:
        """Return whether ``operation`` is on offer to ``actor`` on a record with ``view``.

        True when the view offers it and the record is not terminal (a creating
        operation fits an absent record). This is the filter a selection card's
        candidates pass (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).
        """
        spec = self._ops.get(operation)
        if spec is not None and spec.creates_case and not view.exists:
            return True
        return not self.terminal(view) and operation in self._def.offered(view, actor)

    def find_parts(
        self, state: Any, operation: OperationSpec, argument: ArgumentSpec, words: str, locale: str
    ) -> tuple[PartCandidate, ...] | Refusal:
        """Return the parts of ``state`` that ``words`` name for ``argument``, or a refusal.

        Raises:
            RegistryError: when the workflow has no ``find_parts`` hook.
        """
        hook = getattr(self._def, "find_parts", None)
        if not callable(hook):
            raise RegistryError(f"workflow {self.name!r} has no find_parts for {argument.name!r}")
        found = hook(state, operation, argument, words, locale)
        if isinstance(found, Refusal):
            return found
        return tuple(found)

    def glossary(self, locale: str) -> tuple[GlossaryEntry, ...]:
        """Return the domain's glossary in ``locale`` (``()`` without a ``glossary`` hook).

        Raises:
            RegistryError: when the hook raises (chained) or answers something that is
                not a glossary (:func:`~turnframe.core.glossary.checked_glossary`).
        """
        hook = getattr(self._def, "glossary", None)
        if not callable(hook):
            return ()
        try:
            answer = hook(locale)
        except Exception as exc:
            # The guard's DomainError names the member already: chain the domain's own.
            original = exc.__cause__ if isinstance(exc, DomainError) and exc.__cause__ else exc
            raise RegistryError(
                f"workflow {self.name!r}: glossary({locale!r}) raised {type(original).__name__}"
            ) from original
        # The hook is asked every time; a checked answer is remembered under its whole
        # content (what ``checked_glossary`` is a pure function of), never under the
        # locale, so a hook whose answer changes is checked again.
        key = _glossary_key(answer)
        if key is not None:
            found = self._glossaries.get(key)
            if found is not None:
                return found
        checked = checked_glossary(self.name, answer)
        if key is not None and len(self._glossaries) < _GLOSSARIES_KEPT:
            self._glossaries[key] = checked
        return checked

    def no_candidate(
        self, operation: OperationSpec, argument: ArgumentSpec | None, locale: str
    ) -> str | None:
        """Return the domain's sentence for words that name no record fitting ``operation``.

        ``None`` when the workflow has no ``no_candidate`` hook (the runtime then uses
        its own sentence).
        """
        hook = getattr(self._def, "no_candidate", None)
        if not callable(hook):
            return None
        return str(hook(operation, argument, locale))


def _unshown(text: str, arguments: Sequence[RenderedArgument]) -> list[RenderedArgument]:
    """Return the arguments whose rendered value ``text`` does not show on its own.

    A value is shown when it stands in ``text`` as whole words (``"1"`` is not shown by
    ``"Hotel 1900"``) in a place no other argument's value took: values are matched
    longest first and each match is used up, so ``"Hotel 1"`` with one night still shows
    the night (docs/adr/0013-cards-show-what-they-do.md).
    """
    remaining = text
    missing: list[RenderedArgument] = []
    for argument in sorted(arguments, key=lambda a: len(a.value), reverse=True):
        value = argument.value.strip()
        found = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", remaining) if value else None
        if found is None:
            missing.append(argument)
            continue
        remaining = remaining[: found.start()] + "\0" + remaining[found.end() :]
    order = {id(a): n for n, a in enumerate(arguments)}
    return sorted(missing, key=lambda a: order[id(a)])


def _argument_label(op: OperationSpec | None, name: str, locale: str) -> str:
    spec = op.argument(name) if op else None
    if spec is not None:
        return spec.label_in(locale)
    return name.replace("_", " ")


def _default_value(value: JSONValue, labels: Mapping[CaseRef, str]) -> str:
    if isinstance(value, list):
        return ", ".join(_default_value(v, labels) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_default_value(v, labels)}" for k, v in value.items())
    if isinstance(value, str) and "/" in value:
        workflow, _, case_id = value.partition("/")
        label = labels.get(CaseRef(workflow, case_id))
        if label:
            return label
    return str(value)


def _check_locale(op: OperationSpec, locale: str) -> None:
    if locale.split("-")[0].lower() == "en":
        return  # ``summary`` and ``label`` are the English words
    if not (op.summaries.get(locale) or op.summaries.get(locale[:2])):
        raise RegistryError(f"operation {op.key!r} has no summary in declared locale {locale!r}")
    for arg in op.arguments:
        if not (arg.labels.get(locale) or arg.labels.get(locale[:2])):
            raise RegistryError(
                f"argument {arg.name!r} of {op.key!r} has no label in declared locale {locale!r}"
            )


class WorkflowRegistry:
    """Holds several workflows by name, each in one or more versions; operation keys are global.

    An operation key belongs to one workflow (every version of it may declare it). The
    version :meth:`workflow` gives is the *live* one: the first registered, unless
    :attr:`routing` names another stable version or :meth:`for_turn` /
    :meth:`pinned` chose one (docs/guides/canary-and-rollback.md).

    Raises:
        RegistryError: on a duplicate workflow version or operation, or an unknown name.
    """

    def __init__(self, definitions: Sequence[AnyWorkflow] = ()) -> None:
        self._workflows: dict[str, ErasedWorkflow] = {}
        self._operations: dict[str, OperationSpec] = {}
        self._versions: dict[str, dict[str, ErasedWorkflow]] = {}
        self._routing: VersionRouting | None = None
        self._pinned = False
        for definition in definitions:
            self.register(definition)

    def register(self, definition: AnyWorkflow) -> None:
        """Register ``definition``.

        A definition whose ``name`` is registered already, with another ``version``,
        is registered as one more version of that workflow (the live version stays;
        docs/guides/canary-and-rollback.md "Registering versions").

        Checks each operation's declared policy against the risk rule (I17): a
        monetary, destructive, irreversible or unknown operation needs a confirmation
        unless a monetary or destructive one states an explicit ``opt_out``. And every
        locale the workflow declares has each operation's summary and argument labels
        (docs/adr/0013-cards-show-what-they-do.md).

        First, every required member of :class:`WorkflowDefinition` is present (callable,
        or a non-empty str for ``name`` and ``version``) and the operations are
        consistent (:mod:`turnframe.core.registration`); last, the definition's optional
        ``registration_problems(locales)`` hook is asked. Each problem names the
        workflow, the member and the fix, so a turn never meets an ``AttributeError``.

        Raises:
            RiskPolicyError: when an operation's declared policy breaks the risk rule.
            RegistryError: on a pinned registry (:meth:`pinned`); when a required
                member is missing or malformed, the operations are inconsistent, the
                hook reports a problem, its version is registered already, one of its
                operation keys is another workflow's, a declared locale lacks an
                operation's summary or an argument's label, or an operation declares a
                ``PART`` argument the workflow cannot resolve (no ``find_parts`` hook).
        """
        if self._pinned:
            raise RegistryError(
                "a pinned registry (one turn's) registers nothing; register on its source"
            )
        problems = member_problems(definition)
        if not problems:
            problems = operation_problems(definition.name, definition.operations())
        if problems:
            raise RegistryError("\n".join(problems))
        erased = ErasedWorkflow(definition)
        family = self._versions.get(erased.name, {})
        if erased.version in family:
            raise RegistryError(
                f"workflow {erased.name!r} version {erased.version!r} is already registered"
            )
        owners = {
            op.key: name
            for name, versions in self._versions.items()
            for version in versions.values()
            for op in version.operations()
        }
        for op in erased.operations():
            if op.key in owners and (not family or owners[op.key] != erased.name):
                raise RegistryError(f"operation {op.key!r} is already registered")
            if op.workflow != erased.name:
                raise RegistryError(f"operation {op.key!r} names workflow {op.workflow!r}")
            problem = op.policy.problem()
            if problem is not None:
                raise RiskPolicyError(op.key, problem)
            for locale in erased.locales:
                _check_locale(op, locale)
            parts = [a.name for a in op.arguments if a.kind is ArgumentKind.PART]
            if parts and not callable(getattr(definition, "find_parts", None)):
                raise RegistryError(
                    f"operation {op.key!r} has part argument(s) {parts} but workflow "
                    f"{erased.name!r} defines no find_parts to resolve them from words"
                )
        for locale in erased.locales:
            erased.glossary(locale)  # a malformed glossary fails registration, not a turn
        problems = hook_problems(definition, erased.locales)
        if problems:
            raise RegistryError("\n".join(problems))
        self._versions.setdefault(erased.name, {})[erased.version] = erased
        if family:
            return  # another version of a registered workflow: the live one stays
        self._workflows[erased.name] = erased
        for op in erased.operations():
            self._operations[op.key] = op

    def check_application(self, locales: Sequence[str]) -> None:
        """Check the registered workflows serve an application's ``locales`` together.

        Every workflow covers each locale (operation summaries and argument labels,
        a well-formed glossary, its ``registration_problems(locales)`` hook), and every
        record argument names a registered workflow. ``Application`` calls it when it
        is built (docs/architecture.md).

        Raises:
            RegistryError: naming the workflow, the member and the fix of each problem.
        """
        problems: list[str] = []
        wanted = tuple(locales)
        for erased in (e for family in self._versions.values() for e in family.values()):
            for locale in wanted:
                for op in erased.operations():
                    try:
                        _check_locale(op, locale)
                    except RegistryError as exc:
                        problems.append(
                            f"workflow {erased.name!r} does not cover the application's "
                            f"locale {locale!r}: {exc}: add it to summaries= / labels="
                        )
                try:
                    erased.glossary(locale)
                except RegistryError as exc:
                    problems.append(f"workflow {erased.name!r}, glossary({locale!r}): {exc}")
            if wanted != erased.locales:
                problems.extend(hook_problems(erased.raw, wanted))
        problems.extend(
            application_problems(
                ((e.name, e.operations()) for f in self._versions.values() for e in f.values()),
                self._workflows,
            )
        )
        if problems:
            raise RegistryError("\n".join(problems))

    def workflow(self, name: str, version: str | None = None) -> ErasedWorkflow:
        """Return the live version of workflow ``name``, or its ``version``.

        Raises:
            RegistryError: when no workflow has that name, or it has no such version.
        """
        try:
            if version is None:
                return self._workflows[name]
            return self._versions[name][version]
        except KeyError:
            if name in self._workflows:
                raise RegistryError(
                    f"workflow {name!r} has no version {version!r} (registered: "
                    f"{', '.join(self._versions[name])})"
                ) from None
            raise RegistryError(f"no workflow named {name!r}") from None

    def versions(self, name: str) -> tuple[str, ...]:
        """Return the registered versions of ``name``, in registration order (``()``: unknown)."""
        return tuple(self._versions.get(name, ()))

    def live_versions(self) -> dict[str, str]:
        """Return workflow name → the version :meth:`workflow` gives (what a turn records)."""
        return {name: erased.version for name, erased in self._workflows.items()}

    @property
    def routing(self) -> VersionRouting | None:
        """The deployment's routing rule, or ``None``: every turn runs the stable versions.

        Setting it is how a canary starts and how it is rolled back (share 0, or a rule
        with no rollout); no case changes. Setting it on a pinned registry is refused.

        Raises:
            RegistryError: the rule names a version that is not registered.
        """
        return self._routing

    @routing.setter
    def routing(self, rule: VersionRouting | None) -> None:
        if self._pinned:
            raise RegistryError("a pinned registry (one turn's) has no routing of its own")
        problems = [] if rule is None else rule.problems(self._family_versions())
        if problems:
            raise RegistryError("; ".join(problems))
        self._routing = rule
        stable = {} if rule is None else rule.stable
        for name, family in self._versions.items():
            self._workflows[name] = family.get(stable.get(name, ""), next(iter(family.values())))
        self._operations = self._operations_of(self._workflows)

    def for_turn(self, account: str, conversation_id: str) -> WorkflowRegistry:
        """Return the registry one turn of ``account``'s ``conversation_id`` runs with.

        ``self`` when no rollout is set (no cost per turn); else :meth:`pinned` to the
        versions :meth:`VersionRouting.choose` gives (sticky per conversation).
        """
        rule = self._routing
        if rule is None or not rule.rollouts:
            return self
        return self.pinned(rule.choose(self.live_versions(), account, conversation_id))

    def pinned(self, versions: Mapping[str, str]) -> WorkflowRegistry:
        """Return a view of this registry whose live versions are ``versions``.

        A workflow ``versions`` does not name keeps its live version. The view shares the
        checked workflows (nothing is registered again) and cannot register more.

        Raises:
            RegistryError: ``versions`` names an unknown workflow or version.
        """
        chosen = dict(self._workflows)
        for name, version in versions.items():
            chosen[name] = self.workflow(name, version)
        if all(chosen[n] is self._workflows[n] for n in chosen):
            return self
        view = WorkflowRegistry.__new__(WorkflowRegistry)
        view._workflows = chosen
        view._versions = self._versions
        view._operations = self._operations_of(chosen)
        view._routing = None
        view._pinned = True
        return view

    def _family_versions(self) -> dict[str, tuple[str, ...]]:
        return {name: tuple(family) for name, family in self._versions.items()}

    @staticmethod
    def _operations_of(live: Mapping[str, ErasedWorkflow]) -> dict[str, OperationSpec]:
        """Return the operation specs of the ``live`` versions (a key only another has: absent)."""
        return {op.key: op for erased in live.values() for op in erased.operations()}

    def operation(self, key: str) -> OperationSpec | None:
        """Return the live operation spec for ``key``, or ``None`` when no live version has it."""
        return self._operations.get(key)

    def names(self) -> tuple[str, ...]:
        """Return the registered workflow names, in registration order."""
        return tuple(self._workflows)

    def glossary(
        self, locale: str, workflows: Iterable[str] | None = None
    ) -> tuple[GlossaryEntry, ...]:
        """Return the glossary entries of ``workflows`` (default: all), in registration order.

        Args:
            locale: the turn's locale; a workflow's ``glossary`` hook is asked in it.
            workflows: the workflow names whose entries to return (unknown names are
                skipped).
        """
        wanted = set(self._workflows) if workflows is None else set(workflows)
        return tuple(
            entry
            for name, erased in self._workflows.items()
            if name in wanted
            for entry in erased.glossary(locale)
        )
