"""Every test, scenario and benchmark the guides cite exists (docs/guides/*.md).

A guide names the test behind each behaviour it describes as ``tests/PATH.py::NAME``
(or ``::CLASS::NAME``); this reads every such citation in ``docs/guides/*.md`` and fails
when the file, the test function or the class is missing, with ``GUIDE:LINE`` and the
citation. A method is found in the class or, through its bases, in the module it is
imported from (the store conformance suite: ``TestInMemoryStore`` runs the methods of
``turnframe.store.conformance.StoreConformance``). A conformance method cited by bare name
("the conformance method ``test_x``") must be a method of that suite. A bare
``::name`` (a citation whose file is left to the reader) is refused: every citation
names its file. Cited ``scenarios/SET/...yaml`` and ``benchmarks/...py`` files must exist.
A path alone (``tests/test_workflow.py``, ``scenarios/01_x.yaml``) is not a citation of
this repository's tests: docs/guides/your-first-app.md names the files of the package it
generates that way. In the four behaviour guides (interactions, composition, reliability,
threat model) every ``##`` section cites at least one test.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDES = sorted((ROOT / "docs" / "guides").glob("*.md"))
CITATION = re.compile(r"(?<![\w/])(tests/[\w./-]+\.py)((?:::[A-Za-z_]\w*)+)")
BARE = re.compile(r"(?<![\w.])`::\w+")
FILES = re.compile(r"(?<![\w/])(scenarios/[\w.-]+/[\w./-]+\.ya?ml|benchmarks/[\w./-]+\.py)")
CONFORMANCE = re.compile(r"conformance (?:method |methods? )?`(test_\w+)`")
SUITES = ("src/turnframe/store/conformance.py", "src/turnframe/store/_conformance_races.py")


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _top(tree: ast.Module) -> dict[str, ast.AST]:
    return {
        n.name: n
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }


def _module_file(tree: ast.Module, name: str) -> Path | None:
    """Return the source file a top-level ``from X import name`` of ``tree`` reads."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if any(alias.name == name for alias in node.names):
                base = ROOT / "src" / Path(*node.module.split("."))
                for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                    if candidate.exists():
                        return candidate
    return None


def _methods(tree: ast.Module, cls: ast.ClassDef, depth: int = 0) -> set[str]:
    names = {n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    if depth > 5:
        return names
    for base in cls.bases:
        if not isinstance(base, ast.Name):
            continue
        home = tree
        found = _top(tree).get(base.id)
        if found is None:
            source = _module_file(tree, base.id)
            if source is None:
                continue
            home = _tree(source)
            found = _top(home).get(base.id)
        if isinstance(found, ast.ClassDef):
            names |= _methods(home, found, depth + 1)
    return names


def citation_problem(path: str, names: list[str]) -> str | None:
    """Return why ``path::names`` names no test in this repository, or ``None``."""
    file = ROOT / path
    if not file.is_file():
        return f"{path} does not exist"
    tree = _tree(file)
    if not names:
        return None
    node = _top(tree).get(names[0])
    if node is None:
        return f"{path} has no test or class {names[0]}"
    if len(names) == 1:
        return None
    if not isinstance(node, ast.ClassDef):
        return f"{path}::{names[0]} is not a class"
    if names[1] not in _methods(tree, node):
        return f"{path}::{names[0]} has no method {names[1]}"
    return None


def _conformance_methods() -> set[str]:
    out: set[str] = set()
    for suite in SUITES:
        tree = _tree(ROOT / suite)
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                out |= _methods(tree, node)
    return out


def problems(text: str, guide: str) -> list[str]:
    """Return every citation of ``text`` (a guide's Markdown) that names nothing."""
    out: list[str] = []
    suite = _conformance_methods()
    for number, line in enumerate(text.splitlines(), 1):
        for match in CITATION.finditer(line):
            names = [n for n in (match.group(2) or "").split("::") if n]
            problem = citation_problem(match.group(1), names)
            if problem:
                out.append(f"{guide}:{number}: {problem}")
        for match in BARE.finditer(line):
            out.append(f"{guide}:{number}: {match.group(0)}` names no file")
        for match in FILES.finditer(line):
            if not (ROOT / match.group(1)).is_file():
                out.append(f"{guide}:{number}: {match.group(1)} does not exist")
        for match in CONFORMANCE.finditer(line):
            if match.group(1) not in suite:
                out.append(f"{guide}:{number}: no conformance method {match.group(1)}")
    return out


def test_there_are_guides_to_check() -> None:
    names = {g.name for g in GUIDES}
    assert {"interactions.md", "composition.md", "reliability.md", "threat-model.md"} <= names


@pytest.mark.parametrize("guide", GUIDES, ids=lambda g: g.name)
def test_every_cited_test_exists(guide: Path) -> None:
    found = problems(guide.read_text(encoding="utf-8"), f"docs/guides/{guide.name}")
    assert not found, "\n".join(found)


def test_the_checker_catches_what_it_claims_to() -> None:
    good = (
        "`tests/guides/test_guides_cite_tests.py::test_every_cited_test_exists` and "
        "`tests/store/test_memory.py::TestInMemoryStore::test_one_blocking_interaction_per_case`"
        " and the conformance method `test_race_close_interaction`, scenario "
        "`scenarios/travel/16_double_click.yaml`, the app's own `tests/test_workflow.py` "
        "and `scenarios/01_ambiguity_card.yaml`"
    )
    assert problems(good, "g") == []
    bad = {
        "`tests/guides/test_nothing_here.py::test_x`": "does not exist",
        "`tests/guides/test_guides_cite_tests.py::test_no_such_test`": "has no test",
        "`tests/store/test_memory.py::TestInMemoryStore::test_nope`": "has no method",
        "`tests/test_static.py::test_ruff_lint::inner`": "is not a class",
        "and `::test_every_cited_test_exists`": "names no file",
        "`scenarios/travel/99_nothing.yaml`": "does not exist",
        "the conformance method `test_nothing_like_this`": "no conformance method",
    }
    for text, why in bad.items():
        (problem,) = problems(text, "g")
        assert why in problem, (text, problem)


SECTIONED = ("interactions.md", "composition.md", "reliability.md", "threat-model.md")


@pytest.mark.parametrize("name", SECTIONED)
def test_every_section_of_a_guide_names_a_test(name: str) -> None:
    """Each ``##`` section (with its ``###`` subsections) cites at least one test."""
    text = (ROOT / "docs" / "guides" / name).read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    assert sections, name
    bare = [s.splitlines()[0] for s in sections if not CITATION.search(s)]
    assert not bare, f"docs/guides/{name}: sections citing no test: {bare}"
