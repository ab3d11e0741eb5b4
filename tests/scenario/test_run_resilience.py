"""``scenario run`` keeps going: one file's breakage is that file's, and the run is summed up.

- A turn whose application raises (a ``DomainError``) fails its file, with the error's
  type and message; the other files still run and the closing line is printed.
- A step an earlier failure made impossible (a click on ``last`` when the turn that
  should have made the card failed) is reported after that failure, not as ``invalid``.
- An ``--app`` that cannot be loaded is one ``error:`` line, not one line per file; a
  ``sample:`` that cannot be loaded is spelled out once.
- A YAML syntax error is one line naming the file, never ``<unicode string>``.

(src/turnframe/cli/scenario.py, src/turnframe/testing/scenario/runner.py,
docs/scenario-format.md.)
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.cli import main
from turnframe.testing.scenario import ScenarioFileError, load_scenario

ROOT = Path(__file__).resolve().parents[2]
HELPDESK_SRC = ROOT / "examples" / "helpdesk" / "src"
HELPDESK_SCENARIOS = ROOT / "examples" / "helpdesk" / "scenarios"

FLAKY = """
from helpdesk.commands import Comment
from helpdesk.workflow import TicketWorkflow
from turnframe.core import WorkflowRegistry
from turnframe.runtime.app import Application


class Flaky(TicketWorkflow):
    def execute(self, state, command, ctx):
        if isinstance(command, Comment) and command.text == "boom":
            raise RuntimeError("the ticket system is down")
        return super().execute(state, command, ctx)


def application():
    return Application(name="flakydesk", registry=WorkflowRegistry([Flaky()]))
"""

BOOM_TURN = """name: a comment the application cannot apply
today: 2026-05-04
actor: {account: acme, user: agent1, roles: [agent]}
records:
  - {key: T1, workflow: ticket, state: {title: VPN down, requester: Rui}}
turns:
  - text: "Note: boom."
    understanding:
      acts:
        - {id: a1, operation: ticket.comment, target: {handles: [T1]}, args: {text: boom}}
    expect:
      results: {a1: committed}
  - text: "Note: fine."
    understanding:
      acts:
        - {id: a2, operation: ticket.comment, target: {handles: [T1]}, args: {text: fine}}
    expect:
      results: {a2: committed}
"""

NO_CARD_THEN_CLICK = """name: closing a closed ticket makes no card, so the click cannot run
today: 2026-05-04
actor: {account: acme, user: agent1, roles: [agent]}
records:
  - {key: T1, workflow: ticket, state: {title: VPN down, status: closed}}
turns:
  - text: "Close the VPN ticket."
    understanding:
      acts:
        - {id: a1, operation: ticket.close, target: {handles: [T1]}}
    expect:
      results: {a1: awaiting_confirmation}
  - click: {interaction: last, option: confirm}
    expect:
      results: {a1: committed}
"""


@pytest.fixture
def apps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "apps"
    home.mkdir()
    (home / "flakydesk.py").write_text(FLAKY, encoding="utf-8")
    (home / "boomdesk.py").write_text("raise RuntimeError('no config')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(HELPDESK_SRC))
    monkeypatch.syspath_prepend(str(home))
    names = ("flakydesk", "boomdesk", "helpdesk", "helpdesk.app")
    for name in names:
        sys.modules.pop(name, None)
    yield home
    for name in [m for m in sys.modules if m.split(".")[0] in {n.split(".")[0] for n in names}]:
        sys.modules.pop(name, None)


def _files(tmp_path: Path, **texts: str) -> Path:
    folder = tmp_path / "scenarios"
    folder.mkdir(parents=True)
    for name, text in texts.items():
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    return folder


def test_a_domain_error_fails_its_file_and_the_others_still_run(
    apps: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ok = (HELPDESK_SCENARIOS / "02_close_with_confirmation.yaml").read_text(encoding="utf-8")
    folder = _files(tmp_path, a_ok=ok, b_boom=BOOM_TURN, c_ok=ok)
    assert main(["scenario", "run", str(folder), "--app", "flakydesk:application"]) == 1
    out = capsys.readouterr().out.splitlines()
    boom = [line for line in out if "b_boom.yaml" in line]
    assert len(boom) == 1, out
    assert "turn 1: turn:" in boom[0] and "DomainError" in boom[0]
    assert "the ticket system is down" in boom[0]
    assert out[-1] == "2 passed, 1 failed, 0 invalid"


def test_an_unexpected_exception_in_one_file_is_reported_and_the_run_goes_on(
    apps: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import turnframe.cli.scenario as cli_scenario

    ok = (HELPDESK_SCENARIOS / "02_close_with_confirmation.yaml").read_text(encoding="utf-8")
    folder = _files(tmp_path, a_ok=ok, b_bad=ok, c_ok=ok)
    real = cli_scenario.run_scenario_file

    def breaking(path: Path, **kwargs: object) -> object:
        if "b_bad" in str(path):
            raise KeyError("stored row lost its 'state'")
        return real(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cli_scenario, "run_scenario_file", breaking)
    assert main(["scenario", "run", str(folder), "--app", "helpdesk.app:application"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert f"failed: {folder / 'b_bad.yaml'}: KeyError: \"stored row lost its 'state'\"" in out
    assert out[-1] == "2 passed, 1 failed, 0 invalid"


def test_an_earlier_turn_s_failure_comes_before_the_click_it_made_impossible(
    apps: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _files(tmp_path, closed=NO_CARD_THEN_CLICK)
    assert main(["scenario", "run", str(folder), "--app", "helpdesk.app:application"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "turn 1: results.a1: expected 'awaiting_confirmation'" in out[0], out
    assert "turn 2: turns[1].click.interaction:" in out[1]
    assert "not run after the failures above" in out[1] and "none was created" in out[1]
    assert not any(line.startswith("invalid:") for line in out)
    assert out[-1] == "0 passed, 1 failed, 0 invalid"


def test_an_app_that_cannot_load_is_said_once(
    apps: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ok = (HELPDESK_SCENARIOS / "02_close_with_confirmation.yaml").read_text(encoding="utf-8")
    folder = _files(tmp_path, a=ok, b=ok, c=ok)
    assert main(["scenario", "run", str(folder), "--app", "boomdesk"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("no config") == 1 and captured.err.count("\n") == 1

    other = _files(tmp_path / "x", a="sample: boomdesk\n" + ok, b="sample: boomdesk\n" + ok)
    assert main(["scenario", "run", str(other)]) == 2
    out = capsys.readouterr().out
    assert out.count("no config") == 1
    assert f"invalid: {other / 'b.yaml'} at sample: the same error as {other / 'a.yaml'}" in out
    assert out.splitlines()[-1] == "0 passed, 0 failed, 2 invalid"


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    text=st.text(
        alphabet=st.sampled_from(list("ab: -[]{}'\"\n\t&*!|>%@`,?#")), min_size=1, max_size=30
    )
)
def test_a_yaml_error_is_one_line_naming_the_file(
    text: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    try:
        yaml.safe_load(text)
    except yaml.YAMLError:
        pass
    else:
        return  # valid YAML: not this property's input
    path = tmp_path_factory.mktemp("y") / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioFileError) as caught:
        load_scenario(path, app="travel")
    message = str(caught.value)
    assert message.startswith(f"{path}: cannot read YAML: ")
    assert "\n" not in message and "<unicode string>" not in message
