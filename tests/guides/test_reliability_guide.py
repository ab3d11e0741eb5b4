"""docs/guides/reliability.md mirrors the invariants table of docs/invariants.md.

Its "by construction" table has one row per invariant, in order, with the same status as
docs/invariants.md gives it, and names at least one test per row; a new invariant, a
removed one or a status that changes on one page and not the other fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\|\s*(I\d+)\s*\|(.*)\|\s*(enforced|partial|not yet)\s*\|\s*$")


def _rows(path: Path) -> list[tuple[str, str, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            out.append((match.group(1), match.group(2), match.group(3)))
    return out


def test_the_table_mirrors_the_invariants() -> None:
    invariants = _rows(ROOT / "docs" / "invariants.md")
    guide = _rows(ROOT / "docs" / "guides" / "reliability.md")
    assert [i for i, _, _ in invariants] == [f"I{n}" for n in range(1, 21)]
    assert [(i, s) for i, _, s in guide] == [(i, s) for i, _, s in invariants]
    for number, middle, _ in guide:
        assert re.search(r"tests/[\w./-]+\.py::\w+|conformance `test_\w+`", middle), number
