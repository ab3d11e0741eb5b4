"""The argument values the explorer tries for each operation (docs/explorer.md "Argument values").

A workflow may supply its own values through an optional ``explore_values(operation,
argument)`` hook (a sequence of evaluated values, or ``None`` for the defaults below).
Otherwise each :class:`~turnframe.core.operations.ArgumentKind` has a small fixed set,
chosen so the same run always explores the same states (a drawn value would make two
runs of one suite disagree):

- ``TEXT``: ``"Alpha"`` and ``"Beta"`` (so a rename changes something);
  ``EMAIL``: ``"alpha@example.com"``;
- ``DATE``: today + 30 days and today + 33 days (so an ordered pair and its reverse);
- ``INTEGER``: ``0`` and ``2``; ``NUMBER``: ``0`` and ``2.5``; ``AMOUNT``: ``12.50`` and
  ``0`` without a currency (the domain decides);
- ``CHOICE``: every choice; ``RECORD``: one record of the argument's workflow and every
  literal (``"company"``); ``PART``: the parts ``find_parts`` offers for empty words.

An optional argument is also tried absent. The mappings of one operation try every
value of every argument at least once (:func:`combinations`), at most
:data:`MAX_COMBINATIONS` of them.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from turnframe.core.errors import DomainError
from turnframe.core.ids import CaseRef
from turnframe.core.operations import ArgumentKind, ArgumentSpec, OperationSpec
from turnframe.core.workflow import Amount, ArgValue, ErasedWorkflow, Refusal

__all__ = ["MAX_COMBINATIONS", "RECORD_ID", "argument_values", "combinations"]

MAX_COMBINATIONS = 64
"""The most argument combinations tried for one operation on one state."""

RECORD_ID = "explore-1"
"""The case id of the record a ``RECORD`` argument is given (of the argument's workflow)."""


def argument_values(
    workflow: ErasedWorkflow,
    state: Any,
    operation: OperationSpec,
    argument: ArgumentSpec,
    today: date,
    locale: str,
) -> tuple[ArgValue, ...]:
    """Return the values to try for ``argument`` of ``operation`` on ``state``.

    The workflow's ``explore_values`` hook first (when it answers a sequence), else the
    kind's defaults of the module docstring.

    Raises:
        DomainError: when the workflow's ``explore_values`` or ``find_parts`` raises, or
            ``explore_values`` answers something other than ``None`` or a list or tuple
            of evaluated values (:data:`~turnframe.core.workflow.ArgValue`).
    """
    hook = getattr(workflow.definition, "explore_values", None)
    if callable(hook):
        given = hook(operation, argument)
        if given is not None:
            return _hook_values(workflow.name, operation, argument, given)
    kind = argument.kind
    if kind is ArgumentKind.TEXT:
        return ("Alpha", "Beta")
    if kind is ArgumentKind.EMAIL:
        return ("alpha@example.com",)
    if kind is ArgumentKind.DATE:
        return (today + timedelta(days=30), today + timedelta(days=33))
    if kind is ArgumentKind.INTEGER:
        return (0, 2)
    if kind is ArgumentKind.NUMBER:
        return (Decimal("0"), Decimal("2.5"))
    if kind is ArgumentKind.AMOUNT:
        return (Amount(value=Decimal("12.50")), Amount(value=Decimal("0")))
    if kind is ArgumentKind.CHOICE:
        return tuple(argument.choices)
    if kind is ArgumentKind.RECORD:
        record = CaseRef(argument.record_workflow or operation.workflow, RECORD_ID)
        return (record, *argument.literals)
    if kind is ArgumentKind.PART:
        if state is None:
            return ()
        found = workflow.find_parts(state, operation, argument, "", locale)
        return () if isinstance(found, Refusal) else tuple(c.id for c in found)
    return ()  # pragma: no cover - the enum is closed


_VALUE_TYPES = (str, int, Decimal, Amount, date, CaseRef)
"""The types of an evaluated value (``ArgValue``), which the hook's answer must hold."""


def _hook_values(
    workflow: str, operation: OperationSpec, argument: ArgumentSpec, given: object
) -> tuple[ArgValue, ...]:
    """Return the hook's answer as values, or raise ``DomainError`` for an answer of no use.

    A string is refused rather than read as its characters, and a value must be one an
    evaluation gives (a ``bool`` or ``float`` is not), so a slip in the hook is a finding
    naming it instead of a traceback from deep in the walk.
    """
    where = f"explore_values({operation.key!r}, {argument.name!r})"
    if not isinstance(given, list | tuple):
        cause = TypeError(f"{where} answered a {type(given).__name__}, not a list or tuple")
        raise DomainError(workflow, "explore_values", cause) from cause
    for value in given:
        if isinstance(value, bool | float) or not isinstance(value, _VALUE_TYPES):
            cause = TypeError(
                f"{where} answered a {type(value).__name__} value; give str, int, Decimal, "
                "Amount, date or CaseRef"
            )
            raise DomainError(workflow, "explore_values", cause) from cause
    return tuple(given)


def combinations(
    arguments: Sequence[ArgumentSpec], values: Sequence[Sequence[ArgValue]]
) -> list[dict[str, ArgValue]]:
    """Return the argument mappings to try: every value of every argument at least once.

    The base mapping gives each required argument its first value and leaves every
    optional one absent; then every optional argument is given its first value at
    once; then each argument in turn takes each of its values, the others as in the
    base (one factor at a time: the number of mappings grows with the sum of the
    values, not their product, and an ordered pair of dates is still tried both ways).

    Args:
        arguments: the operation's argument specs.
        values: per argument (same order), its values; a required argument with no
            value makes the operation untried (``[]``).

    Returns:
        At most :data:`MAX_COMBINATIONS` distinct mappings (name → value; an absent
        optional argument is left out), in that order.
    """
    base: dict[str, ArgValue] = {}
    for spec, given in zip(arguments, values, strict=True):
        if spec.required:
            if not given:
                return []
            base[spec.name] = given[0]
    every = dict(base)
    for spec, given in zip(arguments, values, strict=True):
        if not spec.required and given:
            every[spec.name] = given[0]
    found: list[dict[str, ArgValue]] = [base, every]
    for spec, given in zip(arguments, values, strict=True):
        for value in given:
            found.append({**base, spec.name: value})
    unique: dict[str, dict[str, ArgValue]] = {}
    for mapping in found:
        unique.setdefault(repr(sorted(mapping.items(), key=lambda kv: kv[0])), mapping)
    return list(itertools.islice(unique.values(), MAX_COMBINATIONS))
