"""Receipts from templates keyed by event type (docs/authoring.md#receipts).

A receipt table maps a locale to ``{event type: template}``; a template is a
``str.format`` string over the event's payload, the state's top-level fields and the
record's ``label``. An event type with no receipt is declared silent, never left out.
"""

from __future__ import annotations

import string
from collections.abc import Mapping

from turnframe.core.authoring.words import in_locale
from turnframe.core.errors import UsageError

__all__ = ["ReceiptTable", "placeholders", "render_template"]

ReceiptTable = Mapping[str, Mapping[str, str]]
"""Locale → event type → template."""


def placeholders(template: str) -> tuple[str, ...]:
    """Return the top-level names ``template`` interpolates (``{title}`` → ``title``).

    Raises:
        ValueError: for a template ``str.format`` cannot parse (an unmatched brace).
    """
    names = []
    for _, name, _, _ in string.Formatter().parse(template):
        if name is not None:
            head = name.split(".")[0].split("[")[0]
            if not head or head.isdigit():
                raise ValueError(f"positional placeholder {{{name}}}; name it")
            names.append(head)
    return tuple(names)


def render_template(
    workflow: str, table: ReceiptTable, event_type: str, locale: str, params: Mapping[str, object]
) -> str:
    """Return the receipt of ``event_type`` in ``locale``, filled with ``params``.

    Raises:
        UsageError: naming the workflow and event type, when no template exists for it
            in ``locale`` or the template names a value ``params`` lacks (registration
            reports the first; ``registration_problems``).
    """
    templates = in_locale(table, locale) or {}
    template = templates.get(event_type)
    if template is None:
        raise UsageError(
            f"workflow {workflow!r}: no receipt template for event {event_type!r} in "
            f"{locale!r}; add one to receipts or list the event in silent"
        )
    try:
        return template.format_map(dict(params))
    except (KeyError, IndexError, ValueError) as exc:
        raise UsageError(
            f"workflow {workflow!r}: receipt template of {event_type!r} in {locale!r} "
            f"names {exc} which the event and state lack"
        ) from exc
