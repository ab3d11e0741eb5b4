"""A scripted chat: a file of messages and the answers each one is read from (docs/chat.md).

``turnframe chat --model scripted:FILE`` takes either of two files:

* a *chat script*: a mapping with ``messages``, a list of ``{say: TEXT, answers: TABLE}``;
  when the user types a message the script lists (case-insensitively, spaces
  collapsed), its turn is read from that message's own table; any other message is
  refused with a notice naming the scripted ones, and no turn runs. The shipped one is
  ``scripted:example`` (``turnframe/cli/examples/travel-chat.yaml``);
* a plain *answers table* (task name → answer, a list served one per call in order),
  as ``eval run`` and a scenario's ``model_answers`` take: every turn draws from it.

A TABLE maps a task of the understanding chain (``segment``, ``route``, ``locate``,
``extract``, ``verify``; ``read`` for a merged read; ``acknowledge``... for the reply's
words) to the answer a model would have returned.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from turnframe.cli.chat_screen import example_script
from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import UsageError
from turnframe.eval.models import EXAMPLE_SCRIPT, read_answers
from turnframe.providers import ScriptedProvider

__all__ = ["ChatScript", "load_script", "normal"]


def normal(text: str) -> str:
    """Return ``text`` as messages are matched: case-folded, whitespace collapsed."""
    return " ".join(text.casefold().split())


@fast_init
@dataclass(frozen=True, slots=True)
class ChatScript:
    """The messages of a chat script and each one's answers table.

    Attributes:
        says: the messages as written in the file, in order.
        tables: ``normal(message) → answers table``.
    """

    says: tuple[str, ...]
    tables: Mapping[str, Mapping[str, Any]]

    def provider_for(self, text: str) -> ScriptedProvider | None:
        """Return a fresh provider over ``text``'s answers, or ``None`` if not scripted."""
        table = self.tables.get(normal(text))
        return None if table is None else ScriptedProvider(table)

    def refusal(self) -> str:
        """Return the one-line notice for a message the script does not hold."""
        listed = " | ".join(self.says)
        return f"not in the script; type one of: {listed} (or a card's number)"


def load_script(path: str) -> ChatScript | None:
    """Read ``scripted:PATH`` (``example``: the shipped script); ``None`` for a plain table.

    Raises:
        UsageError: the file cannot be read, or a chat script is malformed (the entry
            and the fix are named).
    """
    where = str(example_script()) if path == EXAMPLE_SCRIPT else path
    data = read_answers(where)
    if not isinstance(data, Mapping) or "messages" not in data:
        return None
    messages = data["messages"]
    if not isinstance(messages, list) or not messages:
        raise UsageError(f"{where}: messages is a non-empty list of {{say, answers}}")
    says: list[str] = []
    tables: dict[str, Mapping[str, Any]] = {}
    for n, entry in enumerate(messages, start=1):
        if not isinstance(entry, Mapping) or set(entry) != {"say", "answers"}:
            raise UsageError(f"{where}: message {n} must have exactly the keys say and answers")
        say, answers = entry["say"], entry["answers"]
        if not isinstance(say, str) or not say.strip():
            raise UsageError(f"{where}: message {n}: say is the message text")
        if not isinstance(answers, Mapping):
            raise UsageError(f"{where}: message {n}: answers maps a task name to its answer")
        if normal(say) in tables:
            raise UsageError(f"{where}: message {n} repeats {say!r}")
        says.append(say.strip())
        tables[normal(say)] = dict(answers)
    return ChatScript(says=tuple(says), tables=tables)
