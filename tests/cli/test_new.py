"""``turnframe new NAME``: the package it makes installs and passes its tests and scenarios.

The fast tests render into ``tmp_path`` and run the package's ``pytest`` and ``turnframe
scenario run --app`` in subprocesses with ``src`` on the path. The install test
(``TURNFRAME_NEW_INSTALL=1``, set by .ci/run) runs the issue's done-when line in a fresh
virtual environment: ``turnframe new helpdesk && cd helpdesk && pip install -e . &&
pytest && turnframe scenario run --app helpdesk scenarios/``.
"""

from __future__ import annotations

import glob
import importlib.util
import inspect
import os
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.cli import main
from turnframe.cli.scaffold import render_app
from turnframe.core.errors import UsageError
from turnframe.testing.scenario import run_scenario_file

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "src" / "turnframe" / "cli" / "templates" / "app"
EXAMPLE = ROOT / "examples" / "helpdesk"
SKIPPED_DIRS = {"__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache"}
RUNNER_TAKES_APP = "app" in inspect.signature(run_scenario_file).parameters
NO_APP = "this scenario runner and pytest plugin take no application yet (--app lands separately)"


def _files_under(root: Path) -> dict[str, str]:
    found = {}
    for path in sorted(root.rglob("*")):
        parts = path.relative_to(root).parts
        if path.is_file() and not any(p in SKIPPED_DIRS or p.endswith(".egg-info") for p in parts):
            found["/".join(parts)] = path.read_text(encoding="utf-8")
    return found


def _run(cwd: Path, *args: str, pythonpath: list[Path]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in pythonpath)}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_helpdesk_example_is_the_rendered_template() -> None:
    rendered = render_app("helpdesk", record="ticket").files
    on_disk = _files_under(EXAMPLE)
    fix = "regenerate it: rm -r examples/helpdesk && turnframe new helpdesk --dir examples/helpdesk"
    assert sorted(on_disk) == sorted(rendered), fix
    for path, text in rendered.items():
        assert on_disk[path] == text, f"examples/helpdesk/{path} differs from the template; {fix}"


def test_the_wheel_carries_every_template_file() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["turnframe.cli"]
    package = ROOT / "src" / "turnframe" / "cli"
    template = {
        str(p.relative_to(package))
        for p in TEMPLATE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    # setuptools expands package-data globs with glob(recursive=True)
    carried = {
        str(Path(hit).relative_to(package))
        for g in globs
        for hit in glob.glob(str(package / g), recursive=True)
        if Path(hit).is_relative_to(TEMPLATE)
    }
    assert template and carried == template, sorted(template - carried)


def test_new_writes_a_package_whose_tests_and_scenarios_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "shop"
    assert main(["new", "shop", "--record", "work_order", "--dir", str(target)]) == 0
    said = capsys.readouterr().out
    assert "made shop" in said and "turnframe scenario run --app shop scenarios/" in said
    assert (target / "src" / "shop" / "workflow.py").is_file()
    workflow = (target / "src" / "shop" / "workflow.py").read_text(encoding="utf-8")
    assert 'name = "work_order"' in workflow and "class WorkOrderWorkflow" in workflow

    ignore = [] if RUNNER_TAKES_APP else ["--ignore", "tests/test_scenarios.py"]
    tests = _run(
        target, "-m", "pytest", "-q", "-p", "no:cacheprovider", *ignore,
        pythonpath=[target / "src", ROOT / "src"],
    )  # fmt: skip
    assert tests.returncode == 0, tests.stdout + tests.stderr
    expected = "14 passed" if RUNNER_TAKES_APP else "5 passed"
    assert expected in tests.stdout, tests.stdout
    if not RUNNER_TAKES_APP:
        pytest.skip(NO_APP)
    for spec in ("shop.app:application", "shop"):
        run = _run(
            target, "-m", "turnframe.cli", "scenario", "run", "--app", spec, "scenarios/",
            pythonpath=[target / "src", ROOT / "src"],
        )  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr
        assert "4 passed, 0 failed, 0 invalid" in run.stdout, run.stdout


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("Help-Desk", "not a package name"),
        ("1desk", "not a package name"),
        ("help.desk", "not a package name"),
        ("class", "keyword"),
        ("json", "taken"),
        ("turnframe", "taken"),
        ("bench", "taken"),
        ("yaml", "already importable"),
    ],
)
def test_an_invalid_name_is_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, says: str
) -> None:
    target = tmp_path / "out"
    assert main(["new", name, "--dir", str(target)]) == 2
    assert says in capsys.readouterr().err
    assert not target.exists()


@pytest.mark.parametrize(
    ("record", "says"),
    [
        ("Ticket", "lowercase words"),
        ("work__order", "lowercase words"),
        ("work-order", "lowercase words"),
        ("comment", "clashes"),
        ("set_priority", "clashes"),
    ],
)
def test_an_invalid_record_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], record: str, says: str
) -> None:
    assert main(["new", "desk", "--record", record, "--dir", str(tmp_path / "out")]) == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_non_empty_directory_is_refused_and_left_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["new", "desk", "--dir", str(tmp_path)]) == 2
    assert "is not empty" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_a_file_as_target_is_refused_and_an_empty_directory_is_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    assert main(["new", "desk", "--dir", str(tmp_path / "file")]) == 2
    assert "not a directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["new", "desk", "--dir", str(tmp_path / "empty")]) == 0
    assert (tmp_path / "empty" / "pyproject.toml").is_file()


def test_the_default_target_is_the_name_under_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", "desk"]) == 0
    config = tomllib.loads((tmp_path / "desk" / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["project"]["entry-points"]["turnframe.apps"] == {"desk": "desk.app:application"}
    import turnframe

    assert config["project"]["dependencies"] == [f"turnframe>={turnframe.__version__}"]


@settings(max_examples=60, deadline=None)
@given(
    name=st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True),
    record=st.from_regex(r"[a-z][a-z0-9]{0,8}(_[a-z0-9]{1,6}){0,2}", fullmatch=True),
)
def test_any_accepted_names_render_python_that_compiles_and_yaml_that_loads(
    name: str, record: str
) -> None:
    try:
        app = render_app(name, record=record)
    except UsageError:
        return  # a refused name: the cases above check the message
    for path, text in app.files.items():
        assert "${" not in text, path
        if path.endswith(".py"):
            compile(text, path, "exec")
        elif path.endswith((".yaml", ".toml")):
            loaded = yaml.safe_load(text) if path.endswith(".yaml") else tomllib.loads(text)
            assert loaded, path
    assert f"src/{name}/workflow.py" in app.files
    workflow = app.files[f"src/{name}/workflow.py"]
    assert f'name = "{record}"' in workflow


def _setuptools_floor() -> tuple[int, ...]:
    """The lowest setuptools the checkout's ``[build-system] requires`` accepts."""
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for entry in requires["build-system"]["requires"]:
        found = re.fullmatch(r"\s*setuptools\s*>=\s*([\d.]+)\s*", entry)
        if found:
            return tuple(int(part) for part in found.group(1).split("."))
    return (0,)


def _builds_offline() -> bool:
    """Whether this interpreter can build an editable wheel without the package index.

    Its setuptools must be one the checkout's build system asks for (77 reads the SPDX
    ``license``), and it builds one alone from 70.1; an older one needs ``wheel`` installed.
    """
    try:
        setuptools_version = metadata.version("setuptools")
    except metadata.PackageNotFoundError:
        return False
    have = tuple(int(part) for part in re.findall(r"\d+", setuptools_version)[:3])
    if have < _setuptools_floor():
        return False
    return have[:2] >= (70, 1) or importlib.util.find_spec("wheel") is not None


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin") / "python"


@pytest.mark.skipif(
    not os.environ.get("TURNFRAME_NEW_INSTALL"),
    reason="set TURNFRAME_NEW_INSTALL=1 to run the done-when line in a fresh venv (~1 min)",
)
def test_done_when_new_install_pytest_and_scenario_run_in_a_fresh_venv(tmp_path: Path) -> None:
    if not RUNNER_TAKES_APP:
        pytest.skip(NO_APP)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = _venv_python(venv)
    site_dir = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    # Offline: the new venv sees this interpreter's packages (pytest, PyYAML, setuptools,
    # ...) after its own, so Turnframe installed into it from this checkout wins.
    parents = [p for p in sys.path if p.endswith("site-packages")]
    lines = "".join(f"import site; site.addsitedir({p!r})\n" for p in parents)
    (Path(site_dir) / "zz_parent_site.pth").write_text(lines, encoding="utf-8")
    bin_dir = python.parent
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join([str(bin_dir), env.get("PATH", "")])
    env["VIRTUAL_ENV"] = str(venv)

    def sh(cwd: Path, *command: str) -> str:
        done = subprocess.run(
            list(command), cwd=cwd, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"{command}:\n{done.stdout}\n{done.stderr}"
        return done.stdout

    pip = [str(python), "-m", "pip", "install", "--quiet"]
    if _builds_offline():
        # `python -m venv` may seed a setuptools older than the build system asks for;
        # without it, the new venv builds with this interpreter's (seen through the .pth).
        sh(tmp_path, str(python), "-m", "pip", "uninstall", "--quiet", "-y", "setuptools")
        pip += ["--no-index", "--no-build-isolation"]  # nothing fetched
    # else pip fetches the build backends (setuptools, wheel) from the package index
    sh(tmp_path, *pip, "--no-deps", "-e", str(ROOT))  # the checkout's turnframe, as set up
    turnframe = str(bin_dir / "turnframe")
    sh(tmp_path, turnframe, "new", "helpdesk")
    app = tmp_path / "helpdesk"
    sh(app, *pip, "-e", ".")  # its dependency (turnframe) is checked, not fetched
    assert "14 passed" in sh(app, str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider")
    out = sh(app, turnframe, "scenario", "run", "--app", "helpdesk", "scenarios/")
    assert "4 passed, 0 failed, 0 invalid" in out, out
