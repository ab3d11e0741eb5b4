"""A griffe extension of the docs site: the docstrings' Sphinx roles become cross-references.

The docstrings name objects with Sphinx roles, often relative to their module
(``:class:`TurnStore```, ``:func:`~turnframe.serve.app.create_app```). Once the package is
loaded, this extension resolves each role's name in the scope of the object whose
docstring holds it, and writes an optional autorefs reference in its place (a link when
the object is on a reference page, plain code otherwise, never a warning). A name that
does not resolve is left as it is; tools/mkdocs_hooks.py then shows it as code. A leading
``~`` shows only the last part of the name, as in Sphinx.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension, Object

ROLE = re.compile(
    r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const|type):"
    r"`(?P<tilde>~?)(?P<name>[\w.]+)(?P<call>\(\))?`"
)


def resolve(obj: Object, name: str) -> str | None:
    """Return the full path ``name`` has in the scope of ``obj``, or None."""
    first, _, rest = name.partition(".")
    if first == obj.package.name:  # already a full path (turnframe.core.X)
        return name
    try:
        full = obj.resolve(first)
    except Exception:
        return None
    return f"{full}.{rest}" if rest else full


def rewrite(text: str, obj: Object) -> str:
    """Return ``text`` with each resolvable role as an optional cross-reference."""

    def replace(match: re.Match[str]) -> str:
        full = resolve(obj, match["name"])
        if full is None:
            return match[0]
        name = match["name"]
        shown = (name.rsplit(".", 1)[-1] if match["tilde"] else name) + (match["call"] or "")
        return f'<autoref identifier="{full}" optional><code>{shown}</code></autoref>'

    return ROLE.sub(replace, text)


class SphinxRoles(Extension):
    """Rewrite the roles of every docstring of a loaded package."""

    def on_package(self, *, pkg: Object, **kwargs: Any) -> None:
        """Walk the package's own objects (not its aliases) once it is loaded."""
        stack: list[Object] = [pkg]
        while stack:
            obj = stack.pop()
            if obj.docstring is not None and ":" in obj.docstring.value:
                obj.docstring.value = rewrite(obj.docstring.value, obj)
            stack.extend(m for m in obj.members.values() if isinstance(m, Object))
