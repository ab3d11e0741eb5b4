"""Shadow re-understanding: recorded turns read again by another model (docs/shadow.md).

:func:`shadow_turns` takes turns a deployment recorded, gives each turn's recorded
:class:`~turnframe.understand.brief.Brief` to another model through the model chain
(:class:`~turnframe.understand.ModelUnderstanding`), reduces the new reading on the
turn's RECORDED snapshots (:mod:`turnframe.eval.shadow_input`) and compares the two
plans per dimension (:mod:`turnframe.eval.shadow_diff`): acts, targets, results and
commands. The recorded side is the recorded reduction run again by today's reducer, so
only the model's reading differs between the sides (a reducer changed since the turn
shows as ``replay_same`` false).

Nothing is written: the store is read through
:class:`~turnframe.store.readonly.ReadOnlyStore` (every write raises), and the new plan
is never executed, journaled, committed or shown (docs/shadow.md "No effect").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from turnframe.core.acts import Understanding
from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import TurnframeError, UsageError
from turnframe.core.ids import CaseRef, JSONObject
from turnframe.core.turn import Effort
from turnframe.eval.shadow_diff import plan_differences, plan_side
from turnframe.eval.shadow_input import OUTSIDE, handle_table, recorded_check, shadow_reduction
from turnframe.eval.shadow_report import ShadowReport, ShadowTotals, TurnShadow, totals_of
from turnframe.providers import ReplayProvider
from turnframe.providers.base import Provider
from turnframe.runtime.app import Application
from turnframe.runtime.contract import checked_reading
from turnframe.runtime.plan import CaseSnapshot
from turnframe.runtime.reduce import reduce_turn
from turnframe.runtime.replay import (
    recorded_brief,
    recorded_registry,
    recorded_seen,
    reduction_input,
)
from turnframe.runtime.snapshots import snapshot_of
from turnframe.store.base import TurnStore
from turnframe.store.errors import StoreUnavailable
from turnframe.store.readonly import ReadOnlyStore
from turnframe.understand import Merge, ModelUnderstanding
from turnframe.understand.merged import script_merge

__all__ = [
    "NO_ANSWER",
    "NO_BRIEF",
    "ShadowModelUnreachable",
    "check_recorded_with",
    "recorded_workflows",
    "ShadowReport",
    "ShadowTotals",
    "TurnShadow",
    "ProviderFor",
    "conversation_turns",
    "recorded_calls",
    "shadow_turns",
]

NO_BRIEF = (
    "no brief is recorded (a click, or a turn read by a scripted understander): "
    "there is nothing for a model to read"
)
"""Why a turn is skipped when its record holds no brief."""

NO_RECORD = "no replay record is stored (the turn did not reach its commit)"
"""Why a turn is skipped when it has no replay record."""

NO_REDUCTION = "the turn recorded no reduction (a refused or unreadable message)"
"""Why a turn is skipped when its record holds no reduction to compare with."""

NO_ANSWER = "the recorded calls do not answer the reading again"
"""Why a turn is skipped when its own recorded calls (``recorded_calls``) fail the reading."""

ProviderFor = Provider | Callable[[JSONObject], Provider]
"""The model to read with: one provider for every turn, or a function of a turn's replay
record returning the provider for that turn (``recorded_calls``: the turn's own calls)."""


def recorded_calls(record: JSONObject) -> Provider:
    """Return a provider serving ``record``'s own recorded calls (``--model recorded``).

    Reading a turn again over its own calls must give the recorded plan: the harness's
    own check (docs/shadow.md "Use").

    Raises:
        UsageError: the record's calls cannot be served (malformed).
    """
    calls: Any = record.get("calls") or []
    return ReplayProvider(calls)


class ShadowModelUnreachable(TurnframeError):
    """The shadow model could not be reached; the run stops (``turnframe shadow`` exit 3).

    Args:
        turn_id: the turn being read.
        kind: the provider's error kind (``connection_refused``, ``timeout``...).
    """

    def __init__(self, turn_id: str, kind: str) -> None:
        super().__init__(f"the model could not be reached ({kind}) while reading turn {turn_id}")
        self.turn_id = turn_id
        self.kind = kind


def _origin(data: Any) -> CaseRef | None:
    """Return the turn's ``origin_ref`` as its stored input holds it (``"workflow/id"``)."""
    raw = data.get("origin_ref") if isinstance(data, dict) else None
    if not isinstance(raw, str) or "/" not in raw:
        return None
    workflow, _, case_id = raw.partition("/")
    return CaseRef(workflow, case_id)


def _unreadable(exc: Exception) -> str:
    return f"the record could not be read: {type(exc).__name__}: {exc}"


@fast_init
@dataclass(frozen=True, slots=True)
class _RecordedReading:
    """The replay record's ``reading`` and ``calls``, checked before anything uses them."""

    reading: dict[str, Any]
    model: str | None
    effort: Effort | None
    merge: Merge
    checks: dict[str, Any]
    units: list[Any]

    @classmethod
    def of(cls, record: dict[str, Any]) -> _RecordedReading:
        """Read the parts, raising ``TypeError``/``ValueError`` for a malformed record."""
        reading = record.get("reading") or {}
        calls = record.get("calls") or []
        if not isinstance(reading, dict):
            raise TypeError(f"reading is a {type(reading).__name__}, not an object")
        if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
            raise TypeError("calls is not a list of objects")
        checks = reading.get("checks") or {}
        units = reading.get("units") or []
        if not isinstance(checks, dict) or not isinstance(units, list):
            raise TypeError("reading.checks or reading.units has the wrong shape")
        model = calls[0].get("model") if calls else None
        return cls(
            reading=reading,
            model=model if isinstance(model, str) else None,
            effort=Effort(reading["effort"]) if reading.get("effort") else None,
            merge=Merge(reading.get("merge") or Merge.NONE),
            checks=dict(checks),
            units=units,
        )


def recorded_workflows(reduction_input: Any) -> set[str]:
    """Return the workflow names a recorded reduction input names (a malformed part: none).

    The names are the keys of its ``versions`` (every workflow the recording application
    registered) and the workflows of its ``snapshots``' cases; ``reduction_input`` is a
    replay record's ``reduction.input`` (``runtime.replay``), read as data, never raising.
    """
    names: set[str] = set()
    if not isinstance(reduction_input, dict):
        return names
    versions = reduction_input.get("versions")
    if isinstance(versions, dict):
        names.update(k for k in versions if isinstance(k, str))
    snapshots = reduction_input.get("snapshots")
    for item in snapshots if isinstance(snapshots, list) else ():
        case = item.get("case") if isinstance(item, dict) else None
        workflow = case.get("workflow") if isinstance(case, dict) else None
        if isinstance(workflow, str):
            names.add(workflow)
    return names


def check_recorded_with(app: Application, turn_id: str, reduction_input: Any) -> None:
    """Refuse a turn recorded with another application than ``app`` (docs/shadow.md "Use").

    Raises:
        UsageError: the turn's recorded reduction names a workflow ``app`` does not
            register (the message names the workflow and the application): reading it
            with ``app`` would skip the turn or compare plans of the wrong workflows.
    """
    registered = set(app.registry.names())
    missing = sorted(recorded_workflows(reduction_input) - registered)
    if missing:
        raise UsageError(
            f"turn {turn_id!r} was recorded with workflow {missing[0]!r}, which application "
            f"{app.name!r} does not register (it has: {', '.join(sorted(registered))}); "
            "pass the --app the turns were recorded with"
        )


def _failed(exc: Exception) -> str:
    return f"the reducer failed on this reading: {type(exc).__name__}: {exc}"


async def _seen_snapshots(
    store: ReadOnlyStore, app: Application, account: str, recorded: Any, record: Any
) -> tuple[dict[CaseRef, CaseSnapshot], dict[CaseRef, tuple[int, int]]]:
    """Return the states the turn saw that today's store still holds, and the cases moved on.

    A case the turn loaded (the record's ``seen``, ``runtime.replay.recorded_seen``) but
    the reducer did not read is taken from the store when its revision today is the
    revision the turn saw: every commit moves a revision (I12), so that state IS the
    one the turn saw. A case at another revision is returned in ``moved`` as (then,
    now); another account's case or one that no longer loads is left out.
    """
    registry = app.registry
    found: dict[CaseRef, CaseSnapshot] = {}
    moved: dict[CaseRef, tuple[int, int]] = {}
    for case, revision in recorded_seen(record).items():
        if case in recorded.snapshots or case.workflow not in registry.names():
            continue
        row = await store.load_case(case)
        if row is not None and row.account != account:
            continue
        now = row.revision if row is not None else 0
        if now != revision:
            moved[case] = (revision, now)
            continue
        try:
            found[case] = snapshot_of(registry, case, row, recorded.today, recorded.locale)
        except ValueError:
            continue
    return found, moved


def _unreachable(understanding: Understanding) -> str | None:
    for notice in understanding.notices:
        if notice.startswith("model_unreachable"):
            return notice.partition(":")[2] or "unreachable"
    return None


async def _shadow_one(
    app: Application,
    store: ReadOnlyStore,
    provider_for: ProviderFor,
    account: str,
    turn_id: str,
    effort: Effort | None,
) -> TurnShadow:
    turn = await store.get_turn(account, turn_id)
    if turn is None:
        raise UsageError(f"no turn {turn_id!r} in account {account!r}")
    try:
        record: Any = await store.load_replay(account, turn_id)
    except StoreUnavailable:
        raise
    except Exception as exc:  # a stored record that is not a JSON object: this turn, not the run
        return TurnShadow(turn_id=turn_id, status="skipped", reason=_unreadable(exc))
    if not record:
        return TurnShadow(turn_id=turn_id, status="skipped", reason=NO_RECORD)
    if not isinstance(record, dict):
        why = _unreadable(TypeError(f"a {type(record).__name__}, not a JSON object"))
        return TurnShadow(turn_id=turn_id, status="skipped", reason=why)
    reduction = record.get("reduction")
    if not isinstance(reduction, dict) or "input" not in reduction:
        return TurnShadow(turn_id=turn_id, status="skipped", reason=NO_REDUCTION)
    check_recorded_with(app, turn_id, reduction["input"])
    try:
        # Both sides reduce under the workflow versions the turn ran under, so only the
        # reading differs (docs/guides/canary-and-rollback.md).
        registry = recorded_registry(reduction["input"], app.registry)
        if not isinstance(reduction.get("plan") or {}, dict):  # checked before any model call
            raise TypeError(f"its plan is a {type(reduction['plan']).__name__}, not a JSON object")
        brief = recorded_brief(record)
        recorded = reduction_input(reduction["input"], app.registry)
        # The recorded side: the recorded input reduced again by today's reducer.
        again = reduce_turn(recorded, registry)
        parts = _RecordedReading.of(record)
        if brief is not None:
            chosen = effort or parts.effort or Effort(brief.effort or Effort.MEDIUM)
            provider = provider_for if isinstance(provider_for, Provider) else provider_for(record)
    except Exception as exc:
        # A record is data: an old or malformed one (or a workflow that no longer
        # reads its state) is reported, never a crash.
        return TurnShadow(turn_id=turn_id, status="skipped", reason=_unreadable(exc))
    if brief is None:
        return TurnShadow(turn_id=turn_id, status="skipped", reason=NO_BRIEF)
    recorded_model = parts.model
    found, moved = await _seen_snapshots(store, app, account, recorded, record)
    wide = replace(recorded, snapshots={**recorded.snapshots, **found})
    table = handle_table(wide, brief)
    check = recorded_check(wide, table, registry, parts.checks)
    shown = replace(brief, check=check, effort=chosen.value, on_step=None)
    # A turn's own calls are served as they were asked (the recorded merge); any other
    # model is read as its effort says, a table of scripted steps step by step.
    merge = script_merge(provider) if isinstance(provider_for, Provider) else parts.merge
    understander = ModelUnderstanding(provider, effort=chosen, merge=merge)
    read = checked_reading(await understander.understand(shown), registry)
    kind = _unreachable(read.understanding)
    if kind is not None and not isinstance(provider_for, Provider):
        # A turn's own calls that do not answer the reading again: the record, not a model.
        why = f"{NO_ANSWER}: {(read.trace or {}).get('error') or kind}"
        return TurnShadow(turn_id=turn_id, status="skipped", reason=why)
    if kind is not None:
        raise ShadowModelUnreachable(turn_id, kind)
    calls_made: list[Any] = list(read.calls)
    counts: dict[str, Any] = {
        "model_calls": read.model_calls,
        "prompt_tokens": sum(int(c.get("prompt_tokens") or 0) for c in calls_made),
        "completion_tokens": sum(int(c.get("completion_tokens") or 0) for c in calls_made),
    }
    before = plan_side(recorded.understanding, recorded.acts, parts.units, again)
    try:
        stored_plan = reduction.get("plan") or {}
        if not isinstance(stored_plan, dict):
            raise TypeError(f"its plan is a {type(stored_plan).__name__}, not a JSON object")
        replay_same = plan_side(
            recorded.understanding, recorded.acts, (), stored_plan
        ) == plan_side(recorded.understanding, recorded.acts, (), again)
    except Exception as exc:  # a damaged recorded plan: this turn is skipped, not the run
        return TurnShadow(turn_id=turn_id, status="skipped", reason=_unreadable(exc))
    trace: Any = read.trace
    units = trace.get("units") or []
    built = shadow_reduction(
        wide, read.understanding, brief, registry, origin=_origin(turn.input), moved=moved
    )
    common: dict[str, Any] = {"turn_id": turn_id, "recorded_model": recorded_model, **counts}
    if built.reduction is None:
        after = plan_side(read.understanding, (), units, {})
        diff = plan_differences(before, after, ("acts",))
        return TurnShadow(status="outside", outside=list(built.outside), differences=diff, **common)
    try:
        plan = reduce_turn(built.reduction, registry)
    except KeyError as exc:
        if not (exc.args and isinstance(exc.args[0], CaseRef)):
            return TurnShadow(status="skipped", reason=_failed(exc), **common)
        line = f"the reducer read case {exc.args[0]}, which the recorded turn did not"
        return TurnShadow(status="outside", outside=[f"{OUTSIDE}: {line}"], **common)
    except Exception as exc:
        # The reducer failing on a reading is a finding about the reducer, shown, not a crash.
        return TurnShadow(status="skipped", reason=_failed(exc), **common)
    after = plan_side(read.understanding, built.reduction.acts, units, plan)
    diff = plan_differences(before, after)
    status = "different" if diff else "same"
    return TurnShadow(status=status, differences=diff, replay_same=replay_same, **common)


async def conversation_turns(
    store: TurnStore, account: str, conversation_id: str, last: int | None = None
) -> list[str]:
    """Return the ids of the conversation's replied turns in order (the last ``last`` only).

    Raises:
        UsageError: the conversation has no replied turn, or ``last`` is below 1.
    """
    if last is not None and last < 1:
        raise UsageError(f"--last takes a count of 1 or more, not {last}")
    ids = [tid for tid, _ in await store.conversation_replies(account, conversation_id)]
    if not ids:
        raise UsageError(f"no replied turn in conversation {conversation_id!r} of {account!r}")
    return ids[-last:] if last else ids


async def shadow_turns(
    app: Application,
    store: TurnStore,
    provider: ProviderFor,
    turn_ids: Sequence[str],
    *,
    account: str,
    model: str = "",
    effort: Effort | str | None = None,
) -> ShadowReport:
    """Read ``turn_ids`` again with ``provider``; compare each new plan with the recorded one.

    Args:
        app: the application the turns were recorded with (its workflows reduce).
        store: the store holding the turns; it is read through a
            :class:`~turnframe.store.readonly.ReadOnlyStore` (a write raises
            ``StoreReadOnly``; the caller's store is never written).
        provider: the model to qualify, or a function of a turn's record returning it
            (:data:`ProviderFor`).
        turn_ids: the turns, in report order.
        account: the account owning them (turns are account-scoped).
        model: the provider's spec, for the report.
        effort: the effort to read at (default: each turn's recorded effort).

    Returns:
        The report: per turn its status and differences, and the totals.

    Raises:
        UsageError: no turn ids, a turn id the account does not hold, or a turn whose
            recorded reduction names a workflow ``app`` does not register
            (:func:`check_recorded_with`).
        ShadowModelUnreachable: the model could not be reached (the run stops).
        CapabilityMissing: the provider cannot give structured output.
        StoreError: a read failed.
    """
    if not turn_ids:
        raise UsageError("name at least one turn to read again")
    view = store if isinstance(store, ReadOnlyStore) else ReadOnlyStore(store)
    chosen = Effort(effort) if effort else None
    turns = [await _shadow_one(app, view, provider, account, tid, chosen) for tid in turn_ids]
    return ShadowReport(model=model, turns=turns, totals=totals_of(turns))
