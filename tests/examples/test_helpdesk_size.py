"""The helpdesk example stays small: at most 200 lines of domain code (blank and comment lines aside).

``examples/helpdesk`` is what ``turnframe new helpdesk`` makes (tests/cli/test_new.py
keeps them equal), so this bounds the template's domain code too.
``python tests/examples/test_helpdesk_size.py`` prints the lines by part.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "examples" / "helpdesk" / "src" / "helpdesk"
PARTS = {
    "state": ("state.py",),
    "commands": ("commands.py",),
    "workflow": ("workflow.py",),
    "receipts/copy": ("copy.py",),
    "app": ("app.py", "__init__.py"),
}
LIMIT = 200


def code_lines(path: Path) -> int:
    """Return the lines of ``path`` that are neither blank nor only a comment."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return sum(1 for line in lines if line.strip() and not line.strip().startswith("#"))


def domain_lines() -> dict[str, int]:
    """Return the code lines of each part of the helpdesk package."""
    return {
        part: sum(code_lines(PACKAGE / name) for name in names) for part, names in PARTS.items()
    }


def test_every_module_is_counted_in_a_part() -> None:
    counted = {name for names in PARTS.values() for name in names}
    assert {p.name for p in PACKAGE.glob("*.py")} == counted


def test_the_domain_code_is_at_most_200_lines() -> None:
    parts = domain_lines()
    assert sum(parts.values()) <= LIMIT, parts


if __name__ == "__main__":
    found = domain_lines()
    for part, count in found.items():
        print(f"{part:14} {count:4}")
    print(f"{'total':14} {sum(found.values()):4}")
