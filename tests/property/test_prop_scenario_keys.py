"""Property: a misspelt or unknown key at any depth, or an unknown result value, makes a
scenario file invalid with that key's YAML path; never a failed turn, never a crash
(docs/scenario-format.md "Invalid files")."""

from __future__ import annotations

import copy
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import turnframe.testing.scenario.model as model_module
from turnframe.testing.scenario import ScenarioFileError, run_scenario_file

BASE: dict[str, Any] = {
    "name": "every strict mapping of the format, once",
    "sample": "travel",
    "today": "2026-05-01",
    "actor": {"account": "acme", "user": "u1", "roles": ["customer"]},
    "records": [
        {
            "key": "T1",
            "workflow": "trip",
            "name": "Lisbon",
            "start": "2026-05-12",
            "end": "2026-05-15",
        },
        {
            "key": "T2",
            "workflow": "trip",
            "name": "Lisbon",
            "start": "2026-06-03",
            "end": "2026-06-06",
        },
    ],
    "turns": [
        {
            "text": "Add a seat to the Lisbon trip; what is the bag allowance?",
            "as": {"account": "acme", "user": "u1"},
            "understanding": {
                "acts": [
                    {
                        "id": "a1",
                        "operation": "trip.add_extra",
                        "target": {"handles": ["T1", "T2"], "mention": "the Lisbon trip"},
                        "args": {"kind": "seat"},
                    }
                ],
                "questions": [
                    {"id": "q1", "topic": "baggage_allowance", "target": {"handles": ["T1"]}}
                ],
                "constraints": [{"id": "c1", "kind": "do_not_submit"}],
                "links": [{"act": "a1"}],
            },
            "expect": {
                "results": {"a1": "needs_clarification"},
                "interactions_created": [{"kind": "select_target", "case": None}],
                "blocks": ["interaction"],
            },
        },
        {
            "click": {
                "interaction": "last",
                "option": "T1",
                "as": {"account": "acme", "user": "u1"},
            },
            "expect": {
                "commands": [{"operation": "trip.add_extra", "case": "T1"}],
                "outbox": [{"case": "T1", "topic": "airline.submit_manifest"}],
            },
        },
        {"crash": {"at": "commit.ack_lost"}, "external": {"case": "T1", "status": "accepted"}},
    ],
}

# The mappings whose keys the format fixes (records, args, results and state are free).
STRICT: list[tuple[Any, ...]] = [
    (),
    ("actor",),
    ("turns", 0),
    ("turns", 0, "as"),
    ("turns", 0, "understanding"),
    ("turns", 0, "understanding", "acts", 0),
    ("turns", 0, "understanding", "acts", 0, "target"),
    ("turns", 0, "understanding", "questions", 0),
    ("turns", 0, "understanding", "questions", 0, "target"),
    ("turns", 0, "understanding", "constraints", 0),
    ("turns", 0, "understanding", "links", 0),
    ("turns", 0, "expect"),
    ("turns", 0, "expect", "interactions_created", 0),
    ("turns", 1),
    ("turns", 1, "click"),
    ("turns", 1, "click", "as"),
    ("turns", 1, "expect"),
    ("turns", 1, "expect", "commands", 0),
    ("turns", 1, "expect", "outbox", 0),
    ("turns", 2),
    ("turns", 2, "crash"),
    ("turns", 2, "external"),
]

KNOWN = {
    (info.alias or name)
    for cls in vars(model_module).values()
    if isinstance(cls, type) and issubclass(cls, BaseModel)
    for name, info in cls.model_fields.items()
} | {"as_"}


def _node(doc: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def _where(path: tuple[Any, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out


def _misspell(key: str, how: int) -> str:
    if len(key) > 1 and how % 3 == 0:
        return key[:-1]  # a dropped letter
    if len(key) > 1 and how % 3 == 1:
        return key[1] + key[0] + key[2:]  # swapped letters
    return key + "s"


unknown_keys = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12)


def _invalid_at(doc: dict[str, Any]) -> ScenarioFileError:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.yaml"
        path.write_text(json.dumps(doc), encoding="utf-8")  # JSON is YAML
        try:
            outcome = run_scenario_file(path)
        except ScenarioFileError as exc:
            return exc
    raise AssertionError(f"not invalid: ran with failures {outcome.failures}")


def test_the_base_document_is_valid() -> None:
    # the property below is only meaningful if the untouched document loads
    from turnframe.testing.scenario.runner import prepare_scenario

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.yaml"
        path.write_text(json.dumps(BASE), encoding="utf-8")
        prepare_scenario(path)


@settings(max_examples=120)
@given(
    where=st.sampled_from(STRICT),
    invent=st.booleans(),
    new_key=unknown_keys,
    pick=st.integers(min_value=0, max_value=1000),
)
def test_an_unknown_key_at_any_depth_is_invalid_with_its_path(
    where: tuple[Any, ...], invent: bool, new_key: str, pick: int
) -> None:
    doc = copy.deepcopy(BASE)
    node = _node(doc, where)
    keys = list(node)
    if invent or not keys:
        key = new_key
        assume(key not in KNOWN)  # a real key of the format is no misspelling
        node[key] = "x"
    else:
        old = keys[pick % len(keys)]
        key = _misspell(old, pick)
        assume(key not in KNOWN)
        node[key] = node.pop(old)
    error = _invalid_at(doc)
    expected = f"{_where(where)}.{key}" if where else key
    assert error.where == expected, str(error)


@settings(max_examples=60)
@given(value=st.text(min_size=0, max_size=20))
def test_an_unknown_result_value_is_invalid_with_its_path(value: str) -> None:
    assume(not re.fullmatch(model_module.RESULT_PATTERN, value))
    doc = copy.deepcopy(BASE)
    doc["turns"][0]["expect"]["results"]["a1"] = value
    error = _invalid_at(doc)
    assert error.where == "turns[0].expect.results.a1", str(error)
