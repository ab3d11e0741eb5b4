"""Step 6, look up what was named: record arguments named by words, not by a handle in view.

``CaseDirectory.find`` decides: one record that fits is used, several go on a selection
card, none leaves the act waiting for a record of that name (ADR 0007;
docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from turnframe.core.acts import SemanticAct
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import Actor, CaseRef
from turnframe.core.targets import Exact, TargetCandidate, TargetResolution
from turnframe.runtime.check import domain_refusal
from turnframe.runtime.parts import RuntimeParts
from turnframe.runtime.plan import ActInput
from turnframe.runtime.records import HANDLE, find, label
from turnframe.runtime.snapshots import TurnSnapshots
from turnframe.runtime.turn import Loaded, ResolvedAct

__all__ = ["LookUpInput", "look_up"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class LookUpInput:
    """One resolved act whose record arguments named by words are looked up.

    Attributes:
        actor: who acts.
        resolved: the resolve step's output for the act.
        loaded: the turn's context (labels; the snapshot cache to extend).
        today: the turn's today.
        locale: the turn's locale.
    """

    actor: Actor
    resolved: ResolvedAct
    loaded: Loaded
    today: date
    locale: str


async def look_up(parts: RuntimeParts, data: LookUpInput) -> ActInput:
    """Return the act as the reducer takes it: resolution, record arguments, awaits, choices.

    Every record argument's case gets a snapshot.

    Raises:
        StoreError: a read failed.
    """
    resolved, snapshots = data.resolved, data.loaded.snapshots
    record_args, bad_args = dict(resolved.record_args), dict(resolved.bad_args)
    awaits, choices = await _look_up_arguments(
        parts,
        data.actor,
        resolved.act,
        record_args,
        bad_args,
        data.loaded.labels,
        snapshots,
        data.today,
        data.locale,
        resolved.resolution,
    )
    for case in record_args.values():
        if case not in snapshots:
            await snapshots.load(case)
    return ActInput(
        act=resolved.act,
        resolution=resolved.resolution,
        record_args=record_args,
        bad_args=bad_args,
        awaits=awaits,
        choices=choices,
    )


async def _look_up_arguments(
    parts: RuntimeParts,
    actor: Actor,
    act: SemanticAct,
    record_args: dict[str, CaseRef],
    bad_args: dict[str, str],
    labels: dict[CaseRef, str],
    snapshots: TurnSnapshots,
    today: date,
    locale: str,
    resolution: TargetResolution | None = None,
) -> tuple[dict[str, str], dict[str, tuple[TargetCandidate, ...]]]:
    """Look up the record arguments named by words, not by a handle in view.

    See docs/architecture.md "One turn" step 6.

    ``CaseDirectory.find`` decides, told the operation and argument: one record that
    fits is used (``record_args``), several go on a selection card (the returned
    choices), none leaves the act waiting for a record of that name (the returned
    awaits, ADR 0007). Of several, only those with which the domain accepts the act on its
    Exact target stay candidates (the domain check, when it accepts at least one);
    words naming only closed records fill the argument with the one, or mark it
    ``closed`` (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md). Changes
    ``record_args`` and ``bad_args`` in place.
    """
    spec = parts.registry.operation(act.operation or "")
    awaits: dict[str, str] = {}
    choices: dict[str, tuple[TargetCandidate, ...]] = {}
    if spec is None:
        return awaits, choices
    for name in [n for n, why in bad_args.items() if why == "unknown_handle"]:
        argument = spec.argument(name)
        words = str(act.args.get(name, "")).strip()
        if argument is None or argument.record_workflow is None or HANDLE.match(words):
            continue
        # Only records that may fill the argument now are candidates (never a
        # terminal one, docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).
        found = await find(
            parts,
            actor,
            argument.record_workflow,
            words,
            snapshots,
            today,
            locale,
            operation=spec.key,
            argument=name,
        )
        del bad_args[name]
        if len(found) > 1 and isinstance(resolution, Exact):
            found = _accepted_by_domain(
                parts,
                actor,
                act,
                resolution.case,
                name,
                found,
                record_args,
                snapshots,
                today,
                locale,
            )
        if len(found) == 1:
            record_args[name] = found[0]
        elif found:
            choices[name] = tuple(
                TargetCandidate(case=c, label=label(c, snapshots, labels)) for c in found
            )
        else:
            matched = await find(
                parts, actor, argument.record_workflow, words, snapshots, today, locale
            )
            if len(matched) == 1:
                # The one record the words name is closed: the reducer refuses it with
                # its label, and the act does not wait for a record that exists.
                record_args[name] = matched[0]
            elif matched:
                bad_args[name] = "closed"
            else:
                awaits[name] = words
    return awaits, choices


def _accepted_by_domain(
    parts: RuntimeParts,
    actor: Actor,
    act: SemanticAct,
    target: CaseRef,
    name: str,
    found: list[CaseRef],
    record_args: dict[str, CaseRef],
    snapshots: TurnSnapshots,
    today: date,
    locale: str,
) -> list[CaseRef]:
    """Return the records of ``found`` with which the domain accepts ``act`` on ``target``.

    "Remove Ana Silva from the manifest" with two Ana Silvas of whom one is listed: only
    the passenger fits. When the domain refuses every one, the refusal is not about
    which record was named, so all stay candidates (the reducer then reports it).
    """
    snap = snapshots.get(target)
    if snap is None:
        return found
    accepted = [
        case
        for case in found
        if domain_refusal(
            parts.registry, act, snap, {**record_args, name: case}, actor, today, locale
        )
        is None
    ]
    return accepted or found
