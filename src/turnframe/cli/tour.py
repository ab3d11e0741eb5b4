"""``turnframe demo --app SPEC``: an application's tour, a scenario file played aloud.

An application names its tour with :attr:`turnframe.runtime.app.Application.tour`: the
path of a scenario file (docs/scenario-format.md; a relative path is read from the
current directory, so a package gives ``str(Path(__file__).parent / "tour.yaml")``).
The tour runs through the real pipeline on a SQLite file, offline: understanding is the
file's script, everything after it is real. Each turn is printed with its results,
committed events and reply; the file's expectations are checked as a scenario's are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

from turnframe.core.errors import UsageError
from turnframe.runtime import Application, TurnResult
from turnframe.testing.scenario import prepare_scenario, run_scenario
from turnframe.testing.scenario.model import TurnModel

__all__ = ["play_tour"]


async def play_tour(app: Application, path: Path, locale: str | None, out: TextIO) -> int:
    """Play ``app``'s tour on a new SQLite database at ``path``; return the exit code.

    Args:
        app: the application (its ``tour`` is set).
        path: a SQLite file that does not exist yet (the caller clears the default one).
        locale: the replies' locale, overriding the tour file's; ``None`` keeps it.
        out: where to print.

    Returns:
        0 when the tour ran and its expectations held, 1 when one did not.

    Raises:
        UsageError: when the application has no tour, or the locale is not one it serves.
        ScenarioFileError: when the tour file is missing or invalid (with its path).
        StoreError, OSError: when the database cannot be used.
    """
    from turnframe.store.sqlite import SqliteStore

    if app.tour is None:
        raise UsageError(
            f"the application {app.name!r} has no tour: set Application.tour to the path of a "
            f"scenario file to play (docs/scenario-format.md), or run its scenarios with "
            f"`turnframe scenario run --app {app.name} scenarios/`"
        )
    if locale is not None and locale not in app.locales:
        raise UsageError(
            f"--locale {locale!r}: the application {app.name!r} serves {', '.join(app.locales)}"
        )
    model, application = prepare_scenario(app.tour, app=app)
    if locale is not None:
        model = model.model_copy(update={"locale": locale})
    print(
        f"Turnframe demo: the {app.name} application's tour, through the real pipeline.", file=out
    )
    print(f"Tour: {model.name} ({app.tour})", file=out)
    if model.description:
        print(model.description.strip(), file=out)
    print(
        "Understanding is SCRIPTED in this tour: each message comes with the proposal a model\n"
        "would have made. Everything after that is real: resolution, policy, cards, commits.",
        file=out,
    )
    print(f"The tour's today is {model.today.isoformat()}.", file=out)
    shown = {"seeded": False}

    async def on_turn(run: Any, number: int, turn: TurnModel, result: TurnResult) -> None:
        if not shown["seeded"]:
            shown["seeded"] = True
            print("\nSeeded records:", file=out)
            for key, case in run.refs.items():
                print(f"  {key} {case.workflow}", file=out)
        print(f"\n── {number}.", file=out)
        if turn.text is not None:
            print(f'  user: "{turn.text}"', file=out)
        if turn.click is not None:
            value = f" with {turn.click.value!r}" if turn.click.value is not None else ""
            print(
                f"  user clicks option {turn.click.option!r} on card {turn.click.interaction}{value}",
                file=out,
            )
        _show(result, run.keys, out)

    store = await SqliteStore.open(path)
    try:
        outcome = await run_scenario(
            model, str(app.tour), app=application, store=store, on_turn=on_turn
        )
    finally:
        await store.close()
    print(f"\nThe tour's database is {path} (SQLite, WAL mode).", file=out)
    if not outcome.passed:
        print("The tour's expectations did not hold:", file=out)
        for failure in outcome.failures:
            print(f"  {failure.line()}", file=out)
        return 1
    return 0


def _show(result: TurnResult, keys: dict[Any, str], out: TextIO) -> None:
    from turnframe.cli.demo import render_blocks

    print("  results:", file=out)
    for item, res in result.results.items():
        where = f" on {keys.get(res.case, res.case)}" if res.case else ""
        op = f" {res.operation}" if res.operation else ""
        print(f"    {item}:{op}{where} → {res.label}", file=out)
    events = ", ".join(f"{e.id} {e.type}" for e in result.events) or "none"
    print(f"  committed events: {events}", file=out)
    print(f"  model calls: {result.model_calls}", file=out)
    print("  reply:", file=out)
    for line in render_blocks(result):
        print(f"    {line}", file=out)
