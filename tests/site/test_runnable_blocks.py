"""Every ``python`` block in docs/**/*.md runs (docs_blocks.py states the convention).

One test item per page, named by the page: its blocks run in page order in one namespace,
in a fresh temporary directory, with top-level ``await``. A block that raises fails the
item with the page and the line of the block. A block preceded by
``<!-- not-run: REASON -->`` is skipped, and the reason is required. Pages with a runner of
their own (DEDICATED) are checked to be covered by it instead.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from docs_blocks import BlockFailure, DocsBlockError, PyBlock, python_blocks, run_blocks

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# pages whose blocks need the shell session of a guide (files written by `turnframe new`,
# `cd` into the app): their own test runs every block, python included
DEDICATED = {
    "guides/your-first-app.md": ROOT / "tests" / "docs" / "test_guide_your_first_app.py",
}
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))


@pytest.mark.parametrize("page", PAGES)
def test_the_python_blocks_of_the_page_run(page: str, tmp_path: Path) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    blocks = python_blocks(text, f"docs/{page}")
    if page in DEDICATED:
        runner = DEDICATED[page]
        assert runner.is_file(), f"docs/{page}: its runner {runner} is gone"
        assert f"docs/{page}" in runner.read_text(encoding="utf-8")
        pytest.skip(f"run block by block by {runner.relative_to(ROOT)}")
    if not blocks:
        return
    failure: BlockFailure | None = None
    try:
        run_blocks(blocks, f"docs/{page}", tmp_path)
    except BlockFailure as e:
        failure = e
    if failure is not None:
        pytest.fail(str(failure), pytrace=False)


# -- the runner itself -------------------------------------------------------------------


def _page(*parts: str) -> str:
    return "\n".join(parts) + "\n"


def test_blocks_share_one_namespace_and_one_event_loop(tmp_path: Path) -> None:
    text = _page(
        "# Page",
        "```python",
        "import asyncio",
        "loop = asyncio.get_running_loop()",
        "x = await asyncio.sleep(0, result=41)",
        "```",
        "text between",
        "```python",
        "assert asyncio.get_running_loop() is loop",
        "x += 1",
        "```",
        "```sh",
        "exit 1",
        "```",
        "```python",
        "assert x == 42",
        "```",
    )
    blocks = python_blocks(text)
    assert [b.line for b in blocks] == [3, 9, 16]
    assert len(run_blocks(blocks, "p.md", tmp_path)) == 3


def test_a_fresh_working_directory(tmp_path: Path) -> None:
    text = _page(
        "```python",
        "import os, pathlib",
        "assert not os.listdir('.')",
        "pathlib.Path('made.txt').write_text('x')",
        "```",
    )
    run_blocks(python_blocks(text), "p.md", tmp_path)
    assert (tmp_path / "made.txt").is_file()
    assert Path.cwd() != tmp_path


def test_a_failing_block_is_reported_with_page_and_line(tmp_path: Path) -> None:
    text = _page("# Page", "", "```python", "a = 1", "", "raise ValueError('boom')", "```")
    with pytest.raises(BlockFailure) as caught:
        run_blocks(python_blocks(text), "pages/p.md", tmp_path)
    message = str(caught.value)
    assert message.startswith("pages/p.md:4:")
    assert 'File "pages/p.md", line 6' in message
    assert "ValueError: boom" in message


def test_a_syntax_error_is_reported_too(tmp_path: Path) -> None:
    with pytest.raises(BlockFailure, match=r"^pages/p\.md:2:"):
        run_blocks(python_blocks(_page("```python", "def (", "```")), "pages/p.md", tmp_path)


def test_a_not_run_block_is_skipped_and_keeps_its_reason(tmp_path: Path) -> None:
    text = _page(
        "<!-- not-run: needs a hosted model -->",
        "```python",
        "raise SystemExit(1)",
        "```",
        "```python",
        "y = 2",
        "```",
    )
    blocks = python_blocks(text)
    assert blocks[0] == PyBlock(3, "raise SystemExit(1)\n", "needs a hosted model")
    assert run_blocks(blocks, "p.md", tmp_path) == [blocks[1]]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (_page("<!-- not-run: -->", "```python", "x", "```"), "needs a reason"),
        (_page("<!-- not-run -->", "```python", "x", "```"), "needs a reason"),
        (_page("<!-- not-run: why -->", "prose", "```python", "x", "```"), "the line before"),
        (_page("<!-- not-run: why -->", "```sh", "x", "```"), "only python blocks run"),
        (_page("text", "<!-- not-run: why -->"), "without a python block"),
    ],
)
def test_a_bad_marker_is_an_error(text: str, problem: str) -> None:
    with pytest.raises(DocsBlockError, match=problem):
        python_blocks(text, "p.md")


def test_fences_inside_lists_and_longer_fences() -> None:
    text = _page(
        "1. step",
        "",
        "    ```python",
        "    if True:",
        "        z = 1",
        "    ```",
        "",
        "````markdown",
        "```python",
        "not code of this page",
        "```",
        "````",
    )
    blocks = python_blocks(text)
    assert blocks == [PyBlock(4, "if True:\n    z = 1\n")]


def test_the_runner_leaves_no_event_loop_behind(tmp_path: Path) -> None:
    run_blocks(
        python_blocks(_page("```python", "await __import__('asyncio').sleep(0)", "```")),
        "p.md",
        tmp_path,
    )
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()
