"""docs/eval-sets.md "Known gaps" names real cases, each tagged ``known_gap``, and back.

The section named ``travel-pt#ps06`` for the case ``ps06b`` (``ps06`` is the range
written with both months, which commits), and three of the four gaps it lists were not
tagged ``known_gap`` although "Writing a case" says a gap is.
"""

from __future__ import annotations

import re

from tf_eval_sets import EVAL, ROOT

from turnframe.eval.dataset import load_set

DOC = ROOT / "docs" / "eval-sets.md"


def _known_gaps_section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("## Known gaps")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def test_every_case_the_known_gaps_name_exists_and_every_known_gap_is_named() -> None:
    section = _known_gaps_section()
    named: set[tuple[str, str]] = set()
    for line in re.findall(r"`([a-z][a-z0-9-]*)#([a-z0-9]+)`((?:, `#[a-z0-9]+`)*)", section):
        named.add((line[0], line[1]))
        named.update((line[0], x) for x in re.findall(r"`#([a-z0-9]+)`", line[2]))
    assert named
    tagged: set[tuple[str, str]] = set()
    ids: set[tuple[str, str]] = set()
    for directory in sorted(d for d in EVAL.iterdir() if d.is_dir()):
        for _file, data in load_set(directory):
            for case in data.cases:
                ids.add((directory.name, case.id))
                if "known_gap" in case.tags:
                    tagged.add((directory.name, case.id))
    assert named <= ids, f"named in the docs but no such case: {sorted(named - ids)}"
    assert named == tagged, (
        f"named, not tagged known_gap: {sorted(named - tagged)}; "
        f"tagged, not named: {sorted(tagged - named)}"
    )
