"""Prompts know no domain: no task prompt names a sample's vocabulary.

See docs/architecture.md "Understanding".
"""

from __future__ import annotations

import re

from turnframe.samples.travel import DEMO_RECORDS, travel_application
from turnframe.samples.travel.knowledge import TOPICS
from turnframe.understand.prompts import PROMPT_NAMES, prompt_text


def _sample_vocabulary() -> set[str]:
    registry = travel_application().registry
    words: set[str] = set()
    for name in registry.names():
        words.add(name)
        for op in registry.workflow(name).operations():
            words.add(op.key)
            words.add(op.key.split(".", 1)[1])
            for arg in op.arguments:
                words.add(arg.name)
                words.update(arg.choices)
                words.update(arg.literals)
                if arg.record_workflow:
                    words.add(arg.record_workflow)
    words.update(TOPICS)
    for record in DEMO_RECORDS:
        for key in ("name", "full_name", "destination", "airline", "key", "status"):
            value = record.get(key)
            if isinstance(value, str):
                words.add(value)
    words.update(
        {"planning", "confirmed", "cancelled", "completed", "deleted", "manifest", "airline"}
    )
    return {w.lower() for w in words if len(w) > 1}


def test_no_core_prompt_names_a_sample_domain() -> None:
    vocabulary = _sample_vocabulary()
    assert {"trip", "trip.add_extra", "insurance", "baggage_allowance"} <= vocabulary
    found: dict[str, list[str]] = {}
    for name in ("_shared", *PROMPT_NAMES):
        text = prompt_text(name).lower()
        hits = [
            w for w in sorted(vocabulary) if re.search(rf"(?<![\w.]){re.escape(w)}(?![\w])", text)
        ]
        if hits:
            found[name] = hits
    assert found == {}


def test_the_vocabulary_check_would_catch_a_domain_word() -> None:
    vocabulary = _sample_vocabulary()
    text = "route the user's words to trip.add_extra when they mention insurance"
    assert any(re.search(rf"(?<![\w.]){re.escape(w)}(?![\w])", text) for w in vocabulary)
