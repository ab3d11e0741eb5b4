"""Registration checks of the authoring kit that catch an adopter's typo before run time.

- An ``offers``, ``terminal`` or ``briefings`` key that is not a phase of the workflow
  (from the phase field's ``Literal``/``Enum``, ``new_phase`` or declared ``phases``) is a
  problem naming the workflow, the key, the known phases and a close match.
- A receipt placeholder that neither the state, ``label`` nor the event's payload (the
  command's fields plus ``payload_fields``) holds is a problem naming workflow, locale,
  event type, the placeholder and the available names.
- ``load_state`` refuses a value of the wrong type naming the field (a state ``execute``
  built wrongly is never read back silently).

See docs/authoring.md#registration and docs/authoring.md#state.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

import pytest
from authoring_fixture import Note, NoteWorkflow

from turnframe.core import DomainEvent, Op, TypedCommand, UsageError, WorkflowRegistry, arg
from turnframe.core.authoring import load_dataclass


def test_an_offers_key_that_is_no_phase_is_refused_with_a_close_match() -> None:
    class Typo(NoteWorkflow):
        offers = {**NoteWorkflow.offers, "drft": ("note.paint",)}
        terminal = ("archivd",)
        briefings = {"publishd": "Published."}

    problems = Typo().registration_problems(("en", "pt-PT"))
    known = "known: new, draft, published, archived"
    assert problems == [
        f"workflow 'note', offers['drft']: 'drft' is not a phase of the workflow ({known}); "
        "fix: did you mean 'draft'? (else declare it in phases)",
        f"workflow 'note', terminal['archivd']: 'archivd' is not a phase of the workflow "
        f"({known}); fix: did you mean 'archived'? (else declare it in phases)",
        f"workflow 'note', briefings['publishd']: 'publishd' is not a phase of the workflow "
        f"({known}); fix: did you mean 'published'? (else declare it in phases)",
    ]
    with pytest.raises(UsageError, match=r"offers\['drft'\]"):
        WorkflowRegistry([Typo()])
    assert NoteWorkflow().registration_problems(("en", "pt-PT")) == []


@dataclass(frozen=True, slots=True, kw_only=True)
class Loose:
    """A note whose phase field is a plain ``str``: its phases cannot be read off the type."""

    title: str
    status: str = "draft"


class Done(enum.StrEnum):
    DRAFT = "draft"
    SHIPPED = "shipped"


@dataclass(frozen=True, slots=True, kw_only=True)
class Enumerated:
    title: str
    status: Done | None = Done.DRAFT


def test_phases_come_from_a_declared_tuple_an_enum_or_not_at_all() -> None:
    from turnframe.core.authoring.phases import known_phases

    class Open(NoteWorkflow):
        state_type = Loose
        offers = {"new": ("note.write",), "drft": ("note.paint",)}
        label_fields = ("title",)

    assert known_phases(Open()) is None
    assert not [p for p in Open().registration_problems() if "phase" in p]

    class Declared(Open):
        phases = ("draft", "published")

    assert known_phases(Declared()) == ("new", "draft", "published")
    assert [p for p in Declared().registration_problems() if "'drft' is not a phase" in p]

    class Short(NoteWorkflow):
        phases = ("draft", "published")

    assert Short().registration_problems(("en", "pt-PT")) == [
        "workflow 'note', phases: lacks 'archived', which the type of 'status' allows; "
        "fix: add 'archived' to phases (or drop phases: the type lists them)",
        "workflow 'note', terminal['archived']: 'archived' is not a phase of the workflow "
        "(known: new, draft, published); fix: declare it in phases",
    ]

    class ByEnum(Open):
        state_type = Enumerated

    assert known_phases(ByEnum()) == ("new", "draft", "shipped")

    class Computed(NoteWorkflow):
        offers = {"drft": ()}

        def phase_of(self, state: Note) -> str:
            return "drft"

    assert known_phases(Computed()) is None


class Escalate(TypedCommand, operation="note.escalate", event="note.escalated"):
    level: int = arg(description="how far up", labels={"pt-PT": "nível"})


class WithEscalation(NoteWorkflow):
    table = (*NoteWorkflow.table, Op(Escalate, "Escalate.", summaries={"pt-PT": "Escalar."}))
    offers = {**NoteWorkflow.offers, "draft": (*NoteWorkflow.offers["draft"], "note.escalate")}
    receipts = {
        "en": {**NoteWorkflow.receipts["en"], "note.escalated": "{title}: tier {levle}."},
        "pt-PT": {**NoteWorkflow.receipts["pt-PT"], "note.escalated": "{label}: nível {level}."},
    }


def test_a_receipt_placeholder_the_event_and_state_lack_is_refused() -> None:
    problems = WithEscalation().registration_problems(("en", "pt-PT"))
    assert problems == [
        "workflow 'note', receipts['en']['note.escalated']: names {levle}, which neither the "
        "state nor the event's payload holds (available: body, colour, label, level, status, "
        "title); fix: did you mean 'level'? (else add 'levle' to "
        "payload_fields['note.escalated'] if execute puts it in the payload)"
    ]

    class Declared(WithEscalation):
        payload_fields = {"note.escalated": ("levle",)}

    assert Declared().registration_problems(("en", "pt-PT")) == []


def test_a_workflow_computing_its_receipt_params_is_not_checked_by_name() -> None:
    class Own(WithEscalation):
        def receipt_params(self, event: DomainEvent, state, locale: str) -> dict[str, object]:
            return {**super().receipt_params(event, state, locale), "levle": 1}

    assert Own().registration_problems(("en", "pt-PT")) == []


def test_load_checks_each_declared_field_type_naming_the_field() -> None:
    @dataclass(frozen=True)
    class Ticket:
        level: str = "1"
        count: int = 0
        price: Decimal = Decimal("0")
        due: date | None = None

    assert load_dataclass(Ticket, {"level": "3"}) == Ticket(level="3")
    for data, message in (
        ({"level": 3}, "Ticket.level: 3 is not a str"),
        ({"count": "3"}, "Ticket.count: '3' is not an int"),
        ({"count": True}, "Ticket.count: True is not an int"),
        ({"price": True}, "Ticket.price: True is not a Decimal"),
        ({"price": "NaN"}, "Ticket.price: 'NaN' is not a Decimal"),
        ({"due": "someday"}, "Ticket.due: 'someday' fits none of"),
    ):
        with pytest.raises(ValueError) as caught:
            load_dataclass(Ticket, data)
        assert str(caught.value).startswith(message), (data, caught.value)
