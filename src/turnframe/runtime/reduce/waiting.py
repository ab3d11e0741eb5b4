"""Acts waiting for a record (ADR 0007): registered later in the conversation, or expired.

An act whose record argument names a record not registered yet waits, carried by the
conversation; a later registration under that name (or a nameless one of the same
workflow) completes it. The conversation carries the newest three; each one pushed out
gets ``expired`` (I11).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from turnframe.core.results import ResultStatus
from turnframe.core.targets import Exact
from turnframe.runtime.plan import ActInput, WaitingAct
from turnframe.runtime.reduce.acts import reduce_act
from turnframe.runtime.reduce.results import record
from turnframe.runtime.reduce.state import Reduction

__all__ = ["carry", "complete_waiting", "registrations"]

_WAITING_KEPT = 3
"""How many acts waiting for a record a conversation carries (ADR 0007)."""


def _name_key(words: str) -> str:
    """Return the words a record is named by, compared literally (case and edges aside)."""
    return " ".join(w.strip(".,;:!?\"'()").casefold() for w in words.split())


def registrations(r: Reduction) -> tuple[list[ActInput], dict[str, WaitingAct]]:
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
    for item in r.inp.acts:
        spec = r.registry.operation(item.act.operation or "")
        resolution = item.resolution
        if spec is None or not isinstance(resolution, Exact) or not resolution.new:
            acts.append(item)
            continue
        naming = next((a.name for a in spec.arguments if a.names_record), None)
        given = item.act.args.get(naming) if naming else None
        for waiting in reversed(r.inp.waiting):
            if waiting.item_id in r.dropped_waiting:
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


def complete_waiting(r: Reduction, registers: Mapping[str, WaitingAct]) -> list[WaitingAct]:
    """Complete the carried acts whose record this turn registers; return the rest."""
    done: set[str] = set()
    for act_id, waiting in registers.items():
        ready = next((x for x in r.ready if x.act_id == act_id and x.new_case), None)
        if ready is None:
            continue
        done.add(waiting.item_id)
        pending = waiting.pending
        resolution = Exact(case=pending.case) if pending.case is not None else None
        reduce_act(
            r,
            ActInput(
                act=replace(pending.act, id=waiting.item_id),
                resolution=resolution,
                record_args={**pending.record_args, waiting.argument: ready.case},
            ),
            origin=None,
            card=None,
        )
    return [
        w for w in r.inp.waiting if w.item_id not in done and w.item_id not in r.dropped_waiting
    ]


def carry(r: Reduction, carried: list[WaitingAct]) -> tuple[WaitingAct, ...]:
    """Return the newest three waiting acts; each one pushed out gets ``expired`` (I11)."""
    every = [*carried, *r.waiting]
    dropped, kept = every[:-_WAITING_KEPT], every[-_WAITING_KEPT:]
    for waiting in dropped:
        spec = r.registry.operation(waiting.pending.act.operation or "")
        summary = spec.summary_in(r.inp.locale).rstrip(".") if spec else ""
        record(
            r,
            waiting.item_id,
            ResultStatus.EXPIRED,
            code="expired",
            sentence=r.say("expired", operation=summary),
            operation=waiting.pending.act.operation,
            case=waiting.pending.case,
        )
    return tuple(kept)
