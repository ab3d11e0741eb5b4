"""Every Python block of docs/guides/canary-and-rollback.md runs, in order, as one session."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import anyio

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "canary-and-rollback.md"
BLOCK = re.compile(r"(?P<before>[^\n]*)\n```python\n(?P<code>.*?)\n```", re.S)


def _blocks() -> list[str]:
    text = GUIDE.read_text(encoding="utf-8")
    return [m["code"] for m in BLOCK.finditer(text) if not m["before"].startswith("<!-- not-run:")]


def test_every_python_block_of_the_guide_runs(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    blocks = _blocks()
    assert len(blocks) >= 5

    async def main() -> None:
        namespace: dict[str, Any] = {"__name__": "guide"}
        for code in blocks:
            compiled = compile(
                code, str(GUIDE), "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True
            )
            result = eval(compiled, namespace)
            if result is not None:
                await result

    anyio.run(main)
