"""``turnframe chat``, ``turnframe replay TURN_ID`` and ``turnframe eval run DIR``.

``chat`` talks to the travel sample on SQLite through the real pipeline with the
provider chosen by ``--model`` or ``TURNFRAME_MODEL``. Cards show numbered options; a
number is a structured click (no model call). ``/replay`` prints the last turn's replay
record and ``/inspect`` its acts, evidence, results, commands and events.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any, TextIO

import anyio

from turnframe.cli.models import EXIT_UNREACHABLE, fetch_exit_code, prefetch
from turnframe.core import Actor, TurnInput
from turnframe.core.canonical import to_json_value
from turnframe.core.errors import TurnframeError, UsageError
from turnframe.core.reply import ReplyBlock
from turnframe.core.turn import InteractionResponse, TurnEvent
from turnframe.core.workflow import WorkflowRegistry
from turnframe.eval.models import KNOWN_MODELS, provider_from_spec
from turnframe.providers import ReplayProvider
from turnframe.providers.model_files import ModelFetchError
from turnframe.runtime import FixedClock, NarrationConfig, Runtime, TurnResult
from turnframe.runtime.replay import recorded_understanding
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application
from turnframe.understand import Merge, ModelUnderstanding, brief_from_json
from turnframe.understand.merged import script_merge
from turnframe.understand.reply import ModelReplyWriter

__all__ = ["add_commands", "run_command"]

CHAT_TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="maria", roles=frozenset({"customer"}))

NO_MODEL = """No model is configured for `turnframe chat`.

Choose one with --model or the TURNFRAME_MODEL environment variable:
  {known}
Vendor models read their credentials from the vendor's usual variables
(OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, AWS_*, OLLAMA_HOST...).

To see the whole pipeline without any model, run `turnframe demo`: a guided tour whose
understanding is scripted, through the real reducer, policy, cards and receipts."""


def add_commands(sub: Any) -> None:
    """Add ``chat``, ``replay`` and ``eval`` to the ``turnframe`` parser."""
    chat = sub.add_parser("chat", help="chat with the travel sample (a model is required)")
    chat.add_argument("--model", help=f"the provider: {KNOWN_MODELS} (or $TURNFRAME_MODEL)")
    chat.add_argument("--db", help="SQLite file (default: chat.db under the user data dir)")
    chat.add_argument("--effort", choices=("low", "medium", "high"), default="medium")
    chat.add_argument("--locale", default="en")
    replay = sub.add_parser("replay", help="re-run a recorded turn's understanding and compare")
    replay.add_argument("turn_id")
    replay.add_argument("--db", help="SQLite file (default: chat.db under the user data dir)")
    replay.add_argument("--account", default=ACTOR.account)
    ev = sub.add_parser("eval", help="evaluation sets")
    ev_sub = ev.add_subparsers(dest="eval_command", required=True)
    run = ev_sub.add_parser("run", help="score a provider on an evaluation set")
    run.add_argument("path", metavar="DIR")
    run.add_argument("--model", required=True, help=f"oracle, or {KNOWN_MODELS}")
    run.add_argument("--effort", choices=("low", "medium", "high"), default="medium")
    run.add_argument("--json", action="store_true", help="one JSON object")


def run_command(
    args: argparse.Namespace, stdin: TextIO | None = None, out: TextIO | None = None
) -> int:
    """Run ``chat``, ``replay`` or ``eval``; return the exit code."""
    stream = out or sys.stdout
    try:
        if args.command == "eval":
            from turnframe.eval import run_eval

            report = anyio.run(run_eval, args.path, args.model, args.effort)
            print(json.dumps(report.to_json()) if args.json else report.table(), file=stream)
            return 0
        if args.command == "replay":
            return int(anyio.run(_replay, args.turn_id, args.db, args.account, stream))
        if args.command == "chat":
            spec = args.model or os.environ.get("TURNFRAME_MODEL")
            if not spec:
                print(NO_MODEL.format(known=KNOWN_MODELS), file=stream)
                return 2
            # A named local model not on this machine is fetched first, progress on stderr.
            prefetch(spec)
            if spec.startswith("local:"):
                # Loading a GGUF file takes seconds; say so before the first line appears.
                print(f"Loading the local model {spec[6:]}…", file=stream, flush=True)
            provider = provider_from_spec(spec)
            # A scripted table of the steps is read step by step (docs/architecture.md).
            understander = ModelUnderstanding(
                provider, effort=args.effort, merge=script_merge(provider)
            )
            writer = ModelReplyWriter(provider, effort=args.effort)
            return int(
                anyio.run(
                    _chat, understander, writer, args.db, args.locale, stdin or sys.stdin, stream
                )
            )
    except ModelFetchError as exc:
        # One line: the index could not be reached (3) or the file failed its checks (2).
        print(f"error: {exc}", file=sys.stderr)
        return fetch_exit_code(exc)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 2


def _db(path: str | None) -> Path:
    from turnframe.store.sqlite import default_path

    chosen = Path(path) if path else default_path().with_name("chat.db")
    chosen.parent.mkdir(parents=True, exist_ok=True)
    return chosen


def render(blocks: Sequence[ReplyBlock]) -> list[str]:
    """Return the reply's lines: cards with numbered options."""
    lines: list[str] = []
    for block in blocks:
        match block.kind:
            case "receipt":
                lines.append(f"✔ {block.receipt.text}")
            case "notice":
                lines.append(f"! {block.text}")
            case "answer":
                lines.append(block.text)
            case "interaction":
                lines.append(f"? {block.prompt}")
                lines.extend(f"   {n}. {o.label}" for n, o in enumerate(block.options, start=1))
            case "transition":
                lines.append(block.text)
            case _:
                lines.append(getattr(block, "text", ""))
    return lines


async def _chat(
    understander: ModelUnderstanding,
    writer: ModelReplyWriter | None,
    db: str | None,
    locale: str,
    stdin: TextIO,
    out: TextIO,
) -> int:
    from turnframe.store.sqlite import SqliteStore

    store = await SqliteStore.open(_db(db))
    try:
        runtime = Runtime(
            travel_application(),
            store,
            understander,
            clock=FixedClock(CHAT_TODAY),
            reply_writer=writer,
            narration=NarrationConfig(steps=True),
        )
        if not await store.list_cases(ACTOR.account):
            for _key, case, state in seed_all(DEMO_RECORDS):
                await runtime.seed(ACTOR.account, case.workflow, state, case_id=case.case_id)

        def show_step(event: TurnEvent) -> None:
            if event.kind == "step":
                print(f"   · {event.text or f'{event.name}: {event.detail}'}", file=out, flush=True)

        runtime.subscribe(show_step)
        print(
            f"Turnframe chat · travel sample · today {CHAT_TODAY} · /replay, /inspect, /quit",
            file=out,
            flush=True,
        )
        last: TurnResult | None = None
        unreachable = False
        options: list[tuple[str, str, int | None]] = []
        conversation = "chat"
        for raw in stdin:
            line = raw.strip()
            if not line:
                continue
            if line in ("/quit", "/exit"):
                break
            if line in ("/replay", "/inspect"):
                if last is None:
                    print("no turn yet", file=out)
                    continue
                record = await store.load_replay(ACTOR.account, last.turn_id) or {}
                if line == "/replay":
                    print(json.dumps(record, indent=1, ensure_ascii=False), file=out)
                else:
                    print(
                        json.dumps(_inspect(record, last), indent=1, ensure_ascii=False), file=out
                    )
                continue
            if line.isdigit() and options:
                index = int(line) - 1
                if not 0 <= index < len(options):
                    print(f"pick 1–{len(options)}", file=out)
                    continue
                card, option, revision = options[index]
                turn = TurnInput(
                    interaction_response=InteractionResponse(
                        interaction_id=card, option_id=option, expected_revision=revision
                    ),
                    locale=locale,
                )
            else:
                turn = TurnInput(text=line, locale=locale)
            try:
                last = await runtime.run_turn(ACTOR, conversation, turn)
            except TurnframeError as exc:
                print(f"error: {exc}", file=out)
                continue
            options = [
                (b.interaction_id, o.id, b.expected_revision)
                for b in last.blocks
                if b.kind == "interaction"
                for o in b.options
            ]
            for text in render(last.blocks):
                print(text, file=out)
            unreachable = unreachable or model_unreachable(last)
            print(
                f"   [{last.turn_id} · {last.model_calls} model calls"
                f" + {last.reply_calls} for the reply's words]",
                file=out,
                flush=True,
            )
    finally:
        await store.close()
    return EXIT_MODEL_UNREACHABLE if unreachable else 0


EXIT_MODEL_UNREACHABLE = EXIT_UNREACHABLE
"""``chat``'s exit status when a turn could not reach the language model (the same 3 as an
unreachable package index, :data:`turnframe.cli.models.EXIT_UNREACHABLE`)."""


def model_unreachable(result: TurnResult) -> bool:
    """Return whether ``result`` ended because the language model could not be reached."""
    return any(b.kind == "notice" and b.code.startswith("model_unreachable") for b in result.blocks)


def _inspect(record: dict[str, Any], result: TurnResult) -> dict[str, Any]:
    u = recorded_understanding(record) or {}
    return {
        "turn": result.turn_id,
        "acts": [
            {
                k: a.get(k)
                for k in (
                    "id",
                    "operation",
                    "target",
                    "args",
                    "evidence",
                    "evidence_source",
                    "hypothetical",
                )
            }
            for a in u.get("acts", [])
        ],
        "questions": u.get("questions", []),
        "constraints": u.get("constraints", []),
        "results": record.get("results", {}),
        "commands": record.get("commands", []),
        "events": record.get("events", []),
    }


async def _replay(turn_id: str, db: str | None, account: str, out: TextIO) -> int:
    from turnframe.store.sqlite import SqliteStore

    store = await SqliteStore.open(_db(db))
    try:
        record = await store.load_replay(account, turn_id)
    finally:
        await store.close()
    if record is None:
        print(f"error: no replay record for turn {turn_id}", file=sys.stderr)
        return 2
    return await replay_record(record, out)


async def replay_record(
    record: dict[str, Any], out: TextIO, registry: WorkflowRegistry | None = None
) -> int:
    """Re-run a recorded turn from its replay record; 0 when the plan is identical.

    Understanding is re-run over the recorded calls (a replay provider serves each by
    its fingerprint); then the reduction is re-run from its recorded inputs (each state
    projected again) and its plan compared with the recorded one.
    """
    turn = record.get("turn_id")
    same = True
    reading: Any = record.get("reading") or {}
    if reading.get("brief"):
        same = await _replay_understanding(record, out)
    else:
        print(
            f"turn {turn}: no model call (scripted or click-only); understanding as recorded",
            file=out,
        )
    reduction = record.get("reduction")
    if not reduction:
        print(f"turn {turn}: no reduction recorded", file=out)
        return 0 if same else 1
    from turnframe.runtime.replay import replay_reduction

    plan_same, replayed = replay_reduction(reduction, registry or travel_application().registry)
    again: Any = replayed
    print(
        f"turn {turn}: reduction re-run from its recorded inputs; "
        + ("the plan is identical" if plan_same else "THE PLAN DIFFERS")
        + f" ({len(again['results'])} results, {len(again['batches'])} commits planned)",
        file=out,
    )
    if not plan_same:
        print(
            json.dumps({"recorded": reduction.get("plan"), "replayed": again}, indent=1), file=out
        )
    return 0 if same and plan_same else 1


async def _replay_understanding(record: dict[str, Any], out: TextIO) -> bool:
    """Re-run a recorded turn's understanding over its recorded calls; whether it is identical."""
    reading: Any = record["reading"]
    checks: dict[str, str | None] = dict(reading.get("checks") or {})

    async def check(act: Any) -> str | None:
        return checks.get(act.id)

    from dataclasses import replace

    brief = replace(brief_from_json(reading["brief"]), check=check)
    provider = ReplayProvider(record.get("calls") or [])
    # A record made before merged reads has no ``merge``: it was read step by step.
    result = await ModelUnderstanding(
        provider,
        effort=reading.get("effort") or "medium",
        merge=Merge(reading.get("merge") or Merge.NONE),
    ).understand(brief)
    again = to_json_value(result.understanding)
    recorded = recorded_understanding(record)
    same: bool = again == recorded
    print(
        f"turn {record.get('turn_id')}: understanding re-run, {provider.served} recorded calls "
        + ("served; the plan is identical" if same else "served; THE PLAN DIFFERS"),
        file=out,
    )
    if not same:
        print(
            json.dumps({"recorded": recorded, "replayed": again}, indent=1),
            file=out,
        )
    return same
