"""The ``turnframe chat`` loop: a prompt, commands, turns that Ctrl-C cancels (docs/chat.md).

Each line of input is a message (run as a text turn), a card's number (a structured
click, no model call) or a command (``/help``, ``/records``, ``/replay``, ``/inspect``,
``/quit``). Lines over the size limit or not UTF-8 are refused with a one-line notice
(:mod:`turnframe.cli.chat_input`); a turn runs cancellable (:mod:`turnframe.cli.chat_turns`).
"""

from __future__ import annotations

import json
import secrets
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any, TextIO

import anyio

from turnframe.cli.chat_input import read_lines
from turnframe.cli.chat_screen import HELP
from turnframe.cli.chat_turns import Closed, closing_runtime, run_cancellable, sigint_cancels
from turnframe.core import Actor, TurnInput
from turnframe.core.errors import TurnframeError
from turnframe.core.reply import ReplyBlock
from turnframe.core.turn import InteractionResponse, TurnEvent
from turnframe.eval.run import unreachable_model
from turnframe.runtime import Runtime, TurnResult
from turnframe.runtime.copy import narrate
from turnframe.runtime.replay import recorded_understanding

__all__ = ["ChatSession", "Reader", "model_unreachable", "render"]

RECORDS_SHOWN = 50
"""The most records ``/records`` lists (the rest are counted)."""

Reader = Callable[[str], "tuple[Any, Any] | str"]
"""Given a message, the ``(understander, reply_writer)`` to read it with, or a refusal."""


_MARKS = {"receipt": "✔ ", "notice": "! ", "interaction": "? "}
"""What the chat prints before a block's words, by kind (none for answers and the rest)."""


def render(blocks: tuple[ReplyBlock, ...] | list[ReplyBlock]) -> list[str]:
    """Return the reply's lines: each block's ``text`` marked by kind; a card's options numbered."""
    lines: list[str] = []
    for block in blocks:
        lines.append(_MARKS.get(block.kind, "") + block.text)
        if block.kind == "interaction":
            lines.extend(f"   {n}. {o.label}" for n, o in enumerate(block.options, start=1))
    return lines


def model_unreachable(result: TurnResult) -> bool:
    """Return whether ``result`` ended because the language model could not be reached."""
    return unreachable_model(result)


@dataclass(slots=True)
class ChatSession:
    """One chat over a runtime: reads lines, runs turns, prints replies.

    Args:
        runtime: the application's runtime (its directory answers ``/records``).
        actor: who chats.
        reader: how a message is read (:data:`Reader`).
        out: where replies go.
        locale: the turns' locale.
        max_message_bytes: the longest message, in UTF-8 bytes.
        prompt: printed before each line is read.
    """

    runtime: Runtime
    actor: Actor
    reader: Reader
    out: TextIO
    locale: str = "en"
    max_message_bytes: int = 8192
    prompt: str = "you> "
    conversation: str = "chat"
    last: TurnResult | None = None
    unreachable: bool = False
    options: list[tuple[str, str, int | None]] = field(default_factory=list)
    _scope: anyio.CancelScope | None = None

    def show(self, text: str) -> None:
        """Print one line and flush."""
        print(text, file=self.out, flush=True)

    def show_step(self, event: TurnEvent) -> None:
        """Narrate an understanding step in words (never its raw code)."""
        if event.kind == "step":
            text = event.text or narrate(event.name, event.detail, self.locale)
            self.show(f"   · {text}")

    async def run(self, stdin: IO[Any]) -> None:
        """Read ``stdin`` to its end (or ``/quit``), one line at a time.

        At the prompt Ctrl-C raises ``KeyboardInterrupt`` at once (the chat ends, status
        130), not at the next line: the event loop's own handler would only cancel the
        chat when the blocking read returns. During a turn it cancels the turn.
        """
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.default_int_handler)
        self.runtime.subscribe(self.show_step)
        closer = closing_runtime(self.runtime)
        lines = read_lines(stdin, self.max_message_bytes)
        while True:
            print(self.prompt, end="", file=self.out, flush=True)
            line = next(lines, None)
            if line is None:
                print(file=self.out)
                return
            if line.refused is not None:
                self.show(f"! {line.refused}")
                continue
            text = line.text.strip()
            if not text:
                continue
            if text in ("/quit", "/exit"):
                return
            if text.startswith("/"):
                await self.command(text)
                continue
            await self.turn(text, closer)

    async def command(self, text: str) -> None:
        """Run a ``/`` command (unknown ones are named with the list)."""
        if text == "/help":
            self.show(HELP.format(limit=self.max_message_bytes))
        elif text == "/records":
            await self.records()
        elif text in ("/replay", "/inspect"):
            if self.last is None:
                self.show("no turn yet")
                return
            store = self.runtime.store
            record = await store.load_replay(self.actor.account, self.last.turn_id) or {}
            shown = record if text == "/replay" else inspect_record(record, self.last)
            self.show(json.dumps(shown, indent=1, ensure_ascii=False))
        else:
            self.show(f"! unknown command {text.split()[0]}; /help lists them")

    async def records(self) -> None:
        """List the records the actor may address, as the application's directory labels them."""
        entries = list(await self.runtime.directory.list_for_actor(self.actor))
        if not entries:
            self.show("no records yet")
            return
        for entry in entries[:RECORDS_SHOWN]:
            self.show(f"  {entry.case.workflow:<12} {entry.label}")
        if len(entries) > RECORDS_SHOWN:
            self.show(f"  … and {len(entries) - RECORDS_SHOWN} more")

    async def turn(self, text: str, closer: Runtime) -> None:
        """Run ``text`` as a turn (a number answers the last card) and print the reply."""
        if text.isdigit() and self.options:
            index = int(text) - 1
            if not 0 <= index < len(self.options):
                self.show(f"pick 1–{len(self.options)}")
                return
            card, option, revision = self.options[index]
            turn = TurnInput(
                interaction_response=InteractionResponse(
                    interaction_id=card, option_id=option, expected_revision=revision
                ),
                locale=self.locale,
            )
        else:
            chosen = self.reader(text)
            if isinstance(chosen, str):
                self.show(f"! {chosen}")
                return
            self.runtime.understander, self.runtime.reply_writer = chosen
            turn = TurnInput(text=text, locale=self.locale)
        turn_id = f"chat-{secrets.token_hex(6)}"
        try:
            with sigint_cancels(lambda: self._scope):
                outcome = await run_cancellable(
                    self.runtime, closer, self.actor, self.conversation, turn, turn_id,
                    self._register,
                )  # fmt: skip
        except TurnframeError as exc:
            self.show(f"error: {exc}")
            return
        if isinstance(outcome, Closed):
            self.show(_closed_line(outcome))
            if outcome.result is not None:  # what a resumed commit did stands: say it
                for line in render([b for b in outcome.result.blocks if b.kind == "receipt"]):
                    self.show(line)
            self.options = []
            return
        self.last = outcome
        self.options = [
            (b.interaction_id, o.id, b.expected_revision)
            for b in outcome.blocks
            if b.kind == "interaction"
            for o in b.options
        ]
        for line in render(outcome.blocks):
            self.show(line)
        self.unreachable = self.unreachable or model_unreachable(outcome)
        self.show(
            f"   [{outcome.turn_id} · {outcome.model_calls} model calls"
            f" + {outcome.reply_calls} for the reply's words]"
        )

    def _register(self, scope: anyio.CancelScope | None) -> None:
        self._scope = scope


def _closed_line(closed: Closed) -> str:
    if closed.phase is None:
        return f"! cancelled: turn {closed.turn_id} had not started; nothing was done"
    committed = bool(closed.result and any(b.kind == "receipt" for b in closed.result.blocks))
    done = "what it had committed stands" if committed else "nothing was done"
    return f"! cancelled: turn {closed.turn_id} closed ({closed.phase}); {done}"


def inspect_record(record: dict[str, Any], result: TurnResult) -> dict[str, Any]:
    """Return a turn's acts, evidence, questions, results, commands and events (``/inspect``)."""
    u = recorded_understanding(record) or {}
    keys = ("id", "operation", "target", "args", "evidence", "evidence_source", "hypothetical")
    return {
        "turn": result.turn_id,
        "acts": [{k: a.get(k) for k in keys} for a in u.get("acts", [])],
        "questions": u.get("questions", []),
        "constraints": u.get("constraints", []),
        "results": record.get("results", {}),
        "commands": record.get("commands", []),
        "events": record.get("events", []),
    }
