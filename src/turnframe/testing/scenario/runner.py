"""Run scenario files through the real pipeline and check what happened.

Each file runs in a fresh store with a fixed clock and deterministic ids, with the
runtime its application builds (the application's own ``CaseDirectory`` and, where the
runtime takes it, ``WorkflowExecutor``), so a scenario tests what production runs.
Understanding is scripted from the file; record keys (``T1``) are turned into the turn's
opaque handles the way a model would see them. A failed expectation is reported with
file, turn number, expectation, expected and actual; a file that breaks the format
(docs/scenario-format.md) is invalid, with the YAML path of what is wrong.
"""

from __future__ import annotations

import tempfile
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from turnframe.core.acts import (
    CardAnswer,
    Constraint,
    ConstraintKind,
    ConstraintScope,
    EvidenceSource,
    Link,
    ProposedTarget,
    Question,
    SemanticAct,
    Understanding,
)
from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import DomainError, TurnframeError, UsageError
from turnframe.core.ids import Actor, CaseRef
from turnframe.core.interactions import Interaction
from turnframe.core.reply import ReplyBlock
from turnframe.core.results import PlannedActResult
from turnframe.core.turn import Effort, InteractionResponse, TurnInput
from turnframe.runtime import (
    Application,
    FixedClock,
    RecordSeeder,
    Runtime,
    SequentialIds,
    TurnInterrupted,
    TurnResult,
)
from turnframe.store import FaultInjectingStore, FaultPlan, InMemoryStore, TurnStore
from turnframe.store.base import BOUNDARIES
from turnframe.testing.bounded_yaml import load_yaml, yaml_error_line
from turnframe.testing.scenario.apps import AppChoice, application_for, seeder_for
from turnframe.testing.scenario.model import (
    ActorModel,
    ExpectModel,
    ScenarioModel,
    TargetModel,
    TurnModel,
    UnderstandingModel,
)
from turnframe.testing.scenario.seeding import SeedError
from turnframe.understand import Brief, UnderstandingResult
from turnframe.understand.reply import ReplyWriter

__all__ = [
    "Failure",
    "ScenarioFileError",
    "ScenarioOutcome",
    "discover",
    "load_scenario",
    "run_scenario",
    "run_scenario_file",
    "seed_records",
]

_STORES = ("memory", "sqlite", "postgres")


class ScenarioFileError(UsageError):
    """A scenario file that cannot be read or does not follow the format.

    Args:
        path: the file.
        where: the YAML path of the bad field (``turns[2].expect.results``), or ``""``.
        message: what is wrong.

    Attributes:
        path: as given.
        where: as given.
        message: as given (without the path).
    """

    def __init__(self, path: str, where: str, message: str) -> None:
        location = f" at {where}" if where else ""
        super().__init__(f"{path}{location}: {message}")
        self.path = path
        self.where = where
        self.message = message


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Failure:
    """One failed expectation.

    Attributes:
        file: the scenario file.
        turn: the 1-based turn number.
        expectation: the expectation's key (``results.a1``).
        expected: what the file expected.
        actual: what happened.
    """

    file: str
    turn: int
    expectation: str
    expected: Any
    actual: Any

    def line(self) -> str:
        """Return the one-line report."""
        return (
            f"{self.file}: turn {self.turn}: {self.expectation}: "
            f"expected {self.expected!r}, actual {self.actual!r}"
        )


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ScenarioOutcome:
    """What running one file gave.

    Attributes:
        file: the file.
        name: the scenario's name.
        failures: every failed expectation (empty when it passed).
    """

    file: str
    name: str
    failures: tuple[Failure, ...] = ()

    @property
    def passed(self) -> bool:
        """Whether every expectation held."""
        return not self.failures


def discover(paths: Sequence[str | Path], *, allow_empty: bool = False) -> list[Path]:
    """Return the scenario files named by ``paths`` (files, or directories searched for ``*.yaml``).

    Args:
        paths: files and directories.
        allow_empty: return ``[]`` for a directory holding no scenario file instead of
            raising (the pytest plugin collects whatever there is).

    Raises:
        ScenarioFileError: for a path that does not exist, or (unless ``allow_empty``) a
            directory with no ``*.yaml``/``*.yml`` file in it: a run that checks nothing
            is an error, not a pass.
    """
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            inside = sorted(p for p in path.rglob("*.y*ml") if p.is_file())
            if not inside and not allow_empty:
                raise ScenarioFileError(
                    str(path), "", "no scenario files (*.yaml, *.yml) in this directory"
                )
            found.extend(inside)
        elif path.is_file():
            found.append(path)
        else:
            raise ScenarioFileError(str(path), "", "no such file or directory")
    return found


def _yaml_path(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, str) and (part in _UNION_TAGS or part.startswith("literal[")):
            continue  # pydantic names the member of a union it tried; the file has no such key
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + ("as" if part == "as_" else str(part))
    return out


_UNION_TAGS = frozenset({"UnderstandingModel"})


def load_scenario(path: str | Path, *, app: AppChoice = None) -> ScenarioModel:
    """Read and validate one scenario file against the format and its application.

    Args:
        path: the file.
        app: the application for a file without ``sample:`` (an ``--app`` spec or an
            :class:`Application`); a file naming another one is invalid.

    Raises:
        ScenarioFileError: unreadable YAML, a field that breaks the format, or a name
            (application, record key, operation, error) nothing defines, with its path.
    """
    return prepare_scenario(path, app=app)[0]


def prepare_scenario(
    path: str | Path, *, app: AppChoice = None
) -> tuple[ScenarioModel, Application]:
    """Return the validated scenario at ``path`` and the application it runs with.

    Raises:
        ScenarioFileError: as :func:`load_scenario`.
    """
    model = _read_model(path)
    application = _application(model, app, str(path))
    _check_names(model, str(path), application)
    return model, application


async def seed_records(
    runtime: Runtime,
    seeder: RecordSeeder,
    records: Sequence[Mapping[str, Any]],
    *,
    account: str,
    file: str,
) -> dict[str, CaseRef]:
    """Seed a scenario's ``records:`` through ``runtime`` in the seeder's order.

    The runner's own seeding (docs/scenario-format.md "Records"), shared with
    ``turnframe chat``, which seeds a new database from an application's tour.

    Args:
        runtime: the application's runtime (its ``seed`` writes each record).
        seeder: the application's seeder (:func:`seeder_for`).
        records: the file's records, as read.
        account: the account of a record without its own ``account``.
        file: the scenario file, for errors.

    Returns:
        Each record's key → the case it became.

    Raises:
        ScenarioFileError: a record the seeder refuses (its YAML path named).
    """
    refs: dict[str, CaseRef] = {}
    positions = {str(r.get("key", "")): i for i, r in enumerate(records)}
    try:
        ordered = seeder.seed_order(records)
    except SeedError as exc:
        at = "records" + (f"[{exc.index}]" if exc.index is not None else "")
        raise ScenarioFileError(
            file, at + (f".{exc.where}" if exc.where else ""), str(exc)
        ) from exc
    except ValueError as exc:  # an application's own seeder names the record itself
        raise ScenarioFileError(file, "records", str(exc)) from exc
    for record in ordered:
        key = str(record.get("key", ""))
        index = positions.get(key, 0)
        try:
            workflow, state = seeder.seed_state(record, refs)
        except SeedError as exc:
            at = f"records[{index}]" + (f".{exc.where}" if exc.where else "")
            raise ScenarioFileError(file, at, str(exc)) from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise ScenarioFileError(file, f"records[{index}]", str(exc)) from exc
        case_id = record.get("id")
        refs[key] = await runtime.seed(
            str(record.get("account", account)),
            workflow,
            state,
            case_id=str(case_id) if case_id is not None else key.lower() or None,
        )
    return refs


def _application(model: ScenarioModel, app: AppChoice, path: str) -> Application:
    try:
        return application_for(model.sample, app)
    except UsageError as exc:
        raise ScenarioFileError(path, "sample", str(exc)) from exc


def _read_model(path: str | Path) -> ScenarioModel:
    """Read the YAML file and validate it against the format's models.

    Raises:
        ScenarioFileError: unreadable YAML or a field that breaks the format (its path).
    """
    try:
        raw = load_yaml(Path(path).read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ScenarioFileError(str(path), "", "not UTF-8 text") from exc
    except (OSError, yaml.YAMLError, ValueError) as exc:
        # PyYAML's timestamp reader raises a plain ValueError for dates like 2026-13-45.
        raise ScenarioFileError(str(path), "", f"cannot read YAML: {yaml_error_line(exc)}") from exc
    if not isinstance(raw, dict):
        raise ScenarioFileError(str(path), "", "a scenario is a YAML mapping")
    try:
        model = ScenarioModel.model_validate(raw)
    except ValidationError as exc:
        first = _first_error(exc)
        raise ScenarioFileError(str(path), _yaml_path(first["loc"]), first["msg"]) from exc
    return model


def _first_error(exc: ValidationError) -> Any:
    """Return the error to report: an unknown key before anything else.

    A union (``understanding:``) reports one error per member it tried; the one about
    an extra key of the mapping member is what the author wrote wrong.
    """
    errors = exc.errors()
    for error in errors:
        if error["type"] == "extra_forbidden":
            return error
    return errors[0]


def _error_names() -> frozenset[str]:
    """Return the class names an ``expect.error`` may give: every typed error."""
    import turnframe.providers.errors
    import turnframe.store.errors  # noqa: F401

    names: set[str] = set()
    todo: list[type] = [TurnframeError]
    while todo:
        cls = todo.pop()
        names.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    return frozenset(names)


def _check_locales(model: ScenarioModel, path: str, app: Application) -> None:
    """Refuse a locale (the file's or a turn's) that the application does not serve.

    A turn in an unserved locale would read its values with that locale's CLDR data and
    answer in the application's words for another (docs/scenario-format.md).

    Raises:
        ScenarioFileError: with the YAML path of the first unserved locale.
    """
    served = tuple(app.locales)
    wanted = [("locale", model.locale)] + [
        (f"turns[{t}].locale", turn.locale) for t, turn in enumerate(model.turns) if turn.locale
    ]
    for where, locale in wanted:
        if locale not in served:
            raise ScenarioFileError(
                path,
                where,
                f"the application {app.name!r} does not serve locale {locale!r} "
                f"(it serves {', '.join(served)})",
            )


def _check_names(model: ScenarioModel, path: str, app: Application) -> None:
    """Refuse a record key, operation or error the file names but nothing defines.

    Raises:
        ScenarioFileError: with the YAML path of the first unknown name.
    """
    registry = app.registry
    keys = {str(r.get("key")) for r in model.records if isinstance(r, Mapping)}
    for key, where in _named_keys(model):
        if key not in keys and "/" not in key:  # "workflow/id": a record the run creates
            raise ScenarioFileError(path, where, f"unknown record key {key!r}")
    errors: frozenset[str] | None = None
    for t, turn in enumerate(model.turns):
        unseen = [k for k in turn.in_view or () if k not in keys]
        if unseen:
            raise ScenarioFileError(
                path, f"turns[{t}].in_view", f"unknown record key {unseen[0]!r}"
            )
        if turn.crash is not None and turn.crash.at not in BOUNDARIES:
            raise ScenarioFileError(
                path,
                f"turns[{t}].crash.at",
                f"unknown boundary {turn.crash.at!r} (one of {', '.join(sorted(BOUNDARIES))})",
            )
        expect = turn.expect
        if expect is not None:
            for c, command in enumerate(expect.commands or ()):
                if registry.operation(command.operation) is None:
                    raise ScenarioFileError(
                        path,
                        f"turns[{t}].expect.commands[{c}].operation",
                        f"unknown operation {command.operation!r}",
                    )
            if expect.error is not None:
                errors = errors or _error_names()
                if expect.error not in errors:
                    raise ScenarioFileError(
                        path,
                        f"turns[{t}].expect.error",
                        f"{expect.error!r} is not a Turnframe error class name",
                    )
        spec = turn.understanding
        if not isinstance(spec, UnderstandingModel):
            continue  # none, or `model`: the provider proposes
        where = f"turns[{t}].understanding"
        targets = [(f"{where}.acts[{i}].target", a.target) for i, a in enumerate(spec.acts)]
        targets += [
            (f"{where}.questions[{i}].target", q.target)
            for i, q in enumerate(spec.questions)
            if q.target is not None
        ]
        for at, target in targets:
            unknown = [k for k in target.handles if k not in keys]
            if unknown:
                raise ScenarioFileError(path, f"{at}.handles", f"unknown record key {unknown[0]!r}")
        for i, act in enumerate(spec.acts):
            if act.operation is not None and registry.operation(act.operation) is None:
                raise ScenarioFileError(
                    path, f"{where}.acts[{i}].operation", f"unknown operation {act.operation!r}"
                )


class _ScenarioUnderstanding:
    """Serves the current turn's scripted proposal; re-reads (recovery) get the same one.

    A turn with ``understanding: model`` is read by ``reader`` instead: the model chain over
    the turn's ``model_answers`` (a scripted provider) or over the provider a caller gave.
    """

    def __init__(self) -> None:
        self.current: Understanding | None = None
        self.builder: Any = None
        self.reader: Callable[[Brief], Awaitable[UnderstandingResult]] | None = None

    async def understand(self, brief: Brief) -> UnderstandingResult:
        if self.reader is not None:
            return await self.reader(brief)
        if self.builder is None:
            raise UsageError("a text turn in a scenario needs an `understanding:` block")
        return UnderstandingResult(understanding=self.builder(brief), model_calls=0)


async def _open_store(kind: str, workdir: Path) -> TurnStore:
    if kind == "memory":
        return InMemoryStore()
    if kind == "sqlite":
        from turnframe.store.sqlite import SqliteStore

        return await SqliteStore.open(workdir / "scenario.db")
    if kind == "postgres":
        # A fresh schema per file, dropped on close; DSN from TURNFRAME_POSTGRES_DSN or
        # TURNFRAME_TEST_POSTGRES_DSN. Imported lazily: psycopg is the `postgres` extra.
        from turnframe.testing.postgres import open_temporary_store

        store: TurnStore = await open_temporary_store(prefix="tf_scenario")
        return store
    raise UsageError(f"unknown store {kind!r} (choose from {', '.join(_STORES)})")


def _named_keys(model: ScenarioModel) -> list[tuple[str, str]]:
    """Return ``(record key, YAML path)`` for every key an expectation or step names."""
    named: list[tuple[str, str]] = []
    for t, turn in enumerate(model.turns):
        if turn.external is not None:
            named.append((turn.external.case, f"turns[{t}].external.case"))
        expect = turn.expect
        if expect is None:
            continue
        at = f"turns[{t}].expect"
        for c, command in enumerate(expect.commands or ()):
            if command.case is not None:
                named.append((command.case, f"{at}.commands[{c}].case"))
        for i, card in enumerate(expect.interactions_created or ()):
            if card.case is not None:
                named.append((card.case, f"{at}.interactions_created[{i}].case"))
        named.extend((key, f"{at}.state.{key}") for key in expect.state or {})
        for o, row in enumerate(expect.outbox or ()):
            if row.case is not None:
                named.append((row.case, f"{at}.outbox[{o}].case"))
    return named


def run_scenario_file(
    path: str | Path, *, store: str = "memory", app: AppChoice = None
) -> ScenarioOutcome:
    """Run one scenario file synchronously (an event loop is started for it).

    Args:
        path: the file.
        store: ``memory``, ``sqlite`` or ``postgres``.
        app: the application for a file without ``sample:`` (``--app``).

    Raises:
        ScenarioFileError: when the file is invalid.
    """
    import anyio

    model, application = prepare_scenario(path, app=app)

    async def run() -> ScenarioOutcome:
        return await run_scenario(model, str(path), store, app=application)

    return anyio.run(run)


ModelReader = Callable[["_Run", TurnModel, Brief], Awaitable[UnderstandingResult]]
"""Reads a turn marked ``understanding: model`` (default: the chain over ``model_answers``)."""

TurnHook = Callable[["_Run", int, TurnModel, TurnResult], Awaitable[None]]
"""Called after each turn with the run, the turn's number, its model and its result."""


async def run_scenario(
    model: ScenarioModel,
    file: str,
    store_kind: str = "memory",
    *,
    model_reader: ModelReader | None = None,
    on_turn: TurnHook | None = None,
    app: AppChoice = None,
    store: TurnStore | None = None,
    reply_writer: ReplyWriter | None = None,
) -> ScenarioOutcome:
    """Run a validated scenario in a fresh store and return its outcome.

    Args:
        model: the scenario.
        file: its file name, for reports.
        store_kind: ``memory``, ``sqlite`` or ``postgres``.
        model_reader: reads turns marked ``understanding: model`` (default: the model
            chain over each turn's ``model_answers`` with a scripted provider).
        on_turn: called after each turn (the evaluation harness collects results).
        app: the application (default: the one the file's ``sample:`` names).
        store: an open, empty store to run in instead of a fresh ``store_kind`` one
            (the caller closes it; the demo's tour runs on its SQLite file).
        reply_writer: writes the reply's words of the turns marked ``understanding:
            model`` that have no ``reply_answers`` (the evaluation harness's
            ``--reply-model``); default none: the words code writes stand.

    Raises:
        ScenarioFileError: when the application cannot be found or does not serve a
            locale the file names, records cannot be seeded, or a step names something
            its application lacks (with the path).
    """
    application = app if isinstance(app, Application) else _application(model, app, file)
    _check_locales(model, file, application)
    if store is not None:
        return await _Run(
            model, file, store, application, model_reader, on_turn, reply_writer
        ).run()
    with tempfile.TemporaryDirectory(prefix="turnframe-scenario-") as tmp:
        inner = await _open_store(store_kind, Path(tmp))
        try:
            return await _Run(
                model, file, inner, application, model_reader, on_turn, reply_writer
            ).run()
        finally:
            await inner.close()


@dataclass
class _Run:
    model: ScenarioModel
    file: str
    inner: TurnStore
    app: Application
    model_reader: ModelReader | None = None
    on_turn: TurnHook | None = None
    reply_writer: ReplyWriter | None = None
    failures: list[Failure] = field(default_factory=list)
    refs: dict[str, CaseRef] = field(default_factory=dict)
    cards: list[Interaction] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.seeder = seeder_for(self.app)
        self.plan = FaultPlan()
        self.store = FaultInjectingStore(self.inner, self.plan)
        self.clock = FixedClock(self.model.today)
        self.understander = _ScenarioUnderstanding()
        # The application's own directory, as production builds it; the runtime reads
        # the application's executor itself (passing the directory too is harmless).
        directory = (
            self.app.directory(self.app.registry, self.store)
            if self.app.directory is not None
            else None
        )
        self.runtime = Runtime(
            self.app,
            self.store,
            self.understander,
            clock=self.clock,
            ids=SequentialIds(),
            directory=directory,
        )
        self.actor = _actor(self.model.actor)
        self.conversation = "conversation-1"
        self.keys: dict[CaseRef, str] = {}

    async def run(self) -> ScenarioOutcome:
        await self._seed()
        for number, turn in enumerate(self.model.turns, start=1):
            try:
                await self._turn(number, turn)
            except ScenarioFileError as exc:
                if not self.failures:
                    raise
                # A step an earlier failure made impossible (a click on `last` when the
                # turn that should have made the card failed): the earlier failure is
                # the cause, reported first; this step is not run, nor any after it.
                self._fail(
                    number,
                    exc.where or f"turns[{number - 1}]",
                    "a step that can run",
                    f"not run after the failures above: {exc.message}",
                )
                break
            except UsageError as exc:
                raise ScenarioFileError(self.file, f"turns[{number - 1}]", str(exc)) from exc
            except TurnframeError as exc:
                # The application or its store failed (a DomainError, a record that no
                # longer loads): a failure of this file, which stops here.
                self._fail(number, "turn", "the turn to run", f"{type(exc).__name__}: {exc}")
                break
        return ScenarioOutcome(file=self.file, name=self.model.name, failures=tuple(self.failures))

    async def _seed(self) -> None:
        refs = await seed_records(
            self.runtime,
            self.seeder,
            self.model.records,
            account=self.actor.account,
            file=self.file,
        )
        self.refs.update(refs)
        self.keys.update({case: key for key, case in refs.items()})

    def _in_view(self, turn: TurnModel | None = None) -> list[CaseRef] | None:
        keys = turn.in_view if turn is not None and turn.in_view is not None else None
        if keys is None:
            keys = self.model.in_view
        if keys is None:
            return None
        return [self.refs[k] for k in keys if k in self.refs]

    def _card_id(self, ref: str, where: str) -> str:
        if ref == "last":
            if not self.cards:
                raise ScenarioFileError(
                    self.file, where, "`last` names a card, but none was created"
                )
            return self.cards[-1].id
        if ref.startswith("#"):
            n = int(ref[1:])
            if not 1 <= n <= len(self.cards):
                raise ScenarioFileError(self.file, where, f"no card {ref} was created")
            return self.cards[n - 1].id
        return ref

    def _link_end(self, end: str | None, where: str) -> str | None:
        """Return a link end, ``card:<card>:<act id>`` made ``<card id>:<act id>``.

        ``<card>`` is ``last``, ``#n`` or a card id, as for clicks: the act that card
        carries, pending from an earlier turn (ADR 0012). Other ends are used as written.
        """
        if end is None or not end.startswith("card:"):
            return end
        card, sep, act = end[5:].rpartition(":")
        if not sep or not card or not act:
            raise ScenarioFileError(self.file, where, f"{end!r} is not card:<card>:<act id>")
        return f"{self._card_id(card, where)}:{act}"

    async def _turn(self, number: int, turn: TurnModel) -> None:
        where = f"turns[{number - 1}]"
        if turn.advance_days:
            self.clock.advance(turn.advance_days)
        if turn.crash is not None:
            try:
                self.plan.arm(turn.crash.at)
            except TurnframeError as exc:
                raise ScenarioFileError(self.file, f"{where}.crash.at", str(exc)) from exc
        if turn.external is not None:
            await self._external(number, turn, where)
        if turn.text is None and turn.click is None:
            if turn.expect is not None:
                await self._check(number, turn.expect, None)
            return
        actor = _actor(turn.as_) if turn.as_ else self.actor
        response = None
        if turn.click is not None:
            card_id = self._card_id(turn.click.interaction, f"{where}.click.interaction")
            option = self._option(card_id, turn.click.option)
            expected = turn.click.expected_revision
            if expected is None:
                shown = next((c for c in self.cards if c.id == card_id), None)
                expected = shown.spec.bound_revision if shown else None
            click_actor = _actor(turn.click.as_) if turn.click.as_ else actor
            actor = click_actor
            response = InteractionResponse(
                interaction_id=card_id,
                option_id=option,
                expected_revision=expected,
                free_value=turn.click.value,
            )
        self.understander.reader = None
        if turn.text is not None and turn.understanding == "model":
            self.understander.reader = self._model_reader(turn, where)
            self.understander.builder = None
        elif turn.text is not None:
            spec = turn.understanding
            assert spec != "model"
            self.understander.builder = self._builder(spec or UnderstandingModel(), where)
        else:
            self.understander.builder = None
        turn_input = TurnInput(
            text=turn.text,
            interaction_response=response,
            locale=turn.locale or self.model.locale,
            effort=Effort(turn.effort) if turn.effort else None,
        )
        self.runtime.reply_writer = self._reply_writer(turn)
        try:
            result = await self._run_with_recovery(
                actor, turn_input, self._in_view(turn), turn.turn_id
            )
        except TurnframeError as exc:
            wanted = turn.expect.error if turn.expect is not None else None
            if wanted is None:
                raise
            if type(exc).__name__ != wanted:
                self._fail(number, "error", wanted, type(exc).__name__)
            assert turn.expect is not None
            await self._check(number, turn.expect, None)
            return
        finally:
            self.runtime.reply_writer = None
        if turn.expect is not None and turn.expect.error is not None:
            self._fail(number, "error", turn.expect.error, None)
        self.cards.extend(result.interactions_created)
        if self.on_turn is not None:
            await self.on_turn(self, number, turn, result)
        if turn.expect is not None:
            await self._check(number, turn.expect, result)

    async def _run_with_recovery(
        self,
        actor: Actor,
        turn_input: TurnInput,
        in_view: list[CaseRef] | None,
        client_id: str | None,
    ) -> TurnResult:
        try:
            return await self.runtime.run_turn(
                actor, self.conversation, turn_input, in_view=in_view, turn_id=client_id
            )
        except TurnInterrupted as exc:
            turn_id = exc.turn_id
        for _ in range(3):
            try:
                if await self.store.get_turn(actor.account, turn_id) is None:
                    return await self.runtime.run_turn(
                        actor,
                        self.conversation,
                        turn_input,
                        in_view=in_view,
                        turn_id=turn_id,
                    )
                return await self.runtime.recover(actor, turn_id)
            except TurnInterrupted:
                continue
        raise UsageError(f"turn {turn_id} could not be recovered")

    def _option(self, card_id: str, option: str) -> str:
        card = next((c for c in self.cards if c.id == card_id), None)
        if card is not None and option in self.refs:
            for opt in card.spec.options:
                if opt.case == self.refs[option]:
                    return opt.id
        return option

    async def _external(self, number: int, turn: TurnModel, where: str) -> None:
        ext = turn.external
        assert ext is not None
        case = self.refs.get(ext.case)
        if case is None:
            raise ScenarioFileError(self.file, f"{where}.external.case", f"no record {ext.case!r}")
        definition = self.runtime.registry.workflow(case.workflow).definition
        hook = getattr(definition, "external_update", None)
        if not callable(hook):
            raise ScenarioFileError(
                self.file,
                f"{where}.external",
                f"the {case.workflow} workflow takes no external updates: it has no "
                "external_update(state, status, *, reference='') method",
            )
        status = ext.status
        if ext.timeout:
            status = getattr(definition, "timeout_status", None)
            if not isinstance(status, str) or not status:
                raise ScenarioFileError(
                    self.file,
                    f"{where}.external.timeout",
                    f"the {case.workflow} workflow has no timeout_status (a str attribute "
                    "naming the status a timeout reports)",
                )
        assert status is not None
        reference = f"scenario-{number}"
        source = getattr(definition, "external_source", definition.name)
        try:
            await self.runtime.external_update(
                self.actor.account,
                case,
                source=str(source),
                reference=reference,
                transition=lambda state: hook(state, status, reference=reference),
            )
        except (ValueError, DomainError) as exc:
            # The hook refuses a transition by raising ValueError; through the registry's
            # guard it arrives as a DomainError chained from it. Anything else is a bug.
            refusal = exc.__cause__ if isinstance(exc, DomainError) else exc
            if not isinstance(refusal, ValueError):
                raise
            self.failures.append(
                Failure(
                    file=self.file,
                    turn=number,
                    expectation="external",
                    expected=ext.status,
                    actual=str(refusal),
                )
            )

    def _model_reader(
        self, turn: TurnModel, where: str
    ) -> Callable[[Brief], Awaitable[UnderstandingResult]]:
        if self.model_reader is not None:
            reader = self.model_reader

            async def custom(brief: Brief) -> UnderstandingResult:
                return await reader(self, turn, brief)

            return custom
        answers = turn.model_answers
        if answers is None:
            raise ScenarioFileError(
                self.file, f"{where}.model_answers", "`understanding: model` needs `model_answers`"
            )

        async def scripted(brief: Brief) -> UnderstandingResult:
            from turnframe.providers import ScriptedProvider
            from turnframe.understand import ModelUnderstanding
            from turnframe.understand.merged import script_merge

            table = {
                task: scripted_answer(self.with_handles(brief, value))
                for task, value in answers.items()
            }
            provider = ScriptedProvider(table)
            # A script of the steps (segment, route...) is read step by step; one that
            # scripts a merged read (``read``, ``segment_route``) is read as low effort
            # reads (docs/architecture.md "Effort").
            merge = script_merge(provider)
            understander = ModelUnderstanding(provider, effort="low", merge=merge)
            return await understander.understand(brief)

        return scripted

    def _reply_writer(self, turn: TurnModel) -> Any:
        """Return the turn's reply writer: scripted, the run's, or ``None``.

        A turn with ``reply_answers`` gets a scripted one; a turn read by the model
        (``understanding: model``) without them gets the run's ``reply_writer``.

        ``reply_answers`` maps ``acknowledge``, ``review`` and ``answer`` to scripted
        answers (a list is served in order), run through ``ModelReplyWriter`` at the
        turn's effort (default medium), so the runtime's word guard checks them as it
        checks any model's words (docs/adr/0017-no-claim-in-model-words.md).
        """
        if turn.reply_answers is None:
            return self.reply_writer if turn.understanding == "model" else None
        from turnframe.providers import ScriptedProvider
        from turnframe.understand.reply import ModelReplyWriter

        table = {task: scripted_answer(v) for task, v in turn.reply_answers.items()}
        verdict = table.get("review")
        if verdict in ("pass", "fail"):
            # The reviewer answers every check it is asked the same way (a colluding or a
            # refusing reviewer), whatever the checklist holds.
            queues = {k: list(v) if isinstance(v, list) else [v] for k, v in table.items()}

            def answer(request: Any) -> Any:
                if request.task == "review":
                    import json

                    checklist = json.loads(request.messages[1].content)["checklist"]
                    return {"checks": {c: verdict == "pass" for c in checklist}}
                queue = queues.get(request.task)
                if not queue:
                    raise UsageError(f"reply_answers has no answer for {request.task!r}")
                return queue.pop(0) if len(queue) > 1 else queue[0]

            return ModelReplyWriter(ScriptedProvider(answer), effort=turn.effort or "medium")
        return ModelReplyWriter(ScriptedProvider(table), effort=turn.effort or "medium")

    def with_handles(self, brief: Brief, value: Any) -> Any:
        """Return ``value`` with record keys made the turn's handles and ``card:last`` a card id."""
        if isinstance(value, dict):
            return {k: self.with_handles(brief, v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.with_handles(brief, v) for v in value]
        if isinstance(value, str):
            if value in self.refs:
                return self.runtime.handle_for(brief.turn_id, self.refs[value])
            if value.startswith("card:"):
                return self._card_id(value[5:], "model_answers")
        return value

    def _builder(self, spec: UnderstandingModel, where: str) -> Any:
        def handle(brief: Brief, key: str) -> str:
            case = self.refs.get(key)
            return self.runtime.handle_for(brief.turn_id, case) if case else key

        def target(brief: Brief, t: TargetModel | None) -> ProposedTarget | None:
            if t is None:
                return None
            return ProposedTarget(
                handles=tuple(handle(brief, k) for k in t.handles),
                mention=t.mention,
                find=t.find,
                new=t.new,
            )

        def build(brief: Brief) -> Understanding:
            acts = tuple(
                SemanticAct(
                    id=a.id,
                    operation=a.operation,
                    target=target(brief, a.target) or ProposedTarget(),
                    args={k: handle(brief, v) if v in self.refs else v for k, v in a.args.items()},
                    evidence=dict(a.evidence),
                    evidence_source=EvidenceSource(a.evidence_source),
                    hypothetical=a.hypothetical,
                )
                for a in spec.acts
            )
            return Understanding(
                acts=acts,
                questions=tuple(
                    Question(id=q.id, topic=q.topic, target=target(brief, q.target), basis=q.basis)
                    for q in spec.questions
                ),
                card_answers=tuple(
                    CardAnswer(
                        id=c.id,
                        interaction=self._card_id(
                            c.interaction, f"{where}.understanding.card_answers"
                        ),
                        option=self._option(
                            self._card_id(c.interaction, f"{where}.understanding.card_answers"),
                            c.option,
                        ),
                    )
                    for c in spec.card_answers
                ),
                constraints=tuple(
                    Constraint(id=c.id, kind=ConstraintKind(c.kind), scope=ConstraintScope(c.scope))
                    for c in spec.constraints
                ),
                links=tuple(
                    Link(
                        act=link.act,
                        corrects=self._link_end(link.corrects, f"{where}.understanding.links"),
                        cancels=self._link_end(link.cancels, f"{where}.understanding.links"),
                    )
                    for link in spec.links
                ),
            )

        return build

    # expectations ---------------------------------------------------------------
    def _fail(self, number: int, what: str, expected: Any, actual: Any) -> None:
        self.failures.append(
            Failure(file=self.file, turn=number, expectation=what, expected=expected, actual=actual)
        )

    async def _check(self, number: int, expect: ExpectModel, result: TurnResult | None) -> None:
        if result is not None:
            self._check_turn(number, expect, result)
        if expect.state is not None:
            for key, wanted in expect.state.items():
                case = self.refs.get(key)
                row = await self.store.load_case(case) if case else None
                actual = row.state if row else None
                norm = self._normalize(wanted)
                if actual is None or not _subset(norm, actual):
                    self._fail(number, f"state.{key}", norm, _project(norm, actual))
        if expect.outbox is not None:
            messages = await self.store.outbox_messages()
            actual_outbox = [
                {"case": self.keys.get(m.case, str(m.case)), "topic": m.topic, "status": m.status}
                for m in messages
            ]
            wanted_outbox = [o.model_dump(exclude_unset=True) for o in expect.outbox]
            if not _subset(wanted_outbox, actual_outbox):
                self._fail(number, "outbox", wanted_outbox, actual_outbox)

    def _check_turn(self, number: int, expect: ExpectModel, result: TurnResult) -> None:
        if expect.results is not None:
            for item, wanted in expect.results.items():
                got = result.results.get(item)
                label = _result_label(got, detailed=":" in wanted)
                if label != wanted:
                    self._fail(number, f"results.{item}", wanted, label)
        if expect.commands is not None:
            # A command written without `case` checks its operation only.
            wanted_cmds = [
                (c.operation, c.case) if "case" in c.model_fields_set else (c.operation,)
                for c in expect.commands
            ]
            actual_cmds = [(op, self.keys.get(case, str(case))) for op, case in result.commands]
            seen = [a[: len(w)] for a, w in zip(actual_cmds, wanted_cmds, strict=False)]
            if len(actual_cmds) != len(wanted_cmds) or seen != wanted_cmds:
                self._fail(number, "commands", wanted_cmds, actual_cmds)
        if expect.interactions_created is not None:
            actual_cards = [self._card_view(c) for c in result.interactions_created]
            # Only the keys a card expectation writes are compared (`case: null` is
            # written; an omitted `case` is not checked).
            wanted_cards = [
                i.model_dump(include=set(i.model_fields_set) | {"kind"})
                for i in expect.interactions_created
            ]
            trimmed = [
                {k: v for k, v in a.items() if k in w}
                for a, w in zip(actual_cards, wanted_cards, strict=False)
            ]
            if len(actual_cards) != len(wanted_cards) or trimmed != wanted_cards:
                self._fail(number, "interactions_created", wanted_cards, actual_cards)
        if expect.blocks is not None:
            kinds = [b.kind for b in result.blocks]
            if kinds != expect.blocks:
                self._fail(number, "blocks", expect.blocks, kinds)
        text = _reply_text(result.blocks)
        for needle in expect.reply_mentions or []:
            if needle.lower() not in text.lower():
                self._fail(number, "reply_mentions", needle, text)
        for needle in expect.reply_must_not_mention or []:
            if needle.lower() in text.lower():
                self._fail(number, "reply_must_not_mention", needle, text)
        if expect.reply_must_not_claim is not None:
            claimed = sorted({c.operation for b in result.blocks for c in b.claims})
            bad = [op for op in expect.reply_must_not_claim if op in claimed]
            if bad:
                self._fail(number, "reply_must_not_claim", expect.reply_must_not_claim, claimed)
        if expect.model_calls is not None and expect.model_calls != result.model_calls:
            self._fail(number, "model_calls", expect.model_calls, result.model_calls)

    def _card_view(self, card: Interaction) -> dict[str, Any]:
        options = [
            self.keys.get(o.case, str(o.case)) if o.case is not None else o.id
            for o in card.spec.options
        ]
        case = self.keys.get(card.spec.case, str(card.spec.case)) if card.spec.case else None
        return {"kind": card.spec.kind.value, "case": case, "options": options}

    def _normalize(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: self._normalize(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._normalize(v) for v in value]
        if isinstance(value, date):
            return value.isoformat()
        if isinstance(value, str) and value in self.refs:
            return str(self.refs[value])
        return value


def _result_label(result: PlannedActResult | None, *, detailed: bool) -> str | None:
    """Return a result as a scenario spells it: ``status``, or ``status:code`` when detailed.

    ``rejected:<code>`` is the format's spelling; any other status may be checked with its
    code the same way (``needs_clarification:missing:kind``, ``superseded:cancelled``).
    """
    if result is None:
        return None
    status = result.status.value
    if not detailed:
        return status
    return f"{status}:{result.code}" if result.code else status


def _actor(model: ActorModel) -> Actor:
    return Actor(account=model.account, user=model.user, roles=frozenset(model.roles))


def _subset(expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, Mapping) and all(
            k in actual and _subset(v, actual[k]) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(_subset(e, a) for e, a in zip(expected, actual, strict=True))
        )
    return bool(expected == actual)


def _project(expected: Any, actual: Any) -> Any:
    """Return the part of ``actual`` the expectation looked at (for readable failures)."""
    if isinstance(expected, dict) and isinstance(actual, Mapping):
        return {k: _project(v, actual.get(k)) for k, v in expected.items()}
    return actual


def _reply_text(blocks: Sequence[ReplyBlock]) -> str:
    parts: list[str] = []
    for block in blocks:
        match block.kind:
            case "receipt":
                parts.append(block.receipt.text)
            case "interaction":
                parts.append(block.prompt)
                parts.extend(o.label for o in block.options)
            case _:
                parts.append(getattr(block, "text", ""))
    return "\n".join(parts)


_PROVIDER_ERRORS = {
    "connection_refused": "ConnectionRefused",
    "dns": "HostNotFound",
    "tls": "TlsFailed",
    "authentication": "AuthenticationFailed",
    "quota": "QuotaExceeded",
    "model_not_found": "ModelNotFound",
    "timeout": "ProviderTimeout",
}


def scripted_answer(value: Any) -> Any:
    """Return a scripted answer with ``{provider_error: KIND}`` made that provider error.

    ``KIND`` is one of ``connection_refused``, ``dns``, ``tls``, ``authentication``,
    ``quota``, ``model_not_found`` or ``timeout``: the call fails as a provider that could
    not be reached would (docs/adr/0017-no-claim-in-model-words.md). A list is converted
    item by item.

    Raises:
        UsageError: for an unknown kind.
    """
    if isinstance(value, list):
        return [scripted_answer(v) for v in value]
    if isinstance(value, dict) and set(value) == {"provider_error"}:
        import turnframe.providers.errors as errors

        kind = str(value["provider_error"])
        if kind not in _PROVIDER_ERRORS:
            raise UsageError(
                f"unknown provider_error {kind!r}; one of {', '.join(_PROVIDER_ERRORS)}"
            )
        cls = getattr(errors, _PROVIDER_ERRORS[kind])
        if kind == "timeout":
            return cls("the scripted provider timed out", sent=True, provider="scripted")
        return cls(f"the scripted provider failed: {kind}", provider="scripted")
    return value
