"""The ``turnframe`` command line: ``demo``, ``chat``, ``scenario run``, ``db``, ``relay``, ``models``..."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from turnframe.cli.version import installed_version
from turnframe.core.errors import TurnframeError

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="turnframe",
        description="Turnframe: the model proposes meaning; deterministic code decides effects; "
        "committed events decide claims.",
    )
    parser.add_argument("--version", action="version", version=f"turnframe {installed_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser(
        "demo",
        help="a guided tour of an application (default: the travel sample), offline, on SQLite",
    )
    demo.add_argument(
        "--app",
        metavar="SPEC",
        help="the application whose tour to play: module:attribute or an installed app's "
        "name (default: the travel sample's tour)",
    )
    demo.add_argument(
        "--db",
        help="a new SQLite file for the tour (default: demo.db under the user data dir, reset each run)",
    )
    demo.add_argument(
        "--locale",
        default=None,
        help="reply locale (travel: en or pt-PT; default en, or the tour file's locale)",
    )
    demo.add_argument(
        "--web",
        action="store_true",
        help="serve the app's tour in the browser (travel by default; extra `serve`; docs/serving.md)",
    )
    demo.add_argument("--host", default="127.0.0.1", help="with --web: the address")
    demo.add_argument("--port", type=int, default=8000, help="with --web: the port")

    scenario = sub.add_parser("scenario", help="scenario files")
    scenario_sub = scenario.add_subparsers(dest="scenario_command", required=True)
    run = scenario_sub.add_parser("run", help="run scenario files or directories")
    run.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    run.add_argument(
        "--app",
        metavar="SPEC",
        help="the application for files without `sample:` (module:attribute or an installed "
        "app's name); a file naming another one is invalid",
    )
    run.add_argument("--json", action="store_true", help="one JSON object per scenario")
    run.add_argument(
        "--store",
        choices=("memory", "sqlite", "postgres"),
        default="memory",
        help="postgres: a fresh schema per file on TURNFRAME_POSTGRES_DSN "
        "(or TURNFRAME_TEST_POSTGRES_DSN)",
    )
    scenario_sub.add_parser("schema", help="print the scenario format's JSON Schema (for editors)")
    db = sub.add_parser("db", help="the PostgreSQL store's schema (extra `postgres`)")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    migrate = db_sub.add_parser("migrate", help="apply the shipped migrations (advisory lock)")
    migrate.add_argument("--dsn", help="database DSN (default: $TURNFRAME_POSTGRES_DSN)")
    migrate.add_argument("--schema", default="public")
    print_sql = db_sub.add_parser("print-sql", help="print the migrations for your own tool")
    print_sql.add_argument("--schema", default="public")
    print_sql.add_argument("--after", type=int, default=0, help="skip migrations up to N")
    print_sql.add_argument("--fresh", action="store_true", help="print schema.sql instead")
    dead = db_sub.add_parser("dead-letters", help="list dead-lettered turns and outbox rows")
    dead.add_argument("--dsn", help="database DSN (default: $TURNFRAME_POSTGRES_DSN)")
    dead.add_argument("--schema", default="public")
    dead.add_argument("--account", help="only this account's turns")
    dead.add_argument("--json", action="store_true", help="one JSON object per entry")
    recipe = db_sub.add_parser("recipe", help="print an adoption recipe's SQL")
    recipe.add_argument("recipe_name", choices=("no-revision-column",))
    recipe.add_argument("--table", required=True, help="your table")
    recipe.add_argument("--key", default="id", help="its key column")
    recipe.add_argument("--column", default="tf_revision", help="the revision column")

    relay = sub.add_parser("relay", help="run an outbox relay on PostgreSQL (extra `postgres`)")
    relay.add_argument("--dsn", help="database DSN (default: $TURNFRAME_POSTGRES_DSN)")
    relay.add_argument("--schema", default="public")
    relay.add_argument("--airline-url", default="http://127.0.0.1:8081")
    relay.add_argument("--callback-port", type=int, help="serve signed airline callbacks")
    relay.add_argument("--once", action="store_true", help="run one round and exit")
    relay.add_argument("--lease", type=float, default=30.0, help="lease seconds")
    relay.add_argument("--poll", type=float, default=0.5, help="idle poll seconds")
    relay.add_argument("--owner", help="this relay's lease name")
    from turnframe.cli.chat import add_commands
    from turnframe.cli.eval import add_commands as add_eval_commands
    from turnframe.cli.explore import add_commands as add_explore_command
    from turnframe.cli.models import add_commands as add_model_commands
    from turnframe.cli.new import add_commands as add_new_command
    from turnframe.cli.providers import add_commands as add_provider_commands
    from turnframe.cli.serve import add_commands as add_serve_command
    from turnframe.cli.shadow import add_commands as add_shadow_command

    add_commands(sub)
    add_eval_commands(sub)
    add_new_command(sub)
    add_provider_commands(sub)
    add_model_commands(sub)
    add_serve_command(sub)
    add_explore_command(sub)
    add_shadow_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code.

    Exit codes: 0 success; 1 a scenario failed; 2 a usage error or an invalid file;
    3 ``chat`` could not reach the language model, or ``chat``/``models pull`` could not
    reach the package index a named local model comes from; 130 interrupted (Ctrl-C), said in one
    line. A reader that closes the output early (``turnframe eval run … | head``) ends
    the command quietly.
    """
    args = _parser().parse_args(argv)
    try:
        return _dispatch(args)
    except BrokenPipeError:
        # The reader stopped reading: point stdout at /dev/null so the interpreter's
        # final flush does not fail again, and end without a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except TurnframeError as exc:
        # Typed errors reach a person as one line, never as a traceback.
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Ctrl-C: one line, no traceback. A turn stopped mid-way stays in its persisted
        # phase, from which `Runtime.recover` finishes it without committing twice.
        print("interrupted", file=sys.stderr)
        return 130


def _dispatch(args: argparse.Namespace) -> int:
    if args.command in ("chat", "replay"):
        from turnframe.cli.chat import run_command

        return run_command(args)
    if args.command == "eval":
        from turnframe.cli.eval import run_eval_command

        return run_eval_command(args)
    if args.command == "new":
        from turnframe.cli.new import run_command as run_new

        return run_new(args)
    if args.command == "providers":
        from turnframe.cli.providers import run_providers

        return run_providers(args)
    if args.command == "models":
        from turnframe.cli.models import run_models

        return run_models(args)
    if args.command == "explore":
        from turnframe.cli.explore import run_explore

        return run_explore(args)
    if args.command == "serve":
        from turnframe.cli.serve import run_serve

        return run_serve(args)
    if args.command == "shadow":
        from turnframe.cli.shadow import run_shadow

        return run_shadow(args)
    if args.command == "demo" and args.web:
        from turnframe.cli.serve import run_demo_web

        return run_demo_web(host=args.host, port=args.port, db=args.db, app=args.app)
    if args.command == "demo":
        from turnframe.cli.demo import run_demo

        return int(run_demo(db=args.db, locale=args.locale, app=args.app))
    if args.command == "scenario" and args.scenario_command == "schema":
        from turnframe.cli.scenario import print_schema

        return print_schema()
    if args.command == "scenario":
        from turnframe.cli.scenario import run_scenarios

        return run_scenarios(args.paths, as_json=args.json, store=args.store, app=args.app)
    if args.command == "relay":
        from turnframe.cli.relay import run_relay

        return run_relay(
            dsn=args.dsn,
            schema=str(args.schema),
            airline_url=str(args.airline_url),
            callback_port=args.callback_port,
            once=bool(args.once),
            lease_seconds=float(args.lease),
            poll=float(args.poll),
            owner=args.owner,
        )
    if args.command == "db" and args.db_command == "dead-letters":
        from turnframe.cli.db import run_dead_letters

        return run_dead_letters(
            dsn=args.dsn, schema=str(args.schema), account=args.account, as_json=args.json
        )
    if args.command == "db" and args.db_command == "recipe":
        from turnframe.cli.db import run_recipe

        return run_recipe(str(args.table), str(args.key), str(args.column))
    if args.command == "db":
        from turnframe.cli.db import run_db

        return run_db(
            args.db_command,
            dsn=getattr(args, "dsn", None),
            schema=str(args.schema),
            after=int(getattr(args, "after", 0)),
            fresh=bool(getattr(args, "fresh", False)),
        )
    return 2  # pragma: no cover - argparse requires a command


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
