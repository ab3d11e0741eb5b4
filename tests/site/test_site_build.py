"""The docs site builds with ``mkdocs build --strict`` and without a single warning.

Strict mode turns a broken link, a missing anchor, a page left out of the nav, an
unresolved cross-reference in a docstring and any griffe warning about a docstring into a
failure (mkdocs.yml, ``validation``). The build runs in a subprocess, as
``python -m mkdocs``, into a temporary directory; the repository is not written to.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from site_config import CONFIG, ROOT

TIMEOUT = 300


def _build(config: Path, out: Path) -> subprocess.CompletedProcess[str]:
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers"):
        if importlib.util.find_spec(module) is None:
            pytest.fail(f"{module} is not installed: pip install -e '.[docs]' (or '.[dev]')")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]
        ),
        "NO_MKDOCS_2_WARNING": "1",  # the theme's banner about its successor
    }
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def test_the_site_builds_strict_without_warnings(tmp_path: Path) -> None:
    out = tmp_path / "site"
    done = _build(CONFIG, out)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{output}"
    warnings = [line for line in output.splitlines() if "WARNING" in line or "ERROR" in line]
    assert not warnings, "\n".join(warnings)
    assert (out / "index.html").is_file()
    assert (out / "reference" / "core" / "index.html").is_file()
    core = (out / "reference" / "core" / "index.html").read_text(encoding="utf-8")
    assert 'id="turnframe.core.TurnInput"' in core, "the reference rendered no members"
    assert (out / "search" / "search_index.json").is_file()
    broken = _broken_anchors(out)
    assert not broken, "links to a heading the target page lacks:\n" + "\n".join(broken)


def _broken_anchors(out: Path) -> list[str]:
    """Return ``page: href`` for each relative link whose ``#anchor`` is not on its target.

    mkdocs validates the links written in Markdown; this catches the ones the hook adds to
    the reference pages (tools/mkdocs_hooks.py, docstrings citing a page of the docs and a heading of it).
    """
    broken = []
    for page in sorted(out.glob("reference/**/index.html")):
        html = page.read_text(encoding="utf-8")
        for href, anchor in set(re.findall(r'href="([^":#]*)#([^"]+)"', html)):
            target = (page.parent / href).resolve()
            target = target / "index.html" if target.is_dir() else target
            if not target.is_file():
                broken.append(f"{page.relative_to(out)}: {href}#{anchor} (no page)")
            elif f'id="{anchor}"' not in target.read_text(encoding="utf-8"):
                broken.append(f"{page.relative_to(out)}: {href}#{anchor}")
    return sorted(broken)


def _small_site(tmp_path: Path, page: str) -> Path:
    """Write a one-page site with the real mkdocs.yml's theme and extensions, return its config."""
    text = CONFIG.read_text(encoding="utf-8")
    head = text[: text.index("\nnav:")]  # the nav is the config's last key
    for tool in ("tools/mkdocs_hooks.py", "tools/griffe_roles.py"):
        head = head.replace(tool, str(ROOT / tool))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(page, encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text(head + "\nnav:\n  - Home: index.md\n", encoding="utf-8")
    return config


MERMAID = "# Home\n\n```mermaid\nstateDiagram-v2\n  offered --> done\n```\n"


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    config = _small_site(tmp_path, MERMAID + "\nSee [the gone page](gone.md).\n")
    done = _build(config, tmp_path / "out")
    assert done.returncode != 0
    assert "gone.md" in done.stdout + done.stderr


def test_mermaid_diagrams_render_as_diagrams(tmp_path: Path) -> None:
    config = _small_site(tmp_path, MERMAID)
    done = _build(config, tmp_path / "out")
    assert done.returncode == 0, done.stdout + done.stderr
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert '<pre class="mermaid"><code>stateDiagram-v2' in html


def test_a_repository_file_can_be_included(tmp_path: Path) -> None:
    # how docs/ shows a file kept at the root (a CHANGELOG): a page of one snippet line
    config = _small_site(tmp_path, '# Home\n\n--8<-- "LICENSE-NOT-THERE.md"\n')
    assert _build(config, tmp_path / "out").returncode != 0  # check_paths: a typo fails
    (tmp_path / "docs" / "index.md").write_text('# Home\n\n--8<-- ".gitignore"\n')
    done = _build(config, tmp_path / "out")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test-artifacts/" in (tmp_path / "out" / "index.html").read_text()
