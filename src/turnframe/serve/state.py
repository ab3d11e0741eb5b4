"""What the routes share: the turn service, the authenticator and the server's settings.

Every route reads ``request.app.state.turnframe`` (:class:`ServeState`). The turn service
runs each turn as a server-side task, so a client that disconnects never cancels a turn
half-way; a client streams a turn by reading :meth:`LiveTurn.events` (docs/serving.md).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from starlette.requests import Request

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import Actor
from turnframe.core.turn import TurnEvent
from turnframe.serve.models import (
    CardView,
    ConversationView,
    Problem,
    TurnRequestBody,
    TurnView,
)

__all__ = ["Authenticator", "LiveTurn", "ServeConfig", "ServeState", "StreamEvent", "TurnService"]

Authenticator = Callable[[Request], Awaitable[Actor]]
"""Who is acting: given the request, the actor, or a raised refusal (401/403 problem)."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class StreamEvent:
    """One event of a turn's stream.

    Attributes:
        seq: its position in the turn's stream, from 1 (the SSE ``id``).
        event: the runtime's event, or the problem that ended the turn (then last).
    """

    seq: int
    event: TurnEvent | Problem


class LiveTurn(Protocol):
    """A turn the service started (or found running, or finished, under the same key)."""

    turn_id: str
    conversation_id: str

    def events(self, after: int = 0) -> AsyncIterator[StreamEvent]:
        """Yield the turn's events with ``seq > after``: those already past, then live ones.

        Phases and steps as they happen, then one ``blocks`` event (only after commit),
        then ``finished``; a turn that failed ends with a :class:`Problem` instead.
        """
        ...

    async def result(self) -> TurnView:
        """Wait for the turn and return its reply.

        Raises:
            ProblemError: the turn failed (its problem).
        """
        ...


class TurnService(Protocol):
    """Runs and reads turns for authenticated actors (all reads scoped to the account)."""

    async def start_turn(
        self,
        actor: Actor,
        conversation_id: str,
        body: TurnRequestBody,
        *,
        idempotency_key: str | None,
    ) -> LiveTurn:
        """Start a turn, or return the one ``idempotency_key`` already names (never a second).

        Raises:
            ProblemError: an invalid body, a card that is not this account's (``not_found``),
                a key reused with another body, too many turns running for the actor.
        """
        ...

    async def live_turn(self, actor: Actor, turn_id: str) -> LiveTurn:
        """Return a started or finished turn of this account, to stream the rest of.

        Raises:
            ProblemError: ``not_found`` (another account's turn is not found either).
        """
        ...

    async def conversation(self, actor: Actor, conversation_id: str) -> ConversationView:
        """Return every replied turn's blocks, exactly as returned.

        Raises:
            ProblemError: ``not_found``.
        """
        ...

    async def open_cards(self, actor: Actor, conversation_id: str) -> list[CardView]:
        """Return the conversation's open cards (empty for an unknown conversation)."""
        ...

    async def card(self, actor: Actor, interaction_id: str) -> CardView:
        """Return one card of this account.

        Raises:
            ProblemError: ``not_found``.
        """
        ...


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ServeConfig:
    """The server's settings.

    Attributes:
        max_message_bytes: the longest message text, in UTF-8 bytes (413 beyond).
        max_body_bytes: the longest request body, in bytes (413 beyond).
        max_turns_per_actor: turns one actor may have running at once (429 beyond).
        inspector: the turn inspector's routes are served.
        loopback_only: the server is bound to a loopback address only.
        turn_wait_seconds: how long a request for a turn another worker (or an earlier
            process) is still running waits for its reply before ``turn_in_progress``.
        locale: the turns' locale when a request names none (``None``: the
            application's default).
        recover_every_seconds: how often a worker looks for turns a crashed worker left
            (on a store that can take turns over); ``None``: never.
        recover_idle_seconds: how long a turn must be unchanged to be taken over.
        turns_kept: finished turns kept in memory per process (older ones are read from
            the store).
    """

    max_message_bytes: int = 16 * 1024
    max_body_bytes: int = 64 * 1024
    max_turns_per_actor: int = 4
    inspector: bool = True
    loopback_only: bool = True
    turn_wait_seconds: float = 30.0
    locale: str | None = None
    turns_kept: int = 2048
    recover_every_seconds: float | None = 10.0
    recover_idle_seconds: float = 60.0


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ServeState:
    """``request.app.state.turnframe``: what every route reads.

    Attributes:
        service: runs and reads turns.
        authenticate: who is acting.
        config: the server's settings.
    """

    service: TurnService
    authenticate: Authenticator
    config: ServeConfig
