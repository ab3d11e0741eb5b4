"""Applying a batch of commands with the workflows' pure code, and committing beside it.

:func:`apply_commands` is what the store-backed executor's ``apply`` does; an adopter's
:class:`~turnframe.core.ports.WorkflowExecutor` reuses it. :func:`journal_commit` commits
Turnframe's side of an adopter executor's write (docs/adr/0025-adopter-executors.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from turnframe.core.authoring.base import compile_validates
from turnframe.core.commands import CommandEnvelope
from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import DomainError, InvariantBroken
from turnframe.core.events import EventDraft
from turnframe.core.ids import JSONObject
from turnframe.core.ports import LoadedCase, Transition
from turnframe.core.workflow import Executed, ExecutionContext, OutboxDraft, WorkflowRegistry
from turnframe.runtime.errors import CommandRejected, StateDoesNotLoad
from turnframe.runtime.policy import origin_satisfies
from turnframe.store.base import CommitRequest, CommitResult, TurnStore

__all__ = ["IndexedTransition", "apply_commands", "journal_commit", "search_text_of"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class IndexedTransition(Transition):
    """A :class:`~turnframe.core.ports.Transition` that also carries the case's search text.

    Attributes:
        search_text: the workflow's ``search_text`` of the new state, for
            ``CommitRequest.search_text`` (the store indexes it in the commit's
            transaction, :mod:`turnframe.store.search`).
        typed: ``(state, typed state)``: this transition's ``state`` object and what
            ``load_state`` gave for it when it was loaded back; ``None`` for an absent
            state. Only for that very object (identity), never an equal one.
    """

    search_text: str | None = None
    typed: tuple[JSONObject, Any] | None = field(default=None, compare=False)


def search_text_of(transition: Transition) -> str | None:
    """Return the search text a transition carries (``None`` for a plain ``Transition``)."""
    return transition.search_text if isinstance(transition, IndexedTransition) else None


_UNTYPED: Any = object()
"""``apply_commands``'s default ``typed``: the state is typed from ``loaded.state``."""


def apply_commands(
    registry: WorkflowRegistry,
    loaded: LoadedCase,
    commands: Sequence[CommandEnvelope],
    *,
    today: date,
    turn_id: str,
    locale: str = "en",
    typed: Any = _UNTYPED,
    executed: Mapping[int, Executed] | None = None,
) -> IndexedTransition:
    """Validate and apply ``commands`` in order to ``loaded`` with the workflow's pure code.

    What :meth:`StoredStateExecutor.apply` does, for an adopter executor to reuse: every
    envelope's origin is checked against its policy (I4, I17), each command is validated
    against the state it would apply to (a refusal in ``locale``) and executed. The
    result carries the new state's search text (``search_text_of``). The new state's JSON
    must load back with the workflow's ``load_state`` (one load per batch), so a command
    that writes a value of the wrong type (an ``int`` into a ``str`` field) fails here,
    before anything is committed, instead of leaving a record that cannot be read again.

    Args:
        registry: the workflows.
        loaded: the case, its JSON state and revision.
        commands: the batch, all for ``loaded.case``.
        today: the turn's today (validation reads it).
        turn_id: the committing turn (stamped in the execution context).
        locale: the turn's locale.
        typed: the typed state of ``loaded.state`` when the caller has it already.
        executed: what the reducer's compilations executed
            (:attr:`~turnframe.runtime.plan.Plan.executed`), by ``id`` of the command.
            An entry stands for a command's ``validate`` and ``execute`` only where
            :class:`~turnframe.core.workflow.Executed` says it may: a kit workflow
            (``compile_validates``), the very same command and state objects and an
            equal execution context; anything else is validated and executed here.

    Raises:
        CommandRejected: when a command does not validate against the state.
        StateDoesNotLoad: when the new state does not load back; it names the workflow,
            the first operation whose state does not, and the field (``load_state``'s
            message). The turn fails; the record keeps its revision.
        InvariantBroken: when an envelope's origin does not satisfy its policy, an
            envelope targets another case, or the batch produced no event.
    """
    workflow = registry.workflow(loaded.case.workflow)
    definition = workflow.definition
    state = workflow.typed(loaded.state) if typed is _UNTYPED else typed
    events: list[EventDraft] = []
    outbox: list[OutboxDraft] = []
    made: list[tuple[str, Any]] = []
    if executed and not compile_validates(workflow.raw):
        executed = None  # its validate is not the rules compilation checked
    for envelope in commands:
        if envelope.case != loaded.case:
            raise InvariantBroken(f"envelope for {envelope.case} applied to {loaded.case}")
        if not origin_satisfies(envelope.policy, envelope.origin):
            raise InvariantBroken(
                f"{envelope.operation}: origin {envelope.origin.kind} does not satisfy its policy"
            )
        command = envelope.command
        ctx = ExecutionContext(case=loaded.case, actor=envelope.actor, today=today, turn_id=turn_id)
        known = executed.get(id(command)) if executed else None
        if (
            known is not None
            and known.command is command
            and known.state is state
            and known.context == ctx
        ):
            execution = known.execution  # checked and executed by compilation (Executed)
        else:
            refusal = definition.validate(state, command, today, locale)
            if refusal is not None:
                raise CommandRejected(refusal.code, refusal.sentence)
            execution = definition.execute(state, command, ctx)
        state = execution.state
        made.append((envelope.operation, state))
        events.extend(execution.events)
        outbox.extend(execution.outbox)
    if not events:
        raise InvariantBroken(f"{loaded.case}: commands produced no event")
    dumped = definition.dump_state(state)
    typed_back = None
    if dumped is not None:
        typed_back = (dumped, _check_loads_back(workflow.name, definition, dumped, made))
    return IndexedTransition(
        state=dumped,
        events=tuple(events),
        outbox=tuple(outbox),
        search_text=None if state is None else definition.search_text(state),
        typed=typed_back,
    )


def _check_loads_back(
    name: str, definition: Any, dumped: Any, made: Sequence[tuple[str, Any]]
) -> Any:
    """Return ``load_state(dumped)``; raise :class:`StateDoesNotLoad` when it does not load.

    On a refusal, the states ``made`` (operation, state after it) are tried in order to
    name the first operation whose state does not load; its ``load_state`` message names
    the field.
    """
    try:
        return definition.load_state(dumped)
    except DomainError as exc:
        refusal: BaseException = exc.__cause__ or exc
    for operation, state in made:
        if state is None:
            continue
        try:
            definition.load_state(definition.dump_state(state))
        except DomainError as exc:
            raise StateDoesNotLoad(name, operation, exc.__cause__ or exc) from exc
    raise StateDoesNotLoad(name, made[-1][0], refusal)


async def journal_commit(store: TurnStore, request: CommitRequest) -> CommitResult:
    """Commit the Turnframe side of an adopter executor's commit: events, journal, card, outbox.

    For an executor whose records live in its own tables
    (docs/adr/0025-adopter-executors.md, docs/recipes/no-revision-column.md): call it
    *after* your own compare-and-set of the record at ``request.expected_revision``
    succeeded, in the same transaction (``PostgresStore.joined(conn)`` as ``store``).
    A request whose idempotency key is journaled already replays (``replayed=True``,
    nothing written: do not write your row either, check this first with
    ``store.lookup_command``). The store's own copy of the case (``tf_case``, which the
    store-backed directory lists and finds) is written at *its* revision, so a record
    changed outside Turnframe never makes this side conflict: your compare-and-set is
    the check of I12.

    Returns:
        The store's result; its ``revision`` is the store copy's: replace it with your
        row's new revision before returning it from ``commit``.

    Raises:
        InteractionAlreadyResolved: the card the request resolves was closed first
            (roll your write back).
        IdempotencyKeyReused: the key was journaled with another request.
        StoreError: the store could not write.
    """
    if await store.lookup_command(request.account, request.idempotency_key) is not None:
        return await store.commit(request)
    mirror = await store.load_case(request.case)
    return await store.commit(replace(request, expected_revision=mirror.revision if mirror else 0))
