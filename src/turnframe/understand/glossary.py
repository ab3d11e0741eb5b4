"""Which tasks read the domain's glossary, and how they see it (docs/adr/0020-what-a-brief-shows.md).

The glossary travels in the :class:`~turnframe.understand.brief.Brief` (the runtime
fills it from the workflows' ``glossary(locale)`` hooks). Only the tasks that map the
user's words onto the domain's vocabulary read it:

- ``route``: which offered operation a request's words mean ("add cover" is an extra
  of kind insurance); it sees the glossary of every workflow on offer;
- ``extract``: which choice or record an argument's words mean ("hand luggage" is the
  baggage kind); it sees the glossary of the act's workflow and of the workflows its
  record arguments name;
- ``verify``: whether the act says what the words say, which needs the same meanings
  extraction used; same entries as ``extract``.

Segment and coverage read the message's structure, locate chooses among labelled
records, and cross-check compares the steps already read: none maps a domain word to a
meaning, so none is sent the glossary (fewer prompt tokens, and no domain prose where it
cannot help). The prompts stay domain-free: the entries are the domain's configuration,
sent as the task's input like the operation summaries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from turnframe.core.glossary import GlossaryEntry
from turnframe.core.ids import JSONValue
from turnframe.core.operations import OperationSpec
from turnframe.understand.brief import Brief

__all__ = ["GLOSSARY_TASKS", "act_glossary", "glossary_data", "offered_glossary", "with_glossary"]

GLOSSARY_TASKS = ("route", "extract", "verify")
"""The tasks whose input carries the glossary (why: this module's docstring)."""


def offered_glossary(brief: Brief) -> tuple[GlossaryEntry, ...]:
    """Return the brief's glossary entries of the workflows whose operations are on offer."""
    workflows = {op.workflow for op in brief.operations}
    return tuple(e for e in brief.glossary if e.workflow in workflows)


def act_glossary(brief: Brief, spec: OperationSpec) -> tuple[GlossaryEntry, ...]:
    """Return the entries an act of ``spec`` is read with: its workflow's and its records'."""
    workflows = {spec.workflow, *(a.record_workflow for a in spec.arguments if a.record_workflow)}
    return tuple(e for e in brief.glossary if e.workflow in workflows)


def glossary_data(entries: Iterable[GlossaryEntry]) -> list[JSONValue]:
    """Return glossary entries as a task sees them: ``[{"term": ..., "means": ...}]``."""
    return [{"term": e.term, "means": e.meaning} for e in entries]


def with_glossary(data: dict[str, object], entries: Sequence[GlossaryEntry]) -> None:
    """Add ``entries`` to a task's input under ``"glossary"`` (nothing when there are none)."""
    if entries:
        data["glossary"] = glossary_data(entries)
