"""docs/guides/your-first-app.md runs: every fenced code block of the guide, in page order.

The guide takes a reader from ``turnframe new helpdesk`` to a working app; this test is
the reader. It extracts the fenced blocks and runs each one by its kind, in a temporary
directory, stopping at the first block that does not hold with ``GUIDE:LINE`` (the
block's opening fence) and what went wrong. The rules, which the guide states in its
first lines:

* ``console``: ``$ COMMAND`` lines, each followed by the output it must print (standard
  output and error together). The output lines must match the command's lines one for
  one, in order, compared without their surrounding spaces; ``...`` inside a line
  matches any text and a line that is only ``...`` any run of lines (none included).
  ``you> TEXT`` lines are typed into the command's standard input (``turnframe chat``);
  the prompt is then taken out of the output before matching. Every command must exit 0.
* ``sh``: every line is a command (``\\`` continues a line, ``#`` starts a comment),
  run in order; each must exit 0.
* ``python``: one interpreter session for the whole page, in page order, as
  ``python -m asyncio`` runs it: one namespace, one event loop, ``await`` allowed at the
  top level, the working directory the shell's, the installed packages importable.
* ``output``: exactly what the ``python`` block just before it printed.
* ``<!-- file: PATH -->`` on the line before a block: the block is written to PATH
  (relative to the shell's directory); a scenario file or chat script so written is run
  by a later command.
* ``<!-- shows: PATH -->`` on the line before a block: the block is a contiguous run of
  the lines of PATH as it is on disk at that point (written by ``turnframe new``), so the
  code the guide shows is the code the later blocks run.
* ``text``: shown, not run; at most ``MAX_TEXT`` of them. A block of any other kind
  without a marker fails the test: nothing in the guide goes unchecked by accident.

How commands run: ``turnframe ARGS`` is ``python -m turnframe.cli ARGS``, ``pytest ARGS``
is ``python -m pytest -p no:cacheprovider ARGS`` and ``python`` is this interpreter, each
a subprocess; ``cd DIR`` moves the shell. ``pip install -e .`` is replaced by putting the
package's ``src`` on ``PYTHONPATH`` (and on ``sys.path`` for the Python session), next
to this repository's ``src``, which stands for the installed Turnframe: nothing is
installed and nothing leaves 127.0.0.1. An app named on ``--app`` by its package name is
then found as an importable module with an ``application`` attribute rather than by its
entry point (``turnframe.runtime.loading.load_application`` takes both).
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import inspect
import io
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guides" / "your-first-app.md"
GUIDE_NAME = "docs/guides/your-first-app.md"
MAX_TEXT = 2
RUN_KINDS = {"console", "sh", "python", "output", "text"}
MARKER = re.compile(r"^<!--\s*(file|shows):\s*(\S+)\s*-->$")
PROMPT = "you> "
TIMEOUT = 120


@dataclass(frozen=True, slots=True)
class Block:
    """One fenced block: its info string, first line number, text and marker (if any)."""

    kind: str
    line: int
    text: str
    marker: tuple[str, str] | None = None

    @property
    def where(self) -> str:
        """Return ``GUIDE:LINE ```kind`` for failure messages."""
        return f"{GUIDE_NAME}:{self.line}: ```{self.kind} block"


def parse_blocks(source: str) -> list[Block]:
    """Return the page's fenced blocks in order (fences at the start of a line only)."""
    blocks: list[Block] = []
    lines = source.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.startswith("```"):
            index += 1
            continue
        kind = line[3:].strip().split(" ")[0]
        start = index
        body: list[str] = []
        index += 1
        while index < len(lines) and lines[index].rstrip() != "```":
            body.append(lines[index])
            index += 1
        if index == len(lines):
            raise AssertionError(f"{GUIDE_NAME}:{start + 1}: a fence that is never closed")
        marker = None
        before = start - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        if before >= 0 and (found := MARKER.match(lines[before].strip())):
            marker = (found.group(1), found.group(2))
        blocks.append(Block(kind, start + 1, "\n".join(body) + "\n", marker))
        index += 1
    return blocks


def _pattern(line: str) -> re.Pattern[str] | None:
    """Return the regex an expected output line stands for; ``None`` for a ``...`` line."""
    text = line.strip()
    if text == "...":
        return None
    return re.compile(".*".join(re.escape(part) for part in text.split("...")))


def output_matches(expected: list[str], actual: list[str]) -> bool:
    """Match expected lines (``...`` wildcards) against actual lines, one for one."""
    patterns = [_pattern(line) for line in expected]
    got = [line.strip() for line in actual]
    # fits[i][j]: patterns[i:] match got[j:]
    fits = [[False] * (len(got) + 1) for _ in range(len(patterns) + 1)]
    fits[len(patterns)][len(got)] = True
    for i in range(len(patterns) - 1, -1, -1):
        for j in range(len(got), -1, -1):
            pattern = patterns[i]
            if pattern is None:
                fits[i][j] = fits[i + 1][j] or (j < len(got) and fits[i][j + 1])
            else:
                fits[i][j] = j < len(got) and bool(pattern.fullmatch(got[j])) and fits[i + 1][j + 1]
    return fits[0][0]


@dataclass
class Reader:
    """The guide's reader: a shell directory, what is "installed", and a Python session."""

    cwd: Path
    home: Path
    installed: list[Path] = field(default_factory=list)
    namespace: dict[str, object] = field(default_factory=lambda: {"__name__": "__guide__"})
    runner: asyncio.Runner = field(default_factory=asyncio.Runner)
    printed: str | None = None
    written: dict[str, int] = field(default_factory=dict)
    shadowed: dict[str, ModuleType] = field(default_factory=dict)

    def env(self) -> dict[str, str]:
        """Return a subprocess environment: the installed packages and the repo's src."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("TURNFRAME_MODEL")}
        paths = [*map(str, self.installed), str(ROOT / "src")]
        env["PYTHONPATH"] = os.pathsep.join(paths)
        env["HOME"] = str(self.home)  # chat's default database and caches stay in tmp
        env["XDG_DATA_HOME"] = str(self.home / "data")
        env["NO_COLOR"] = "1"
        env["COLUMNS"] = "80"  # pytest draws its lines to this width
        return env

    # --- commands -------------------------------------------------------------------

    def argv(self, words: list[str], block: Block) -> list[str] | None:
        """Return the process to run for a command, or ``None`` when the shell did it."""
        match words:
            case ["cd", target]:
                moved = (self.cwd / target).resolve()
                assert moved.is_dir(), f"{block.where}: cd {target}: no such directory"
                self.cwd = moved
                return None
            case ["pip", "install", "-e", "."]:
                assert (self.cwd / "pyproject.toml").is_file(), f"{block.where}: no pyproject"
                self.installed.insert(0, self.cwd / "src")
                return None
            case ["turnframe", *rest]:
                return [sys.executable, "-m", "turnframe.cli", *rest]
            case ["pytest", *rest]:
                return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *rest]
            case ["python", *rest]:
                return [sys.executable, *rest]
        raise AssertionError(f"{block.where}: no rule runs the command {shlex.join(words)!r}")

    def run(self, command: str, typed: list[str], block: Block) -> str | None:
        """Run one command line; return its output (``None`` for a shell built-in)."""
        argv = self.argv(shlex.split(command, comments=True), block)
        if argv is None:
            return None
        done = subprocess.run(
            argv,
            cwd=self.cwd,
            env=self.env(),
            input="".join(f"{line}\n" for line in typed),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=TIMEOUT,
        )
        if done.returncode != 0:
            wrote = "".join(
                f"\n  {name}: written by {GUIDE_NAME}:{line}" for name, line in self.written.items()
            )
            raise AssertionError(
                f"{block.where}: `{command}` exited {done.returncode}:\n{done.stdout}"
                + (f"\nfiles the guide wrote:{wrote}" if wrote else "")
            )
        return done.stdout

    def console(self, block: Block) -> None:
        """Run a console block: each ``$`` command and the output it must show."""
        steps: list[tuple[str, list[str], list[str]]] = []
        for line in block.text.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], [], []))
            elif not steps:
                raise AssertionError(f"{block.where}: output before the first `$ ` command")
            elif line.startswith(PROMPT.rstrip()):
                steps[-1][1].append(line[len(PROMPT) :])
            elif line.strip():
                steps[-1][2].append(line)
        for command, typed, expected in steps:
            out = self.run(command, typed, block)
            if out is None:
                assert not expected, f"{block.where}: `{command}` prints nothing"
                continue
            if typed:
                out = out.replace(PROMPT, "\n")
            actual = [line for line in out.splitlines() if line.strip()]
            assert output_matches(expected, actual), (
                f"{block.where}: `{command}` printed\n{out}\nwhich is not what the guide shows:\n"
                + "\n".join(expected)
            )

    def sh(self, block: Block) -> None:
        """Run every command of an sh block."""
        for command in block.text.replace("\\\n", " ").splitlines():
            if command.strip() and not command.strip().startswith("#"):
                self.run(command, [], block)

    # --- files and Python -----------------------------------------------------------

    def file(self, block: Block, action: str, name: str) -> None:
        """Write the block to ``name``, or check that ``name`` holds it."""
        path = self.cwd / name
        if action == "file":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(block.text, encoding="utf-8")
            self.written[name] = block.line
            return
        assert path.is_file(), f"{block.where}: shows {name}, which does not exist"
        shown = [line.rstrip() for line in block.text.splitlines()]
        held = [line.rstrip() for line in path.read_text(encoding="utf-8").splitlines()]
        runs = (held[i : i + len(shown)] for i in range(len(held) - len(shown) + 1))
        assert shown and any(run == shown for run in runs), (
            f"{block.where}: shows {name}, but these lines are not a part of it as written:\n"
            + block.text
            + f"\n--- {name} holds:\n"
            + "\n".join(held)
        )

    def python(self, block: Block) -> None:
        """Run a Python block in the session; keep what it printed for an output block."""
        source = "\n" * block.line + block.text  # tracebacks give the guide's line numbers
        code = compile(source, GUIDE_NAME, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            try:
                result = eval(code, self.namespace)
                if inspect.iscoroutine(result):
                    self.runner.run(result)
            except Exception as exc:
                raise AssertionError(f"{block.where} raised {exc!r}") from exc
        self.printed = printed.getvalue()

    def output(self, block: Block) -> None:
        """Check what the last Python block printed."""
        assert self.printed is not None, f"{block.where} follows no python block"
        got = [line.rstrip() for line in self.printed.splitlines()]
        want = [line.rstrip() for line in block.text.splitlines()]
        assert got == want, (
            f"{block.where}: the python block before it printed\n{self.printed}\nnot\n{block.text}"
        )
        self.printed = None

    def read(self, block: Block) -> None:
        """Run one block by its kind and marker."""
        if block.kind != "output":
            self.printed = None
        if block.marker is not None:
            self.file(block, *block.marker)
            return
        match block.kind:
            case "console":
                self.console(block)
            case "sh":
                self.sh(block)
            case "python":
                with self.importable():
                    self.python(block)
            case "output":
                self.output(block)
            case "text":
                pass
            case _:
                raise AssertionError(
                    f"{block.where}: no rule runs it; give it a <!-- file: --> or"
                    " <!-- shows: --> marker, or make it ```text (shown, not run)"
                )

    @contextlib.contextmanager
    def importable(self) -> Iterator[None]:
        """Run in the shell's directory with the installed packages on ``sys.path``."""
        before = os.getcwd()
        for src in self.installed:  # a package of that name imported earlier, from elsewhere
            for package in (p.name for p in src.iterdir() if (p / "__init__.py").is_file()):
                module = sys.modules.get(package)
                if module and not str(getattr(module, "__file__", "")).startswith(str(src)):
                    for name in [n for n in sys.modules if n.split(".")[0] == package]:
                        self.shadowed[name] = sys.modules.pop(name)
        added = [str(path) for path in self.installed if str(path) not in sys.path]
        sys.path[:0] = added
        os.chdir(self.cwd)
        try:
            yield
        finally:
            os.chdir(before)
            for path in added:
                sys.path.remove(path)


@pytest.fixture
def blocks() -> list[Block]:
    return parse_blocks(GUIDE.read_text(encoding="utf-8"))


def test_every_block_of_the_guide_runs(blocks: list[Block], tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    reader = Reader(cwd=work, home=tmp_path / "home")
    reader.home.mkdir()
    modules = set(sys.modules)
    try:
        for block in blocks:
            reader.read(block)
    finally:
        reader.runner.close()
        for name in set(sys.modules) - modules:
            module = sys.modules[name]
            if str(getattr(module, "__file__", "") or "").startswith(str(tmp_path)):
                del sys.modules[name]
        sys.modules.update(reader.shadowed)


def test_the_guide_is_made_of_blocks_that_run(blocks: list[Block]) -> None:
    kinds = [block.kind for block in blocks if block.marker is None]
    assert set(kinds) <= RUN_KINDS, sorted(set(kinds) - RUN_KINDS)
    assert kinds.count("text") <= MAX_TEXT, "a guide whose code is not run is a guide that rots"
    for kind in ("console", "sh", "python", "output"):
        assert kind in kinds, f"the guide has no ```{kind} block"
    written = [block.marker[1] for block in blocks if block.marker and block.marker[0] == "file"]
    assert any(name.startswith("scenarios/") for name in written), "no scenario file is written"


def test_the_guide_shows_the_runtime_api(blocks: list[Block]) -> None:
    """The tryout finding: the README named ScriptedUnderstanding, nothing showed the rest."""
    session = "\n".join(block.text for block in blocks if block.kind == "python")
    for name in (
        "Runtime(",
        "ScriptedUnderstanding(",
        "run_turn(",
        "TurnInput(",
        "InteractionResponse(",
        "handle_for(",
        "in_view=",
        ".results[",
        ".blocks",
        ".interactions_created",
    ):
        assert name in session, f"the guide's Python session never uses {name}"
    commands = "\n".join(block.text for block in blocks if block.kind in ("console", "sh"))
    for command in ("turnframe new helpdesk", "scenario run --app", "chat --app"):
        assert command in commands, f"the guide never runs `{command}`"


@pytest.mark.parametrize(
    ("expected", "actual", "fits"),
    [
        (["a", "b"], ["a", "b"], True),
        (["a"], ["a", "b"], False),
        (["a", "..."], ["a", "b", "c"], True),
        (["...", "c"], ["a", "b", "c"], True),
        (["a ... c"], ["a b c"], True),
        (["a...", "c"], ["ab", "x", "c"], False),
        (["...", "b", "..."], ["a", "c"], False),
        (["x (1)"], ["x (1)"], True),
        (["x (1)"], ["x 1"], False),
    ],
)
def test_output_matching(expected: list[str], actual: list[str], fits: bool) -> None:
    assert output_matches(expected, actual) is fits


def test_a_marker_and_kinds_are_read(tmp_path: Path) -> None:
    page = (
        "intro\n\n<!-- file: scenarios/a.yaml -->\n```yaml\nname: x\n```\n\n"
        "```python\nprint(1)\n```\n```output\n1\n```\n"
    )
    blocks = parse_blocks(page)
    assert [(b.kind, b.line, b.marker) for b in blocks] == [
        ("yaml", 4, ("file", "scenarios/a.yaml")),
        ("python", 8, None),
        ("output", 11, None),
    ]
    reader = Reader(cwd=tmp_path, home=tmp_path)
    try:
        for block in blocks:
            reader.read(block)
        assert (tmp_path / "scenarios" / "a.yaml").read_text() == "name: x\n"
        with pytest.raises(AssertionError, match=r"md:8: ```python block raised"):
            reader.read(Block("python", 8, "1 / 0\n"))
        with pytest.raises(AssertionError, match="not what the guide shows|printed"):
            reader.read(Block("python", 9, "print(2)\n"))
            reader.read(Block("output", 12, "3\n"))
    finally:
        reader.runner.close()


lines = st.lists(st.text(alphabet="ab (.)", min_size=1, max_size=6).filter(str.strip), max_size=6)


@settings(max_examples=200)
@given(actual=lines, data=st.data())
def test_a_transcript_with_runs_left_out_matches_and_a_changed_line_does_not(
    actual: list[str], data: st.DataObject
) -> None:
    """Any run of lines replaced by ``...`` still matches; a shown line that differs never does."""
    expected: list[str] = []
    index = 0
    while index < len(actual):
        if data.draw(st.booleans()):
            index += data.draw(st.integers(0, len(actual) - index))
            expected.append("...")
        if index < len(actual):
            expected.append(actual[index])
            index += 1
    assert output_matches(expected, actual)
    shown = [i for i, line in enumerate(expected) if "..." not in line]
    if shown:  # no actual line holds an "x", so the changed line can match none
        changed = list(expected)
        changed[data.draw(st.sampled_from(shown))] += "x"
        assert not output_matches(changed, actual)
