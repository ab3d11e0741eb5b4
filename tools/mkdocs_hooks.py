"""MkDocs hooks of the docs site (mkdocs.yml ``hooks:``).

The docstrings use Sphinx roles (``:func:`turnframe.serve.app.create_app```,
``:class:`~turnframe.core.TurnInput```); mkdocstrings renders docstrings as Markdown, so a
role would show as the literal text ``:func:`` before the code. This hook turns each role
in the rendered HTML into an optional cross-reference (mkdocs-autorefs links it when the
object is on a reference page, and leaves plain code otherwise, without a warning). A
leading ``~`` shows only the last part of the name, as in Sphinx. A relative name
(``:class:`TurnStore```) stays plain code: the page does not say which module it is in.

It also links the docstrings' citations of the docs (``docs/architecture.md "One turn"``,
``docs/authoring.md#compile``) to the page and heading they name, on the reference pages
(the citation form is checked by tests/test_docs_references.py).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from mkdocs.utils import get_relative_url

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


CITATION = re.compile(
    r"(?<![\w/.-])docs/(?P<path>[\w./-]+?)\.md"
    r"(?:#(?P<anchor>[\w-]+)|(?P<sep>,?\s+)(?P<q>&quot;|\")(?P<heading>[^\"&<>]{1,60})(?P=q))?"
)
TAG = re.compile(r"(<[^>]*>)")


def _slug(heading: str) -> str:
    # the anchor Python-Markdown's ``toc`` gives a heading (tests/test_docs_references.py)
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", text).strip().lower())


def doc_citations(html: str, page_url: str) -> str:
    """Return ``html`` with each ``docs/PAGE.md ["Heading"|#anchor]`` citation linked.

    ``page_url`` is the citing page's URL (``reference/core/``); text inside a tag or a
    link is left alone.
    """
    out: list[str] = []
    in_link = 0
    for part in TAG.split(html):
        if part.startswith("<"):
            if re.match(r"<a[\s>]", part):
                in_link += 1
            elif part.startswith("</a"):
                in_link = max(0, in_link - 1)
            out.append(part)
        elif in_link:
            out.append(part)
        else:
            out.append(CITATION.sub(lambda m: _cite(m, page_url), part))
    return "".join(out)


def _cite(match: re.Match[str], page_url: str) -> str:
    path = match["path"]  # docs/PATH.md is served at PATH/ (README and index at their folder)
    folder, _, name = path.rpartition("/")
    target = (
        f"{folder}/"
        if name in {"README", "index"} and folder
        else ""
        if name in {"README", "index"}
        else f"{path}/"
    )
    anchor = match["anchor"] or (_slug(match["heading"]) if match["heading"] else "")
    href = get_relative_url(target or ".", page_url) + (f"#{anchor}" if anchor else "")
    return f'<a href="{href}">{match[0]}</a>'


def on_page_content(html: str, page: Any, **kwargs: Any) -> str:
    """Rewrite a rendered page (the MkDocs ``on_page_content`` event).

    Every page: the Sphinx roles. Reference pages: the citations of the docs as links too.
    """
    html = sphinx_roles(html)
    if page.file.src_uri.startswith("reference/"):
        html = doc_citations(html, page.url)
    return html
