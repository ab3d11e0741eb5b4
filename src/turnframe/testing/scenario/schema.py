"""The scenario format's JSON Schema, for editors (docs/scenario-format.md "Editor support").

``scenario.schema.json`` beside this module is generated from the runner's models
(:class:`~turnframe.testing.scenario.model.ScenarioModel`) by :func:`scenario_schema`;
a test checks that the shipped file equals a fresh generation, so the schema and the
runner accept the same keys and values. Regenerate it with::

    PYTHONPATH=src python -m turnframe.testing.scenario.schema >schema.json
    mv schema.json src/turnframe/testing/scenario/scenario.schema.json

The schema checks the format's shape only: names that depend on the application (record
keys, operations) and the records' own fields are checked by the runner.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from turnframe.testing.scenario.model import ScenarioModel

__all__ = ["SCHEMA_FILE", "SCHEMA_ID", "scenario_schema", "shipped_schema"]

SCHEMA_FILE = "scenario.schema.json"
"""The shipped schema's file name inside :mod:`turnframe.testing.scenario`."""

SCHEMA_ID = "https://turnframe.dev/schemas/scenario.schema.json"
"""The schema's ``$id`` (a name; nothing is fetched from it)."""


def scenario_schema() -> dict[str, Any]:
    """Return the JSON Schema (draft 2020-12) generated from :class:`ScenarioModel`.

    Keys are spelt as in files (``as``, not ``as_``); dates are ``format: date`` strings.
    """
    schema = ScenarioModel.model_json_schema(by_alias=True, mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        **schema,
    }


def shipped_schema() -> dict[str, Any]:
    """Return the schema file shipped in the package (package data).

    Raises:
        FileNotFoundError: when the package was installed without its data files.
    """
    text = resources.files("turnframe.testing.scenario").joinpath(SCHEMA_FILE).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


if __name__ == "__main__":  # pragma: no cover - the regeneration command above
    print(json.dumps(scenario_schema(), indent=2, ensure_ascii=False))
