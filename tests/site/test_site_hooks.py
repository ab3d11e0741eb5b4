"""The site's hook turns the docstrings' Sphinx roles into cross-references (tools/mkdocs_hooks.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown.extensions.toc import slugify
from site_config import ROOT, site_config

_spec = importlib.util.spec_from_file_location("mkdocs_hooks", ROOT / "tools" / "mkdocs_hooks.py")
assert _spec and _spec.loader
hooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hooks)


def test_the_hook_is_configured() -> None:
    assert "tools/mkdocs_hooks.py" in site_config()["hooks"]


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        (
            "runs :func:<code>turnframe.serve.app.create_app</code> on",
            'runs <autoref identifier="turnframe.serve.app.create_app" optional>'
            "<code>turnframe.serve.app.create_app</code></autoref> on",
        ),
        (
            ":class:<code>~turnframe.core.TurnInput</code>",
            '<autoref identifier="turnframe.core.TurnInput" optional>'
            "<code>TurnInput</code></autoref>",
        ),
        (
            ":meth:<code>~turnframe.runtime.Runtime.turn()</code>",
            '<autoref identifier="turnframe.runtime.Runtime.turn" optional>'
            "<code>turn()</code></autoref>",
        ),
        (":class:<code>TurnStore</code>", "<code>TurnStore</code>"),
        (":py:exc:<code>~anyio.ClosedResourceError</code>", "<code>ClosedResourceError</code>"),
        ("plain <code>:func:</code> text", "plain <code>:func:</code> text"),
    ],
)
def test_roles_become_references_or_code(html: str, expected: str) -> None:
    assert hooks.sphinx_roles(html) == expected


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        (
            '(docs/architecture.md "One turn")',
            '(<a href="../../architecture/#one-turn">docs/architecture.md "One turn"</a>)',
        ),
        (
            "docs/authoring.md, &quot;Words and locales&quot; and more",
            '<a href="../../authoring/#words-and-locales">'
            "docs/authoring.md, &quot;Words and locales&quot;</a> and more",
        ),
        (
            "<code>docs/authoring.md#compile</code>",
            '<code><a href="../../authoring/#compile">docs/authoring.md#compile</a></code>',
        ),
        ("docs/adr/README.md", '<a href="../../adr/">docs/adr/README.md</a>'),
        ('<a href="x">docs/chat.md</a>', '<a href="x">docs/chat.md</a>'),
        ('<span title="docs/chat.md">y</span>', '<span title="docs/chat.md">y</span>'),
        ("mydocs/chat.md", "mydocs/chat.md"),
    ],
)
def test_doc_citations_become_links(html: str, expected: str) -> None:
    assert hooks.doc_citations(html, "reference/core/") == expected


@given(st.text(max_size=40))
def test_the_anchor_is_the_one_the_site_gives_a_heading(heading: str) -> None:
    # the hook's slug must be Python-Markdown's, or its links land at the top of the page
    assert hooks._slug(heading) == slugify(heading, "-")


def test_relative_roles_resolve_in_their_module(tmp_path: Path) -> None:
    import griffe

    spec = importlib.util.spec_from_file_location(
        "griffe_roles", ROOT / "tools" / "griffe_roles.py"
    )
    assert spec and spec.loader
    roles = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(roles)
    pkg = tmp_path / "pkgx"
    pkg.mkdir()
    (pkg / "__init__.py").write_text('"""See :class:`~pkgx.store.Store`."""\n')
    (pkg / "store.py").write_text(
        '"""Stores."""\n\n\nclass Store:\n    """One; :meth:`Store.put`, :func:`gone`."""\n\n'
        '    def put(self) -> None:\n        """Put."""\n'
    )
    loaded = griffe.load(
        "pkgx", search_paths=[tmp_path], extensions=griffe.load_extensions(roles.SphinxRoles)
    )
    assert loaded.docstring.value == (
        'See <autoref identifier="pkgx.store.Store" optional><code>Store</code></autoref>.'
    )
    assert loaded["store.Store"].docstring.value == (
        'One; <autoref identifier="pkgx.store.Store.put" optional><code>Store.put</code>'
        "</autoref>, :func:`gone`."
    )
