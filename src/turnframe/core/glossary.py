"""A domain's glossary: what the domain's own words mean (docs/adr/0020-what-a-brief-shows.md).

The prompts know no domain (``tests/understand/test_prompts_domain_free.py``), so what a
model needs to know about a domain's vocabulary reaches it from the domain's
configuration, beside the operation summaries and argument labels: a workflow may declare
a glossary with the optional ``glossary(locale)`` hook (see
:class:`~turnframe.core.workflow.WorkflowDefinition`). The runtime puts the entries of the
workflows on offer into the turn's brief, and the tasks that map words to the domain
(route, extract, verify) read them.
"""

from __future__ import annotations

from dataclasses import dataclass

from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import RegistryError

__all__ = ["GLOSSARY_TERM_LIMIT", "GlossaryEntry", "checked_glossary"]

GLOSSARY_TERM_LIMIT = 400
"""The most characters a glossary term or meaning may hold (server-authored copy, short)."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class GlossaryEntry:
    """One term of a domain's glossary, in one language.

    Attributes:
        term: the word or phrase as users write it (``"cover"``), non-empty.
        meaning: what it means in the domain, server-authored (never user text).
        workflow: the workflow that declares it.
    """

    term: str
    meaning: str
    workflow: str


def checked_glossary(workflow: str, entries: object) -> tuple[GlossaryEntry, ...]:
    """Return a workflow's ``glossary(locale)`` answer as typed entries.

    Accepts a mapping ``term → meaning`` or a sequence of :class:`GlossaryEntry` (whose
    ``workflow`` is set to ``workflow``). Duplicate terms keep the first.

    Raises:
        RegistryError: when an entry is not a pair of non-empty strings of at most
            :data:`GLOSSARY_TERM_LIMIT` characters.
    """
    pairs: list[tuple[object, object]]
    if isinstance(entries, dict):
        pairs = list(entries.items())
    elif isinstance(entries, list | tuple):
        pairs = []
        for entry in entries:
            if not isinstance(entry, GlossaryEntry):
                raise RegistryError(
                    f"workflow {workflow!r}: a glossary entry is {type(entry).__name__}, "
                    "not a GlossaryEntry"
                )
            pairs.append((entry.term, entry.meaning))
    else:
        raise RegistryError(
            f"workflow {workflow!r}: glossary() returned {type(entries).__name__}, "
            "not a mapping or a sequence of GlossaryEntry"
        )
    out: dict[str, GlossaryEntry] = {}
    for term, meaning in pairs:
        for what, value in (("term", term), ("meaning", meaning)):
            if not isinstance(value, str):
                raise RegistryError(
                    f"workflow {workflow!r}: a glossary {what} is {type(value).__name__}, "
                    "not a string"
                )
            if not value.strip():
                raise RegistryError(f"workflow {workflow!r}: a glossary {what} is empty")
            if len(value) > GLOSSARY_TERM_LIMIT:
                raise RegistryError(
                    f"workflow {workflow!r}: glossary {what} {value[:40]!r}... is over "
                    f"{GLOSSARY_TERM_LIMIT} characters"
                )
        assert isinstance(term, str) and isinstance(meaning, str)
        out.setdefault(
            term.strip(),
            GlossaryEntry(term=term.strip(), meaning=meaning.strip(), workflow=workflow),
        )
    return tuple(out.values())
