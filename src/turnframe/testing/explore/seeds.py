"""Seeded records the explorer starts from besides the absent state (docs/explorer.md "Seeds").

Some records are created outside conversation (the travel sample's manifests, by the
travel desk); their states are reachable only from a seed. Records are given in the
application's ``records:`` form (docs/scenario-format.md "Records") and turned into
states by the application's seeder, exactly as a scenario file's are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from turnframe.core.dataclass_init import fast_init
from turnframe.core.errors import UsageError
from turnframe.core.ids import CaseRef, JSONObject
from turnframe.runtime.app import Application
from turnframe.testing.bounded_yaml import load_yaml, yaml_error_line
from turnframe.testing.scenario.apps import seeder_for

__all__ = ["Seed", "read_records", "seeds_of"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Seed:
    """One seeded record: its key in the records and its JSON state.

    Attributes:
        key: the record's ``key`` (``"D1"``), the first step of every path from it.
        state: the state the seeder made.
    """

    key: str
    state: JSONObject


def read_records(path: str | Path) -> list[Mapping[str, Any]]:
    """Return the ``records:`` of a YAML file (a scenario file, or a file of records only).

    Raises:
        UsageError: naming the file, when it cannot be read, is not YAML, or has no
            list of records.
    """
    try:
        data = load_yaml(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--records {str(path)!r}: cannot read it ({exc})") from exc
    except (yaml.YAMLError, ValueError) as exc:
        raise UsageError(f"--records {str(path)!r}: not YAML: {yaml_error_line(exc)}") from exc
    records = data.get("records") if isinstance(data, dict) else data
    if not isinstance(records, list) or not all(isinstance(r, Mapping) for r in records):
        raise UsageError(
            f"--records {str(path)!r}: give a list of records, or a mapping with `records:`"
        )
    return list(records)


def seeds_of(
    app: Application, records: Sequence[Mapping[str, Any]] | None
) -> dict[str, list[Seed]]:
    """Return workflow name → its seeds, made from ``records`` by the application's seeder.

    ``None`` reads the records of the application's tour file when it has one.

    Raises:
        UsageError: when the seeder refuses the records (its message), or the tour
            file cannot be read.
    """
    if records is None:
        records = read_records(app.tour) if app.tour else []
    seeder = seeder_for(app)
    try:
        ordered = seeder.seed_order(records)
    except (ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"explore: the records cannot be seeded: {exc}") from exc
    refs: dict[str, CaseRef] = {}
    found: dict[str, list[Seed]] = {}
    for record in ordered:
        key = str(record.get("key", ""))
        try:
            workflow, state = seeder.seed_state(record, refs)
        except (ValueError, KeyError, TypeError) as exc:
            raise UsageError(f"explore: record {key!r} cannot be seeded: {exc}") from exc
        case_id = record.get("id")
        refs[key] = CaseRef(workflow, str(case_id) if case_id is not None else key.lower())
        found.setdefault(workflow, []).append(Seed(key=key, state=state))
    return found
