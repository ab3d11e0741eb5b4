"""Every page under docs/ is in the site's nav, and every reference page's ``:::`` imports.

A new page cannot be forgotten: it is either in mkdocs.yml's ``nav`` or in NOT_IN_NAV with
the reason. Each public package (a subpackage of ``turnframe`` that declares ``__all__``)
has a page under docs/reference/, and each ``::: identifier`` there names something that
imports, so the API reference never renders an empty page.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest
from site_config import ROOT, nav_pages, site_config

import turnframe

DOCS = ROOT / "docs"
# page -> why it is not in the nav (mkdocs then warns nothing: see validation.omitted_files)
NOT_IN_NAV: dict[str, str] = {}
# public packages with no reference page, and why
# (turnframe.samples declares no __all__: its applications are documented as guides)
NO_REFERENCE: dict[str, str] = {}
IDENT = re.compile(r"^:::\s+(\S+)\s*$", re.M)


def _pages(docs: Path = DOCS) -> set[str]:
    return {p.relative_to(docs).as_posix() for p in docs.rglob("*.md")}


def missing_from_nav(docs: Path, nav: object) -> list[str]:
    """Return the pages under ``docs`` that neither ``nav`` nor NOT_IN_NAV names."""
    return sorted(_pages(docs) - set(nav_pages(nav)) - set(NOT_IN_NAV))


def test_a_forgotten_page_is_found(tmp_path: Path) -> None:
    (tmp_path / "guides").mkdir()
    for page in ("index.md", "guides/a.md", "guides/new.md"):
        (tmp_path / page).write_text("# x\n")
    nav = [{"Home": "index.md"}, {"Guides": [{"A": "guides/a.md"}, "https://example.org"]}]
    assert missing_from_nav(tmp_path, nav) == ["guides/new.md"]


def test_every_page_is_in_the_nav() -> None:
    missing = missing_from_nav(DOCS, site_config()["nav"])
    assert not missing, (
        "pages missing from mkdocs.yml's nav (add them there, or to NOT_IN_NAV with the "
        f"reason): {missing}"
    )


def test_the_nav_names_only_pages_that_exist_once() -> None:
    nav = list(nav_pages(site_config()["nav"]))
    assert not sorted(set(nav) - _pages()), "nav entries without a page"
    assert len(nav) == len(set(nav)), "a page is in the nav twice"
    assert not set(NOT_IN_NAV) & set(nav), "a page is both in the nav and in NOT_IN_NAV"
    assert set(NOT_IN_NAV) <= _pages(), "NOT_IN_NAV names a page that does not exist"


def test_the_config_is_the_documented_one() -> None:
    config = site_config()
    assert config["site_name"] == "Turnframe"
    assert config["docs_dir"] == "docs"
    assert config["theme"]["name"] == "material"
    fences = next(
        e["pymdownx.superfences"]["custom_fences"]
        for e in config["markdown_extensions"]
        if isinstance(e, dict) and "pymdownx.superfences" in e
    )
    assert any(f["name"] == "mermaid" for f in fences), "mermaid diagrams would not render"


def _public_packages() -> list[str]:
    out = []
    for info in pkgutil.iter_modules(turnframe.__path__, "turnframe."):
        if not info.ispkg:
            continue
        init = Path(turnframe.__path__[0], info.name.rsplit(".", 1)[1], "__init__.py")
        if re.search(r"^__all__\s*=", init.read_text(encoding="utf-8"), re.M):
            out.append(info.name)
    return sorted(out)


def test_every_public_package_has_a_reference_page() -> None:
    documented = {
        ident
        for page in (DOCS / "reference").glob("*.md")
        for ident in IDENT.findall(page.read_text(encoding="utf-8"))
    }
    packages = _public_packages()
    assert "turnframe.core" in packages, packages
    missing = [p for p in packages if p not in documented and p not in NO_REFERENCE]
    assert not missing, f"public packages with no docs/reference page: {missing}"


REFERENCE = sorted(
    (page.name, ident)
    for page in (DOCS / "reference").glob("*.md")
    for ident in IDENT.findall(page.read_text(encoding="utf-8"))
)


def test_the_reference_has_pages() -> None:
    assert len({page for page, _ in REFERENCE}) >= 10, REFERENCE


@pytest.mark.parametrize(("page", "ident"), REFERENCE)
def test_each_reference_identifier_imports(page: str, ident: str) -> None:
    parts = ident.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            assert hasattr(obj, name), f"docs/reference/{page}: {ident} does not exist"
            obj = getattr(obj, name)
        return
    pytest.fail(f"docs/reference/{page}: {ident} does not import")


@pytest.mark.parametrize("package", [p for p in _public_packages() if p not in NO_REFERENCE])
def test_each_exported_name_exists(package: str) -> None:
    module = importlib.import_module(package)
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert not missing, f"{package}.__all__ names what it does not define: {missing}"
