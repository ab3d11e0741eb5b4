"""YAML read with a nesting limit, for scenario, eval and answer files (docs/adr/0019-local-model-and-answer-bounds.md).

PyYAML's composer builds nodes recursively, so a file nested a few thousand levels deep
raises a raw ``RecursionError``. :func:`load_yaml` composes with a depth counter and
refuses anything deeper than ``max_depth`` with :class:`YAMLTooDeep`, a
``yaml.YAMLError`` that names the line, so every caller's existing "cannot read YAML"
path reports it as one line.
"""

from __future__ import annotations

from typing import Any

import yaml

__all__ = ["MAX_YAML_DEPTH", "YAMLTooDeep", "load_yaml", "yaml_error_line"]

MAX_YAML_DEPTH = 64
"""The deepest nesting of mappings and lists read (a scenario file nests about 8)."""


class YAMLTooDeep(yaml.YAMLError):
    """A YAML document nests deeper than the limit; ``str()`` is one line with the line number."""


class _BoundedLoader(yaml.SafeLoader):
    """``SafeLoader`` whose composer counts its depth."""

    max_depth = MAX_YAML_DEPTH

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > self.max_depth:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise YAMLTooDeep(
                    f"the YAML nests more than {self.max_depth} levels deep (line {mark.line + 1})"
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_yaml(text: str, *, max_depth: int = MAX_YAML_DEPTH) -> Any:
    """Return the one YAML document in ``text``, like ``yaml.safe_load``, within ``max_depth``.

    Raises:
        YAMLTooDeep: the document nests deeper than ``max_depth``.
        yaml.YAMLError: any other YAML error.
    """
    loader_class = type("_Loader", (_BoundedLoader,), {"max_depth": max_depth})
    loader = loader_class(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def yaml_error_line(exc: BaseException) -> str:
    """Return a YAML reading error as one line: the problem and its line and column.

    PyYAML's ``str()`` of a marked error is several lines naming ``<unicode string>``
    (the text was read from a string); the caller puts its file's path before this line.
    Any other exception is its ``str()`` with the line breaks folded.
    """
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        parts = [p for p in (exc.context, exc.problem) if p]
        text = ", ".join(parts) or type(exc).__name__
        if mark is not None:
            text += f" (line {mark.line + 1}, column {mark.column + 1})"
        return text
    return " ".join(str(exc).split())
