"""The ``Workflow`` base class of the authoring kit (docs/authoring.md).

It implements every member of :class:`~turnframe.core.workflow.WorkflowDefinition` from a
few declarations, so a simple domain writes its name and version, its state dataclass,
an operation table (:class:`~turnframe.core.authoring.table.Op`), an offer table, the
checks of its commands, ``execute`` and its receipt templates. Every default is an
ordinary method a subclass may override. Pure and synchronous, like the protocol.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from datetime import date
from functools import cached_property
from typing import Any, ClassVar, Generic, TypeVar

from turnframe.core.authoring.command import TypedCommand
from turnframe.core.authoring.receipts import ReceiptTable, render_template
from turnframe.core.authoring.state_json import load_dataclass
from turnframe.core.authoring.table import OfferTable, Op, offered_keys
from turnframe.core.authoring.words import GENERIC_WORDS, Refused, in_locale
from turnframe.core.canonical import to_json_value
from turnframe.core.commands import CONSERVATIVE_POLICY, Command, CommandPolicy
from turnframe.core.errors import UsageError
from turnframe.core.events import DomainEvent, EventDraft
from turnframe.core.ids import Actor, CaseRef, JSONObject, JSONValue
from turnframe.core.operations import ArgumentSpec, OperationSpec
from turnframe.core.view import Obligation, Outcome, WorkflowView
from turnframe.core.workflow import (
    CommandText,
    Compiled,
    CompileRequest,
    Executed,
    Execution,
    ExecutionContext,
    Refusal,
    Replayed,
)

__all__ = ["Workflow", "compile_validates"]

S = TypeVar("S")

Words = Mapping[str, Mapping[str, str]]
"""Locale → key → sentence template (``refusal.<code>``, ``ask.<argument>``, ``select``…)."""


class Workflow(Generic[S]):
    """A workflow written from declarations (implements ``WorkflowDefinition[S]``).

    Declare on the subclass (class attributes):

    - ``name``, ``version``: the registry key and projection version (I3).
    - ``state_type``: the state dataclass; JSON in and out by its field types.
    - ``locales``: every locale the words exist in (default ``("en",)``).
    - ``table``: the :class:`Op` rows, one per operation (command class, summary, policy).
    - ``offers``: phase → operations on offer (a key, or an ``Offer(key, *roles)``).
    - ``receipts``: locale → event type → template; ``silent``: event types without one;
      ``extra_events``: event types emitted outside commands (an external update's);
      ``payload_fields``: event type → the payload keys ``execute`` adds beyond the
      command's fields (``emit(..., **data)``, or an event built by hand), which receipt
      templates may name.
    - ``words``: locale → key → sentence for refusals (``refusal.<code>``), questions
      (``ask.<argument>``, ``ask.obligation.<kind>``), ``select``, ``no_candidate``; the
      kit's generic wording fills what is left out (English and Portuguese).
    - ``label_fields``: state fields whose values, joined by " · ", label a record; the
      first is also the default ``search_fields``.
    - ``phase_field`` (default ``"status"``), ``new_phase`` (default ``"new"``),
      ``phases`` (every phase, when the phase field's type is a plain ``str``; otherwise
      read from its ``Literal`` or ``Enum``), ``terminal`` (phases a record never
      leaves; they carry the outcome, I3),
      ``briefings`` (phase → server guidance) and ``nouns`` (locale → the record's noun).

    And write ``execute`` (with :meth:`emit` and :meth:`unchanged`) and, for domain rules,
    ``check``. Compilation replays the turn's earlier commands, builds the command from the
    evaluated values, runs ``check`` and detects a no-op, so most operations need no
    compile code (docs/authoring.md#compile). ``registration_problems`` lists every
    declaration that does not hold together; the registry refuses the workflow on any.
    """

    name: str = ""
    version: str = ""
    state_type: ClassVar[type[Any] | None] = None
    locales: ClassVar[tuple[str, ...]] = ("en",)
    table: ClassVar[Sequence[Op]] = ()
    offers: ClassVar[OfferTable] = {}
    receipts: ClassVar[ReceiptTable] = {}
    silent: ClassVar[tuple[str, ...]] = ()
    extra_events: ClassVar[tuple[str, ...]] = ()
    payload_fields: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    words: ClassVar[Words] = {}
    label_fields: ClassVar[tuple[str, ...]] = ()
    search_fields: ClassVar[tuple[str, ...] | None] = None
    phase_field: ClassVar[str] = "status"
    new_phase: ClassVar[str] = "new"
    phases: ClassVar[tuple[str, ...]] = ()
    terminal: ClassVar[tuple[str, ...]] = ()
    briefings: ClassVar[Mapping[str, str]] = {}
    nouns: ClassVar[Mapping[str, str]] = {}

    # -- the declarations, read once -------------------------------------------------

    @cached_property
    def _rows(self) -> dict[str, Op]:
        return {row.key: row for row in self.table}

    @cached_property
    def _specs(self) -> tuple[OperationSpec, ...]:
        return tuple(row.spec() for row in self.table)

    def operations(self) -> tuple[OperationSpec, ...]:
        """Return the operation specs of ``table`` (arguments from the commands' fields)."""
        return self._specs

    def row(self, key: str) -> Op:
        """Return the table row of operation ``key``.

        Raises:
            UsageError: naming the workflow, for a key with no row.
        """
        found = self._rows.get(key)
        if found is None:
            raise UsageError(f"workflow {self.name!r} has no operation {key!r} in its table")
        return found

    # -- state and view --------------------------------------------------------------

    def load_state(self, data: JSONObject) -> S:
        """Return the ``state_type`` instance stored as ``data``.

        Raises:
            ValueError: for data that does not fit the state's field types.
            UsageError: when the subclass declares no ``state_type``.
        """
        if self.state_type is None:
            raise UsageError(f"workflow {self.name!r} declares no state_type")
        loaded: S = load_dataclass(self.state_type, data)
        return loaded

    def dump_state(self, state: S) -> JSONObject:
        """Return ``state`` as JSON; ``load_state(dump_state(s)) == s``."""
        value = to_json_value(state)
        if not isinstance(value, dict):
            raise UsageError(f"workflow {self.name!r}: a state must dump to a JSON object")
        return value

    def phase_of(self, state: S) -> str:
        """Return the phase of an existing record: its ``phase_field`` (docs/invariants.md I3)."""
        return str(getattr(state, self.phase_field))

    def obligations(self, state: S, today: date) -> tuple[Obligation, ...]:
        """Return the record's open obligations (none by default)."""
        return ()

    def project(self, state: S | None, today: date) -> WorkflowView:
        """Return the view: phase from ``phase_of``, outcome only in a terminal phase (I3)."""
        if state is None:
            return WorkflowView(
                workflow=self.name, version=self.version, phase=self.new_phase, exists=False
            )
        phase = self.phase_of(state)
        return WorkflowView(
            workflow=self.name,
            version=self.version,
            phase=phase,
            obligations=self.obligations(state, today),
            outcome=Outcome(code=phase) if phase in self.terminal else None,
        )

    def terminal_phases(self) -> tuple[str, ...]:
        """Return ``terminal``: phases from which a record never moves on."""
        return self.terminal

    def offered(self, view: WorkflowView, actor: Actor) -> tuple[str, ...]:
        """Return what ``offers`` lists for the view's phase and the actor's roles (I2)."""
        return offered_keys(self.offers, view.phase, actor)

    def policy(self, state: S | None, command: Command) -> CommandPolicy:
        """Return the policy the table declares for the command's operation (I17).

        A policy with a ``review_role`` also excludes the users
        :meth:`excluded_reviewers` names for this record (four eyes; the declaration's
        own exclusions are kept, docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md
        rule 9).
        """
        row = self._rows.get(command.operation)
        if row is None:
            return CONSERVATIVE_POLICY
        declared = row.policy
        if not declared.review_role or state is None:
            return declared
        extra = tuple(u for u in self.excluded_reviewers(state, command) if u.strip())
        if not extra:
            return declared
        users = tuple(dict.fromkeys((*declared.excluded_reviewers, *extra)))
        return dataclasses.replace(declared, excluded_reviewers=users)

    def excluded_reviewers(self, state: S, command: Command) -> Sequence[str]:
        """Return the user ids that may not resolve ``command``'s Review card on ``state``.

        Called only for an operation whose policy has a ``review_role``. The default is
        none; return the submitter's id (``(state.submitter,)``) so that a submitter who
        also holds the role never approves their own request. Blank ids are ignored.
        """
        return ()

    # -- compile and check -----------------------------------------------------------

    def build(self, request: CompileRequest[S]) -> Command:
        """Return the command of ``request`` built from its evaluated values.

        Raises:
            Refused: for a missing or invalid value (``TypedCommand.from_values``).
        """
        return self.row(request.operation.key).command.from_values(request.values)

    def check(self, state: S | None, command: Command, today: date) -> None:
        """Raise :class:`Refused` when ``command`` may not apply to ``state`` on ``today``.

        The default is the lifecycle: a creating operation needs an absent record, any
        other an existing one whose phase offers it. Override to add domain rules (call
        ``super().check`` to keep these).
        """
        row = self._rows.get(command.operation)
        creates = row is not None and row.creates_case
        if state is None:
            if not creates:
                raise Refused("not_created")
            return
        if creates:
            raise Refused("already_exists")
        phase = self.phase_of(state)
        on_offer = {e if isinstance(e, str) else e.key for e in self.offers.get(phase, ())}
        if command.operation not in on_offer:
            raise Refused("not_on_offer", phase=phase, state=state)

    def replay(self, request: CompileRequest[S]) -> S | None:
        """Return the state after the turn's earlier commands on this case (ADR 0004).

        Starts from ``request.replayed`` when it fits the request
        (:meth:`~turnframe.core.workflow.Replayed.fits`: the same stored state object, a
        prefix of the same command objects, the same case, actor and today), so only the
        commands after that prefix are applied; else from ``request.state``. Either way
        the answer is the state the earlier commands, applied in order, give.
        """
        state = request.state
        prior: tuple[Command, ...] = request.prior
        carried = request.replayed
        if carried is not None and carried.fits(request):
            state = carried.state
            prior = prior[len(carried.commands) :]
        if not prior:
            return state
        ctx = ExecutionContext(
            case=request.case, actor=request.actor, today=request.today, turn_id=request.turn_id
        )
        for command in prior:
            row = self._rows.get(command.operation)
            if state is not None or (row is not None and row.creates_case):
                state = self.execute(state, command, ctx).state
        return state

    def compile(self, request: CompileRequest[S]) -> Compiled | Refusal:
        """Build, replay, check; a command that changes nothing compiles to none (docs/authoring.md#compile).

        The compiled command carries the state after it
        (:attr:`~turnframe.core.workflow.Compiled.replayed`) for the case's next
        compilation in the turn, and, when the turn planned nothing earlier on the case
        and ``validate`` is the kit's own (``check``), says it was validated. What it
        checked and executed rides along as
        (:attr:`~turnframe.core.workflow.Compiled.executed`), in the request's
        ``turn_id``, for the policy step to reuse.

        Raises:
            UsageError: for an operation the table does not hold.
        """
        try:
            command = self.build(request)
            state = self.replay(request)
            self.check(state, command, request.today)
        except Refused as refused:
            return self.compile_refusal(refused, request)
        # ``validate`` is ``check`` on ``request.state``: already answered when nothing
        # was replayed onto it and this object's validate, replay and compile are the
        # kit's own (:func:`compile_validates`).
        validated = not request.prior and compile_validates(self)
        if state is None:
            return Compiled(commands=(command,), validated=validated)
        ctx = ExecutionContext(
            case=request.case, actor=request.actor, today=request.today, turn_id=request.turn_id
        )
        after = self.execute(state, command, ctx)
        if not after.events:
            return Compiled()
        replayed = Replayed(
            base=request.state,
            commands=(*request.prior, command),
            state=after.state,
            case=request.case,
            actor=request.actor,
            today=request.today,
        )
        executed = Executed(state=state, command=command, context=ctx, execution=after)
        return Compiled(
            commands=(command,), replayed=replayed, validated=validated, executed=(executed,)
        )

    def compile_refusal(self, refused: Refused, request: CompileRequest[S]) -> Refusal:
        """Return the refusal of a compilation: :meth:`refusal` in the request's locale.

        Override to word a refusal by what the request shows (the stored state beside
        the replayed one).
        """
        return self.refusal(refused, request.locale)

    def validate(
        self, state: S | None, command: Command, today: date, locale: str = "en"
    ) -> Refusal | None:
        """Re-run ``check`` (the same rules as compilation); the sentence is in ``locale``."""
        try:
            self.check(state, command, today)
        except Refused as refused:
            return self.refusal(refused, locale)
        return None

    # -- execution -------------------------------------------------------------------

    def execute(self, state: S | None, command: Command, ctx: ExecutionContext) -> Execution[S]:
        """Apply ``command`` purely; subclasses write it with :meth:`emit`/:meth:`unchanged`.

        Raises:
            UsageError: always, here (``registration_problems`` reports a subclass
                that does not write it).
        """
        raise UsageError(f"workflow {self.name!r} does not define execute")

    def emit(
        self, state: S, command: Command, event: str | None = None, **data: object
    ) -> Execution[S]:
        """Return the execution giving ``state`` and one event of ``command``.

        The event type is ``event`` or the command's only declared one; its payload is
        the command's JSON updated with ``data``.

        Raises:
            UsageError: when the type is not one the command declares.
        """
        declared: tuple[str, ...] = tuple(getattr(command, "EVENTS", ()))
        kind = event or (declared[0] if len(declared) == 1 else None)
        if kind is None or kind not in declared:
            raise UsageError(
                f"workflow {self.name!r}: {type(command).__name__} emits {event!r} but "
                f"declares events {declared!r}"
            )
        payload = dict(command.to_json())
        payload.update({k: to_json_value(v) for k, v in data.items()})
        draft = EventDraft(type=kind, data=payload, operation=command.operation)
        return Execution(state=state, events=(draft,))

    def existing(self, state: S | None, command: Command) -> S:
        """Return ``state``, which ``check`` guarantees exists for a non-creating command.

        Raises:
            UsageError: naming the command, when ``state`` is ``None``.
        """
        if state is None:
            raise UsageError(
                f"workflow {self.name!r}: {command.operation} needs an existing record"
            )
        return state

    def unchanged(self, state: S) -> Execution[S]:
        """Return the execution of a command that changes nothing (compiles to no command)."""
        return Execution(state=state, events=())

    # -- words -----------------------------------------------------------------------

    def locale_for(self, locale: str) -> str:
        """Return the declared locale that words ``locale`` (itself, else one of its language).

        A turn in an undeclared locale reads the first declared one.
        """
        if locale in self.locales:
            return locale
        return in_locale({tag: tag for tag in self.locales}, locale) or self.locales[0]

    def noun(self, locale: str) -> str:
        """Return the record's noun in ``locale`` (``nouns``; default: the name)."""
        return in_locale(self.nouns, self.locale_for(locale)) or self.name

    def say(self, locale: str, key: str, **params: object) -> str:
        """Return the sentence ``key`` of ``words`` (else the kit's) in ``locale``, filled.

        ``record`` (the noun) is always available to a template.

        Raises:
            UsageError: when neither table words ``key`` in ``locale``.
        """
        declared = self.locale_for(locale)
        template = (in_locale(self.words, declared) or {}).get(key)
        if template is None:
            template = (in_locale(GENERIC_WORDS, declared) or {}).get(key)
        if template is None:
            raise UsageError(f"workflow {self.name!r} has no words for {key!r} in {locale!r}")
        return template.format_map({"record": self.noun(locale), **params})

    def has_words(self, locale: str, key: str) -> bool:
        """Return whether ``words`` (not the kit) holds ``key`` in ``locale``."""
        return key in (in_locale(self.words, self.locale_for(locale)) or {})

    def argument_label(self, name: str, locale: str) -> str:
        """Return the label of argument ``name`` in ``locale`` (first operation declaring it)."""
        for spec in self.operations():
            found = spec.argument(name)
            if found is not None:
                return found.label_in(locale)
        return name.replace("_", " ")

    def param(self, locale: str, key: str, value: object) -> str:
        """Return a refusal parameter as words: an argument by its label, a state by its label."""
        if key == "argument":
            return self.argument_label(str(value), locale)
        if self.state_type is not None and isinstance(value, self.state_type):
            return self.name_of(value)
        return str(value)

    def refusal(self, refused: Refused, locale: str) -> Refusal:
        """Return the :class:`Refusal` for ``refused``, worded by ``refusal.<code>``."""
        params = {k: self.param(locale, k, v) for k, v in refused.params.items()}
        if "label" not in params and "state" in params:
            params["label"] = params["state"]
        sentence = self.say(locale, f"refusal.{refused.code}", **params)
        return Refusal(code=refused.code, sentence=sentence)

    def receipt_params(self, event: DomainEvent, state: S | None, locale: str) -> dict[str, object]:
        """Return what a receipt template may name: state fields, the payload, ``label``."""
        params: dict[str, object] = {}
        if state is not None:
            params.update(self.dump_state(state))
            params["label"] = self.label_of(state, locale)
        params.update(event.data)
        return params

    def render_receipt(self, event: DomainEvent, state: S | None, locale: str) -> str | None:
        """Return the receipt of ``event`` from ``receipts``; ``None`` for a silent type (I15).

        Raises:
            UsageError: for an event type with no template (registration reports it).
        """
        if event.type in self.silent:
            return None
        params = self.receipt_params(event, state, locale)
        return render_template(
            self.name, self.receipts, event.type, self.locale_for(locale), params
        )

    def name_of(self, state: S) -> str:
        """Return the value of the first of ``label_fields`` (what people call the record)."""
        return str(getattr(state, self.label_fields[0])) if self.label_fields else self.name

    def label_of(self, state: S, locale: str) -> str:
        """Return the values of ``label_fields`` joined by " · " (the first: the name)."""
        values = [getattr(state, f) for f in self.label_fields]
        return " · ".join(str(v) for v in values if v not in (None, "", ()))

    def candidate_label(self, case: CaseRef, state: S | None, locale: str) -> str:
        """Return the label that tells this record from its homonyms (``label_fields``)."""
        if state is None:
            return self.say(locale, "label.absent")
        return self.label_of(state, locale) or case.case_id

    def search_text(self, state: S) -> str:
        """Return the words a user may name the record by (``search_fields``)."""
        fields = self.search_fields if self.search_fields is not None else self.label_fields[:1]
        return " ".join(str(v) for f in fields if (v := getattr(state, f)) not in (None, ""))

    def briefing(self, view: WorkflowView) -> str:
        """Return ``briefings`` for the phase, else a generic server-written line (docs/adr/0020-what-a-brief-shows.md)."""
        given = self.briefings.get(view.phase)
        if given is not None:
            return given
        if not view.exists:
            return f"This {self.name} does not exist yet."
        return f"This {self.name} is {view.phase}."

    def ask_obligation(self, view: WorkflowView, obligation: Obligation, locale: str) -> str:
        """Return ``ask.obligation.<kind>`` of ``words``, else the kit's generic question."""
        key = f"ask.obligation.{obligation.kind}"
        if self.has_words(locale, key):
            return self.say(locale, key, **{k: str(v) for k, v in obligation.params.items()})
        return self.say(locale, "ask.obligation", obligation=obligation.id)

    def ask_argument(self, operation: OperationSpec, argument: ArgumentSpec, locale: str) -> str:
        """Return ``ask.<argument>`` of ``words``, else the kit's question with the label."""
        key = f"ask.{argument.name}"
        if self.has_words(locale, key):
            return self.say(locale, key)
        return self.say(locale, "ask.argument", argument=argument.label_in(locale))

    def select_prompt(
        self, operation: OperationSpec, argument: ArgumentSpec | None, locale: str
    ) -> str:
        """Return ``select`` of ``words`` ("Which ticket did you mean?")."""
        return self.say(locale, "select")

    def no_candidate(
        self, operation: OperationSpec, argument: ArgumentSpec | None, locale: str
    ) -> str:
        """Return ``no_candidate`` of ``words`` with the operation's summary.

        ``no_candidate.argument`` words the case of a record argument, when given.
        """
        key = "no_candidate"
        if argument is not None and self.has_words(locale, "no_candidate.argument"):
            key = "no_candidate.argument"
        return self.say(locale, key, operation=operation.summary_in(locale).rstrip("."))

    def render_command(
        self, state: S | None, command: Command, locale: str, labels: Mapping[CaseRef, str]
    ) -> CommandText:
        """Return ``card.<operation>`` of ``words`` over the command's JSON, else its summary.

        Every argument the text leaves out is added by the framework
        (docs/adr/0013-cards-show-what-they-do.md).
        """
        key = f"card.{command.operation}"
        arguments = command.to_json()
        if self.has_words(locale, key):
            shown = {k: _shown(v, labels) for k, v in arguments.items()}
            if state is not None:
                shown.setdefault("label", self.label_of(state, locale))
            return CommandText(text=self.say(locale, key, **shown))
        row = self._rows.get(command.operation)
        summary = row.spec().summary_in(locale) if row is not None else command.operation
        return CommandText(text=summary.rstrip("."))

    def registration_problems(self, locales: tuple[str, ...] = ()) -> list[str]:
        """Return what does not hold together, each naming workflow, member and fix.

        Called by ``WorkflowRegistry.register`` with the application's locales
        (docs/authoring.md#registration).
        """
        from turnframe.core.authoring.problems import problems_of

        return problems_of(self, locales)


def _shown(value: JSONValue, labels: Mapping[CaseRef, str]) -> str:
    if isinstance(value, str) and "/" in value:
        workflow, _, case_id = value.partition("/")
        return labels.get(CaseRef(workflow, case_id)) or value
    return "" if value is None else str(value)


def is_typed_command(cls: object) -> bool:
    """Return whether ``cls`` is a :class:`TypedCommand` dataclass with an operation key."""
    return (
        isinstance(cls, type)
        and issubclass(cls, TypedCommand)
        and dataclasses.is_dataclass(cls)
        and bool(getattr(cls, "OPERATION", ""))
    )


_KIT_RULES = ("compile", "replay", "validate")


def compile_validates(definition: object) -> bool:
    """Return whether ``definition``'s ``Compiled.validated`` may stand for its ``validate``.

    ``True`` only for a :class:`Workflow` whose ``compile``, ``replay`` and ``validate``
    are the kit's own, on its class and not replaced on the instance: its compilation
    then ran ``check`` on ``request.state`` itself (nothing replayed), the very rules its
    ``validate`` runs. Any other definition (one overriding any of the three, or one that
    hands ``compile`` to a kit workflow while keeping a ``validate`` of its own) has its
    ``validate`` asked by the reducer, whatever the compilation said
    (docs/architecture.md "One turn" step 5; ``runtime/reduce/acts.py``).
    """
    if not isinstance(definition, Workflow):
        return False
    kind = type(definition)
    held = getattr(definition, "__dict__", {})
    return all(
        getattr(kind, name) is getattr(Workflow, name) and name not in held for name in _KIT_RULES
    )
