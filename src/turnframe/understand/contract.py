"""The understander's contract, checked at the boundary (docs/adr/0015-values-in-the-turns-locale.md).

Whatever an :class:`~turnframe.understand.base.Understander` returns is checked here
before any of it reaches target resolution or the reducer: the shapes of
:class:`~turnframe.core.acts.Understanding` (values are the user's words, so strings),
ids unique over acts, questions, constraints and card answers, no reserved id, and only
argument names the named operation declares. Pure; nothing here raises on bad input
except :func:`require_on_contract`, which raises :class:`OffContractUnderstanding`.

The model chain drops what breaks the contract and says so with an ``unreadable``
notice (:func:`on_contract`); a custom or scripted understander gets the typed error
naming the act (docs/invariants.md I2, I11).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from turnframe.core.acts import (
    CardAnswer,
    Constraint,
    ConstraintKind,
    ConstraintScope,
    EvidenceSource,
    Link,
    ProposedTarget,
    Question,
    SemanticAct,
    Understanding,
)
from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import UsageError
from turnframe.core.operations import OperationSpec

__all__ = [
    "RESERVED_IDS",
    "ContractViolation",
    "OffContractUnderstanding",
    "contract_violations",
    "on_contract",
    "require_on_contract",
]

RESERVED_IDS = frozenset({"click"})
"""Item ids the runtime gives its own results (a click's result is keyed ``click``)."""

_SEPARATOR = ":"
"""Resumed and carried acts report under ``<card>:<act>`` and ``<turn>:<act>``; an item id
with it could take their result (I11)."""


@fast_init
@dataclass(frozen=True, slots=True)
class ContractViolation:
    """One way an understanding breaks the contract.

    Attributes:
        item: the id of the act, question, constraint, card answer or link at fault
            (``""`` when the whole proposal is).
        problem: what is wrong, naming the field, e.g. ``"argument 'nights' is int, not
            the user's words (str)"``.
    """

    item: str
    problem: str

    def __str__(self) -> str:
        return f"{self.item or 'the understanding'}: {self.problem}"


class OffContractUnderstanding(UsageError):
    """An understander returned something off contract (a developer's mistake).

    Raised before reduction, so nothing of the turn was resolved, planned or committed;
    running or recovering the turn again reads it again.

    Args:
        violations: every violation found, the first one named in the message.
    """

    def __init__(self, violations: tuple[ContractViolation, ...]) -> None:
        first = violations[0]
        more = f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""
        where = f"item {first.item!r}" if first.item else "the understanding"
        super().__init__(f"understander output off contract at {where}: {first.problem}{more}")
        self.violations = violations


Operations = Callable[[str], OperationSpec | None]


def _type(value: object) -> str:
    return type(value).__name__


def _is_str_or_none(value: object) -> bool:
    return value is None or isinstance(value, str)


def _target_problem(target: object) -> str | None:
    if not isinstance(target, ProposedTarget):
        return f"target is {_type(target)}, not a ProposedTarget"
    handles = target.handles
    if isinstance(handles, str) or not isinstance(handles, tuple | list):
        return f"target.handles is {_type(handles)}, not a tuple of handles"
    if not all(isinstance(h, str) for h in handles):
        return "target.handles holds a value that is not a string"
    if not _is_str_or_none(target.find) or not _is_str_or_none(target.mention):
        return "target.find and target.mention are the user's words (str) or None"
    if not isinstance(target.new, bool):
        return f"target.new is {_type(target.new)}, not bool"
    return None


def _words_problems(field: str, values: object, spec: OperationSpec | None) -> list[str]:
    if not isinstance(values, Mapping):
        return [f"{field} is {_type(values)}, not a mapping of argument names to words"]
    problems: list[str] = []
    for name, value in values.items():
        if not isinstance(name, str):
            problems.append(f"{field} has a key {name!r} that is not an argument name")
            continue
        if not isinstance(value, str):
            problems.append(f"{field} {name!r} is {_type(value)}, not the user's words (str)")
        if spec is not None and spec.argument(name) is None:
            known = ", ".join(a.name for a in spec.arguments) or "none"
            problems.append(
                f"{field} {name!r} is no argument of {spec.key} (its arguments: {known})"
            )
    return problems


def _act_problems(act: SemanticAct, operations: Operations) -> list[str]:
    if not _is_str_or_none(act.operation):
        return [f"operation is {_type(act.operation)}, not an operation key"]
    spec = operations(act.operation) if act.operation else None
    problems: list[str] = []
    target = _target_problem(act.target)
    if target:
        problems.append(target)
    problems += _words_problems("argument", act.args, spec)
    problems += _words_problems("evidence", act.evidence, spec)
    if act.operation is None and isinstance(act.args, Mapping) and act.args:
        problems.append("a cancellation (no operation) carries no arguments")
    if not isinstance(act.evidence_source, EvidenceSource):
        problems.append(f"evidence_source is {_type(act.evidence_source)}, not EvidenceSource")
    if not isinstance(act.hypothetical, bool):
        problems.append(f"hypothetical is {_type(act.hypothetical)}, not bool")
    return problems


def _item_problems(item: object, operations: Operations) -> list[str]:
    if isinstance(item, SemanticAct):
        return _act_problems(item, operations)
    if isinstance(item, Question):
        problems = []
        if not isinstance(item.topic, str) or not isinstance(item.basis, str):
            problems.append("topic and basis are strings")
        if item.target is not None and (why := _target_problem(item.target)):
            problems.append(why)
        return problems
    if isinstance(item, Constraint):
        if not isinstance(item.kind, ConstraintKind) or not isinstance(item.scope, ConstraintScope):
            return ["kind and scope are a ConstraintKind and a ConstraintScope"]
        return []
    if isinstance(item, CardAnswer):
        if not isinstance(item.interaction, str) or not isinstance(item.option, str):
            return ["interaction and option are strings"]
        return []
    return []  # pragma: no cover - the kinds are checked by the caller


_KINDS: tuple[tuple[str, type], ...] = (
    ("acts", SemanticAct),
    ("questions", Question),
    ("constraints", Constraint),
    ("card_answers", CardAnswer),
)


def contract_violations(
    understanding: object, operations: Operations
) -> tuple[ContractViolation, ...]:
    """Return every way ``understanding`` breaks the understander's contract (none: ``()``).

    Args:
        understanding: what an understander proposed (anything, checked from scratch).
        operations: the operation spec of a key, or ``None`` for a key nobody registers
            (an unknown operation is the reducer's to answer, ``unknown_operation``;
            only the argument names of known operations are checked).
    """
    if not isinstance(understanding, Understanding):
        return (ContractViolation("", f"is {_type(understanding)}, not an Understanding"),)
    out: list[ContractViolation] = []
    seen: set[str] = set()
    for field_name, kind in _KINDS:
        items = getattr(understanding, field_name)
        if not isinstance(items, tuple | list):
            out.append(ContractViolation("", f"{field_name} is {_type(items)}, not a tuple"))
            continue
        for n, item in enumerate(items):
            if not isinstance(item, kind):
                out.append(
                    ContractViolation(
                        "", f"{field_name}[{n}] is {_type(item)}, not a {kind.__name__}"
                    )
                )
                continue
            item_id: Any = item.id  # type: ignore[attr-defined]
            if not isinstance(item_id, str) or not item_id.strip():
                out.append(
                    ContractViolation("", f"{field_name}[{n}] has id {item_id!r}, not a name")
                )
                continue
            if item_id in RESERVED_IDS:
                out.append(ContractViolation(item_id, f"the id {item_id!r} is reserved"))
            elif _SEPARATOR in item_id:
                out.append(ContractViolation(item_id, f"an id may not contain {_SEPARATOR!r}"))
            elif item_id in seen:
                out.append(ContractViolation(item_id, f"the id {item_id!r} is given to two items"))
            seen.add(item_id)
            out.extend(ContractViolation(item_id, p) for p in _item_problems(item, operations))
    links = understanding.links
    if not isinstance(links, tuple | list):
        out.append(ContractViolation("", f"links is {_type(links)}, not a tuple"))
    else:
        for n, link in enumerate(links):
            if not isinstance(link, Link) or not isinstance(link.act, str):
                out.append(ContractViolation("", f"links[{n}] is not a Link from an act id"))
            elif not _is_str_or_none(link.corrects) or not _is_str_or_none(link.cancels):
                out.append(ContractViolation(link.act, f"links[{n}] names a non-string act"))
    notices = understanding.notices
    if not isinstance(notices, tuple | list) or not all(isinstance(c, str) for c in notices):
        out.append(ContractViolation("", "notices are a tuple of notice codes (str)"))
    return tuple(out)


def require_on_contract(understanding: object, operations: Operations) -> Understanding:
    """Return ``understanding`` when it keeps the contract.

    Raises:
        OffContractUnderstanding: naming the first act at fault and what is wrong.
    """
    violations = contract_violations(understanding, operations)
    if violations:
        raise OffContractUnderstanding(violations)
    assert isinstance(understanding, Understanding)
    return understanding


def on_contract(understanding: Understanding, operations: Operations) -> Understanding:
    """Return ``understanding`` without the items that break the contract.

    For the model chain: every item at fault is dropped — both items that share an id,
    with every link from or to an id at fault — and an ``unreadable`` notice tells the
    user part of the message could not be read; the rest of the turn goes ahead.

    Raises:
        OffContractUnderstanding: when the proposal as a whole is off contract (not an
            :class:`Understanding`, or a field that is not a tuple): nothing can be kept.
    """
    violations = contract_violations(understanding, operations)
    if not violations:
        return understanding
    fields = [name for name, _ in _KINDS] + ["links", "notices"]
    if not isinstance(understanding, Understanding) or any(
        not isinstance(getattr(understanding, name), tuple | list) for name in fields
    ):
        raise OffContractUnderstanding(violations)
    dropped = {v.item for v in violations if v.item}
    kept: dict[str, tuple[Any, ...]] = {}
    for field_name, kind in _KINDS:
        kept[field_name] = tuple(
            item
            for item in getattr(understanding, field_name)
            if isinstance(item, kind)
            and isinstance(item.id, str)  # type: ignore[attr-defined]
            and item.id.strip()  # type: ignore[attr-defined]
            and item.id not in dropped  # type: ignore[attr-defined]
        )
    links = tuple(
        link
        for link in understanding.links
        if isinstance(link, Link)
        and isinstance(link.act, str)
        and _is_str_or_none(link.corrects)
        and _is_str_or_none(link.cancels)
        and not {link.act, link.corrects, link.cancels} & dropped
    )
    notices = tuple(c for c in understanding.notices if isinstance(c, str))
    return replace(
        understanding,
        acts=kept["acts"],
        questions=kept["questions"],
        constraints=kept["constraints"],
        card_answers=kept["card_answers"],
        links=links,
        notices=tuple(dict.fromkeys((*notices, "unreadable"))),
    )
