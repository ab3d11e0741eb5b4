"""The docs and docstrings cite only documents that ship in this repository.

Users get the repository, not the working notes it was built from. So no file under
src/, docs/, tests/, benchmarks/, scenarios/, eval/ or examples/ (nor README.md) may
cite the architecture guide ("guide §5", a bare "§4"), a product decision by its old
number ("D7"), the shared research notes or anything under ``shared/spec``; and every
``docs/....md`` path cited in src/ and docs/ must exist, with the heading it names
(``docs/architecture.md "One turn"``) or anchor (``docs/authoring.md#compile``), as
must every relative Markdown link of docs/ and README.md and its ``#anchor``; that holds
for every scanned tree (src/, docs/, tests/, benchmarks/, scenarios/, eval/, examples/ and
README.md). The form of a citation is described at the top of docs/architecture.md. The
site build (tests/site/test_site_build.py) checks the same links as rendered.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SELF = Path(__file__).resolve()
EXTS = {".py", ".md", ".toml", ".yaml", ".yml", ".txt"}
SCANNED = ("src", "docs", "tests", "benchmarks", "scenarios", "eval", "examples")

FORBIDDEN: dict[str, re.Pattern[str]] = {
    "guide §": re.compile(r"guide\s*§"),
    "a bare §": re.compile(r"§"),
    "shared/spec": re.compile(r"shared/spec"),
    "decisions.md": re.compile(r"(?<![\w/])decisions\.md"),
    "research §": re.compile(r"\bresearch\s*(?:note\s*)?(?:§|S\d)"),
    "travel-sample.md": re.compile(r"travel-sample\.md"),
    "architecture-guide": re.compile(r"architecture-guide"),
    "an unnumbered ADR rule": re.compile(r"(?<![\w-])ADR rule \d"),
}
# A decision number in prose: "(D5)", "D1:", "D2, D3". Record keys of the travel sample
# ("D1" in quotes, ``key: D1``, ``refs["D1"]``, "on D1") are data and are not matched.
DECISION = re.compile(r"(?<![\w/-])D(1[01]|[1-9])(?![\w\"'`\]-])")
DATA_BEFORE = re.compile(r"(?:(?<![\"'])(?<!\bf)[\"'`\[]|\bon\s|\w:\s*|\bkey\s*|=\s*)$")
DOC_PATH = re.compile(r"(?<![\w/.-])(docs/[\w./-]+?\.md)\b")
# a heading after a path ("docs/x.md "H"") or after an earlier heading ("..., "H2"")
QUOTED = re.compile(
    r"""(?:\s+steps?\s+[\d–\-]+(?:\s+and\s+[\d–\-]+)?)?(?:\s+|,\s*)(["'])([^"'\n]{1,60})\1"""
)
ANCHOR = re.compile(r"#([\w-]+)")
MD_LINK = re.compile(r"\]\(([^)\s]+?\.md)(?:#([\w-]+))?\)|\]\(#([\w-]+)\)")


def _files(*bases: str) -> list[Path]:
    out: list[Path] = []
    for base in bases:
        path = ROOT / base
        if path.is_file():
            out.append(path)
        elif path.is_dir():
            out += sorted(
                f
                for f in path.rglob("*")
                if f.is_file() and f.suffix in EXTS and "__pycache__" not in f.parts
            )
    return [f for f in out if f.resolve() != SELF]


def _lines(path: Path) -> list[tuple[int, str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return []
    return list(enumerate(text.splitlines(), 1))


def decision_numbers(line: str, data_file: bool = False) -> list[str]:
    """Return the decision numbers ("D7") cited in ``line``, skipping record keys."""
    if data_file:
        # in YAML data only a parenthesised number ("(D1)") or one in a comment is cited
        hash_at = re.search(r"(?:^|\s)#", line)
        code, comment = (line[: hash_at.start()], line[hash_at.end() :]) if hash_at else (line, "")
        cited = re.findall(r"(?<=\()D(?:1[01]|[1-9])(?=[),:;])", code)
        return cited + decision_numbers(comment)
    return [
        m.group(0) for m in DECISION.finditer(line) if not DATA_BEFORE.search(line[: m.start()])
    ]


def slug(heading: str) -> str:
    """Return the GitHub anchor of a Markdown heading."""
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return s.replace(" ", "-")


def site_slug(heading: str) -> str:
    """Return the docs site's anchor of a heading (Python-Markdown's ``toc`` slugify)."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(heads: set[str]) -> set[str]:
    """Return the anchors a link may use: GitHub's and the site's for each heading."""
    return {slug(h) for h in heads} | {site_slug(h) for h in heads}


def headings(path: Path) -> set[str]:
    """Return the headings of a Markdown file, outside fenced code blocks."""
    out: set[str] = set()
    fenced = False
    for _, line in _lines(path):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)):
            out.add(m.group(1))
    return out


def forbidden_citations(bases: tuple[str, ...] = (*SCANNED, "README.md")) -> list[str]:
    """Return ``file:line: [pattern] text`` for every citation of a document not shipped."""
    found: list[str] = []
    for path in _files(*bases):
        rel = path.relative_to(ROOT).as_posix()
        data_file = path.suffix in {".yaml", ".yml", ".toml"}
        for n, line in _lines(path):
            names = [name for name, pat in FORBIDDEN.items() if pat.search(line)]
            if decision_numbers(line, data_file):
                names.append("decision number")
            if names:
                found.append(f"{rel}:{n}: [{', '.join(names)}] {line.strip()[:110]}")
    return found


def broken_doc_citations(bases: tuple[str, ...] = (*SCANNED, "README.md")) -> list[str]:
    """Return every cited docs/ path, heading or Markdown link that does not exist."""
    cache: dict[Path, set[str]] = {}

    def heads(path: Path) -> set[str]:
        if path not in cache:
            cache[path] = headings(path)
        return cache[path]

    found: list[str] = []
    for path in _files(*bases):
        rel = path.relative_to(ROOT).as_posix()
        for n, line in _lines(path):
            for m in DOC_PATH.finditer(line):
                target = ROOT / m.group(1)
                if not target.is_file():
                    found.append(f"{rel}:{n}: {m.group(1)} does not exist")
                    continue
                rest = line[m.end() :]
                if (a := ANCHOR.match(rest)) and a.group(1) not in anchors(heads(target)):
                    found.append(f"{rel}:{n}: {m.group(1)} has no heading for #{a.group(1)}")
                while q := QUOTED.match(rest):
                    if q.group(2) not in heads(target):
                        found.append(f'{rel}:{n}: {m.group(1)} has no heading "{q.group(2)}"')
                    rest = rest[q.end() :]
            if path.suffix != ".md" or not (rel.startswith("docs/") or rel == "README.md"):
                continue
            for m in MD_LINK.finditer(line):
                link, anchor, local = m.group(1), m.group(2), m.group(3)
                if local:
                    target, anchor = path, local
                elif re.match(r"^[a-z]+:", link):
                    continue
                else:
                    target = (path.parent / link).resolve()
                if not target.is_file():
                    found.append(f"{rel}:{n}: link to {link} does not exist")
                elif anchor and anchor not in anchors(heads(target)):
                    found.append(f"{rel}:{n}: {target.name} has no heading for #{anchor}")
    return found


def test_no_citation_of_documents_outside_the_repository() -> None:
    found = forbidden_citations()
    assert not found, (
        f"{len(found)} citation(s) of documents users never get; cite docs/ instead "
        "(docs/architecture.md explains the form):\n" + "\n".join(found[:80])
    )


def test_every_cited_doc_and_heading_exists() -> None:
    found = broken_doc_citations()
    assert not found, "\n".join(found[:80])


@pytest.mark.parametrize(
    "line",
    [
        '"""Runtime errors (guide §14)."""',
        "# the pipeline, §2 step 5",
        "See ``shared/spec/scenario-format.md``.",
        "(reliability research §3.3)",
        '"""Standing constraints (D1)."""',
        "    # D3: later acts on this case are checked too.",
        '"""D1: "do not submit" blocks every submission."""',
        "(ADR rule 9)",
    ],
)
def test_the_detectors_flag_each_form(line: str) -> None:
    hit = any(p.search(line) for p in FORBIDDEN.values()) or decision_numbers(line)
    assert hit, line


@pytest.mark.parametrize(
    "line",
    [
        '    target=ProposedTarget(handles=(self.h(b, "D1"),)),',
        '    {"key": "D4", "workflow": "manifest", "trip": "T1"},',
        'assert "manifest.submit on D1 → rejected:do_not_submit" in text',
        "A record has a stable ``key`` (``T1``, ``P7``, ``D4``).",
        '"""Standing constraints (ADR 0002)."""',
    ],
)
def test_record_keys_and_adr_numbers_are_not_decisions(line: str) -> None:
    assert not decision_numbers(line), line
    assert not any(p.search(line) for p in FORBIDDEN.values()), line


def test_yaml_data_is_not_read_as_a_decision() -> None:
    assert not decision_numbers("  - {key: D1, workflow: manifest, trip: T1}", data_file=True)
    assert decision_numbers("  # the standing constraint of D1", data_file=True)
    assert decision_numbers("name: a standing constraint holds (D1)", data_file=True)
    assert not decision_numbers("        D1: {status: validated}", data_file=True)


def test_heading_citations_are_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "docs" / "map.md").write_text("# Map\n\n## One turn\n\n[x](map.md#nowhere)\n")
    (tmp_path / "src" / "m.py").write_text(
        '"""A (docs/map.md "One turn" step 5, "Gone"; docs/missing.md)."""\n'
        '"""B (docs/map.md#one-turn, docs/map.md#two-turns)."""\n'
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "t.py").write_text('"""Cites docs/map.md "Three turns"."""\n')
    (tmp_path / "README.md").write_text("[map](docs/map.md#one-turn) [x](docs/gone.md)\n")
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    found = broken_doc_citations()
    assert any('no heading "Gone"' in f for f in found), found
    assert any("docs/missing.md does not exist" in f for f in found), found
    assert any("#nowhere" in f for f in found), found
    assert any("m.py:2: docs/map.md has no heading for #two-turns" in f for f in found), found
    assert any('tests/t.py:1: docs/map.md has no heading "Three turns"' in f for f in found)
    assert any("README.md:1: link to docs/gone.md does not exist" in f for f in found), found
    assert not any('"One turn"' in f or "#one-turn" in f for f in found), found


@pytest.mark.parametrize(
    ("heading", "github", "site"),
    [
        ("One turn", "one-turn", "one-turn"),
        ("Words and locales", "words-and-locales", "words-and-locales"),
        ("`turnframe chat` — options", "turnframe-chat--options", "turnframe-chat-options"),
        ("An adopter's executor", "an-adopters-executor", "an-adopters-executor"),
    ],
)
def test_both_anchor_forms_are_known(heading: str, github: str, site: str) -> None:
    assert slug(heading) == github
    assert site_slug(heading) == site
    assert anchors({heading}) == {github, site}
