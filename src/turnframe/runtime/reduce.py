"""The whole-turn reducer: a pure function from a turn to an execution plan (guide §6, I10).

Nothing here performs I/O (import-linter contract ``reducer-is-pure``). Precedence:

1. A cancellation supersedes the act it cancels; a correction supersedes the act it
   corrects only when understanding linked them — never guessed from a repeated operation.
   A link may name a pending act of an earlier turn (``<card id>:<act id>`` on a card on
   screen, or a carried waiting act's id): it is superseded and its card withdrawn; a
   link to an act no longer pending gets ``no_change`` with a code (ADR 0012).
2. "Do not submit" blocks every submission of the turn; a standing one (D1) blocks until
   lifted in words or by clicking the confirmation card of a matching command.
3. A hypothetical act never becomes an action; an ungrounded one is rejected (D4).
4. An ambiguous target blocks only the acts that depend on it (ADR rule 5).
5. Text acts are reduced before a click on the same case (D2): if they commit, the card is
   stale and a fresh one is issued.
6. A structured click binds more strongly than an inferred card answer; inferred text may
   decline a card but never confirm a high-risk one (D5) nor answer a card of another kind.
7. Every act, question and card answer gets exactly one result (I11); commands are grouped
   by case and atomicity scope (I14); several confirmations on one case share a card (D3).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date

from turnframe.core.acts import ConstraintKind, ConstraintScope, EvidenceSource, SemanticAct
from turnframe.core.canonical import digest
from turnframe.core.commands import (
    AtomicityScope,
    Command,
    CommandEnvelope,
    CommandPolicy,
    ConfirmedInteraction,
    DirectUserAct,
    Origin,
)
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import (
    Interaction,
    InteractionKind,
    InteractionOption,
    InteractionSpec,
    InteractionStatus,
    OptionMeaning,
    PendingAct,
    ProposedCommand,
)
from turnframe.core.operations import ArgumentKind, OperationSpec
from turnframe.core.results import PlannedActResult, ResultStatus
from turnframe.core.targets import Ambiguous, Exact, NotFound, Unauthorized
from turnframe.core.workflow import (
    ArgValue,
    CompileRequest,
    ErasedWorkflow,
    PartCandidate,
    Refusal,
    WorkflowRegistry,
)
from turnframe.runtime.copy import say, understanding_notice
from turnframe.runtime.plan import (
    ActInput,
    CardClose,
    ClickInput,
    Plan,
    PlannedBatch,
    PlannedCard,
    ReductionInput,
    WaitingAct,
)
from turnframe.runtime.policy import origin_satisfies
from turnframe.runtime.values import (
    AmbiguousValue,
    InvalidValue,
    evaluate_argument,
    readings_text,
)

__all__ = ["card_prompt", "reduce_turn"]

_WAITING_KEPT = 3
"""How many acts waiting for a record a conversation carries (D6)."""


def _name_key(words: str) -> str:
    """Return the words a record is named by, compared literally (case and edges aside)."""
    return " ".join(w.strip(".,;:!?\"'()").casefold() for w in words.split())


def _full_label(result: PlannedActResult) -> str:
    """Return ``status:code`` (or ``status``): how a card's resolution keeps a result."""
    return f"{result.status.value}:{result.code}" if result.code else result.status.value


def reduce_turn(inp: ReductionInput, registry: WorkflowRegistry) -> Plan:
    """Reduce a whole turn into a plan; performs no I/O and executes nothing (I10).

    Args:
        inp: the turn's proposal, resolutions, snapshots, click and cards on screen.
        registry: the workflows (their pure compile, policy and label functions).

    Returns:
        A :class:`Plan` in which every act, question and card answer has exactly one
        result (I11) and only Exact targets were compiled (I8).
    """
    return _Reducer(inp, registry).run()


def card_prompt(
    registry: WorkflowRegistry,
    kind: InteractionKind,
    label: str,
    operations: tuple[str, ...],
    locale: str,
    commands: tuple[ProposedCommand, ...] = (),
) -> str:
    """Return the prompt of a Confirm or Review card on the record labelled ``label``.

    The runtime calls it again once the turn's commits are in, so a card always shows the
    record as it is when the card is bound (D2: never content the user did not see).
    ``commands`` are the card's proposed commands as the domain rendered them: the prompt
    shows each one with its arguments (docs/adr/0013-cards-show-what-they-do.md); the
    operations' summaries stand in only for a card that has none.
    """
    key = "review.prompt" if kind is InteractionKind.REVIEW else "confirm.prompt"
    text = _commands_text(commands) if commands else _operations_text(registry, operations, locale)
    return say(key, locale, label=label, operations=text)


def _commands_text(commands: tuple[ProposedCommand, ...]) -> str:
    return "; ".join(c.text.rstrip(".") for c in commands)


def _operations_text(registry: WorkflowRegistry, operations: tuple[str, ...], locale: str) -> str:
    parts = []
    for key in operations:
        spec = registry.operation(key)
        parts.append((spec.summary_in(locale) if spec else key).rstrip("."))
    return "; ".join(parts)


@dataclass(slots=True)
class _Ready:
    act_id: str
    case: CaseRef
    new_case: bool
    commands: tuple[Command, ...]
    policies: tuple[CommandPolicy, ...]
    origin: Origin
    card: tuple[str, str] | None = None


@dataclass(slots=True)
class _Awaiting:
    pending: PendingAct
    operations: tuple[str, ...]
    review_role: str | None
    commands: tuple[ProposedCommand, ...] = ()


@dataclass(slots=True)
class _State:
    results: dict[str, PlannedActResult] = field(default_factory=dict)
    ready: list[_Ready] = field(default_factory=list)
    awaiting: dict[CaseRef, list[_Awaiting]] = field(default_factory=dict)
    prior: dict[CaseRef, list[Command]] = field(default_factory=lambda: defaultdict(list))
    cards: list[PlannedCard] = field(default_factory=list)
    closes: list[CardClose] = field(default_factory=list)
    notices: list[tuple[str, str, str | None]] = field(default_factory=list)
    ambiguous: int = 0
    lift_for_click: bool = False
    waiting: list[WaitingAct] = field(default_factory=list)
    earlier: dict[str, str] = field(default_factory=dict)
    superseded: set[str] = field(default_factory=set)
    dropped_waiting: set[str] = field(default_factory=set)
    withdrawn: set[str] = field(default_factory=set)
    remaining: list[tuple[Interaction, tuple[PendingAct, ...]]] = field(default_factory=list)


class _Reducer:
    def __init__(self, inp: ReductionInput, registry: WorkflowRegistry) -> None:
        self.inp = inp
        self.registry = registry
        self.s = _State()
        kinds = {(c.kind, c.scope) for c in inp.understanding.constraints}
        self.allow = any(k is ConstraintKind.ALLOW_SUBMIT for k, _ in kinds)
        self.turn_dns = any(k is ConstraintKind.DO_NOT_SUBMIT for k, _ in kinds)
        new_standing = any(
            k is ConstraintKind.DO_NOT_SUBMIT and sc is ConstraintScope.STANDING for k, sc in kinds
        )
        self.standing: bool | None = None
        if new_standing:
            self.standing = True
        elif self.allow and inp.standing_do_not_submit:
            self.standing = False
        self.standing_active = (inp.standing_do_not_submit and not self.allow) or new_standing

    # results ------------------------------------------------------------------------
    def _result(self, item_id: str, status: ResultStatus, **kw: object) -> None:
        if item_id in self.s.results:
            return
        self.s.results[item_id] = PlannedActResult(item_id=item_id, status=status, **kw)  # type: ignore[arg-type]

    def _say(self, key: str, **params: str) -> str:
        return say(key, self.inp.locale, **params)

    # main ---------------------------------------------------------------------------
    def run(self) -> Plan:
        u = self.inp.understanding
        superseded = self._links()
        self._supersede_earlier()
        acts, registers = self._registrations()
        for item in acts:
            act = item.act
            if act.id in superseded:
                code = superseded[act.id]
                self._result(act.id, ResultStatus.SUPERSEDED, code=code, operation=act.operation)
                continue
            self._reduce_act(item, origin=None, card=None)
        self._reissue_remaining()
        carried = self._complete_waiting(registers)
        if self.inp.click is not None:
            self._click(self.inp.click)
        for answer in u.card_answers:
            self._card_answer(answer.id, answer.interaction, answer.option)
        for question in u.questions:
            self._result(question.id, ResultStatus.ANSWERED)
        if self.standing is True:
            self.s.notices.append(
                ("standing_do_not_submit", self._say("standing_do_not_submit"), None)
            )
        elif self.standing is False:
            self.s.notices.append(("allow_submit", self._say("allow_submit"), None))
        for code in u.notices:
            self.s.notices.append((code, understanding_notice(code, self.inp.locale), None))
        self._plan_confirm_cards()
        waiting = self._carry(carried)
        return Plan(
            results=tuple(self.s.results.values()),
            batches=self._batches(),
            cards=tuple(self.s.cards),
            closes=tuple(self.s.closes),
            standing_do_not_submit=self.standing,
            notices=tuple(self.s.notices),
            ambiguous=self.s.ambiguous,
            replayed_click=self._replayed,
            replayed_status=self._replayed_status,
            waiting=waiting,
        )

    # acts waiting for a record (D6) ---------------------------------------------------
    def _registrations(self) -> tuple[list[ActInput], dict[str, WaitingAct]]:
        """Pair this turn's record registrations with the carried acts they complete.

        A registration completes the newest carried act waiting for a record of its
        workflow under the name it gives; one that gives no name completes the newest act
        waiting for a record of its workflow, and the new record takes that name. A
        record registered under another name completes nothing.

        Returns:
            The turn's acts (a nameless registration now carrying the awaited name) and
            registering act id → the carried act it completes.
        """
        acts: list[ActInput] = []
        pairs: dict[str, WaitingAct] = {}
        taken: set[str] = set()
        for item in self.inp.acts:
            spec = self.registry.operation(item.act.operation or "")
            resolution = item.resolution
            if spec is None or not isinstance(resolution, Exact) or not resolution.new:
                acts.append(item)
                continue
            naming = next((a.name for a in spec.arguments if a.names_record), None)
            given = item.act.args.get(naming) if naming else None
            for waiting in reversed(self.inp.waiting):
                if waiting.item_id in self.s.dropped_waiting:
                    continue
                if waiting.item_id in taken or waiting.workflow != spec.workflow:
                    continue
                if given and _name_key(str(given)) != _name_key(waiting.name):
                    continue
                taken.add(waiting.item_id)
                pairs[item.act.id] = waiting
                if naming and not given:
                    act = item.act
                    item = replace(
                        item,
                        act=replace(
                            act,
                            args={**act.args, naming: waiting.name},
                            evidence={**act.evidence, naming: waiting.name},
                        ),
                    )
                break
            acts.append(item)
        return acts, pairs

    def _complete_waiting(self, registers: Mapping[str, WaitingAct]) -> list[WaitingAct]:
        """Complete the carried acts whose record this turn registers; return the rest."""
        done: set[str] = set()
        for act_id, waiting in registers.items():
            ready = next((r for r in self.s.ready if r.act_id == act_id and r.new_case), None)
            if ready is None:
                continue
            done.add(waiting.item_id)
            pending = waiting.pending
            resolution = Exact(case=pending.case) if pending.case is not None else None
            self._reduce_act(
                ActInput(
                    act=replace(pending.act, id=waiting.item_id),
                    resolution=resolution,
                    record_args={**pending.record_args, waiting.argument: ready.case},
                ),
                origin=None,
                card=None,
            )
        return [
            w
            for w in self.inp.waiting
            if w.item_id not in done and w.item_id not in self.s.dropped_waiting
        ]

    def _carry(self, carried: list[WaitingAct]) -> tuple[WaitingAct, ...]:
        """Return the newest three waiting acts; each one pushed out gets ``expired`` (I11)."""
        every = [*carried, *self.s.waiting]
        dropped, kept = every[:-_WAITING_KEPT], every[-_WAITING_KEPT:]
        for waiting in dropped:
            spec = self.registry.operation(waiting.pending.act.operation or "")
            summary = spec.summary_in(self.inp.locale).rstrip(".") if spec else ""
            self._result(
                waiting.item_id,
                ResultStatus.EXPIRED,
                code="expired",
                sentence=self._say("expired", operation=summary),
                operation=waiting.pending.act.operation,
                case=waiting.pending.case,
            )
        return tuple(kept)

    _replayed: Mapping[str, str] | None = None
    _replayed_status: str | None = None

    def _links(self) -> dict[str, str]:
        """Return this turn's act id → ``cancelled``/``corrected`` for the acts it supersedes.

        A link end that is not an act of this turn names an act of an earlier turn; it
        is kept in ``self.s.earlier`` for :meth:`_supersede_earlier` (ADR 0012).
        """
        ids = {a.act.id for a in self.inp.acts}
        out: dict[str, str] = {}
        for link in self.inp.understanding.links:
            if link.act not in ids:
                continue
            if link.cancels and link.cancels != link.act:
                if link.cancels in ids:
                    out[link.cancels] = "cancelled"
                else:
                    self.s.earlier[link.cancels] = "cancelled"
            if link.corrects and link.corrects != link.act:
                if link.corrects in ids:
                    out.setdefault(link.corrects, "corrected")
                else:
                    self.s.earlier.setdefault(link.corrects, "corrected")
        self.s.superseded.update(out)
        return out

    # links to acts of earlier turns (ADR 0012) -------------------------------------------
    def _supersede_earlier(self) -> None:
        """Supersede the earlier turns' pending acts this turn's links name.

        A pending act on a card on screen is superseded and its card withdrawn (closed
        in the same store transaction as the turn's first commit; the card's other acts
        go on a fresh card). A carried waiting act (D6) is superseded and no longer
        carried. A link to anything else gets ``no_change`` with ``already_committed``
        (the card that held it committed it) or ``no_longer_pending`` and its sentence:
        never silently ignored (I11).
        """
        if not self.s.earlier:
            return
        on_cards: dict[str, tuple[Interaction, PendingAct]] = {}
        for card in self.inp.cards_on_screen:
            for p in card.spec.pending:
                on_cards[f"{card.id}:{p.act.id}"] = (card, p)
        waiting = {w.item_id: w for w in self.inp.waiting}
        taken = {*self.inp.understanding.item_ids(), "click"}
        withdrawn: dict[str, list[str]] = {}
        for ref, code in self.s.earlier.items():
            pending: PendingAct | None = None
            if ref in on_cards:
                card, pending = on_cards[ref]
                withdrawn.setdefault(card.id, []).append(ref)
            elif ref in waiting:
                pending = waiting[ref].pending
                self.s.dropped_waiting.add(ref)
            if pending is not None:
                self.s.superseded.add(ref)
                self._result(
                    ref,
                    ResultStatus.SUPERSEDED,
                    code=code,
                    operation=pending.act.operation,
                    case=pending.case,
                )
                continue
            gone = self._gone(ref)
            self._result(
                ref if ref not in taken else f"link:{ref}",
                ResultStatus.NO_CHANGE,
                code=gone,
                sentence=self._say(f"link.{gone}"),
            )
        for card in self.inp.cards_on_screen:
            refs = withdrawn.get(card.id)
            if not refs:
                continue
            self.s.withdrawn.add(card.id)
            self.s.closes.append(
                CardClose(
                    interaction_id=card.id,
                    status=InteractionStatus.WITHDRAWN,
                    option_id="",
                    results={
                        r: f"{ResultStatus.SUPERSEDED.value}:{self.s.earlier[r]}" for r in refs
                    },
                )
            )
            left = tuple(p for p in card.spec.pending if f"{card.id}:{p.act.id}" not in refs)
            self.s.remaining.append((card, left))
        if withdrawn:
            self.s.notices.append(("card_withdrawn", self._say("card_withdrawn"), None))

    def _gone(self, ref: str) -> str:
        """Return why a linked earlier act is not pending: its card committed it, or not."""
        card_id, _, act_id = ref.partition(":")
        card = next((c for c in self.inp.linked_cards if c.id == card_id), None)
        if (
            card is not None
            and card.status is InteractionStatus.RESOLVED
            and card.resolution is not None
            and ResultStatus.COMMITTED.value
            in (card.resolution.results.get(act_id), card.resolution.results.get(ref))
        ):
            return "already_committed"
        return "no_longer_pending"

    def _reissue_remaining(self) -> None:
        """Put a withdrawn card's acts that were not superseded on a fresh card (I11, I16).

        They report under ``<card id>:<act id>``; nothing is compiled or committed for
        them in this turn (the user did not ask for them again). A Confirm card's acts
        join this turn's Confirm card on the same record (D3).
        """
        for card, left in self.s.remaining:
            if not left:
                continue
            spec = card.spec
            renamed = tuple(
                replace(p, act=replace(p.act, id=f"{card.id}:{p.act.id}")) for p in left
            )
            if spec.kind is InteractionKind.CONFIRM and spec.case in self.inp.snapshots:
                assert spec.case is not None
                for p in renamed:
                    self.s.awaiting.setdefault(spec.case, []).append(
                        _Awaiting(pending=p, operations=(p.act.operation or "",), review_role=None)
                    )
                    self._result(
                        p.act.id,
                        ResultStatus.AWAITING_CONFIRMATION,
                        code="reissued",
                        operation=p.act.operation,
                        case=p.case,
                    )
                continue
            fresh = replace(
                spec, pending=renamed, operations=tuple(p.act.operation or "" for p in renamed)
            )
            self.s.cards.append(PlannedCard(spec=fresh, item_ids=tuple(p.act.id for p in renamed)))
            for p in renamed:
                if spec.kind is InteractionKind.SELECT_TARGET:
                    status = ResultStatus.NEEDS_CLARIFICATION
                    code = (
                        "ambiguous_target"
                        if p.argument is None
                        else f"ambiguous_record:{p.argument}"
                    )
                else:
                    status, code = ResultStatus.AWAITING_CONFIRMATION, "reissued"
                self._result(p.act.id, status, code=code, operation=p.act.operation, case=p.case)

    # one act -----------------------------------------------------------------------
    def _reduce_act(
        self,
        item: ActInput,
        *,
        origin: Origin | None,
        card: tuple[str, str] | None,
        reissue: bool = False,
    ) -> None:
        """Reduce one act: resolve, evaluate, compile (domain check), policy; one result.

        ``reissue``: the act comes from a stale card and is compiled again against the
        record as it is now; whatever passes goes on a fresh Confirm card (never runs
        from the stale click), whatever the domain now refuses gets its refusal
        (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).
        """
        act = item.act
        if act.operation is None:
            targets = [
                link.cancels
                for link in self.inp.understanding.links
                if link.act == act.id and link.cancels
            ]
            if targets and not any(t in self.s.superseded for t in targets):
                # Everything it names had already gone (ADR 0012): the linked items' own
                # results say why; "that change was not made" would not be true.
                self._result(act.id, ResultStatus.NO_CHANGE, code="nothing_cancelled")
                return
            code = "cancellation" if targets else "nothing_to_do"
            sentence = self._say("cancelled" if targets else "nothing_to_do")
            self._result(act.id, ResultStatus.NO_CHANGE, code=code, sentence=sentence)
            return
        if act.hypothetical:
            self._result(
                act.id,
                ResultStatus.NO_CHANGE,
                code="hypothetical",
                sentence=self._say("hypothetical"),
                operation=act.operation,
            )
            return
        if act.evidence_source is not EvidenceSource.USER:
            self._reject(act, "ungrounded", self._say("ungrounded"))
            return
        spec = self.registry.operation(act.operation)
        if spec is None:
            self._reject(act, "unknown_operation", self._say("unknown_operation"))
            return
        resolution = item.resolution
        match resolution:
            case Ambiguous(candidates=candidates):
                self.s.ambiguous += 1
                options = tuple(
                    InteractionOption(
                        id=f"o{n}", label=c.label, meaning=OptionMeaning.SELECT, case=c.case
                    )
                    for n, c in enumerate(candidates, start=1)
                )
                waiting = PendingAct(act=act, record_args=dict(item.record_args))
                self._plan_selection(options, waiting)
                self._result(
                    act.id,
                    ResultStatus.NEEDS_CLARIFICATION,
                    code="ambiguous_target",
                    operation=act.operation,
                )
                return
            case NotFound(reason="no_fit", sentence=sentence):
                # The words name records, none of which offers the operation now.
                self._result(
                    act.id,
                    ResultStatus.NEEDS_CLARIFICATION,
                    code="target_not_found",
                    sentence=sentence or self._say("no_fitting_record"),
                    operation=act.operation,
                )
                return
            case NotFound() | Unauthorized() | None:
                self._result(
                    act.id,
                    ResultStatus.NEEDS_CLARIFICATION,
                    code="target_not_found",
                    sentence=self._say("target_not_found"),
                    operation=act.operation,
                )
                return
            case Exact(case=case, new=new):
                pass
        if case.workflow != spec.workflow or (new and not spec.creates_case):
            self._reject(act, "wrong_record", self._say("wrong_record"), case=case)
            return
        snap = self.inp.snapshots.get(case)
        if snap is None:
            self._result(
                act.id,
                ResultStatus.NEEDS_CLARIFICATION,
                code="target_not_found",
                sentence=self._say("target_not_found"),
                operation=act.operation,
            )
            return
        workflow = self.registry.workflow(spec.workflow)
        offered = (
            spec.creates_case and snap.state is None
        ) or spec.key in workflow.definition.offered(snap.view, self.inp.actor)
        if not offered:
            self._reject(act, "not_offered", self._say("not_offered", label=snap.label), case=case)
            return
        if not new and snap.state is not None and workflow.terminal(snap.view):
            # A terminal record is never a mutation's target, even where its workflow
            # still lists the operation (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).
            self._reject(
                act, "record_closed", self._say("record_closed", label=snap.label), case=case
            )
            return
        if spec.submission and (self.turn_dns or self.standing_active) and not reissue:
            # A re-issued card is drawn, not clicked: its own click may lift the
            # constraint for one command (D1), so "do not submit" is checked then.
            lifted = self.s.lift_for_click and origin is not None
            if not lifted:
                self._reject(act, "do_not_submit", self._say("do_not_submit"), case=case)
                return
        values: dict[str, ArgValue] = {}
        for arg in spec.arguments:
            words = act.args.get(arg.name)
            if arg.name in item.choices:
                # Several records fit the words: a selection card asks which (never the
                # newest, first or most plausible one, I8).
                self.s.ambiguous += 1
                options = tuple(
                    InteractionOption(
                        id=f"o{n}", label=c.label, meaning=OptionMeaning.SELECT, case=c.case
                    )
                    for n, c in enumerate(item.choices[arg.name], start=1)
                )
                waiting = PendingAct(
                    act=act, case=case, record_args=dict(item.record_args), argument=arg.name
                )
                self._plan_selection(options, waiting)
                self._result(
                    act.id,
                    ResultStatus.NEEDS_CLARIFICATION,
                    code=f"ambiguous_record:{arg.name}",
                    operation=act.operation,
                    case=case,
                )
                return
            if arg.name in item.awaits and arg.record_workflow:
                # D6: the record the user named is not registered yet; the act waits for it.
                self.s.waiting.append(
                    WaitingAct(
                        item_id=f"{self.inp.turn_id}:{act.id}",
                        pending=PendingAct(act=act, case=case, record_args=dict(item.record_args)),
                        argument=arg.name,
                        workflow=arg.record_workflow,
                        name=item.awaits[arg.name],
                    )
                )
                self._result(
                    act.id,
                    ResultStatus.NEEDS_CLARIFICATION,
                    code=f"record_not_found:{arg.name}",
                    sentence=self._say("record_not_found"),
                    operation=act.operation,
                    case=case,
                )
                return
            if item.bad_args.get(arg.name) == "closed":
                # Every record the words name is closed (terminal): none may fill it.
                self._reject(
                    act,
                    f"record_closed:{arg.name}",
                    self._say("no_fitting_record"),
                    case=case,
                )
                return
            if arg.name in item.bad_args:
                self._clarify_arg(act, case, arg.name, "invalid")
                return
            named = item.record_args.get(arg.name)
            if arg.kind is ArgumentKind.RECORD and named is not None:
                closed = self._closed(named)
                if closed is not None:
                    # A terminal record (a Deleted traveler) is never the argument of a
                    # mutation, whether found now or chosen on a card drawn before.
                    self._reject(
                        act,
                        f"record_closed:{arg.name}",
                        self._say("record_closed", label=closed),
                        case=case,
                    )
                    return
            if arg.kind is ArgumentKind.PART and (
                arg.name in item.part_args or (isinstance(words, str) and words.strip())
            ):
                part = self._part(item, act, case, snap.state, spec, arg.name, str(words))
                if part is None:
                    return
                values[arg.name] = part
                continue
            if words is None or (isinstance(words, str) and not words.strip()):
                if arg.required:
                    self._clarify_arg(act, case, arg.name, "missing")
                    return
                continue
            try:
                values[arg.name] = evaluate_argument(
                    arg, words, self.inp.today, item.record_args.get(arg.name), self.inp.locale
                )
            except AmbiguousValue as exc:
                # Two plausible orders read the date differently: asked, never guessed (I8).
                self._clarify_arg(act, case, arg.name, "ambiguous", exc.readings)
                return
            except InvalidValue:
                self._clarify_arg(act, case, arg.name, "invalid")
                return
        compiled = workflow.definition.compile(
            CompileRequest(
                act=act,
                operation=spec,
                case=case,
                state=snap.state,
                view=snap.view,
                values=values,
                prior=tuple(self.s.prior[case]),
                actor=self.inp.actor,
                today=self.inp.today,
                locale=self.inp.locale,
            )
        )
        if isinstance(compiled, Refusal):
            self._reject(act, compiled.code, compiled.sentence, case=case)
            return
        if not compiled.commands:
            self._result(
                act.id,
                ResultStatus.NO_CHANGE,
                code="already_so",
                sentence=self._say("already_so"),
                operation=act.operation,
                case=case,
            )
            return
        for command in compiled.commands:
            refusal = workflow.definition.validate(
                snap.state, command, self.inp.today, self.inp.locale
            )
            if refusal is not None and not self.s.prior[case]:
                self._reject(act, refusal.code, refusal.sentence, case=case)
                return
        policies = tuple(workflow.policy(snap.state, c) for c in compiled.commands)
        chosen = origin or DirectUserAct(turn_id=self.inp.turn_id)
        if not reissue and all(origin_satisfies(p, chosen) for p in policies):
            self.s.prior[case].extend(compiled.commands)
            self.s.ready.append(
                _Ready(
                    act_id=act.id,
                    case=case,
                    new_case=new,
                    commands=compiled.commands,
                    policies=policies,
                    origin=chosen,
                    card=card,
                )
            )
            self._result(act.id, ResultStatus.READY, operation=act.operation, case=case)
            return
        # D3: later acts on this case are checked against these commands too.
        self.s.prior[case].extend(compiled.commands)
        review = next((p.review_role for p in policies if p.review_role), None)
        parts = {
            a.name: str(values[a.name])
            for a in spec.arguments
            if a.kind is ArgumentKind.PART and a.name in values
        }
        pending = PendingAct(
            act=act,
            case=case,
            record_args=dict(item.record_args),
            new_case=new,
            part_args=parts,
        )
        confirmed_first = isinstance(origin, ConfirmedInteraction) and (
            origin.interaction_kind == InteractionKind.CONFIRM.value
        )
        proposed = self._propose(workflow, snap.state, compiled.commands)
        if review and confirmed_first:
            assert isinstance(origin, ConfirmedInteraction)
            self._review_card(pending, compiled.commands, review, origin, snap.label, proposed)
            self._result(
                act.id,
                ResultStatus.AWAITING_CONFIRMATION,
                code="awaiting_review",
                operation=act.operation,
                case=case,
            )
            return
        self.s.awaiting.setdefault(case, []).append(
            _Awaiting(
                pending=pending,
                operations=tuple(c.operation for c in compiled.commands),
                review_role=review,
                commands=proposed,
            )
        )
        self._result(
            act.id,
            ResultStatus.AWAITING_CONFIRMATION,
            code="reissued" if reissue else None,
            operation=act.operation,
            case=case,
        )

    def _closed(self, case: CaseRef) -> str | None:
        """Return the label of ``case`` when its record is terminal, else ``None``."""
        snap = self.inp.snapshots.get(case)
        if snap is None or snap.state is None:
            return None
        if self.registry.workflow(case.workflow).terminal(snap.view):
            return snap.label
        return None

    def _part(
        self,
        item: ActInput,
        act: SemanticAct,
        case: CaseRef,
        state: object,
        spec: OperationSpec,
        name: str,
        words: str,
    ) -> str | None:
        """Resolve a ``PART`` argument from the user's words, the way records are (no guess).

        A part chosen on a card (``item.part_args``) is taken as is: the domain's compile
        checks it still exists. Otherwise the target's workflow finds the parts the
        words name: one is used; several go on a Choice card; none is refused with the
        domain's sentence. Returns the part id, or ``None`` once the act has its result.
        """
        if name in item.part_args:
            return item.part_args[name]
        argument = spec.argument(name)
        assert argument is not None
        erased = self.registry.workflow(spec.workflow)
        found = erased.find_parts(state, spec, argument, words, self.inp.locale)
        if isinstance(found, Refusal) or not found:
            refusal = found if isinstance(found, Refusal) else None
            self._reject(
                act,
                refusal.code if refusal else f"part_not_found:{name}",
                refusal.sentence if refusal else self._say("part_not_found"),
                case=case,
            )
            return None
        if len(found) == 1:
            return found[0].id
        self.s.ambiguous += 1
        waiting = PendingAct(
            act=act,
            case=case,
            record_args=dict(item.record_args),
            argument=name,
            part_args=dict(item.part_args),
        )
        self._plan_choice(found, waiting)
        self._result(
            act.id,
            ResultStatus.NEEDS_CLARIFICATION,
            code=f"ambiguous_part:{name}",
            operation=act.operation,
            case=case,
        )
        return None

    def _reject(
        self, act: SemanticAct, code: str, sentence: str, *, case: CaseRef | None = None
    ) -> None:
        self._result(
            act.id,
            ResultStatus.REJECTED,
            code=code,
            sentence=sentence,
            operation=act.operation,
            case=case,
        )

    def _clarify_arg(
        self,
        act: SemanticAct,
        case: CaseRef,
        name: str,
        why: str,
        readings: tuple[date, ...] = (),
    ) -> None:
        spec = self.registry.operation(act.operation or "")
        assert spec is not None
        argument = spec.argument(name)
        assert argument is not None
        workflow = self.registry.workflow(spec.workflow).definition
        question = workflow.ask_argument(spec, argument, self.inp.locale)
        if why == "ambiguous":
            locale = self.inp.locale
            label = argument.label_in(locale)
            sentence = self._say(
                "ambiguous_date",
                argument=label or name,
                options=readings_text(readings, self.inp.today, locale),
            )
        elif why == "missing":
            sentence = question
        else:
            sentence = f"{self._say('invalid_value', argument=argument.label_in(self.inp.locale) or name)} {question}"
        self._result(
            act.id,
            ResultStatus.NEEDS_CLARIFICATION,
            code=f"{why}:{name}",
            sentence=sentence,
            operation=act.operation,
            case=case,
            asks=name,
        )

    # cards ----------------------------------------------------------------------------
    def _ops_text(self, operations: tuple[str, ...]) -> str:
        return _operations_text(self.registry, operations, self.inp.locale)

    def _propose(
        self, workflow: ErasedWorkflow, state: object, commands: tuple[Command, ...]
    ) -> tuple[ProposedCommand, ...]:
        """Return ``commands`` as a card shows them, arguments rendered by the domain (D2)."""
        labels = {case: snap.label for case, snap in self.inp.snapshots.items()}
        return tuple(workflow.propose(state, c, self.inp.locale, labels) for c in commands)

    def _select_prompt(
        self, operation: str | None, candidates: tuple[CaseRef | None, ...], argument: str | None
    ) -> str:
        """Return the selection question worded by the candidates' domain, else the runtime's."""
        spec = self.registry.operation(operation or "")
        workflows = {c.workflow for c in candidates if c is not None}
        if spec is not None and len(workflows) == 1:
            erased = self.registry.workflow(workflows.pop())
            arg = spec.argument(argument) if argument else None
            words = erased.select_prompt(spec, arg, self.inp.locale)
            if words:
                return words
        return self._say("select.prompt")

    def _plan_selection(self, options: tuple[InteractionOption, ...], waiting: PendingAct) -> None:
        """Plan a select_target card; acts waiting on the same candidates share one card."""
        cases = tuple(o.case for o in options)
        for n, planned in enumerate(self.s.cards):
            spec = planned.spec
            if spec.kind is InteractionKind.SELECT_TARGET and (
                tuple(o.case for o in spec.options) == cases
            ):
                spec = replace(
                    spec,
                    pending=(*spec.pending, waiting),
                    operations=(*spec.operations, waiting.act.operation or ""),
                )
                self.s.cards[n] = PlannedCard(
                    spec=spec, item_ids=(*planned.item_ids, waiting.act.id)
                )
                return
        spec = InteractionSpec(
            kind=InteractionKind.SELECT_TARGET,
            case=None,
            prompt=self._select_prompt(waiting.act.operation, cases, waiting.argument),
            options=options,
            independent=True,
            pending=(waiting,),
            operations=(waiting.act.operation or "",),
        )
        self.s.cards.append(PlannedCard(spec=spec, item_ids=(waiting.act.id,)))

    def _plan_choice(self, parts: tuple[PartCandidate, ...], waiting: PendingAct) -> None:
        """Plan a Choice card over the parts the words name (several; never a guess, I8).

        Each option carries a part id as its ``value``; the card belongs to no case (like
        a selection), so it displaces no Confirm card. Acts waiting on the same parts of
        the same record share one card.
        """
        options = tuple(
            InteractionOption(id=p.id, label=p.label, meaning=OptionMeaning.SELECT, value=p.id)
            for p in parts
        )
        key = (waiting.case, tuple(p.id for p in parts))
        for n, planned in enumerate(self.s.cards):
            spec = planned.spec
            if (
                spec.kind is InteractionKind.CHOICE
                and spec.pending
                and ((spec.pending[0].case, tuple(o.value for o in spec.options)) == key)
            ):
                self.s.cards[n] = PlannedCard(
                    spec=replace(
                        spec,
                        pending=(*spec.pending, waiting),
                        operations=(*spec.operations, waiting.act.operation or ""),
                    ),
                    item_ids=(*planned.item_ids, waiting.act.id),
                )
                return
        spec = InteractionSpec(
            kind=InteractionKind.CHOICE,
            case=None,
            prompt=self._say("choice.prompt"),
            options=options,
            independent=True,
            pending=(waiting,),
            operations=(waiting.act.operation or "",),
        )
        self.s.cards.append(PlannedCard(spec=spec, item_ids=(waiting.act.id,)))

    def _plan_confirm_cards(self) -> None:
        for case, waiting in self.s.awaiting.items():
            snap = self.inp.snapshots[case]
            operations = tuple(op for w in waiting for op in w.operations)
            commands = tuple(c for w in waiting for c in w.commands)
            spec = InteractionSpec(
                kind=InteractionKind.CONFIRM,
                case=case,
                prompt=card_prompt(
                    self.registry,
                    InteractionKind.CONFIRM,
                    snap.label,
                    operations,
                    self.inp.locale,
                    commands,
                ),
                options=self._confirm_options(),
                bound_revision=snap.revision,
                pending=tuple(w.pending for w in waiting),
                operations=operations,
                commands=commands,
            )
            self.s.cards.append(
                PlannedCard(spec=spec, item_ids=tuple(w.pending.act.id for w in waiting))
            )

    def _confirm_options(self) -> tuple[InteractionOption, ...]:
        return (
            InteractionOption(
                id="confirm", label=self._say("option.confirm"), meaning=OptionMeaning.CONFIRM
            ),
            InteractionOption(
                id="decline", label=self._say("option.decline"), meaning=OptionMeaning.DECLINE
            ),
        )

    def _review_card(
        self,
        pending: PendingAct,
        commands: tuple[Command, ...],
        role: str,
        origin: ConfirmedInteraction,
        label: str,
        proposed: tuple[ProposedCommand, ...] = (),
    ) -> None:
        assert pending.case is not None
        operations = tuple(c.operation for c in commands)
        snap = self.inp.snapshots[pending.case]
        spec = InteractionSpec(
            kind=InteractionKind.REVIEW,
            case=pending.case,
            prompt=card_prompt(
                self.registry, InteractionKind.REVIEW, label, operations, self.inp.locale, proposed
            ),
            commands=proposed,
            options=(
                InteractionOption(
                    id="approve", label=self._say("option.approve"), meaning=OptionMeaning.APPROVE
                ),
                InteractionOption(
                    id="reject", label=self._say("option.reject"), meaning=OptionMeaning.REJECT
                ),
            ),
            bound_revision=snap.revision,
            pending=(pending,),
            operations=operations,
            required_role=role,
            confirmed_by=(*origin.confirmed_by, origin.interaction_id),
        )
        self.s.cards.append(PlannedCard(spec=spec, item_ids=(pending.act.id,)))

    # clicks -------------------------------------------------------------------------
    def _click(self, click: ClickInput) -> None:
        card = click.interaction
        if card is None:
            self._result(
                "click", ResultStatus.REJECTED, code="not_found", sentence=self._say("unknown_card")
            )
            return
        if card.id in self.s.withdrawn:
            # This turn's own words cancelled or corrected what the card would do.
            self._result(
                "click",
                ResultStatus.NO_CHANGE,
                code="withdrawn",
                sentence=self._say("already_withdrawn"),
            )
            return
        if card.status is not InteractionStatus.OPEN:
            # A second click returns the card's original resolution, whatever it was
            # (resolved, declined, stale or withdrawn), and commits nothing.
            if card.resolution is not None:
                self._replayed = dict(card.resolution.results)
                self._replayed_status = card.status.value
                return
            # Displaced by a newer card on its case (I5): never answered.
            self._result(
                "click",
                ResultStatus.REJECTED,
                code=card.status.value,
                sentence=self._say("card_superseded"),
            )
            return
        option = card.spec.option(click.response.option_id)
        if option is None:
            self._result(
                "click", ResultStatus.REJECTED, code="not_found", sentence=self._say("unknown_card")
            )
            return
        self._answer_card(card, option, click.pending, click, structured=True, item_id="click")

    def _card_answer(self, item_id: str, interaction_id: str, option_id: str) -> None:
        click = self.inp.click
        if click is not None and click.response.interaction_id == interaction_id:
            self._result(item_id, ResultStatus.SUPERSEDED, code="click_binds_stronger")
            return
        card = next((c for c in self.inp.cards_on_screen if c.id == interaction_id), None)
        option = card.spec.option(option_id) if card else None
        if card is not None and card.id in self.s.withdrawn:
            self._result(
                item_id,
                ResultStatus.NO_CHANGE,
                code="withdrawn",
                sentence=self._say("already_withdrawn"),
            )
            return
        if card is None or option is None or card.status is not InteractionStatus.OPEN:
            self._result(
                item_id,
                ResultStatus.REJECTED,
                code="unknown_card",
                sentence=self._say("unknown_card"),
            )
            return
        answers = [
            a
            for a in self.inp.understanding.card_answers
            if a.interaction == interaction_id and card.spec.option(a.option) is not None
        ]
        if len({a.option for a in answers}) > 1:
            # Different answers to one card: taking the first would break the tie by list
            # order (I8), so none applies and the card stays open.
            self._result(
                item_id,
                ResultStatus.NEEDS_CLARIFICATION,
                code="conflicting_answers",
                sentence=self._say("conflicting_answers"),
            )
            return
        if answers[0].id != item_id:
            # The same answer twice is one answer; running it again would double its effect.
            self._result(item_id, ResultStatus.NO_CHANGE, code="duplicate_answer")
            return
        if option.meaning in (OptionMeaning.CONFIRM, OptionMeaning.APPROVE):
            # D5 / I17: inferred text never confirms a high-risk card or answers a review.
            self._result(
                item_id,
                ResultStatus.REJECTED,
                code="needs_click",
                sentence=self._say("needs_click"),
            )
            return
        pending = self._pending_inputs(card, option)
        self._answer_card(card, option, pending, None, structured=False, item_id=item_id)

    def _pending_inputs(self, card: Interaction, option: InteractionOption) -> tuple[ActInput, ...]:
        out = []
        for p in card.spec.pending:
            if p.argument is not None and option.value is not None and p.case is not None:
                # A Choice option fills a part argument; the domain re-checks the part.
                out.append(
                    ActInput(
                        act=p.act,
                        resolution=Exact(case=p.case, new=p.new_case),
                        record_args=p.record_args,
                        part_args={**p.part_args, p.argument: option.value},
                    )
                )
                continue
            if p.argument is not None and option.case is not None and p.case is not None:
                # The option fills a record argument; the target stays the act's own.
                out.append(
                    ActInput(
                        act=p.act,
                        resolution=Exact(case=p.case, new=p.new_case),
                        record_args={**p.record_args, p.argument: option.case},
                    )
                )
                continue
            case = option.case if option.meaning is OptionMeaning.SELECT else p.case
            resolution = Exact(case=case, new=p.new_case) if case is not None else None
            out.append(
                ActInput(
                    act=p.act,
                    resolution=resolution,
                    record_args=p.record_args,
                    part_args=p.part_args,
                )
            )
        return tuple(out)

    def _answer_card(
        self,
        card: Interaction,
        option: InteractionOption,
        pending: tuple[ActInput, ...],
        click: ClickInput | None,
        *,
        structured: bool,
        item_id: str,
    ) -> None:
        spec = card.spec
        pending = self._resumed(card, pending)
        item_results: dict[str, str] = {}
        if option.meaning in (OptionMeaning.DECLINE, OptionMeaning.REJECT):
            code = "declined" if option.meaning is OptionMeaning.DECLINE else "review_rejected"
            status = (
                ResultStatus.NO_CHANGE
                if option.meaning is OptionMeaning.DECLINE
                else ResultStatus.REJECTED
            )
            if spec.required_role and not self.inp.actor.has_role(spec.required_role):
                self._result(
                    item_id,
                    ResultStatus.REJECTED,
                    code="not_authorized",
                    sentence=self._say("not_authorized", role=spec.required_role),
                )
                return
            for p in pending:
                self._result(p.act.id, status, code=code, sentence=self._say(code))
                item_results[p.act.id] = _full_label(self.s.results[p.act.id])
            if not structured:
                self._result(item_id, ResultStatus.NO_CHANGE, code=code)
            self.s.closes.append(
                CardClose(
                    interaction_id=card.id,
                    status=InteractionStatus.DECLINED,
                    option_id=option.id,
                    results=item_results,
                )
            )
            return
        if spec.required_role and not self.inp.actor.has_role(spec.required_role):
            self._result(
                item_id,
                ResultStatus.REJECTED,
                code="not_authorized",
                sentence=self._say("not_authorized", role=spec.required_role),
            )
            return
        if spec.case is not None and not spec.independent:
            stale = click is not None and (
                click.case_revision != spec.bound_revision
                or (
                    click.response.expected_revision is not None
                    and click.response.expected_revision != spec.bound_revision
                )
            )
            touched = any(r.case == spec.case for r in self.s.ready)
            if stale or touched:
                self._stale(card, pending, item_id=item_id)
                return
        origin: Origin | None = None
        if option.meaning in (OptionMeaning.CONFIRM, OptionMeaning.APPROVE):
            origin = ConfirmedInteraction(
                interaction_id=card.id,
                option_id=option.id,
                interaction_kind=spec.kind.value,
                payload_hash=card.payload_hash,
                confirmed_by=spec.confirmed_by,
            )
            if any(self._is_submission(p.act) for p in spec.pending) and (
                self.turn_dns or self.standing_active
            ):
                self.s.lift_for_click = True
                if self.standing_active and not self.turn_dns:
                    self.s.notices.append(
                        ("constraint_lifted_for_one", self._say("constraint_lifted_for_one"), None)
                    )
                else:
                    self.s.lift_for_click = False
        targets = {p.resolution.case for p in pending if isinstance(p.resolution, Exact)}
        if any(
            r.card is not None and r.card[0] != card.id and r.case in targets for r in self.s.ready
        ):
            # A commit resolves one card (I16): another card's acts already commit on this
            # record in this turn, so this card stays open, to be answered again.
            self._result(
                item_id, ResultStatus.REJECTED, code="card_busy", sentence=self._say("card_busy")
            )
            return
        ref = (card.id, option.id)
        before = len(self.s.ready)
        for item in pending:
            self._reduce_act(item, origin=origin, card=ref)
        self.s.lift_for_click = False
        if not structured:
            progressed = len(self.s.ready) > before
            self._result(item_id, ResultStatus.READY if progressed else ResultStatus.NO_CHANGE)
        if len(self.s.ready) == before:
            # Nothing to commit. A selection is resolved by the answer alone; a Confirm or
            # Review card only when its authority moved on to a next card (a Review awaiting
            # an agent). A card whose acts were refused stays open: it authorised a command
            # that did not commit (I16).
            for p in pending:
                result = self.s.results.get(p.act.id)
                if result is not None:
                    item_results[p.act.id] = result.label
            if spec.kind in (InteractionKind.CONFIRM, InteractionKind.REVIEW) and not all(
                self.s.results.get(p.act.id) is not None
                and self.s.results[p.act.id].status is ResultStatus.AWAITING_CONFIRMATION
                for p in pending
            ):
                return
            self.s.closes.append(
                CardClose(
                    interaction_id=card.id,
                    status=InteractionStatus.RESOLVED,
                    option_id=option.id,
                    results=item_results,
                )
            )

    def _resumed(self, card: Interaction, pending: tuple[ActInput, ...]) -> tuple[ActInput, ...]:
        """Return a card's pending acts under ids no other item of this turn uses (I11).

        A resumed act reports under its own id unless this turn's understanding, the click
        or an earlier card already took it; then under ``<card id>:<act id>``, so neither
        result replaces the other and no commit is reported under another act's id.
        """
        taken = {*self.inp.understanding.item_ids(), "click", *self.s.results}
        return tuple(
            replace(p, act=replace(p.act, id=f"{card.id}:{p.act.id}")) if p.act.id in taken else p
            for p in pending
        )

    def _is_submission(self, act: SemanticAct) -> bool:
        spec = self.registry.operation(act.operation or "")
        return bool(spec and spec.submission)

    def _stale(self, card: Interaction, pending: tuple[ActInput, ...], *, item_id: str) -> None:
        spec = card.spec
        reissue = spec.kind in (InteractionKind.CONFIRM, InteractionKind.REVIEW)
        self._result(
            item_id,
            ResultStatus.REJECTED,
            code="stale",
            sentence=self._say("stale_no_reissue"),
        )
        self.s.closes.append(
            CardClose(
                interaction_id=card.id,
                status=InteractionStatus.STALE,
                option_id="",
                results={"click": f"{ResultStatus.REJECTED.value}:stale"},
            )
        )
        if not reissue or spec.case is None:
            return
        if spec.case not in self.inp.snapshots:
            return
        # D2: a fresh card for the same acts; the runtime binds it to the revision after
        # this turn's commits, so the user never confirms content they did not see. A stale
        # Review restarts the chain with a Confirm: the earlier confirmation was given on
        # content that has since changed, so it cannot carry over (I16, I17). Each act is
        # compiled again against the record as it is now and goes through the domain
        # check and policy again: the fresh card never offers what the domain would now
        # refuse (ADR 0004 rule 3; docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).
        for item in pending:
            self._reduce_act(item, origin=None, card=None, reissue=True)

    # batches ------------------------------------------------------------------------
    def _batches(self) -> tuple[PlannedBatch, ...]:
        groups: dict[tuple[CaseRef, str], list[_Ready]] = {}
        for n, ready in enumerate(self.s.ready):
            scopes = {p.atomicity for p in ready.policies}
            key = "case" if scopes == {AtomicityScope.CASE} else f"cmd-{n}"
            groups.setdefault((ready.case, key), []).append(ready)
        batches = []
        for (case, _), items in groups.items():
            snap = self.inp.snapshots[case]
            act_ids = tuple(i.act_id for i in items)
            card = next((i.card for i in items if i.card is not None), None)
            key_source: tuple[str, ...] = (
                ("card", self.inp.actor.account, card[0], card[1], str(case))
                if card
                else ("turn", self.inp.actor.account, self.inp.turn_id, str(case), *act_ids)
            )
            idem = digest(key_source)
            envelopes = tuple(
                CommandEnvelope(
                    command=command,
                    case=case,
                    actor=self.inp.actor,
                    expected_revision=snap.revision,
                    idempotency_key=idem,
                    origin=item.origin,
                    policy=policy,
                    act_id=item.act_id,
                )
                for item in items
                for command, policy in zip(item.commands, item.policies, strict=True)
            )
            batches.append(
                PlannedBatch(
                    case=case,
                    expected_revision=snap.revision,
                    new_case=any(i.new_case for i in items),
                    envelopes=envelopes,
                    act_ids=act_ids,
                    card=card,
                )
            )
        return tuple(batches)
