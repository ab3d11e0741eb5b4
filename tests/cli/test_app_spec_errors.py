"""An ``--app`` whose module or factory fails is one line, exit 2, in every command.

A module that raises on import (any exception, a ``SyntaxError`` too), a bare name whose
module imports a package that is not installed, and a factory ``application()`` that
needs an argument or raises all end as one ``error: --app '...': ...`` line naming the
spec, the exception's type and its message (src/turnframe/runtime/loading.py).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.cli import main
from turnframe.core.errors import UsageError
from turnframe.runtime.loading import load_application

BROKEN = {
    "boomapp": ("raise RuntimeError('boom at import')\n", "RuntimeError: boom at import"),
    "syntaxapp": ("def application(:\n    pass\n", "SyntaxError: "),
    "argapp": (
        "def application(required):\n    return None\n",
        "TypeError: application() missing 1 required positional argument",
    ),
    "raiseapp": (
        "def application():\n    raise ValueError('no config file')\n",
        "ValueError: no config file",
    ),
    "missingdep": (
        "import nonexistent_pkg_zz\n",
        "'nonexistent_pkg_zz', which is not installed",
    ),
}

COMMANDS = [
    ["scenario", "run", "{scenario}", "--app", "{spec}"],
    ["chat", "--app", "{spec}", "--model", "scripted:example"],
    ["demo", "--app", "{spec}", "--db", "{db}"],
    ["eval", "run", "--model", "scripted:example", "--app", "{spec}", "{evaldir}"],
    ["replay", "--app", "{spec}", "--db", "{db}", "turn-1"],
]


@pytest.fixture
def broken_apps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "apps"
    home.mkdir()
    for name, (source, _) in BROKEN.items():
        (home / f"{name}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(home))
    for name in BROKEN:
        sys.modules.pop(name, None)
    yield home
    for name in BROKEN:
        sys.modules.pop(name, None)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
@pytest.mark.parametrize("spec", sorted(BROKEN) + ["raiseapp:application"])
def test_a_broken_app_is_one_line_exit_2_in_every_command(
    spec: str,
    command: list[str],
    broken_apps: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: x\nturns: []\n", encoding="utf-8")
    monkeypatch.setenv("TURNFRAME_MODEL", "scripted:example")
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    argv = [
        part.format(spec=spec, scenario=scenario, db=tmp_path / "x.db", evaldir=tmp_path)
        for part in command
    ]
    assert main(argv) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert err.count("\n") == 0, err
    assert "Traceback" not in captured.err + captured.out
    assert f"--app {spec!r}" in err
    assert BROKEN[spec.partition(":")[0]][1] in err


def test_a_bare_name_whose_import_misses_another_module_names_that_module(
    broken_apps: Path,
) -> None:
    with pytest.raises(UsageError) as caught:
        load_application("missingdep")
    text = str(caught.value)
    assert "nonexistent_pkg_zz" in text and "no application" not in text
    # A name no module has is still "no application".
    with pytest.raises(UsageError, match="no application 'no_such_module_qq'"):
        load_application("no_such_module_qq")


_EXCEPTIONS = st.sampled_from(
    [RuntimeError, ValueError, KeyError, TypeError, OSError, ImportError, LookupError]
)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    where=st.sampled_from(["import", "factory"]),
    kind=_EXCEPTIONS,
    message=st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\\'\""),
        min_size=1,
        max_size=40,
    ).filter(lambda s: s.split()),
)
def test_any_exception_on_import_or_in_the_factory_is_one_named_usage_error(
    where: str, kind: type[Exception], message: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    home = tmp_path_factory.mktemp("gen")
    raise_line = f"raise {kind.__name__}({message!r})"
    source = f"{raise_line}\n" if where == "import" else f"def application():\n    {raise_line}\n"
    (home / "genapp.py").write_text(source, encoding="utf-8")
    sys.path.insert(0, str(home))
    sys.modules.pop("genapp", None)
    try:
        with pytest.raises(UsageError) as caught:
            load_application("genapp:application")
    finally:
        sys.path.remove(str(home))
        sys.modules.pop("genapp", None)
    text = str(caught.value)
    assert "\n" not in text
    assert "'genapp:application'" in text and kind.__name__ in text
    shown = str(kind(message))
    assert " ".join(shown.split()) in text
