"""Task instructions shipped as package data; they name no domain (guide §5, I1).

Domain knowledge reaches a task only through configuration in its data: operation
summaries, argument labels and descriptions, topics and a record's briefing.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from turnframe.core.canonical import digest

__all__ = ["PROMPT_NAMES", "prompt", "prompt_text"]

PROMPT_NAMES = (
    "segment",
    "coverage",
    "route",
    "locate",
    "extract",
    "verify",
    "cross_check",
    "acknowledge",
    "review",
    "answer",
)
"""Every task prompt the package ships (plus ``_shared``, prefixed to each)."""


@cache
def prompt_text(name: str) -> str:
    """Return the raw text of ``prompts/<name>.md``."""
    return resources.files("turnframe.understand").joinpath(f"prompts/{name}.md").read_text("utf-8")


@cache
def prompt(name: str) -> tuple[str, str]:
    """Return ``(instructions, prompt id)`` for task ``name``: the shared rules then the task's."""
    text = prompt_text("_shared").strip() + "\n\n" + prompt_text(name).strip() + "\n"
    return text, f"{name}@{digest(text)[:12]}"
