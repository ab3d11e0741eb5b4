"""What an understanding task may see of a turn (docs/architecture.md "One turn" step 3, I1, I2).

A :class:`Brief` holds opaque per-turn handles with labels, the operations on offer,
the cards on screen, each record's phase, obligations and briefing, and the glossary of
the workflows on offer. It never holds a database identifier:
:class:`~turnframe.core.ids.CaseRef` values stay in the runtime's handle table. Which
records it holds, and how much of their briefings travels (:class:`BriefingBudget`, a cut
always marked), is docs/adr/0020-what-a-brief-shows.md.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from turnframe.core.acts import SemanticAct
from turnframe.core.canonical import to_json_value
from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import UsageError
from turnframe.core.glossary import GlossaryEntry
from turnframe.core.ids import JSONObject
from turnframe.core.operations import ArgumentKind, ArgumentSpec, OperationSpec

__all__ = [
    "BRIEFING_CUT_MARK",
    "RECORDS_CUT_NOTE",
    "AskedFor",
    "Brief",
    "BriefCard",
    "BriefPending",
    "BriefRecord",
    "BriefingBudget",
    "DomainCheck",
    "StepListener",
    "brief_from_json",
    "brief_to_json",
]

DomainCheck = Callable[[SemanticAct], Awaitable["str | None"]]
"""The runtime's domain check: checks an act as the workflow would

See docs/architecture.md "One turn" step 5.

compile it and returns the domain's refusal sentence, or ``None`` when it would pass."""

StepListener = Callable[[str, str, "int | None"], None]
"""Called with (step name, detail, count) as each understanding step is decided
(``TurnEvent.Step``): ``count`` is a typed count of the step's result (the units read by
segment), ``None`` when the step has none; narration reads it, never the detail."""


BRIEFING_CUT_MARK = " [cut]"
"""What ends a briefing the budget cut, as a task is shown it (``BriefRecord.briefing_cut``
says how many characters were left out)."""

RECORDS_CUT_NOTE = (
    "not every record of the account is listed: a record the user names that is not"
    " listed is named by the user's words"
)
"""What a task is shown beside the records when ``Brief.records_cut`` (the default view
was cut at ``BriefLimits.recent``; docs/adr/0020-what-a-brief-shows.md): never silent."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class BriefingBudget:
    """How much of the records' briefings travels in one brief.

    See docs/architecture.md "One turn" step 3.

    A deployment sets it on :class:`~turnframe.runtime.app.Application`
    (``briefing_budget``); the runtime applies it while building the brief, in the
    brief's record order. A briefing over its share is cut at a word boundary and the cut
    is marked: ``BriefRecord.briefing_cut`` holds the number of characters left out, the
    brief records it, and a task sees the briefing end with :data:`BRIEFING_CUT_MARK`
    (docs/adr/0020-what-a-brief-shows.md). Never silent.

    Attributes:
        per_record: the most characters of one record's briefing (>= 0).
        total: the most characters of all the brief's briefings together (>= 0); a
            record after the total is spent gets an empty briefing, marked as cut.

    Raises:
        UsageError: when a limit is not a non-negative int.
    """

    per_record: int = 800
    total: int = 8000

    def __post_init__(self) -> None:
        for name in ("per_record", "total"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise UsageError(f"BriefingBudget.{name} must be an int >= 0, got {value!r}")

    def cut(self, briefings: Sequence[str]) -> tuple[tuple[str, int], ...]:
        """Return, per briefing in order, (the text that travels, characters cut).

        A cut text is the longest prefix that fits, shortened to the last whole word
        when the limit falls inside one (to nothing when no whole word fits), with
        trailing space removed; the count is the
        original length minus the length kept (0 = the whole briefing travels).
        """
        left = self.total
        out: list[tuple[str, int]] = []
        for text in briefings:
            limit = min(self.per_record, left)
            if len(text) <= limit:
                kept = text
            else:
                kept = text[:limit]
                if not text[limit].isspace():
                    # Never half a word: back to the last space (none: nothing of it).
                    kept = kept[: kept.rindex(" ")] if " " in kept else ""
                kept = kept.rstrip()
            left -= len(kept)
            out.append((kept, len(text) - len(kept)))
        return tuple(out)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class BriefRecord:
    """A record in view, as a model may see it.

    Attributes:
        handle: the opaque per-turn handle.
        workflow: the workflow name.
        label: the candidate label.
        phase: its phase.
        obligations: ids of its open obligations.
        offered: operation keys it offers.
        briefing: server-authored guidance for its view (never user text), as much of
            it as the :class:`BriefingBudget` let travel.
        briefing_cut: how many characters of the briefing the budget left out (0: the
            whole briefing travels); a task sees a cut briefing end with
            :data:`BRIEFING_CUT_MARK`.
    """

    handle: str
    workflow: str
    label: str
    phase: str
    obligations: tuple[str, ...] = ()
    offered: tuple[str, ...] = ()
    briefing: str = ""
    briefing_cut: int = 0


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class BriefPending:
    """A pending act of an earlier turn that this turn's words may cancel or correct.

    Attributes:
        ref: the id a link names it by (``<card id>:<act id>`` for an act on a card on
            screen, the carried act's id for an act waiting for a record); an offered
            value of the link fields, like a handle (ADR 0012).
        operation: its operation key.
        summary: the operation's summary in the turn's locale (server-written).
    """

    ref: str
    operation: str
    summary: str = ""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class BriefCard:
    """A card on screen, as a model may see it.

    Attributes:
        interaction_id: the card's id.
        kind: the card's kind.
        prompt: its question.
        options: option ids with labels.
        acts: the pending acts it carries, each a link may name (ADR 0012).
    """

    interaction_id: str
    kind: str
    prompt: str
    options: tuple[tuple[str, str], ...]
    acts: tuple[BriefPending, ...] = ()


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class AskedFor:
    """What the last reply asked for, so the next message is read as its answer.

    Attributes:
        operation: the operation that would take the answer (an act waiting for a value,
            or the one that discharges the obligation asked about), if any.
        argument: the argument the waiting act asked for, if it asked for one.
        record: the handle of the record the question was about, when it is in view.
    """

    operation: str | None = None
    argument: str | None = None
    record: str | None = None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Brief:
    """Everything understanding may read for one turn.

    Attributes:
        turn_id: the turn.
        text: the user's words.
        locale: the user's locale.
        today: the turn's today, ISO format.
        records: the records in view.
        creatable: operation keys that create a new record.
        cards: the open cards on screen.
        waiting: the acts carried from earlier replies, waiting for a record (ADR 0007).
        asked: what the last reply asked for, if anything (its server-written question).
        asked_for: the operation, argument and record that question was for.
        handles: every handle of the turn.
        operations: the specs of every operation on offer (summaries, argument labels).
        topics: the knowledge topics questions may name.
        topic_notes: (topic, what it answers) for topics whose source describes them,
            so a question is routed by meaning, not by a bare name (docs/adr/0018).
        glossary: what the domain's own words mean, from the glossaries of the
            workflows on offer, in the turn's language (docs/adr/0020).
        unlisted: the user's words that name more records than the brief lists (their
            records are not offered as handles; a mention of them is found by words,
            so it is never resolved to the one record that happened to be listed;
            docs/adr/0020).
        records_cut: the account holds records changed earlier than those ``records``
            lists and named by none of the turn's words (the default view was cut at
            ``BriefLimits.recent``; docs/adr/0020); a task is shown
            :data:`RECORDS_CUT_NOTE` so it names such a record by the user's words, never
            by a listed handle that merely looks close.
        effort: ``low``, ``medium`` or ``high``; ``None`` for the understander's default.
        check: the runtime's domain check, when it offers one (not data; never shown).
        on_step: the runtime's step listener (not data; never shown).
    """

    turn_id: str
    text: str
    locale: str
    today: str
    records: tuple[BriefRecord, ...] = ()
    creatable: tuple[str, ...] = ()
    cards: tuple[BriefCard, ...] = ()
    waiting: tuple[BriefPending, ...] = ()
    asked: str | None = None
    asked_for: AskedFor | None = None
    handles: tuple[str, ...] = field(default=())
    operations: tuple[OperationSpec, ...] = ()
    topics: tuple[str, ...] = ()
    topic_notes: tuple[tuple[str, str], ...] = ()
    glossary: tuple[GlossaryEntry, ...] = ()
    unlisted: tuple[str, ...] = ()
    records_cut: bool = False
    effort: str | None = None
    check: DomainCheck | None = field(default=None, compare=False, repr=False)
    on_step: StepListener | None = field(default=None, compare=False, repr=False)

    def offered_operations(self) -> tuple[str, ...]:
        """Return every operation key on offer in this brief (the closed catalog, I2)."""
        seen: dict[str, None] = dict.fromkeys(self.creatable)
        for record in self.records:
            seen.update(dict.fromkeys(record.offered))
        return tuple(seen)

    def pending_refs(self) -> tuple[str, ...]:
        """Return the ids of the earlier turns' pending acts a link may name (ADR 0012)."""
        return tuple(a.ref for c in self.cards for a in c.acts) + tuple(w.ref for w in self.waiting)

    def operation(self, key: str) -> OperationSpec | None:
        """Return the spec of offered operation ``key``, or ``None``."""
        return next((op for op in self.operations if op.key == key), None)


def brief_to_json(brief: Brief) -> JSONObject:
    """Return the brief as JSON for the replay record (the runtime's callbacks left out)."""
    data = {
        f.name: to_json_value(getattr(brief, f.name))
        for f in fields(brief)
        if f.name not in ("check", "on_step")
    }
    return data


def brief_from_json(data: JSONObject) -> Brief:
    """Return the brief a replay record holds (inverse of :func:`brief_to_json`)."""

    def arg(a: Any) -> ArgumentSpec:
        return ArgumentSpec(
            name=a["name"],
            kind=ArgumentKind(a["kind"]),
            required=bool(a["required"]),
            choices=tuple(a["choices"]),
            record_workflow=a["record_workflow"],
            label=a["label"],
            description=a["description"],
            labels=dict(a["labels"]),
            literals=tuple(a["literals"]),
            names_record=bool(a.get("names_record", False)),
        )

    raw: Any = data
    return Brief(
        turn_id=raw["turn_id"],
        text=raw["text"],
        locale=raw["locale"],
        today=raw["today"],
        records=tuple(
            BriefRecord(
                handle=r["handle"],
                workflow=r["workflow"],
                label=r["label"],
                phase=r["phase"],
                obligations=tuple(r["obligations"]),
                offered=tuple(r["offered"]),
                briefing=r["briefing"],
                briefing_cut=int(r.get("briefing_cut", 0)),
            )
            for r in raw["records"]
        ),
        creatable=tuple(raw["creatable"]),
        cards=tuple(
            BriefCard(
                interaction_id=c["interaction_id"],
                kind=c["kind"],
                prompt=c["prompt"],
                options=tuple((o[0], o[1]) for o in c["options"]),
                acts=tuple(BriefPending(**a) for a in c.get("acts", ())),
            )
            for c in raw["cards"]
        ),
        waiting=tuple(BriefPending(**w) for w in raw.get("waiting", ())),
        asked=raw["asked"],
        asked_for=AskedFor(**raw["asked_for"]) if raw.get("asked_for") else None,
        handles=tuple(raw["handles"]),
        operations=tuple(
            OperationSpec(
                key=o["key"],
                workflow=o["workflow"],
                summary=o["summary"],
                arguments=tuple(arg(a) for a in o["arguments"]),
                summaries=dict(o["summaries"]),
                creates_case=bool(o["creates_case"]),
                submission=bool(o["submission"]),
            )
            for o in raw["operations"]
        ),
        topics=tuple(raw["topics"]),
        topic_notes=tuple((n[0], n[1]) for n in raw.get("topic_notes", ())),
        glossary=tuple(GlossaryEntry(**g) for g in raw.get("glossary", ())),
        unlisted=tuple(raw.get("unlisted", ())),
        records_cut=bool(raw.get("records_cut", False)),
        effort=raw["effort"],
    )
