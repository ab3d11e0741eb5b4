"""``turnframe chat`` and ``turnframe replay TURN_ID`` (``eval`` is :mod:`turnframe.cli.eval`).

``chat`` talks to an application (``--app``, default the travel sample) on SQLite through
the real pipeline, with the provider chosen by ``--model`` or ``TURNFRAME_MODEL``; with
none it prints how to choose one, including ``scripted:example`` that needs no model
and no key (docs/chat.md). Cards show numbered options; a number is a structured click
(no model call). The loop is :mod:`turnframe.cli.chat_session`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import date
from pathlib import Path
from typing import Any, TextIO

import anyio

from turnframe.cli.chat_screen import DEFAULT_MAX_MESSAGE_BYTES, MODEL_HELP, NO_MODEL
from turnframe.cli.chat_seed import seed_chat
from turnframe.cli.chat_session import ChatSession, inspect_record, model_unreachable, render
from turnframe.cli.models import EXIT_UNREACHABLE, fetch_exit_code, prefetch
from turnframe.core import Actor
from turnframe.core.canonical import to_json_value
from turnframe.core.errors import UsageError
from turnframe.core.workflow import WorkflowRegistry
from turnframe.eval.models import KNOWN_MODELS, provider_from_spec
from turnframe.providers import ReplayProvider
from turnframe.providers.model_files import ModelFetchError
from turnframe.runtime import FixedClock, NarrationConfig, Runtime
from turnframe.runtime.app import Application
from turnframe.runtime.loading import load_application
from turnframe.runtime.replay import recorded_understanding
from turnframe.understand import Merge, ModelUnderstanding, brief_from_json
from turnframe.understand.merged import script_merge
from turnframe.understand.reply import ModelReplyWriter

__all__ = ["add_commands", "model_unreachable", "render", "replay_record", "run_command"]

CHAT_TODAY = date(2026, 5, 1)
"""The travel sample's chat day (its demo records are dated around it)."""

ACTOR = Actor(account="acme", user="maria", roles=frozenset({"customer"}))

DEFAULT_APP = "travel"

_inspect = inspect_record  # the name tests of the inspect output have always imported

EXIT_MODEL_UNREACHABLE = EXIT_UNREACHABLE
"""``chat``'s and ``eval run``'s exit status when a turn could not reach the language model
(the same 3 as an unreachable package index, :data:`turnframe.cli.models.EXIT_UNREACHABLE`)."""


def _message_limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number of bytes, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"at least 1 byte, not {value}")
    return value


def add_commands(sub: Any) -> None:
    """Add ``chat`` and ``replay`` to the ``turnframe`` parser."""
    app_help = (
        "the application: module:attribute, an installed app's name (entry point group "
        f"turnframe.apps) or a module with an `application`; default {DEFAULT_APP}"
    )
    chat = sub.add_parser(
        "chat",
        help="chat with an application (scripted:example needs no model or key)",
        description="Chat with an application through the real pipeline. Without a model, "
        "the first screen says how to choose one. Commands: /help, /records, /replay, "
        "/inspect, /quit; a number answers the last card; Ctrl-C cancels a running turn.",
    )
    chat.add_argument("--app", default=DEFAULT_APP, help=app_help)
    chat.add_argument("--model", help=MODEL_HELP)
    chat.add_argument("--db", help="SQLite file (default: chat.db under the user data dir)")
    chat.add_argument("--effort", choices=("low", "medium", "high"), default="medium")
    chat.add_argument("--locale", default="en")
    chat.add_argument(
        "--no-seed",
        dest="seed",
        action="store_false",
        help="start a new database empty (default: seed it from the app's tour records)",
    )
    chat.add_argument(
        "--max-message-bytes",
        type=_message_limit,
        default=DEFAULT_MAX_MESSAGE_BYTES,
        help=f"refuse longer messages, in UTF-8 bytes (default {DEFAULT_MAX_MESSAGE_BYTES})",
    )
    replay = sub.add_parser("replay", help="re-run a recorded turn's understanding and compare")
    replay.add_argument("turn_id")
    replay.add_argument("--app", default=DEFAULT_APP, help=app_help)
    replay.add_argument("--db", help="SQLite file (default: chat.db under the user data dir)")
    replay.add_argument("--account", default=ACTOR.account)


def run_command(
    args: argparse.Namespace, stdin: Any | None = None, out: TextIO | None = None
) -> int:
    """Run ``chat`` or ``replay``; return the exit code.

    Exit codes: 0 done; 2 a usage error (an unknown app or model, an unreadable file, no
    model configured); 3 a turn could not reach the language model (``chat``), or the
    package index a named local model comes from.
    """
    stream = out or sys.stdout
    try:
        if args.command == "replay":
            app = load_application(getattr(args, "app", None) or DEFAULT_APP)
            return int(anyio.run(_replay, args.turn_id, args.db, args.account, stream, app))
        if args.command == "chat":
            return _run_chat(args, stdin if stdin is not None else sys.stdin, stream)
    except ModelFetchError as exc:
        # One line: the index could not be reached (3) or the file failed its checks (2).
        print(f"error: {exc}", file=sys.stderr)
        return fetch_exit_code(exc)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 2


def _run_chat(args: argparse.Namespace, stdin: Any, out: TextIO) -> int:
    app = load_application(getattr(args, "app", None) or DEFAULT_APP)
    spec = args.model or os.environ.get("TURNFRAME_MODEL")
    if not spec:
        print(NO_MODEL.format(known=KNOWN_MODELS), file=out)
        return 2
    reader, intro = _reader(spec, args.effort, out)
    limit = int(getattr(args, "max_message_bytes", DEFAULT_MAX_MESSAGE_BYTES))
    return int(anyio.run(_chat, app, reader, intro, args, limit, stdin, out))


def _reader(spec: str, effort: str, out: TextIO) -> tuple[Any, list[str]]:
    """Return how messages are read for ``spec`` and the lines that introduce it."""
    if spec.startswith("scripted:"):
        from turnframe.cli.chat_script import load_script

        script = load_script(spec.partition(":")[2])
        if script is not None:

            def scripted(text: str) -> Any:
                provider = script.provider_for(text)
                if provider is None:
                    return script.refusal()
                merge = script_merge(provider)
                writer = ModelReplyWriter(provider, effort=effort) if _writes(provider) else None
                return ModelUnderstanding(provider, effort=effort, merge=merge), writer

            intro = ["Scripted chat (no model). Type one of these messages:"]
            intro += [f"   {say}" for say in script.says]
            return scripted, intro
    # A named local model not on this machine is fetched first, progress on stderr.
    prefetch(spec)
    if spec.startswith("local:"):
        # Loading a GGUF file takes seconds; say so before the first line appears.
        print(f"Loading the local model {spec[6:]}…", file=out, flush=True)
    provider = provider_from_spec(spec)
    # A scripted table of the steps is read step by step (docs/architecture.md).
    understander = ModelUnderstanding(provider, effort=effort, merge=script_merge(provider))
    writer = ModelReplyWriter(provider, effort=effort)
    return (lambda _text: (understander, writer)), []


def _writes(provider: Any) -> bool:
    """Whether a scripted table answers the reply's words (else the code's words are kept)."""
    tasks = getattr(provider, "tasks", None)
    return tasks is None or bool(tasks & {"acknowledge", "review", "answer"})


def _db(path: str | None) -> Path:
    from turnframe.store.sqlite import default_path

    chosen = Path(path) if path else default_path().with_name("chat.db")
    chosen.parent.mkdir(parents=True, exist_ok=True)
    return chosen


async def _chat(
    app: Application,
    reader: Any,
    intro: list[str],
    args: argparse.Namespace,
    limit: int,
    stdin: Any,
    out: TextIO,
) -> int:
    from turnframe.store.sqlite import SqliteStore
    from turnframe.telemetry import telemetry_from_environment

    telemetry = telemetry_from_environment()  # OTEL_* (docs/telemetry.md)
    store = await SqliteStore.open(_db(args.db))
    try:
        travel = app.name == "travel"
        runtime = Runtime(
            app,
            store,
            None,
            clock=FixedClock(CHAT_TODAY) if travel else None,
            narration=NarrationConfig(steps=True),
            telemetry=telemetry,
        )
        records = await seed_chat(app, runtime, store, ACTOR, seed=getattr(args, "seed", True))
        day = f" · today {CHAT_TODAY}" if travel else ""
        session = ChatSession(
            runtime, ACTOR, reader, out, locale=args.locale, max_message_bytes=limit
        )
        session.show(f"Turnframe chat · {app.name}{day} · /help for commands, /quit to leave")
        session.show(records)
        for line in intro:
            session.show(line)
        await session.run(stdin)
    finally:
        await store.close()
        telemetry.shutdown()
    return EXIT_MODEL_UNREACHABLE if session.unreachable else 0


async def _replay(
    turn_id: str, db: str | None, account: str, out: TextIO, app: Application | None = None
) -> int:
    from turnframe.store.sqlite import SqliteStore

    store = await SqliteStore.open(_db(db))
    try:
        record = await store.load_replay(account, turn_id)
    finally:
        await store.close()
    if record is None:
        print(f"error: no replay record for turn {turn_id}", file=sys.stderr)
        return 2
    return await replay_record(record, out, app.registry if app is not None else None)


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

    if registry is None:
        registry = load_application(DEFAULT_APP).registry
    plan_same, replayed = replay_reduction(reduction, registry)
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
