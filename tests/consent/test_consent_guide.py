"""Every python block of docs/guides/consent.md runs, in order, in one namespace.

The blocks import the example package, so they are marked ``not-run`` for the docs
runner, which does not put ``examples/consent/src`` on the path; this test does, and runs
them as that runner would: in a fresh working directory, top-level ``await`` allowed.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guides" / "consent.md"
EXAMPLE_SRC = ROOT / "examples" / "consent" / "src"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_the_guide_has_python_blocks_each_marked_with_this_test() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    blocks = BLOCK.findall(text)
    assert len(blocks) == 2
    marks = re.findall(r"^<!-- not-run: (.*) -->\n```python$", text, re.M)
    assert len(marks) == len(blocks) and all("test_consent_guide.py" in m for m in marks)


def test_every_python_block_of_the_guide_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(EXAMPLE_SRC))
    for name in [m for m in sys.modules if m == "consent" or m.startswith("consent.")]:
        monkeypatch.delitem(sys.modules, name)
    codes = [
        compile(src, f"{GUIDE.name}[{i}]", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        for i, src in enumerate(BLOCK.findall(GUIDE.read_text(encoding="utf-8")))
    ]
    namespace: dict[str, object] = {"__name__": "consent_guide"}

    async def run_all() -> None:
        for code in codes:
            done = eval(code, namespace)
            if inspect.iscoroutine(done):
                await done

    asyncio.run(run_all())
    assert namespace["booked"] is not None
