"""The turn inspector: one turn as the framework saw it, from its stored records (docs/inspector.md).

:func:`inspection_for` reads a turn's record (``TurnStore.get_turn``: the input), its
replay record (``TurnStore.load_replay``: the model calls, the reading, the reduction),
its reply blocks (``TurnStore.load_reply``), its committed events
(``TurnStore.events_by_id``) and its commits' journal rows (``TurnStore.lookup_command``)
and returns an :class:`InspectionView`: the message with each act's evidence located →
the act's target resolution → its result → its command envelopes → the committed events
→ the receipts; notices and why; the model calls; the reduction record. Nothing runs.
:func:`replay_view` re-runs the recorded reduction and diffs the plans
(:mod:`turnframe.runtime.inspection_replay`).

An old or partial record never fails the view: what it lacks is empty and said in
``notes`` (I20 records are read, never trusted to be whole).
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from turnframe.core.events import DomainEvent
from turnframe.core.reply import ReplyBlock
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.inspection_calls import Pointers, act_pointers, model_view
from turnframe.runtime.inspection_chain import (
    as_dict,
    as_list,
    case_text,
    commands_of,
    event_view,
    evidence_of,
    journal_view,
    receipts_citing,
    resolution_of,
    result_of,
)
from turnframe.runtime.inspection_models import (
    ActView,
    ClickView,
    InspectionView,
    MessageView,
    ReceiptView,
    ResultView,
)
from turnframe.runtime.inspection_replay import replay_view
from turnframe.runtime.inspection_reply import (
    act_id_of,
    card_of,
    notices_of,
    questions_of,
    receipt_of,
    reduction_of,
)
from turnframe.runtime.inspection_trace import ReplayView
from turnframe.runtime.parts import turn_alias
from turnframe.store.base import TurnRecord, TurnStore

__all__ = [
    "InspectionView",
    "ReplayView",
    "inspection_for",
    "replay_for",
    "replay_view",
    "turn_alias",
]

_BLOCKS: TypeAdapter[list[ReplyBlock]] = TypeAdapter(list[ReplyBlock])

NO_REPLAY = "no replay record is stored: the turn did not reach its commit, or predates them"
NO_REDUCTION = "no reduction is recorded: the turn did not reduce (refused or unreadable)"
NO_REPLY = "no reply is stored: the turn has not replied"
NO_CALLS = "no model call is recorded: a click, a scripted understanding, or an empty message"
NO_RESULTS = "no final results are stored; the plan's results are shown"


async def inspection_for(
    store: TurnStore, registry: WorkflowRegistry, account: str, turn_id: str
) -> InspectionView | None:
    """Return the inspection of ``account``'s turn ``turn_id``, or ``None`` when it has none.

    The turn is looked up under its id, then under the account-scoped alias a turn is
    stored under when another account holds the id (:func:`turn_alias`); an
    absent turn and another account's turn are both ``None`` (docs/adr/0016-races-and-turn-ids.md).

    Args:
        store: the store the turn ran on.
        registry: the application's workflows (each act's operation summary in the
            turn's locale).
        account: the asking actor's account.
        turn_id: the turn's id as the caller knows it.

    Raises:
        StoreError: a read failed (``StoreUnavailable`` when the store is unreachable).
    """
    key, turn = await _find(store, account, turn_id)
    if turn is None:
        return None
    notes: list[str] = []
    record = await store.load_replay(account, key)
    if record is None:
        notes.append(NO_REPLAY)
    rec: dict[str, Any] = dict(record) if isinstance(record, dict) else {}
    blocks = await store.load_reply(account, key)
    if blocks is None and turn.phase == "replied":
        notes.append(NO_REPLY)
    elif blocks is None:
        notes.append(f"{NO_REPLY} (phase {turn.phase})")
    shown = _BLOCKS.dump_python(list(blocks or ()), mode="json")
    view = await _view(store, account, turn_id, key, turn, rec, shown, notes)
    return _summarised(view, registry)


async def replay_for(
    store: TurnStore, registry: WorkflowRegistry, account: str, turn_id: str
) -> ReplayView | None:
    """Return ``account``'s turn ``turn_id`` replayed (:func:`replay_view`), or ``None``.

    ``None`` exactly when :func:`inspection_for` is ``None`` (absent, or another
    account's); a turn without a replay record replays to ``same=None`` with a reason.

    Raises:
        StoreError: a read failed.
    """
    key, turn = await _find(store, account, turn_id)
    if turn is None:
        return None
    record = await store.load_replay(account, key)
    return replay_view(dict(record or {}), registry, turn_id)


def _summarised(view: InspectionView, registry: WorkflowRegistry) -> InspectionView:
    """Return ``view`` with each act's operation summary in the turn's locale."""
    acts = []
    for act in view.acts:
        spec = registry.operation(act.operation) if act.operation else None
        summary = spec.summary_in(view.message.locale) if spec is not None else None
        acts.append(act.model_copy(update={"summary": summary}) if summary else act)
    return view.model_copy(update={"acts": acts})


async def _find(store: TurnStore, account: str, turn_id: str) -> tuple[str, TurnRecord | None]:
    """Return the id the account's turn is stored under and its record (``None``: none)."""
    turn = await store.get_turn(account, turn_id)
    if turn is not None:
        return turn_id, turn
    key = turn_alias(account, turn_id)
    return key, await store.get_turn(account, key)


async def _view(
    store: TurnStore,
    account: str,
    turn_id: str,
    key: str,
    turn: TurnRecord,
    rec: dict[str, Any],
    blocks: list[dict[str, Any]],
    notes: list[str],
) -> InspectionView:
    raw_text = turn.input.get("text")
    text = raw_text if isinstance(raw_text, str) else None
    locale = str(turn.input.get("locale") or "en")
    response = as_dict(turn.input.get("interaction_response"))
    reduction = as_dict(rec.get("reduction"))
    # recorded_understanding's two shapes, read defensively (a damaged record is shown).
    understanding = as_dict(
        rec["understanding"]
        if "understanding" in rec
        else as_dict(reduction.get("input")).get("understanding")
    )
    if rec and not reduction:
        notes.append(NO_REDUCTION)
    inp, plan = as_dict(reduction.get("input")), as_dict(reduction.get("plan"))
    results = _results(turn, plan, notes)
    receipts = [receipt_of(b) for b in blocks if b.get("kind") == "receipt"]
    events = await _events(store, rec, plan)
    model = model_view(rec)
    if not model.calls and text and NO_REPLAY not in notes:  # no record: NO_REPLAY says it
        notes.append(NO_CALLS)
    units = model.units

    message_acts = [a for a in as_list(understanding.get("acts")) if isinstance(a, dict)]
    inputs = {act_id_of(a): a for a in as_list(inp.get("acts")) if isinstance(a, dict)}
    pointers = act_pointers(rec, [str(a.get("id", "")) for a in message_acts])
    acts: list[ActView] = []
    for act in message_acts:
        act_id = str(act.get("id", ""))
        spans = evidence_of(text, act, pointers.get(act_id) or Pointers(), units)
        acts.append(
            await _act(store, account, act, "message", inputs.get(act_id), spans, results, plan,
                       events, receipts)
        )  # fmt: skip
    click = as_dict(inp.get("click"))
    for pending in as_list(click.get("pending")):
        act = as_dict(as_dict(pending).get("act"))
        if act:
            acts.append(
                await _act(store, account, act, "click", pending, [], results, plan, events,
                           receipts)
            )  # fmt: skip
    for waiting in as_list(inp.get("waiting")):
        item = as_dict(waiting)
        act = {**as_dict(as_dict(item.get("pending")).get("act")), "id": item.get("item_id")}
        if act.get("id") in results:
            acts.append(
                await _act(store, account, act, "waiting", None, [], results, plan, events,
                           receipts)
            )  # fmt: skip
    return InspectionView(
        turn_id=turn_id,
        conversation_id=turn.conversation_id,
        seq=turn.seq,
        phase=turn.phase,
        kind=_kind(text, response),
        message=MessageView(
            text=text, locale=locale, evidence=[s for a in acts for s in a.evidence]
        ),
        click=await _click(store, account, turn, response, click, inp) if response else None,
        acts=acts,
        questions=questions_of(understanding, results, blocks),
        notices=notices_of(blocks, plan, inp, model.errors, model.error, results),
        cards=[card_of(b) for b in blocks if b.get("kind") == "interaction"],
        blocks=blocks,
        model=model,
        reduction=reduction_of(reduction, inp, plan),
        notes=notes + ([f"stored under the account's alias {key}"] if key != turn_id else []),
    )


def _kind(text: str | None, response: dict[str, Any]) -> Any:
    if text and response:
        return "text_and_click"
    return "text" if text else "click" if response else "empty"


def _results(turn: TurnRecord, plan: dict[str, Any], notes: list[str]) -> dict[str, ResultView]:
    """Return item id → result: the stored final results, else the plan's."""
    final = [r for r in as_list(turn.data.get("results")) if isinstance(r, dict)]
    if not final and turn.phase != "replied":
        final = [r for r in as_list(plan.get("results")) if isinstance(r, dict)]
        if final:
            notes.append(NO_RESULTS)
    out: dict[str, ResultView] = {}
    for raw in final:
        view = result_of(raw)
        if view is not None:
            out[str(raw.get("item_id"))] = view
    return out


async def _events(store: TurnStore, rec: dict[str, Any], plan: dict[str, Any]) -> list[DomainEvent]:
    """Return the turn's committed events, only those on the cases its plan touched.

    ``events_by_id`` is not account-scoped: an event is shown only when its case is one
    this turn's plan (or its recorded commands) committed to, which are the account's.
    """
    ids = [str(e) for e in as_list(rec.get("events"))]
    if not ids:
        return []
    cases = {case_text(as_dict(b).get("case")) for b in as_list(plan.get("batches"))}
    cases |= {str(c[1]) for c in as_list(rec.get("commands")) if isinstance(c, list) and len(c) > 1}
    return [e for e in await store.events_by_id(ids) if str(e.case) in cases]


async def _act(
    store: TurnStore,
    account: str,
    act: dict[str, Any],
    source: Any,
    act_input: dict[str, Any] | None,
    spans: list[Any],
    results: dict[str, ResultView],
    plan: dict[str, Any],
    events: list[DomainEvent],
    receipts: list[ReceiptView],
) -> ActView:
    act_id = str(act.get("id", ""))
    operation = act.get("operation") if isinstance(act.get("operation"), str) else None
    commands = []
    mine: list[DomainEvent] = []
    for command, batch_key in commands_of(plan, act_id, operation):
        entry = await store.lookup_command(account, batch_key) if batch_key else None
        if entry is not None:
            command = command.model_copy(update={"journal": journal_view(entry.result)})
        commands.append(command)
        mine += [
            e
            for e in events
            if e.idempotency_key == batch_key and e.operation == command.operation and e not in mine
        ]
    ids = {e.id for e in mine}
    return ActView(
        id=act_id,
        source=source,
        operation=operation,
        args={str(k): str(v) for k, v in as_dict(act.get("args")).items()},
        evidence=spans,
        evidence_source=str(act.get("evidence_source") or "user"),
        hypothetical=bool(act.get("hypothetical")),
        resolution=resolution_of(act, act_input),
        result=results.get(act_id),
        commands=commands,
        events=[event_view(e) for e in mine],
        receipts=receipts_citing(receipts, ids),
    )


async def _click(
    store: TurnStore,
    account: str,
    turn: TurnRecord,
    response: dict[str, Any],
    click: dict[str, Any],
    inp: dict[str, Any],
) -> ClickView:
    """Return the click and the card it answered: the recorded card, else the stored one."""
    card_id = str(response.get("interaction_id", ""))
    card: dict[str, Any] = {}
    recorded = click.get("interaction")
    if isinstance(recorded, dict):
        card = recorded
    elif isinstance(recorded, str):
        card = next(
            (c for c in as_list(inp.get("cards_on_screen")) if as_dict(c).get("id") == recorded),
            {},
        )
    stored = await store.get_interaction(account, turn.conversation_id, card_id)
    spec = as_dict(card.get("spec"))
    kind = _text(spec.get("kind")) or (stored.spec.kind.value if stored is not None else None)
    option = str(response.get("option_id", ""))
    labels = {
        str(as_dict(o).get("id")): as_dict(o).get("label") for o in as_list(spec.get("options"))
    }
    if stored is not None and not labels:
        labels = {o.id: o.label for o in stored.spec.options}
    expected, value = response.get("expected_revision"), response.get("free_value")
    revision = click.get("case_revision")
    return ClickView(
        interaction_id=card_id,
        option_id=option,
        expected_revision=expected if isinstance(expected, int) else None,
        value=value if isinstance(value, str) else None,
        found=bool(card) or stored is not None,
        interaction_kind=kind,
        prompt=_text(spec.get("prompt")) or (stored.spec.prompt if stored is not None else None),
        option_label=str(labels[option]) if labels.get(option) is not None else None,
        case=case_text(spec.get("case"))
        or (str(stored.spec.case) if stored is not None and stored.spec.case else None),
        case_revision=revision if isinstance(revision, int) else None,
        status=stored.status.value if stored is not None else None,
        card_turn_id=_text(card.get("turn_id")) or (stored.turn_id if stored else None),
    )


def _text(value: Any) -> str | None:
    """Return ``value`` when it is a non-empty string (a damaged record may hold anything)."""
    return value if isinstance(value, str) and value else None
