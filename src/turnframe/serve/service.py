"""The turn service: every turn runs as a server-side task, streamed from its buffer.

:class:`RuntimeTurnService` implements :class:`~turnframe.serve.state.TurnService` over a
:class:`~turnframe.runtime.Runtime`. A turn runs in the task group the server's lifespan
owns, so a client that disconnects never cancels it (docs/serving.md "Streaming"); its
events go to a :class:`~turnframe.serve.live.BufferedTurn` through ``run_turn(on_event=)``.
Each message is read with the understander the reader gives for it, passed per turn
(``run_turn(understander=, reply_writer=)``): turns run concurrently, so the runtime's
attributes are never set. Idempotency, the per-actor bound and turns of other workers are
docs/serving.md "Idempotency" and "Limits".
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import anyio
from anyio.abc import TaskGroup

from turnframe.core.acts import Understanding
from turnframe.core.ids import Actor
from turnframe.core.interactions import Interaction
from turnframe.core.reply import NoticeBlock
from turnframe.core.turn import InteractionResponse, TurnInput, TurnPhase
from turnframe.runtime import Runtime
from turnframe.runtime.errors import TurnIdReused
from turnframe.runtime.inspection import turn_alias as alias
from turnframe.serve.errors import ProblemError, not_found, problem
from turnframe.serve.failures import RETRY_AFTER, problem_for, turn_in_progress
from turnframe.serve.live import BufferedTurn, ReplayedTurn
from turnframe.serve.models import (
    CardView,
    ConversationView,
    TurnRequestBody,
    TurnView,
)
from turnframe.serve.reload import conversation_turns
from turnframe.serve.state import LiveTurn, ServeConfig
from turnframe.serve.views import (
    card_view,
    fingerprint,
    result_view,
    served_locales,
    turn_id_for_key,
    turn_view,
)
from turnframe.understand import ScriptedUnderstanding

__all__ = ["NO_MODEL_NOTICE", "Reader", "RuntimeTurnService", "served_locales", "turn_id_for_key"]

Reader = Callable[[str], "tuple[Any, Any] | str"]
"""Given a message, the ``(understander, reply_writer)`` to read it with, or a refusal
(the message is then run as a turn whose reply is the ``unreadable_message`` notice:
stored, reloaded and inspectable like any other)."""

NO_MODEL_NOTICE = (
    "No model is configured, so messages cannot be read; cards still work. Restart the "
    "server with --model (tour, scripted:example, scripted:FILE or a provider spec such as "
    "openai:gpt-4o-mini); see docs/serving.md."
)

_POLL_SECONDS = 0.05


class RuntimeTurnService:
    """Runs and reads turns over a runtime (docs/serving.md).

    Args:
        runtime: the application's runtime over the server's store.
        reader: how a message is read (:data:`Reader`); ``None``: no model, a text turn
            is answered with :data:`NO_MODEL_NOTICE` and nothing runs.
        config: the server's settings.

    :meth:`bind` gives it the lifespan's task group before the first turn.
    """

    def __init__(
        self, runtime: Runtime, *, reader: Reader | None = None, config: ServeConfig | None = None
    ) -> None:
        self.runtime = runtime
        self.reader = reader
        self.config = config or ServeConfig()
        self._group: TaskGroup | None = None
        self._turns: OrderedDict[str, BufferedTurn] = OrderedDict()
        self._running: dict[tuple[str, str], int] = {}
        self._following: dict[tuple[str, str], BufferedTurn] = {}

    def bind(self, group: TaskGroup | None) -> None:
        """Run later turns in ``group`` (the lifespan's); ``None`` stops taking turns."""
        self._group = group

    async def drained(self) -> None:
        """Return once no turn is running (the lifespan waits for it, bounded, at shutdown)."""
        while self._running:
            await anyio.sleep(_POLL_SECONDS)

    # ------------------------------------------------------------------ starting turns
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
            ProblemError: ``invalid_request`` (no text nor click, an unknown locale),
                ``message_too_large``, ``not_found`` (a card that is not this account's in
                this conversation: nothing runs), ``idempotency_key_reused``,
                ``too_many_turns``, ``store_unavailable``.
        """
        turn = self._turn_input(body)
        asked = fingerprint(conversation_id, turn)
        who = (actor.account, actor.user)
        turn_id = (
            turn_id_for_key(actor, idempotency_key)
            if idempotency_key is not None
            else self.runtime.ids.new_id("turn")
        )
        known = self._turns.get(turn_id)
        resume = False
        if known is not None and known.actor_key == who:
            if known.fingerprint != asked:
                raise problem_for(TurnIdReused(turn_id, "different_input"))
            failed = known.problem.problem.code if known.problem is not None else None
            if failed is None or failed == "idempotency_key_reused":
                return ReplayedTurn(known)  # running, replied, or refused for good
            # It ended here with a failure: run it again, from its phase if it has one
            # (not for turn_in_progress: another worker may still be running it).
            resume = failed != "turn_in_progress"
        # Registered before the first await: a concurrent retry attaches to this turn.
        live = BufferedTurn(turn_id, conversation_id, fingerprint=asked, actor_key=who)
        self._remember(live)
        try:
            reading = await self._prepare(actor, conversation_id, turn, live, idempotency_key)
        except Exception as exc:
            error = problem_for(exc)
            live.fail(error)
            if self._turns.get(turn_id) is live:
                del self._turns[turn_id]
            raise error from exc
        if live.done:  # no model: the server's set-up was said, nothing runs
            return live
        self._spawn(self._drive, live, actor, turn, reading, resume)
        return live

    async def _prepare(
        self,
        actor: Actor,
        conversation_id: str,
        turn: TurnInput,
        live: BufferedTurn,
        idempotency_key: str | None,
    ) -> tuple[Any, Any] | None:
        """Check what the turn needs before it runs; a refused message finishes ``live``.

        Returns:
            The message's ``(understander, reply_writer)``, or ``None`` for a click.
        """
        if self._group is None:
            raise problem(
                503, "not_ready", "Not ready", "The server is starting or stopping; retry.",
                headers={"Retry-After": RETRY_AFTER},
            )  # fmt: skip
        if turn.interaction_response is not None:
            await self._require_card(actor, conversation_id, turn.interaction_response)
        reading: tuple[Any, Any] | None = None
        if turn.text:
            chosen = self.reader(turn.text) if self.reader is not None else NO_MODEL_NOTICE
            if chosen == NO_MODEL_NOTICE:  # the server's set-up, said at once; nothing runs
                notice = NoticeBlock(code="no_model", text=NO_MODEL_NOTICE)
                live.finish(turn_view(live.turn_id, conversation_id, [notice]))
                return None
            if isinstance(chosen, str):
                # A message the reader cannot read is still a turn of the conversation:
                # run, stored, reloaded and inspectable, its reply an "unreadable" notice.
                unread = Understanding(notices=("unreadable_message",))
                chosen = (ScriptedUnderstanding([unread]), None)
            reading = chosen
        if idempotency_key is not None:
            live.created = await self._stored_record(actor, live.turn_id) is None
        self._admit(live.actor_key)
        return reading

    def _turn_input(self, body: TurnRequestBody) -> TurnInput:
        app = self.runtime.app
        if not body.text and body.click is None:
            raise problem(422, "invalid_request", "Invalid request", "give text, a click, or both")
        if body.text is not None and len(body.text.encode()) > self.config.max_message_bytes:
            raise problem(
                413,
                "message_too_large",
                "Message too large",
                f"a message is at most {self.config.max_message_bytes} bytes of UTF-8",
            )
        locale = body.locale or self.config.locale or app.default_locale
        if locale not in served_locales(app):
            raise problem(
                422,
                "invalid_request",
                "Invalid request",
                f"locale {locale!r} is not served; one of {', '.join(served_locales(app))}",
            )
        click = body.click
        response = (
            None
            if click is None
            else InteractionResponse(
                interaction_id=click.interaction_id,
                option_id=click.option_id,
                expected_revision=click.expected_revision,
                free_value=click.value,
            )
        )
        return TurnInput(text=body.text or None, interaction_response=response, locale=locale)

    async def _require_card(
        self, actor: Actor, conversation_id: str, click: InteractionResponse
    ) -> None:
        card = await self.runtime.store.get_interaction(
            actor.account, conversation_id, click.interaction_id
        )
        if card is None:
            raise not_found()

    def _admit(self, who: tuple[str, str]) -> None:
        running = self._running.get(who, 0)
        if running >= self.config.max_turns_per_actor:
            raise problem(
                429,
                "too_many_turns",
                "Too many turns",
                f"at most {self.config.max_turns_per_actor} turns run at once for one user; "
                "wait for one to finish",
                headers={"Retry-After": RETRY_AFTER},
            )
        self._running[who] = running + 1

    def _release(self, who: tuple[str, str]) -> None:
        left = self._running.get(who, 1) - 1
        if left > 0:
            self._running[who] = left
        else:
            self._running.pop(who, None)

    def _remember(self, live: BufferedTurn) -> None:
        self._turns[live.turn_id] = live
        self._turns.move_to_end(live.turn_id)
        while len(self._turns) > self.config.turns_kept:
            oldest = next(iter(self._turns.values()))
            if not oldest.done:
                break
            self._turns.popitem(last=False)

    def _spawn(self, func: Callable[..., Any], *args: Any) -> None:
        if self._group is None:
            raise problem(
                503, "not_ready", "Not ready", "The server is starting or stopping; retry.",
                headers={"Retry-After": RETRY_AFTER},
            )  # fmt: skip
        self._group.start_soon(func, *args)

    async def _drive(
        self,
        live: BufferedTurn,
        actor: Actor,
        turn: TurnInput,
        reading: tuple[Any, Any] | None,
        recover: bool,
    ) -> None:
        understander, writer = reading if reading is not None else (None, None)
        try:
            record = await self._stored_record(actor, live.turn_id) if recover else None
            if record is not None and record.phase != TurnPhase.REPLIED.value:
                result = await self.runtime.recover(actor, live.turn_id)
            else:
                try:
                    result = await self.runtime.run_turn(
                        actor,
                        live.conversation_id,
                        turn,
                        turn_id=live.turn_id,
                        understander=understander,
                        reply_writer=writer,
                        on_event=live.push,
                    )
                except TurnIdReused as exc:
                    if exc.reason != "unfinished":
                        raise
                    live.created = False
                    await self._await_replied(actor, live.turn_id)
                    # replied now: the stored result, or another input's 409 (nothing runs)
                    result = await self.runtime.run_turn(
                        actor,
                        live.conversation_id,
                        turn,
                        turn_id=live.turn_id,
                        understander=understander,
                        reply_writer=writer,
                    )
            live.finish(result_view(result))
        except Exception as exc:
            live.fail(problem_for(exc))
        finally:
            self._release(live.actor_key)

    async def _await_replied(self, actor: Actor, turn_id: str) -> Any:
        """Wait (bounded) until another worker's turn ``turn_id`` replied; return its record.

        Raises:
            ProblemError: ``turn_in_progress`` when it has not replied in time.
        """
        with anyio.move_on_after(self.config.turn_wait_seconds):
            while True:
                record = await self._stored_record(actor, turn_id)
                if record is not None and record.phase == TurnPhase.REPLIED.value:
                    return record
                await anyio.sleep(_POLL_SECONDS)
        raise turn_in_progress()

    async def _stored_record(self, actor: Actor, turn_id: str) -> Any:
        store = self.runtime.store
        record = await store.get_turn(actor.account, turn_id)
        if record is None:
            record = await store.get_turn(actor.account, alias(actor.account, turn_id))
        return record

    # ------------------------------------------------------------------ reading
    async def live_turn(self, actor: Actor, turn_id: str) -> BufferedTurn:
        """Return a turn of this account to stream: in memory, else from the store.

        A turn this process does not hold (another worker's, or one from before a
        restart) is read from the store: a replied one streams ``blocks`` and
        ``finished``; an unfinished one is polled until it replies (bounded, then a
        ``turn_in_progress`` problem ends the stream).

        Raises:
            ProblemError: ``not_found`` (another account's turn is not found either),
                ``store_unavailable``.
        """
        known = self._turns.get(turn_id)
        if known is not None:
            if known.actor_key[0] != actor.account:
                raise not_found()
            return known
        try:
            record = await self._stored_record(actor, turn_id)
        except Exception as exc:
            raise problem_for(exc) from exc
        if record is None:
            raise not_found()
        live = BufferedTurn(
            turn_id, record.conversation_id, actor_key=(actor.account, actor.user), created=False
        )
        if record.phase == TurnPhase.REPLIED.value:
            live.finish(await self._stored_view(actor, turn_id, record.conversation_id))
            return live
        following = self._following.get((actor.account, turn_id))
        if following is not None:  # one poll per turn, however many clients stream it
            return following
        self._following[(actor.account, turn_id)] = live
        self._spawn(self._follow, live, actor)
        return live

    async def _follow(self, live: BufferedTurn, actor: Actor) -> None:
        try:
            await self._await_replied(actor, live.turn_id)
            live.finish(await self._stored_view(actor, live.turn_id, live.conversation_id))
        except Exception as exc:
            live.fail(problem_for(exc))
        finally:
            self._following.pop((actor.account, live.turn_id), None)

    async def _stored_view(self, actor: Actor, turn_id: str, conversation_id: str) -> TurnView:
        store = self.runtime.store
        blocks = await store.load_reply(actor.account, turn_id)
        if blocks is None:
            blocks = await store.load_reply(actor.account, alias(actor.account, turn_id))
        return turn_view(turn_id, conversation_id, blocks or ())

    async def turn(self, actor: Actor, turn_id: str) -> TurnView:
        """Return a replied turn's reply as stored (``GET /v1/turns/{turn_id}``).

        Raises:
            ProblemError: ``not_found``; ``turn_in_progress`` for a turn not replied yet.
        """
        known = self._turns.get(turn_id)
        if known is not None and known.actor_key[0] == actor.account and known.view is not None:
            return known.view
        try:
            record = await self._stored_record(actor, turn_id)
            if record is None:
                raise not_found()
            if record.phase != TurnPhase.REPLIED.value:
                raise turn_in_progress()
            return await self._stored_view(actor, turn_id, record.conversation_id)
        except ProblemError:
            raise
        except Exception as exc:
            raise problem_for(exc) from exc

    async def conversation(self, actor: Actor, conversation_id: str) -> ConversationView:
        """Return every replied turn's input and blocks, exactly as returned (oldest first).

        Each turn's input is read from its stored record (``serve/reload.py``: one
        record per turn; docs/serving.md "Reload").

        Raises:
            ProblemError: ``not_found`` for a conversation with no replied turn of this
                account; ``store_unavailable``.
        """
        try:
            replies = await self.runtime.reload(actor.account, conversation_id)
            if not replies:
                raise not_found()
            turns = await conversation_turns(
                self.runtime.store, actor.account, conversation_id, replies
            )
        except ProblemError:
            raise
        except Exception as exc:
            raise problem_for(exc) from exc
        return ConversationView(conversation_id=conversation_id, turns=turns)

    async def open_cards(self, actor: Actor, conversation_id: str) -> list[CardView]:
        """Return the conversation's open cards, oldest first (empty for an unknown one).

        Raises:
            ProblemError: ``store_unavailable``.
        """
        try:
            cards = await self.runtime.store.open_interactions(actor.account, conversation_id)
            return [card_view(c, stale=await self._moved(c)) for c in cards]
        except Exception as exc:
            raise problem_for(exc) from exc

    async def _moved(self, card: Interaction) -> bool:
        """Whether an open card's record moved past its revision (a click would be stale).

        The reducer's own rule (a card on a record, not ``independent``, whose record's
        revision is no longer the one it is bound to), read without a click.
        """
        spec = card.spec
        if card.status.value != "open" or spec.case is None or spec.independent:
            return False
        row = await self.runtime.store.load_case(spec.case)
        return row is not None and row.revision != spec.bound_revision

    async def card(self, actor: Actor, interaction_id: str, conversation_id: str = "") -> CardView:
        """Return one card of this account in ``conversation_id``.

        Raises:
            ProblemError: ``not_found`` (absent and another account's alike).
        """
        try:
            found = await self.runtime.store.get_interaction(
                actor.account, conversation_id, interaction_id
            )
        except Exception as exc:
            raise problem_for(exc) from exc
        if found is None:
            raise not_found()
        try:
            moved = await self._moved(found)
        except Exception as exc:
            raise problem_for(exc) from exc
        return card_view(found, stale=moved)
