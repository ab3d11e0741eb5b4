"""The release habits hold (docs/release-checklist.md): version, entry points, licence, gates.

``turnframe --version`` prints the installed metadata's version; ``python -m turnframe``
is the command line; ``LICENSE`` is the Apache-2.0 text ``pyproject.toml`` declares in
its SPDX form; every test the checklist's commands name exists.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from turnframe.cli import main
from turnframe.cli.version import installed_version

ROOT = Path(__file__).resolve().parents[2]
CHECKLIST = ROOT / "docs" / "release-checklist.md"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
APACHE_2_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"
"""SHA-256 of the Apache License 2.0 text as the ASF publishes it (LICENSE-2.0.txt)."""


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_version_prints_the_installed_metadata_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"turnframe {metadata.version('turnframe')}"


def test_the_metadata_version_is_the_pyprojects_and_the_packages() -> None:
    import turnframe

    assert installed_version() == PYPROJECT["project"]["version"] == turnframe.__version__


def test_an_uninstalled_tree_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    assert installed_version().endswith(" (not installed)")


def test_python_dash_m_turnframe_is_the_command_line() -> None:
    helped = _python("-m", "turnframe", "--help")
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("usage: turnframe ") and "scenario" in helped.stdout
    versioned = _python("-m", "turnframe", "--version")
    assert versioned.returncode == 0 and versioned.stdout.startswith("turnframe ")
    bare = _python("-m", "turnframe")
    assert bare.returncode == 2 and "Traceback" not in bare.stderr


def test_the_license_file_is_the_apache_2_text_pyproject_declares() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0"  # the SPDX string, not a deprecated table
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_bytes()
    assert hashlib.sha256(text).hexdigest() == APACHE_2_SHA256
    assert b"Apache License\n                           Version 2.0, January 2004" in text
    classifiers = project.get("classifiers", [])
    assert not [c for c in classifiers if c.startswith("License ::")]  # PEP 639: SPDX only


def test_the_build_backend_reads_the_spdx_license() -> None:
    (requirement,) = [r for r in PYPROJECT["build-system"]["requires"] if "setuptools" in r]
    bound = re.fullmatch(r"setuptools>=(\d+)(?:\.\d+)*", requirement)
    assert bound is not None and int(bound.group(1)) >= 77, requirement


def test_build_outputs_are_ignored() -> None:
    ignored = set((ROOT / ".gitignore").read_text(encoding="utf-8").split())
    assert {"build/", "dist/", "*.egg-info/"} <= ignored


def test_the_changelog_has_an_unreleased_section() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in text and "### Added" in text


def _named_tests() -> list[str]:
    text = CHECKLIST.read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    rows = re.findall(r"^\| `([^`]+)` \|", text, flags=re.M)
    commands = "\n".join([*blocks, *rows])
    return sorted(set(re.findall(r"tests/[\w/]+(?:\.py(?:::\w+)?|/)", commands)))


def test_the_checklist_names_tests() -> None:
    named = _named_tests()
    assert len(named) >= 20, named
    assert (
        "tests/property/test_prop_hostile.py::test_hostile_understanding_runs_10000_turns_with_zero_violations"
        in named
    )


@pytest.mark.parametrize("named", _named_tests())
def test_every_test_the_checklist_names_exists(named: str) -> None:
    path, _, name = named.partition("::")
    target = ROOT / path
    assert target.exists(), f"docs/release-checklist.md names {path}, which does not exist"
    if name:
        tree = ast.parse(target.read_text(encoding="utf-8"))
        defined = {
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        assert name in defined, f"docs/release-checklist.md names {named}: no such test in {path}"


def test_every_benchmark_the_checklist_names_exists() -> None:
    text = CHECKLIST.read_text(encoding="utf-8")
    named = set(re.findall(r"benchmarks/\w+\.py", text))
    assert named and all((ROOT / path).exists() for path in named), named
