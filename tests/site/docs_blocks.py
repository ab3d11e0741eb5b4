"""Find and run the ``python`` blocks of the docs (the runner behind test_runnable_blocks.py).

The convention (every page under docs/): each fenced block opened with ```` ```python ````
is executed, the blocks of one page in page order, in one namespace, in a fresh temporary
working directory, with ``await`` allowed at the top level (one event loop per page, so a
store opened in one block is still usable in the next). A block that is not meant to run
is preceded by the line ``<!-- not-run: REASON -->``; the reason is required. Other blocks
(``sh``, ``console``, ``text``, ``mermaid``, ...) are not run. Tracebacks name the page and
its line numbers (the code is compiled as if it sat at its place in the Markdown file).
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import os
import re
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import CodeType

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\s`]*)[^`]*$")
NOT_RUN = re.compile(r"^\s*<!--\s*not-run\s*:(?P<reason>.*?)-->\s*$")
MARKER_START = re.compile(r"^\s*<!--\s*not-run\b")


class DocsBlockError(Exception):
    """A page breaks the block convention (a marker without a reason or without a block)."""


@dataclass(frozen=True, slots=True)
class PyBlock:
    """One ``python`` block: the 1-based line of its first code line, its code, its skip."""

    line: int
    code: str
    not_run: str | None = None


def python_blocks(text: str, page: str = "<page>") -> list[PyBlock]:
    """Return the page's ``python`` blocks in order; raise DocsBlockError on a bad marker."""
    lines = text.splitlines()
    blocks: list[PyBlock] = []
    pending: tuple[int, str] | None = None  # (line, reason) of a not-run marker
    i = 0
    while i < len(lines):
        line = lines[i]
        if MARKER_START.match(line):
            m = NOT_RUN.match(line)
            reason = m.group("reason").strip() if m else ""
            if not reason:
                raise DocsBlockError(
                    f"{page}:{i + 1}: a not-run marker needs a reason: <!-- not-run: REASON -->"
                )
            if pending:
                raise DocsBlockError(f"{page}:{pending[0]}: not-run marker without a python block")
            pending = (i + 1, reason)
            i += 1
            continue
        fm = FENCE.match(line)
        if not fm:
            if pending and line.strip():
                raise DocsBlockError(
                    f"{page}:{pending[0]}: a not-run marker must be the line before a python block"
                )
            i += 1
            continue
        indent, fence, info = fm.group("indent"), fm.group("fence"), fm.group("info").lower()
        body: list[str] = []
        j = i + 1
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        while j < len(lines) and not closing.match(lines[j]):
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j])
            j += 1
        if info == "python":
            blocks.append(PyBlock(i + 2, "\n".join(body) + "\n", pending[1] if pending else None))
        elif pending:
            raise DocsBlockError(
                f"{page}:{pending[0]}: a not-run marker stands before a {info or 'plain'} "
                "block; only python blocks run"
            )
        pending = None
        i = j + 1
    if pending:
        raise DocsBlockError(f"{page}:{pending[0]}: not-run marker without a python block")
    return blocks


class BlockFailure(Exception):
    """A block raised: the page and line of the block, and the traceback inside it."""

    def __init__(self, page: str, line: int, detail: str) -> None:
        super().__init__(page, line, detail)
        self.page, self.line, self.detail = page, line, detail

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: the python block starting here failed:\n{self.detail}"


def _compiled(block: PyBlock, page: str) -> CodeType:
    # blank lines in front so the code's line numbers are the Markdown file's
    source = "\n" * (block.line - 1) + block.code
    return compile(source, page, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)


async def _run(code: CodeType, namespace: dict[str, object]) -> None:
    # inside the page's event loop, as ``python -m asyncio`` runs a line: a block without
    # ``await`` sees the running loop too
    result = eval(code, namespace)
    if inspect.iscoroutine(result):
        await result


def run_blocks(blocks: list[PyBlock], page: str, cwd: Path) -> list[PyBlock]:
    """Run the blocks that are not marked, in order, in ``cwd``; return the ones run.

    Raises BlockFailure (page, line, traceback) for the first block that raises or does
    not compile.
    """
    namespace: dict[str, object] = {"__name__": "__docs__"}
    ran: list[PyBlock] = []
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        with asyncio.Runner() as runner:
            for block in blocks:
                if block.not_run is not None:
                    continue
                try:
                    runner.run(_run(_compiled(block, page), namespace))
                except BaseException as e:
                    if isinstance(e, KeyboardInterrupt):
                        raise
                    raise BlockFailure(page, block.line, traceback.format_exc()) from e
                ran.append(block)
    finally:
        os.chdir(previous)
    return ran


def markdown_pages(docs: Path) -> Iterator[Path]:
    """Yield every Markdown page under ``docs``, sorted."""
    yield from sorted(docs.rglob("*.md"))
