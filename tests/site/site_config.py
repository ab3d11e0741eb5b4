"""Read mkdocs.yml for the site tests (its ``!!python/name:`` tags are kept as strings)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "mkdocs.yml"


class _Loader(yaml.SafeLoader):
    """A safe loader that reads a ``!!python/...`` tag as its name instead of importing it."""


_Loader.add_multi_constructor(
    "tag:yaml.org,2002:python/", lambda loader, suffix, node: f"python/{suffix}"
)


def site_config(path: Path = CONFIG) -> dict[str, Any]:
    """Return mkdocs.yml as data."""
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
    assert isinstance(data, dict), f"{path}: not a mapping"
    return data


def nav_pages(nav: object) -> Iterator[str]:
    """Yield every page path of a nav (its entries: ``page.md``, ``{title: page.md}``, sections)."""
    if isinstance(nav, str):
        if "://" not in nav:
            yield nav
    elif isinstance(nav, list):
        for item in nav:
            yield from nav_pages(item)
    elif isinstance(nav, dict):
        for value in nav.values():
            yield from nav_pages(value)
