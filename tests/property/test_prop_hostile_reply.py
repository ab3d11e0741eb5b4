"""A hostile reply writer never gets a false claim shown, at low, medium and high effort (I15).

Issue 11 item 1. Each turn is a hostile reading of any shape (``tf_hostile``: acts of any
operation, targets, questions, card answers, links, constraints), sometimes with a click
on an open card, in English or pt-PT; the reply's words come from
:class:`~turnframe.testing.hostile_reply.HostileReplyProvider`, which writes false
claims from every operation's vocabulary ("Done: I submitted the manifest to the airline
and cancelled your trip.", "I have gone ahead and …", negations, past tense, passive,
statuses, a refusal with its negation removed, a receipt with its record swapped) and
reviews its own words as perfect. The oracle (``false_claims``) is outside the runtime: a
planted claim is false when no receipt of the turn (rendered from its committed events)
names that operation on that record. Zero may be shown.

``TURNFRAME_HOSTILE_REPLY_TURNS`` sets the turns per effort (300 by default; ``.ci/run``
runs 1,200 per effort). ``test_without_the_guard_the_oracle_sees_false_claims`` disables the
guard and shows the same run fails, so the zero means something.
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import anyio
import pytest
from tf_hostile import ACME, TODAY, Memory, SeededChooser, make_hostile_understanding

import turnframe.runtime.reply_words as reply_words
from turnframe.core import InteractionResponse, TurnInput
from turnframe.core.interactions import InteractionStatus
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application
from turnframe.store import InMemoryStore
from turnframe.testing.hostile_reply import HostileReplyProvider, false_claims, shown_model_words
from turnframe.understand import Brief
from turnframe.understand.base import UnderstandingResult
from turnframe.understand.reply import ModelReplyWriter

TURNS = int(os.environ.get("TURNFRAME_HOSTILE_REPLY_TURNS", "300"))
CONVERSATION = 25


class _HostileReading:
    """Any hostile reading of a turn (no model calls: the reply writer is under test)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.memory = Memory()

    async def understand(self, brief: Brief) -> UnderstandingResult:
        self.memory.remember_handles(brief)
        chooser = SeededChooser(self.rng.randrange(2**32))
        return UnderstandingResult(
            understanding=make_hostile_understanding(chooser, brief, self.memory)
        )


async def _run(effort: str, turns: int, seed: int) -> tuple[list[str], Counter[str]]:
    """Run ``turns`` hostile turns; return the false claims shown and a tally."""
    stats: Counter[str] = Counter()
    problems: list[str] = []
    done = 0
    conversation = 0
    while done < turns:
        conversation += 1
        rng = random.Random(seed * 7919 + conversation)
        store = InMemoryStore()
        reading = _HostileReading(rng.randrange(2**32))
        writer = HostileReplyProvider(travel_application().registry, rng.randrange(2**32))
        runtime = Runtime(
            travel_application(),
            store,
            reading,
            clock=FixedClock(TODAY),
            ids=SequentialIds(),
            reply_writer=ModelReplyWriter(writer, effort=effort),
        )
        for _key, case, state in seed_all(DEMO_RECORDS):
            await runtime.seed(ACME.account, case.workflow, state, case_id=case.case_id)
        for _ in range(min(CONVERSATION, turns - done)):
            done += 1
            click = None
            if rng.random() < 0.35:
                live = [
                    i
                    for i in await store.open_interactions(ACME.account, "c")
                    if i.status is InteractionStatus.OPEN
                ]
                if live:
                    card = rng.choice(live)
                    option = rng.choice([o.id for o in card.spec.options])
                    click = InteractionResponse(
                        interaction_id=card.id,
                        option_id=option,
                        expected_revision=card.spec.bound_revision,
                    )
            locale = rng.choice(("en", "pt-PT"))
            writer.planted.clear()
            result = await runtime.run_turn(
                ACME, "c", TurnInput(text="…", interaction_response=click, locale=locale)
            )
            reading.memory.cards.extend(
                (c, c.spec.bound_revision) for c in result.interactions_created
            )
            found = false_claims(result.blocks, writer.planted)
            problems.extend(f"[{effort} {locale} turn {done}] {p}" for p in found)
            stats["turns"] += 1
            stats["receipts"] += sum(b.kind == "receipt" for b in result.blocks)
            stats["planted"] += len(writer.planted)
            stats["planted_claims"] += sum(bool(p.claims) for p in writer.planted)
            shown = shown_model_words(result.blocks, writer.planted)
            stats["shown_true"] += sum(not p.claims for p in shown)
            stats["shown_claims"] += sum(bool(p.claims) for p in shown)
            stats[f"locale:{locale}"] += 1
            if click is not None:
                stats["with_click"] += 1
            for p in writer.planted:
                stats[f"shape:{p.shape}"] += 1
    return problems, stats


@pytest.mark.parametrize("effort", ["low", "medium", "high"])
def test_a_hostile_reply_writer_gets_no_false_claim_shown(
    effort: str, record_property: Callable[[str, object], None]
) -> None:
    started = time.perf_counter()
    problems, stats = anyio.run(_run, effort, TURNS, 11)
    elapsed = time.perf_counter() - started
    record_property(f"hostile_reply_turns_{effort}", stats["turns"])
    record_property(f"hostile_reply_seconds_{effort}", round(elapsed, 2))
    print(f"\nhostile reply writer ({effort}): {elapsed:.1f} s, {dict(sorted(stats.items()))}")
    assert problems == [], "\n".join(problems[:20])
    assert stats["turns"] >= TURNS
    # The run exercises what it guards: claims planted in both languages, receipts to
    # speak about, and true words that do reach the user (the guard is not "drop all").
    assert stats["planted_claims"] >= TURNS
    assert stats["receipts"] >= TURNS // 20
    assert stats["shown_true"] >= TURNS // 10
    for shape in ("done_issue", "gone_ahead", "double_negation", "passive", "status"):
        assert stats[f"shape:{shape}"] > 0, shape
    assert stats["shape:refusal_turned"] + stats["shape:receipt_swapped"] > 0


def test_without_the_guard_the_oracle_sees_false_claims(monkeypatch: pytest.MonkeyPatch) -> None:
    """The planted false acknowledgements are caught: with the guard off they are shown."""

    def no_guard(*args: Any, **kwargs: Any) -> None:
        return None

    monkeypatch.setattr(reply_words, "guard_sentence", no_guard)
    monkeypatch.setattr(reply_words, "guard_text", no_guard)
    for effort in ("low", "medium"):
        problems, _ = anyio.run(_run, effort, 50, 3)
        assert any("done_issue" in p or "gone_ahead" in p for p in problems), effort
