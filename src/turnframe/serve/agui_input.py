"""An AG-UI run's input read as one Turnframe turn (docs/agui.md "From AG-UI to a turn").

An AG-UI client sends the whole conversation on every run; Turnframe keeps the
conversation itself, so only what is new is read: the run's last message. A user
message is the turn's text; a tool message answering a card's ``turnframe_card`` call
is the turn's click, validated as :class:`CardAnswer`. A click is never read from text: a
user who types an option's label sends text, which understanding reads like any other
words (I7: a client sends only card id, option id, expected revision and a free value).

Everything here is decided from the request alone, so every refusal is a
:class:`~turnframe.serve.errors.ProblemError` answered before any turn starts.
"""

from __future__ import annotations

import json
from typing import Any

from ag_ui.core import RunAgentInput, TextPart, ToolMessage, UserMessage
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from turnframe.serve.errors import ProblemError, problem
from turnframe.serve.models import ClickBody, TurnRequestBody

__all__ = [
    "CardAnswer",
    "MAX_ID_CHARS",
    "check_ids",
    "invalid",
    "turn_request",
]

MAX_ID_CHARS = 200
"""The longest ``threadId`` (the conversation id) and ``runId`` (the idempotency key)."""


def invalid(detail: str) -> ProblemError:
    """Return the 422 ``invalid_request`` error saying ``detail`` (raise it)."""
    return problem(422, "invalid_request", "Invalid request", detail)


class CardAnswer(BaseModel):
    """A card answered: a tool message's content for a ``turnframe_card`` call (I7).

    The content is a JSON object with exactly these keys (``value`` may be left out):

    Attributes:
        interaction_id: the card's id, as the call's arguments gave it.
        option_id: the option chosen (one of the arguments' ``options[].id``).
        expected_revision: the revision the card was shown against, as the arguments
            gave it (``null`` for a card bound to no record); required, so a client
            cannot click a card without saying which version it saw.
        value: a free value the option takes, else ``null``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    interaction_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    option_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    expected_revision: int | None
    value: str | None = Field(default=None, max_length=4096)

    def click(self) -> ClickBody:
        """Return the click as the ``/v1`` API takes it."""
        return ClickBody(
            interaction_id=self.interaction_id,
            option_id=self.option_id,
            expected_revision=self.expected_revision,
            value=self.value,
        )


class _Props(BaseModel):
    """The part of ``forwardedProps`` Turnframe reads (every other key is left alone)."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)

    locale: str | None = Field(default=None, min_length=1, max_length=35)


def check_ids(run: RunAgentInput) -> RunAgentInput:
    """Return ``run`` once its ids fit: they name a conversation and an idempotency key.

    Raises:
        ProblemError: 422 ``invalid_request``: ``threadId`` is not 1 to
            :data:`MAX_ID_CHARS` characters, or ``runId`` is not 1 to
            :data:`MAX_ID_CHARS` printable ASCII characters (as an ``Idempotency-Key``).
    """
    if not 1 <= len(run.thread_id) <= MAX_ID_CHARS:
        raise invalid(f"threadId must be 1 to {MAX_ID_CHARS} characters")
    key = run.run_id
    if not (1 <= len(key) <= MAX_ID_CHARS and key.isascii() and key.isprintable()):
        raise invalid(f"runId must be 1 to {MAX_ID_CHARS} printable ASCII characters")
    return run


def _summary(exc: ValidationError, shown: int = 3) -> str:
    parts = []
    for error in exc.errors(include_url=False, include_input=False)[:shown]:
        where = ".".join(str(p) for p in error["loc"]) or "body"
        parts.append(f"{where}: {error['msg']}")
    more = exc.error_count() - shown
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


def _text(message: UserMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    texts = []
    for part in message.content:
        if not isinstance(part, TextPart):
            raise invalid(f"user message {message.id!r}: only text parts are read, not {part.type}")
        texts.append(part.text)
    return "\n".join(texts)


def _answer(message: ToolMessage) -> CardAnswer:
    content = message.content
    if not isinstance(content, str):
        if not all(isinstance(p, TextPart) for p in content):
            raise invalid(f"tool message {message.id!r}: a card answer is one JSON text")
        content = "".join(p.text for p in content if isinstance(p, TextPart))
    try:
        data: Any = json.loads(content)
        return CardAnswer.model_validate(data)
    except (ValueError, ValidationError) as exc:
        why = _summary(exc) if isinstance(exc, ValidationError) else "not JSON"
        raise invalid(
            f"tool message {message.id!r} (call {message.tool_call_id!r}) is not a card "
            f"answer {{interaction_id, option_id, expected_revision}}: {why}"
        ) from None


def _locale(run: RunAgentInput) -> str | None:
    props = run.forwarded_props
    if not isinstance(props, dict) or "locale" not in props:
        return None
    try:
        return _Props.model_validate({"locale": props["locale"]}).locale
    except ValidationError:
        raise invalid(
            "forwardedProps.locale must be a locale tag such as 'en' or 'pt-PT'"
        ) from None


def turn_request(run: RunAgentInput, *, max_message_bytes: int) -> TurnRequestBody:
    """Return the turn an AG-UI run asks for (docs/agui.md "From AG-UI to a turn").

    A run reads one message, its last: a user message is the turn's text, a tool
    message is the turn's click (its content validated as :class:`CardAnswer`). Every
    message before it is either answered (an agent's message follows it) or was sent
    with a run that ended without a reply and is not run again: re-reading it would
    repeat a text's effects, or repeat a refused click and refuse every later run.

    Args:
        run: the parsed input.
        max_message_bytes: the longest text, in UTF-8 bytes.

    Returns:
        The body of the turn, with ``forwardedProps.locale``.

    Raises:
        ProblemError: 422 ``invalid_request`` (no message, a last message that is not the
            user's nor a tool's, an empty text, a tool message with ``error`` set or
            whose content is not a card answer, a non-text part); 413
            ``message_too_large`` (the text is over ``max_message_bytes``).
    """
    last = run.messages[-1] if run.messages else None
    locale = _locale(run)
    if isinstance(last, ToolMessage):
        if last.error is not None:
            raise invalid(
                f"tool message {last.id!r} declines its call ({last.error!r}): it is no "
                "click, and there is nothing else to run"
            )
        return TurnRequestBody(click=_answer(last).click(), locale=locale)
    if not isinstance(last, UserMessage):
        raise invalid(
            "the run carries nothing new: its last message must be the user's, or a tool "
            "message answering a turnframe_card call"
        )
    text = _text(last)
    if len(text.encode("utf-8")) > max_message_bytes:
        raise problem(
            413,
            "message_too_large",
            "Message too large",
            f"A message is at most {max_message_bytes} bytes of UTF-8.",
        )
    if not text.strip():
        raise invalid(f"user message {last.id!r} is empty")
    return TurnRequestBody(text=text, locale=locale)
