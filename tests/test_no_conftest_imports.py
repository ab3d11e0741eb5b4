"""No test module imports a ``conftest`` by name.

pytest puts each test directory on ``sys.path`` (there are no ``__init__.py`` files), so
``from conftest import X`` binds to whichever ``conftest`` was imported first: running two
directories in one command then fails to collect. Shared helpers live in uniquely named
``*_kit.py`` modules instead (e.g. ``tests/understand/understand_kit.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent


def _conftest_imports(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "conftest":
            lines.append(node.lineno)
        elif isinstance(node, ast.Import) and any(a.name == "conftest" for a in node.names):
            lines.append(node.lineno)
    return lines


def test_no_module_imports_conftest_by_name() -> None:
    offenders = [
        f"{path.relative_to(TESTS)}:{line}"
        for path in sorted(TESTS.rglob("*.py"))
        for line in _conftest_imports(path)
    ]
    assert offenders == []
