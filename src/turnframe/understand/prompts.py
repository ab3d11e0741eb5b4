"""Task instructions shipped as package data; they name no domain (I1).

See docs/architecture.md "Understanding".

Domain knowledge reaches a task only through configuration in its data: operation
summaries, argument labels and descriptions, topics and a record's briefing.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from turnframe.core.canonical import digest

__all__ = ["PROMPT_NAMES", "composed_prompt", "prompt", "prompt_text"]

PROMPT_NAMES = (
    "segment",
    "coverage",
    "route",
    "locate",
    "extract",
    "verify",
    "cross_check",
    "segment_route",
    "read",
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


@cache
def composed_prompt(name: str, parts: tuple[str, ...]) -> tuple[str, str]:
    """Return ``(instructions, prompt id)`` for a merged task ``name`` asking ``parts`` at once.

    The shared rules, then the merged task's own text (the answer's shape), then each
    part's own instructions verbatim under its name, so a merged read is held to the
    same rules as the steps it merges (docs/architecture.md "Effort").
    """
    sections = [prompt_text("_shared").strip(), prompt_text(name).strip()]
    sections += [f"## Step {part}\n\n{prompt_text(part).strip()}" for part in parts]
    text = "\n\n".join(sections) + "\n"
    return text, f"{name}@{digest(text)[:12]}"
