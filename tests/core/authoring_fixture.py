"""A small workflow written with the authoring kit, for the kit's tests."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from typing import Literal

from turnframe.core import (
    Command,
    Execution,
    ExecutionContext,
    Offer,
    Op,
    Refused,
    RiskClass,
    TypedCommand,
    Workflow,
    arg,
    confirm,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Note:
    """A note with a title, a body, a colour and a status."""

    title: str
    body: str = ""
    colour: Literal["red", "blue"] = "blue"
    status: Literal["draft", "published", "archived"] = "draft"


class Write(TypedCommand, operation="note.write", event="note.written"):
    title: str = arg(names_record=True, labels={"pt-PT": "título"})
    body: str = arg("", labels={"pt-PT": "texto"})


class Paint(TypedCommand, operation="note.paint", event="note.painted"):
    colour: Literal["red", "blue"] = arg(labels={"pt-PT": "cor"})


class Publish(TypedCommand, operation="note.publish", events=("note.published", "note.ping")):
    pass


class Archive(TypedCommand, operation="note.archive", event="note.archived"):
    pass


class NoteWorkflow(Workflow[Note]):
    name = "note"
    version = "note/1"
    state_type = Note
    locales = ("en", "pt-PT")
    label_fields = ("title", "colour")
    terminal = ("archived",)
    table = (
        Op(Write, "Write a note.", summaries={"pt-PT": "Escrever uma nota."}, creates_case=True),
        Op(Paint, "Paint the note.", summaries={"pt-PT": "Pintar a nota."}),
        Op(Publish, "Publish the note.", summaries={"pt-PT": "Publicar a nota."}),
        Op(
            Archive,
            "Archive the note.",
            summaries={"pt-PT": "Arquivar a nota."},
            policy=confirm(RiskClass.DESTRUCTIVE),
        ),
    )
    offers = {
        "new": ("note.write",),
        "draft": ("note.paint", Offer("note.publish", "editor"), "note.archive"),
        "published": ("note.paint", "note.archive"),
    }
    receipts = {
        "en": {
            "note.written": "Wrote note {title}.",
            "note.painted": "Painted {label} {colour}.",
            "note.published": "Published {title}.",
            "note.archived": "Archived {title}.",
        },
        "pt-PT": {
            "note.written": "Nota {title} escrita.",
            "note.painted": "{label} pintada de {colour}.",
            "note.published": "{title} publicada.",
            "note.archived": "{title} arquivada.",
        },
    }
    silent = ("note.ping",)
    words = {
        "en": {"refusal.red_published": "A published note can't turn red ({label})."},
        "pt-PT": {"refusal.red_published": "Uma nota publicada não pode ficar vermelha ({label})."},
    }

    def check(self, state: Note | None, command: Command, today: date) -> None:
        super().check(state, command, today)
        if isinstance(command, Paint) and state is not None:
            if state.status == "published" and command.colour == "red":
                raise Refused("red_published", state=state)

    def execute(
        self, state: Note | None, command: Command, ctx: ExecutionContext
    ) -> Execution[Note]:
        if isinstance(command, Write):
            return self.emit(Note(title=command.title, body=command.body), command)
        note = self.existing(state, command)
        if isinstance(command, Paint) and command.colour != note.colour:
            return self.emit(replace(note, colour=command.colour), command)
        if isinstance(command, Publish):
            return self.emit(replace(note, status="published"), command, event="note.published")
        if isinstance(command, Archive):
            return self.emit(replace(note, status="archived"), command)
        return self.unchanged(note)
