"""What an understanding task may see of a turn (guide §2 step 3, I1, I2).

A :class:`Brief` holds opaque per-turn handles with labels, the operations on offer,
the cards on screen and each record's phase, obligations and briefing. It never holds a
database identifier: :class:`~turnframe.core.ids.CaseRef` values stay in the runtime's
handle table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Brief", "BriefCard", "BriefRecord"]


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
        briefing: server-authored guidance for its view (never user text).
    """

    handle: str
    workflow: str
    label: str
    phase: str
    obligations: tuple[str, ...] = ()
    offered: tuple[str, ...] = ()
    briefing: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class BriefCard:
    """A card on screen, as a model may see it.

    Attributes:
        interaction_id: the card's id.
        kind: the card's kind.
        prompt: its question.
        options: option ids with labels.
    """

    interaction_id: str
    kind: str
    prompt: str
    options: tuple[tuple[str, str], ...]


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
        asked: what the last reply asked for, if anything.
    """

    turn_id: str
    text: str
    locale: str
    today: str
    records: tuple[BriefRecord, ...] = ()
    creatable: tuple[str, ...] = ()
    cards: tuple[BriefCard, ...] = ()
    asked: str | None = None
    handles: tuple[str, ...] = field(default=())

    def offered_operations(self) -> tuple[str, ...]:
        """Return every operation key on offer in this brief (the closed catalog, I2)."""
        seen: dict[str, None] = dict.fromkeys(self.creatable)
        for record in self.records:
            seen.update(dict.fromkeys(record.offered))
        return tuple(seen)
