"""The shipped JSON Schema and the runner agree (docs/scenario-format.md "Editor support")."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from turnframe.cli import main
from turnframe.testing.bounded_yaml import load_yaml
from turnframe.testing.pytest_plugin import scenario_files
from turnframe.testing.scenario.schema import scenario_schema, shipped_schema

ROOT = Path(__file__).resolve().parents[2]
FILES = scenario_files(ROOT / "scenarios")


def _json(value: Any) -> Any:
    """Return YAML data as a JSON document has it (dates become ISO strings)."""
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json(v) for v in value]
    if isinstance(value, date):
        return value.isoformat()
    return value


def _validator() -> jsonschema.protocols.Validator:
    schema = shipped_schema()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_the_shipped_schema_is_the_one_the_models_generate() -> None:
    assert shipped_schema() == scenario_schema(), (
        "regenerate: PYTHONPATH=src python -m turnframe.testing.scenario.schema > "
        "src/turnframe/testing/scenario/scenario.schema.json"
    )


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_scenario_file_is_valid_under_the_schema(path: Path) -> None:
    _validator().validate(_json(load_yaml(path.read_text(encoding="utf-8"))))


def _doc() -> dict[str, Any]:
    data = _json(load_yaml(FILES[0].read_text(encoding="utf-8")))
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize(
    "spoil",
    [
        lambda d: d.update(sampel="travel"),
        lambda d: d["turns"][0].update(clik={"option": "x"}),
        lambda d: d["turns"][0]["expect"].update(resutls={}),
        lambda d: d["turns"][0]["expect"].update(results={"a0": "comitted"}),
        lambda d: d["turns"][0]["expect"].update(blocks=["recipt"]),
        lambda d: d["turns"][0]["understanding"]["acts"][0].update(operaton="x"),
    ],
)
def test_the_schema_rejects_what_the_runner_rejects(spoil: Any, tmp_path: Path) -> None:
    doc = _doc()
    spoil(doc)
    assert list(_validator().iter_errors(doc))
    path = tmp_path / "spoilt.yaml"
    path.write_text(json.dumps(doc), encoding="utf-8")  # JSON is YAML
    assert main(["scenario", "run", str(path)]) == 2


def test_scenario_schema_prints_the_shipped_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenario", "schema"]) == 0
    assert json.loads(capsys.readouterr().out) == shipped_schema()
