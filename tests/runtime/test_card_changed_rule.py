"""The comparison a Confirm or Approve click makes (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md rule 10).

Every pending act compiled: the commands must be the card's, in order. Some act refused:
those that compiled must still be, in order, among the card's.
"""

from __future__ import annotations

from typing import Any

from turnframe.core.acts import SemanticAct
from turnframe.core.commands import Command
from turnframe.core.interactions import (
    InteractionKind,
    InteractionOption,
    InteractionSpec,
    OptionMeaning,
    ProposedCommand,
)
from turnframe.runtime.plan import ActInput
from turnframe.runtime.reduce.clicks import _changed


class _Cmd:
    """A command with an operation and its JSON (all ``_changed`` reads)."""

    def __init__(self, operation: str, **arguments: Any) -> None:
        self.operation = operation
        self.arguments = arguments

    def to_json(self) -> dict[str, Any]:
        return dict(self.arguments)


def _spec(*shown: tuple[str, dict[str, Any]]) -> InteractionSpec:
    return InteractionSpec(
        kind=InteractionKind.CONFIRM,
        case=None,
        prompt="",
        options=(InteractionOption(id="confirm", label="Confirm", meaning=OptionMeaning.CONFIRM),),
        commands=tuple(ProposedCommand(operation=op, arguments=a, text=op) for op, a in shown),
    )


def _pending(*ids: str) -> tuple[ActInput, ...]:
    return tuple(ActInput(act=SemanticAct(id=i, operation="q.op"), resolution=None) for i in ids)


def _compiled(*items: tuple[str, Any]) -> list[tuple[str, tuple[Command, ...]]]:
    return [(act, tuple(commands)) for act, commands in items]


SPEC = _spec(("q.a", {"rate": 1, "on": "2026-03-02"}), ("q.b", {"n": 2}))


def test_the_same_commands_in_the_same_order_are_unchanged() -> None:
    got = _compiled(("a1", [_Cmd("q.a", on="2026-03-02", rate=1)]), ("a2", [_Cmd("q.b", n=2)]))
    assert not _changed(SPEC, _pending("a1", "a2"), got)  # key order does not matter


def test_a_changed_argument_another_order_or_an_extra_command_is_changed() -> None:
    pending = _pending("a1", "a2")
    later = _compiled(("a1", [_Cmd("q.a", rate=1, on="2026-03-03")]), ("a2", [_Cmd("q.b", n=2)]))
    swapped = _compiled(("a2", [_Cmd("q.b", n=2)]), ("a1", [_Cmd("q.a", rate=1, on="2026-03-02")]))
    extra = _compiled(
        ("a1", [_Cmd("q.a", rate=1, on="2026-03-02"), _Cmd("q.c")]), ("a2", [_Cmd("q.b", n=2)])
    )
    assert _changed(SPEC, pending, later)
    assert _changed(SPEC, pending, swapped)
    assert _changed(SPEC, pending, extra)


def test_with_a_refused_act_the_others_must_still_be_among_the_cards() -> None:
    pending = _pending("a1", "a2")
    assert not _changed(SPEC, pending, _compiled(("a2", [_Cmd("q.b", n=2)])))
    assert not _changed(SPEC, pending, [])  # all refused: nothing commits anyway
    assert _changed(SPEC, pending, _compiled(("a2", [_Cmd("q.b", n=3)])))


def test_a_card_stored_without_commands_differs_from_any_compiled_command() -> None:
    got = _compiled(("a1", [_Cmd("q.a", rate=1)]))
    assert _changed(_spec(), _pending("a1"), got)
