"""The runner's rough edges (docs/scenario-format.md): what is checked, what is invalid."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from turnframe.cli import main
from turnframe.testing.scenario import (
    ScenarioFileError,
    prepare_scenario,
    run_scenario,
    run_scenario_file,
)

_BASE = """\
name: a confirmation card for a hotel, then a click
sample: travel
today: 2026-05-01
actor: {account: acme, user: u1, roles: [customer]}
records:
  - {key: T1, workflow: trip, name: Lisbon, start: 2026-05-12, end: 2026-05-15}
  - {key: T2, workflow: trip, name: Lisbon, start: 2026-06-03, end: 2026-06-06}
turns:
  - text: "Book Hotel Avenida for 3 nights."
    understanding:
      acts:
        - {id: a1, operation: trip.book_hotel, target: {handles: [T2]}, args: {hotel: Hotel Avenida, nights: "3"}}
    expect:
      results: {a1: awaiting_confirmation}
      interactions_created: [{kind: confirm}]
  - click: {interaction: last, option: confirm}
    expect:
      results: {a1: committed}
      commands: [{operation: trip.book_hotel}]
"""


def _file(tmp_path: Path, text: str = _BASE) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_omitted_expectation_keys_are_not_checked(tmp_path: Path) -> None:
    # `case` is left out of both the card and the command: neither is compared with null
    outcome = run_scenario_file(_file(tmp_path))
    assert outcome.passed, outcome.failures


def test_written_keys_are_still_checked(tmp_path: Path) -> None:
    text = _BASE.replace("[{kind: confirm}]", "[{kind: confirm, case: null}]").replace(
        "[{operation: trip.book_hotel}]", "[{operation: trip.book_hotel, case: T1}]"
    )
    outcome = run_scenario_file(_file(tmp_path, text))
    got = {(f.turn, f.expectation) for f in outcome.failures}
    assert got == {(1, "interactions_created"), (2, "commands")}
    command = next(f for f in outcome.failures if f.expectation == "commands")
    assert command.actual == [("trip.book_hotel", "T2")]


def test_a_command_count_is_checked_even_without_cases(tmp_path: Path) -> None:
    text = _BASE.replace(
        "[{operation: trip.book_hotel}]",
        "[{operation: trip.book_hotel}, {operation: trip.book_hotel}]",
    )
    (failure,) = run_scenario_file(_file(tmp_path, text)).failures
    assert failure.expectation == "commands"


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        ("{a1: committed}", "{a1: comitted}", "turns[1].expect.results.a1"),
        ("{a1: committed}", "{a1: 'rejected: spaced'}", "turns[1].expect.results.a1"),
        ("[{kind: confirm}]", "[{kind: confrim}]", "turns[0].expect.interactions_created[0].kind"),
        (
            "[{operation: trip.book_hotel}]",
            "[{operation: trip.book_hotle}]",
            "turns[1].expect.commands[0].operation",
        ),
        (
            "[{operation: trip.book_hotel}]",
            "[{operation: trip.book_hotel, case: T9}]",
            "turns[1].expect.commands[0].case",
        ),
        (
            "[{operation: trip.book_hotel}]",
            "[{operation: trip.book_hotel, cse: T2}]",
            "turns[1].expect.commands[0].cse",
        ),
        ("results: {a1: committed}", "blocks: [recipt]", "turns[1].expect.blocks[0]"),
        ("results: {a1: committed}", "error: NoSuchError", "turns[1].expect.error"),
        ("results: {a1: committed}", "state: {T7: {name: x}}", "turns[1].expect.state.T7"),
        (
            "results: {a1: committed}",
            "outbox: [{case: T2, topc: x}]",
            "turns[1].expect.outbox[0].topc",
        ),
        ("results: {a1: committed}", "outbox: [{case: T8}]", "turns[1].expect.outbox[0].case"),
        (
            "{interaction: last, option: confirm}",
            "{interaction: last, option: confirm, valu: x}",
            "turns[1].click.valu",
        ),
        (
            "  - click: {interaction",
            "  - crash: {at: comit}\n    click: {interaction",
            "turns[1].crash.at",
        ),
    ],
)
def test_a_misspelt_key_or_unknown_value_makes_the_file_invalid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, where: str
) -> None:
    assert old in _BASE
    path = _file(tmp_path, _BASE.replace(old, new))
    assert main(["scenario", "run", str(path)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"invalid: {path} at {where}: ")
    assert out[-1] == "0 passed, 0 failed, 1 invalid"


def test_a_known_error_name_is_accepted(tmp_path: Path) -> None:
    # TurnIdReused is raised by the runtime, so it is a name `expect.error` may give
    text = _BASE.replace("results: {a1: committed}", "error: TurnIdReused")
    model, _ = prepare_scenario(_file(tmp_path, text))
    assert model.turns[1].expect is not None and model.turns[1].expect.error == "TurnIdReused"


def test_an_empty_directory_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("not a scenario")
    assert main(["scenario", "run", str(tmp_path / "empty")]) == 2
    assert "no scenario files" in capsys.readouterr().err


def test_a_click_carries_its_free_value(tmp_path: Path) -> None:
    text = _BASE.replace(
        "{interaction: last, option: confirm}",
        '{interaction: last, option: confirm, value: "late check-in, please"}',
    )
    model, app = prepare_scenario(_file(tmp_path, text))
    seen: list[Any] = []

    async def on_turn(run: Any, number: int, turn: Any, result: Any) -> None:
        record = await run.store.get_turn("acme", result.turn_id)
        seen.append(record.input.get("interaction_response"))

    outcome = anyio.run(lambda: run_scenario(model, "s.yaml", app=app, on_turn=on_turn))
    assert outcome.passed, outcome.failures
    assert seen[0] is None
    assert seen[1]["free_value"] == "late check-in, please"
    assert seen[1]["option_id"] == "confirm"


def test_a_misspelt_key_in_a_travel_record_names_the_record(tmp_path: Path) -> None:
    path = _file(
        tmp_path, _BASE.replace("name: Lisbon, start: 2026-05-12", "nme: Lisbon, start: 2026-05-12")
    )
    with pytest.raises(ScenarioFileError) as caught:
        run_scenario_file(path)
    assert caught.value.where.startswith("records")
    assert "nme" in str(caught.value)
