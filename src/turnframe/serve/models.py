"""The ``/v1`` API's wire shapes (docs/serving.md).

Request and response bodies are pydantic models; reply blocks, cards' options and turn
events are the runtime's own types (:data:`~turnframe.core.reply.ReplyBlock`,
:data:`~turnframe.core.turn.TurnEvent`), so the OpenAPI document is generated from the
same models the runtime persists and returns.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from turnframe.core.reply import ReplyBlock

__all__ = [
    "ActorView",
    "CardOptionView",
    "CardView",
    "ClickBody",
    "ClickInputView",
    "ConversationTurn",
    "ConversationView",
    "CardsView",
    "Problem",
    "SessionView",
    "TurnInputView",
    "TurnRequestBody",
    "TurnView",
]


class _Wire(BaseModel):
    """Base of every wire model: unknown fields are refused, values are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ClickBody(_Wire):
    """A card click: which card, which option, on what revision (I5–I7).

    Attributes:
        interaction_id: the card's id, as the ``interaction`` block gave it.
        option_id: the option clicked (one of the block's ``options[].id``).
        expected_revision: the revision the card was shown against (the block's
            ``expected_revision``); ``null`` for a card bound to no record.
        value: a free value the option takes (``free_value``), else ``null``.
    """

    interaction_id: str = Field(min_length=1, max_length=200)
    option_id: str = Field(min_length=1, max_length=200)
    expected_revision: int | None = None
    value: str | None = Field(default=None, max_length=4096)


class TurnRequestBody(_Wire):
    """Start a turn: text, a click, or both (``TurnInput``).

    Attributes:
        text: the user's message (at most the server's ``max_message_bytes`` in UTF-8).
        click: a card click.
        locale: the reply's locale (one the application serves); ``null``: the
            application's default.
    """

    text: str | None = None
    click: ClickBody | None = None
    locale: str | None = Field(default=None, max_length=35)


class TurnView(_Wire):
    """A turn's reply, exactly as persisted, and where to look further.

    Attributes:
        turn_id: the turn.
        conversation_id: its conversation.
        blocks: the reply's blocks in order (guide order; I15: only committed claims).
        model_calls: model calls understanding made (0 for a click).
        reply_calls: model calls the reply's words took.
        inspect: the path of the turn's inspection record (``/v1/turns/{id}/inspection``).
    """

    turn_id: str
    conversation_id: str
    blocks: list[ReplyBlock]
    model_calls: int = 0
    reply_calls: int = 0
    inspect: str


class ClickInputView(_Wire):
    """The card click a turn answered, as the user saw it (docs/serving.md "Reload").

    Attributes:
        interaction_id: the card clicked.
        option_id: the option chosen.
        label: that option's label, from the card as drawn in the conversation or as the
            store still holds it; ``None`` when neither has it.
    """

    interaction_id: str
    option_id: str
    label: str | None = None


class TurnInputView(_Wire):
    """What the user sent in a turn, read from the stored turn record.

    Attributes:
        text: the message typed, or ``None`` (a click-only turn).
        click: the card click, or ``None``.
    """

    text: str | None = None
    click: ClickInputView | None = None


class ConversationTurn(_Wire):
    """One replied turn of a conversation: what the user sent and the blocks returned.

    Attributes:
        turn_id: the turn (the id it is stored under).
        input: the user's text and/or click; ``None`` when the stored record has none.
        blocks: the reply, exactly as returned.
    """

    turn_id: str
    input: TurnInputView | None = None
    blocks: list[ReplyBlock]


class ConversationView(_Wire):
    """A conversation reloaded: every replied turn's blocks, oldest first."""

    conversation_id: str
    turns: list[ConversationTurn]


class CardOptionView(_Wire):
    """One option of a card, as the user sees it."""

    id: str
    label: str


class CardView(_Wire):
    """A card as a client shows it (no server-side meaning, I7).

    Attributes:
        interaction_id: the card.
        conversation_id: its conversation.
        turn_id: the turn that drew it.
        kind: ``select_target``, ``confirm``, ``review`` or ``choice``.
        prompt: the question it asks.
        options: what may be clicked.
        expected_revision: the revision it is bound to (send it back with a click).
        status: ``open``, ``resolved``, ``declined``, ``superseded``, ``stale`` or
            ``withdrawn`` (only ``open`` may be clicked to effect).
        resolution: the option it was resolved with, or ``null``.
    """

    interaction_id: str
    conversation_id: str
    turn_id: str
    kind: str
    prompt: str
    options: list[CardOptionView]
    expected_revision: int | None = None
    status: str
    resolution: dict[str, Any] | None = None


class CardsView(_Wire):
    """A conversation's open cards."""

    cards: list[CardView]


class ActorView(_Wire):
    """Who is acting (from the server's authenticator; never from the request body)."""

    account: str
    user: str


class SessionView(_Wire):
    """What the web chat needs before its first turn.

    Attributes:
        app: the application's name.
        actor: who is acting.
        csrf_token: send it as ``X-CSRF-Token`` on every state-changing request.
        locales: the locales the application serves; ``default_locale`` first.
        default_locale: the application's default.
        max_message_bytes: the longest message, in UTF-8 bytes (413 beyond).
        suggestions: messages the understanding in use can read (a scripted tour's),
            else empty.
    """

    app: str
    actor: ActorView
    csrf_token: str
    locales: list[str]
    default_locale: str
    max_message_bytes: int
    suggestions: list[str] = Field(default_factory=list)


class Problem(_Wire):
    """An error, as problem-details JSON (RFC 9457) with a stable ``code``.

    Attributes:
        type: ``about:blank`` (the ``code`` is what a client branches on).
        title: a short summary.
        status: the HTTP status.
        code: stable, snake_case (docs/serving.md lists every code).
        detail: what happened, for a person.
    """

    type: Literal["about:blank"] = "about:blank"
    title: str
    status: int
    code: str
    detail: str
