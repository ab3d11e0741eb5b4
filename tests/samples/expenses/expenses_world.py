"""A scripted world for the expenses sample's tests: a Runtime over one store kind.

Turns are run through :class:`turnframe.runtime.Runtime` with
:class:`turnframe.testing.ScriptedUnderstanding`; records are seeded with the
application's own seeder; record keys (``R1``) become the turn's handles as a model would
see them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from turnframe.core import (
    Actor,
    CaseRef,
    Interaction,
    InteractionResponse,
    ProposedTarget,
    ReplyBlock,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.runtime import FixedClock, Runtime, SequentialIds, TurnResult
from turnframe.samples.expenses import expenses_application
from turnframe.testing import ScriptedUnderstanding

TODAY = date(2026, 5, 1)
EMPLOYEE = Actor(account="acme", user="u1", roles=frozenset({"employee"}))
MANAGER = Actor(account="acme", user="m1", roles=frozenset({"manager"}))
FINANCE = Actor(account="acme", user="f1", roles=frozenset({"finance"}))


def reply_text(blocks: Sequence[ReplyBlock]) -> str:
    """Return the words of a reply: receipts, prompts, options and texts."""
    parts: list[str] = []
    for block in blocks:
        if block.kind == "receipt":
            parts.append(block.receipt.text)  # type: ignore[union-attr]
        elif block.kind == "interaction":
            parts.append(block.prompt)  # type: ignore[union-attr]
            parts.extend(o.label for o in block.options)  # type: ignore[union-attr]
        else:
            parts.append(str(getattr(block, "text", "")))
    return "\n".join(parts)


@dataclass
class World:
    """The runtime, its store, the seeded records and the cards created so far."""

    runtime: Runtime
    store: Any
    script: ScriptedUnderstanding
    refs: dict[str, CaseRef] = field(default_factory=dict)
    cards: list[Interaction] = field(default_factory=list)

    async def seed(self, records: Sequence[Mapping[str, Any]]) -> None:
        """Seed ``records`` through the application's seeder."""
        seeder = self.runtime.app.seeder
        assert seeder is not None
        for record in seeder.seed_order(records):
            workflow, state = seeder.seed_state(record, self.refs)
            key = str(record["key"])
            self.refs[key] = await self.runtime.seed("acme", workflow, state, case_id=key.lower())

    async def say(
        self,
        text: str,
        *acts: dict[str, Any],
        actor: Actor = EMPLOYEE,
        locale: str = "en",
    ) -> TurnResult:
        """Run a text turn whose scripted understanding proposes ``acts``.

        Each act is ``{id, operation, handles: [keys], args?, new?, mention?}``.
        """

        def build(brief: Any) -> Understanding:
            out = []
            for act in acts:
                handles = tuple(
                    self.runtime.handle_for(brief.turn_id, self.refs[k])
                    for k in act.get("handles", ())
                )
                out.append(
                    SemanticAct(
                        id=act["id"],
                        operation=act["operation"],
                        target=ProposedTarget(
                            handles=handles,
                            new=bool(act.get("new")),
                            mention=act.get("mention"),
                        ),
                        args=dict(act.get("args", {})),
                    )
                )
            return Understanding(acts=tuple(out))

        self.script.push(build)
        result = await self.runtime.run_turn(
            actor, "c1", TurnInput(text=text, locale=locale), in_view=list(self.refs.values())
        )
        self.cards.extend(result.interactions_created)
        return result

    async def click(
        self,
        option: str,
        *,
        card: Interaction | None = None,
        actor: Actor = EMPLOYEE,
        locale: str = "en",
    ) -> TurnResult:
        """Click ``option`` (an option id, or a record key) on ``card`` (default: the last)."""
        card = card or self.cards[-1]
        chosen = option
        if option in self.refs:
            chosen = next(o.id for o in card.spec.options if o.case == self.refs[option])
        response = InteractionResponse(
            interaction_id=card.id, option_id=chosen, expected_revision=card.spec.bound_revision
        )
        result = await self.runtime.run_turn(
            actor, "c1", TurnInput(interaction_response=response, locale=locale)
        )
        self.cards.extend(result.interactions_created)
        return result

    async def state(self, key: str) -> dict[str, Any]:
        """Return the stored JSON state of record ``key``."""
        row = await self.store.load_case(self.refs[key])
        assert row is not None
        return dict(row.state)


async def open_store(kind: str, workdir: Path) -> Any:
    """Return a fresh store of ``kind`` (``memory``, ``sqlite`` or ``postgres``)."""
    if kind == "memory":
        from turnframe.store import InMemoryStore

        return InMemoryStore()
    if kind == "sqlite":
        from turnframe.store.sqlite import SqliteStore

        return await SqliteStore.open(workdir / "expenses.db")
    from turnframe.testing.postgres import open_temporary_store

    return await open_temporary_store(prefix="tf_expenses")


@asynccontextmanager
async def world(
    kind: str, workdir: Path, records: Sequence[Mapping[str, Any]]
) -> AsyncIterator[World]:
    """Yield a seeded :class:`World` over a fresh store of ``kind``; closes it after."""
    store = await open_store(kind, workdir)
    try:
        script = ScriptedUnderstanding()
        runtime = Runtime(
            expenses_application(), store, script, clock=FixedClock(TODAY), ids=SequentialIds()
        )
        w = World(runtime=runtime, store=store, script=script)
        await w.seed(records)
        yield w
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            await close()
