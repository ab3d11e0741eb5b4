"""``turnframe serve`` and ``turnframe demo --web``: an application over HTTP (docs/serving.md).

The parent process checks the arguments (exit 2 with one line for a usage error), seeds a
new database from the application's records (as ``turnframe chat``), binds the socket,
prints ``serving APP on http://HOST:PORT/ (store …, model …)`` and runs uvicorn: one
worker in this process, or ``--workers N`` processes that each build the app from
:func:`worker_app` (a factory import string) with the settings this process put in the
environment (``TURNFRAME_SERVE_SETTINGS``, and the CSRF secret every worker shares in
``TURNFRAME_SERVE_SECRET``). SQLite serves one worker only; PostgreSQL serves several.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import anyio

from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import TurnframeError, UsageError

__all__ = ["ServeSettings", "add_commands", "run_demo_web", "run_serve", "worker_app"]

SETTINGS_VAR = "TURNFRAME_SERVE_SETTINGS"
SECRET_VAR = "TURNFRAME_SERVE_SECRET"
DSN_VAR = "TURNFRAME_POSTGRES_DSN"
FACTORY = "turnframe.cli.serve:worker_app"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ServeSettings:
    """What every worker needs to build the same app (JSON in ``TURNFRAME_SERVE_SETTINGS``).

    Attributes:
        app: the ``--app`` spec.
        store: ``sqlite`` or ``postgres``.
        db: the SQLite file.
        dsn: the PostgreSQL DSN.
        schema: the PostgreSQL schema.
        model: the ``--model`` spec (``tour``, ``scripted:…``, a provider), or ``None``.
        host: the bound address.
        port: the bound port.
        workers: uvicorn worker processes.
        auth: the ``--auth module:attribute`` spec, or ``None`` (development).
        locale: the turns' default locale, or ``None`` (the application's).
        max_message_bytes: the longest message.
        max_turns_per_actor: turns one actor may run at once.
        max_body_bytes: the longest request body.
    """

    app: str = "travel"
    store: str = "sqlite"
    db: str | None = None
    dsn: str | None = None
    schema: str = "public"
    model: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    auth: str | None = None
    locale: str | None = None
    max_message_bytes: int = 16 * 1024
    max_turns_per_actor: int = 4
    max_body_bytes: int = 64 * 1024


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"at least 1, not {value}")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port number, not {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0–65535, not {value}")
    return value


def add_commands(sub: Any) -> None:
    """Add ``serve`` to the ``turnframe`` parser."""
    serve = sub.add_parser(
        "serve",
        help="serve an application over HTTP: the /v1 API, the web chat, the inspector",
        description="Serve an application over HTTP (docs/serving.md). Prints one line "
        "`serving APP on http://HOST:PORT/ (...)` when it is listening.",
    )
    serve.add_argument("--app", default="travel", help="module:attribute or an installed app")
    serve.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    serve.add_argument("--db", help="SQLite file (default: serve.db under the user data dir)")
    serve.add_argument("--dsn", help=f"PostgreSQL DSN (default: ${DSN_VAR})")
    serve.add_argument("--schema", default="public", help="PostgreSQL schema")
    serve.add_argument(
        "--model",
        help="tour (the app's tour script), scripted:example, scripted:FILE or a provider "
        "spec; default: the app's tour when it has one, else none (click-only)",
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_port, default=8000)
    serve.add_argument("--workers", type=_positive, default=1)
    serve.add_argument("--auth", help="module:attribute of an Authenticator (or its factory)")
    serve.add_argument("--no-seed", dest="seed", action="store_false")
    serve.add_argument("--locale", default=None, help="the turns' default locale")
    serve.add_argument("--max-message-bytes", type=_positive, default=16 * 1024)
    serve.add_argument("--max-turns-per-actor", type=_positive, default=4)
    serve.add_argument("--max-body-bytes", type=_positive, default=64 * 1024)


def settings_from_args(args: argparse.Namespace) -> ServeSettings:
    """Return the settings ``args`` give, checked.

    Raises:
        UsageError: an unknown app or locale, a missing DSN, several workers on SQLite,
            the development authenticator on a non-loopback host, an ``--auth`` that
            cannot be loaded, a ``--model`` that cannot be read.
    """
    from turnframe.runtime.loading import load_application
    from turnframe.serve.auth import DevelopmentAuthenticator, load_authenticator
    from turnframe.serve.tour import tour_path

    app = load_application(args.app)
    if args.locale is not None and args.locale not in app.locales:
        raise UsageError(f"--locale {args.locale!r}: {app.name!r} serves {', '.join(app.locales)}")
    dsn = None
    db = None
    if args.store == "postgres":
        dsn = args.dsn or os.environ.get(DSN_VAR, "").strip() or None
        if dsn is None:
            raise UsageError(f"--store postgres: give --dsn or set {DSN_VAR}")
    else:
        if args.workers > 1:
            raise UsageError(
                "--workers > 1 needs --store postgres: SQLite serves one worker process "
                '(docs/serving.md "Workers")'
            )
        db = str(_db(args.db))
    if args.auth is None:
        DevelopmentAuthenticator(args.host)
    else:
        load_authenticator(args.auth)
    model = args.model or os.environ.get("TURNFRAME_MODEL") or None
    if model is None and tour_path(app) is not None:
        model = "tour"
    settings = ServeSettings(
        app=args.app,
        store=args.store,
        db=db,
        dsn=dsn,
        schema=args.schema,
        model=model,
        host=args.host,
        port=args.port,
        workers=args.workers,
        auth=args.auth,
        locale=args.locale,
        max_message_bytes=args.max_message_bytes,
        max_turns_per_actor=args.max_turns_per_actor,
        max_body_bytes=getattr(args, "max_body_bytes", 64 * 1024),
    )
    _reader(settings, app)  # a model that cannot be read is a usage error now, not per worker
    return settings


def _db(path: str | None) -> Path:
    from turnframe.store.sqlite import default_path

    chosen = Path(path) if path else default_path().with_name("serve.db")
    chosen.parent.mkdir(parents=True, exist_ok=True)
    return chosen


def _reader(settings: ServeSettings, app: Any) -> tuple[Any, tuple[str, ...]]:
    """Return the message reader ``settings.model`` names and its suggestions."""
    if settings.model is None:
        return None, ()
    if settings.model == "tour":
        from turnframe.serve.tour import tour_reader

        reader = tour_reader(app)
        return reader, reader.says
    from turnframe.cli.chat import _reader as chat_reader

    reader, intro = chat_reader(settings.model, "medium", sys.stderr)
    says = tuple(line.strip() for line in intro[1:]) if intro else ()
    return reader, says


async def _open_store(settings: ServeSettings, *, migrate: bool = False) -> Any:
    if settings.store == "postgres":
        from turnframe.store.postgres import PostgresStore
        from turnframe.store.postgres import migrate as migrate_schema

        assert settings.dsn is not None
        if migrate:
            await migrate_schema(settings.dsn, schema=settings.schema)
        return await PostgresStore.open(settings.dsn, schema=settings.schema)
    from turnframe.store.sqlite import SqliteStore

    assert settings.db is not None
    return await SqliteStore.open(Path(settings.db))


def _clock(app: Any) -> Any:
    from turnframe.cli.chat import CHAT_TODAY
    from turnframe.runtime import FixedClock

    return FixedClock(CHAT_TODAY) if app.name == "travel" else None


async def _prepare(settings: ServeSettings, seed: bool) -> str:
    """Migrate (PostgreSQL) and seed a new database; return the records line."""
    from turnframe.cli.chat import ACTOR
    from turnframe.cli.chat_seed import seed_chat
    from turnframe.runtime import Runtime
    from turnframe.runtime.loading import load_application

    app = load_application(settings.app)
    store = await _open_store(settings, migrate=True)
    try:
        runtime = Runtime(app, store, clock=_clock(app))
        return await seed_chat(app, runtime, store, ACTOR, seed=seed)
    finally:
        await store.close()


def build_app(settings: ServeSettings, secret: bytes) -> Any:
    """Return the Starlette app for ``settings`` (the same in every worker)."""
    from turnframe.runtime.loading import load_application
    from turnframe.serve.app import create_app
    from turnframe.serve.auth import DevelopmentAuthenticator, is_loopback, load_authenticator
    from turnframe.serve.state import ServeConfig
    from turnframe.telemetry import quiet_telemetry

    app = load_application(settings.app)
    reader, says = _reader(settings, app)
    authenticate = (
        DevelopmentAuthenticator(settings.host)
        if settings.auth is None
        else load_authenticator(settings.auth)
    )
    config = ServeConfig(
        max_message_bytes=settings.max_message_bytes,
        max_turns_per_actor=settings.max_turns_per_actor,
        max_body_bytes=settings.max_body_bytes,
        loopback_only=is_loopback(settings.host),
        locale=settings.locale,
    )

    async def opener() -> Any:
        return await _open_store(settings)

    return create_app(
        app,
        opener,
        reader=reader,
        authenticate=authenticate,
        config=config,
        clock=_clock(app),
        suggestions=says,
        csrf_secret=secret,
        telemetry=quiet_telemetry,
    )


def worker_app() -> Any:
    """Build the app from the environment the parent set (uvicorn's factory, ``--workers``).

    Raises:
        UsageError: ``TURNFRAME_SERVE_SETTINGS`` is missing or malformed.
    """
    raw = os.environ.get(SETTINGS_VAR)
    secret = os.environ.get(SECRET_VAR)
    if not raw or not secret:
        raise UsageError(f"{FACTORY} reads {SETTINGS_VAR} and {SECRET_VAR}: run turnframe serve")
    try:
        settings = ServeSettings(**json.loads(raw))
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{SETTINGS_VAR} is malformed: {exc}") from exc
    return build_app(settings, bytes.fromhex(secret))


def _serve(settings: ServeSettings, records: str, out: Any) -> int:
    import uvicorn

    secret = secrets.token_bytes(32)
    os.environ[SETTINGS_VAR] = json.dumps(asdict(settings))
    os.environ[SECRET_VAR] = secret.hex()
    if settings.workers > 1:
        config = uvicorn.Config(
            FACTORY, factory=True, host=settings.host, port=settings.port,
            workers=settings.workers, log_level="warning", lifespan="on",
        )  # fmt: skip
    else:
        config = uvicorn.Config(
            build_app(settings, secret), host=settings.host, port=settings.port,
            log_level="warning", lifespan="on",
        )  # fmt: skip
    try:
        sock = config.bind_socket()
    except SystemExit:
        print(
            f"error: cannot listen on {settings.host}:{settings.port} (in use or not allowed)",
            file=sys.stderr,
        )
        return 2
    sock.listen(config.backlog)  # connections queue from now on, before the workers accept
    port = sock.getsockname()[1]
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    where = (
        settings.db
        if settings.store == "sqlite"
        else f"{_dsn_place(settings.dsn)} schema {settings.schema}"
    )
    # the chat's line, without its terminal command (the web chat has none)
    said = records.replace(" (/records lists them)", "").replace("; /records lists them", "")
    print(said, file=sys.stderr)
    if settings.auth is None:
        print(
            "auth: development: every request acts as acme/maria "
            "(loopback only; --auth module:attribute for your own)",
            file=sys.stderr,
        )
    print(
        f"serving {_app_name(settings)} on http://{host}:{port}/ "
        f"(store {settings.store} {where}, model {settings.model or 'none'}, "
        f"workers {settings.workers})",
        file=out,
        flush=True,
    )
    if settings.workers > 1:
        from uvicorn.supervisors import Multiprocess

        Multiprocess(config, sockets=[sock]).run()
    else:
        uvicorn.Server(config).run(sockets=[sock])
    return 0


def _dsn_place(dsn: str | None) -> str:
    """Return ``host:port/db`` of a DSN, never its user or password."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(dsn or "")
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "(dsn)"
    return f"{parts.hostname or 'localhost'}{port}{parts.path or ''}"


def _app_name(settings: ServeSettings) -> str:
    from turnframe.runtime.loading import load_application

    return load_application(settings.app).name


def run_serve(args: argparse.Namespace, out: Any | None = None) -> int:
    """Run ``turnframe serve``; return the exit code (0 stopped, 2 a usage error).

    The standard ``OTEL_*`` variables turn telemetry on (docs/telemetry.md "From the
    environment"); an exporter name nothing provides is a usage error.
    """
    from turnframe.telemetry import check_environment

    stream = out or sys.stdout
    try:
        import uvicorn  # noqa: F401  (extra `serve`: said now, in one line)

        settings = settings_from_args(args)
        check_environment()  # OTEL_*: said once here; each worker builds its own
        records = anyio.run(_prepare, settings, bool(args.seed))
    except TurnframeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: the database could not be used: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:  # the extra the store or the server needs is missing
        said = str(exc).replace("\n", " ")
        hint = "" if "turnframe[" in said else ' (pip install "turnframe[serve]")'
        print(f"error: {said}{hint}", file=sys.stderr)
        return 2
    return _serve(settings, records, stream)


def run_demo_web(
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str | None = None,
    out: Any | None = None,
    app: str | None = None,
) -> int:
    """Serve a tour (default the travel sample's) on a fresh SQLite database, scripted.

    Args:
        app: ``--app SPEC``: another application with a tour (``Application.tour``).
        host: the address (loopback: the development authenticator).
        port: the port (0: any free one; the line printed says which).
        db: a new SQLite file (default: ``demo-web.db`` under the user data dir, reset).
        out: where the ``serving …`` line goes.

    Returns:
        0 when stopped; 2 for a usage error (a non-loopback host, an existing ``--db``).
    """
    from turnframe.store.sqlite import default_path

    if db is None:
        path = default_path().with_name("demo-web.db")
        path.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
    else:
        path = Path(db)
        if path.exists():
            print(f"error: {path} already exists; the tour needs a new file", file=sys.stderr)
            return 2
    args = argparse.Namespace(
        app=app or "travel", store="sqlite", db=str(path), dsn=None, schema="public", model="tour",
        host=host, port=port, workers=1, auth=None, seed=True, locale=None,
        max_message_bytes=16 * 1024, max_turns_per_actor=4,
    )  # fmt: skip
    return run_serve(args, out)
