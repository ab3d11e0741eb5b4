"""MkDocs hooks of the docs site (mkdocs.yml ``hooks:``).

The docstrings use Sphinx roles (``:func:`turnframe.serve.app.create_app```,
``:class:`~turnframe.core.TurnInput```); mkdocstrings renders docstrings as Markdown, so a
role would show as the literal text ``:func:`` before the code. This hook turns each role
in the rendered HTML into an optional cross-reference (mkdocs-autorefs links it when the
object is on a reference page, and leaves plain code otherwise, without a warning). A
leading ``~`` shows only the last part of the name, as in Sphinx. A relative name
(``:class:`TurnStore```) stays plain code: the page does not say which module it is in.
"""

from __future__ import annotations

import re
from typing import Any

ROLE = re.compile(
    r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const|type):"
    r"<code>(?P<tilde>~?)(?P<name>[\w.]+)(?P<call>\(\))?</code>"
)


def _replace(match: re.Match[str]) -> str:
    name, call = match["name"], match["call"] or ""
    shown = (name.rsplit(".", 1)[-1] if match["tilde"] else name) + call
    if not name.startswith("turnframe."):
        return f"<code>{shown}</code>"
    return f'<autoref identifier="{name}" optional><code>{shown}</code></autoref>'


def sphinx_roles(html: str) -> str:
    """Return ``html`` with every Sphinx role rendered as a cross-reference or as code."""
    return ROLE.sub(_replace, html)


def on_page_content(html: str, **kwargs: Any) -> str:
    """Rewrite the Sphinx roles of a rendered page (the MkDocs ``on_page_content`` event)."""
    return sphinx_roles(html)
