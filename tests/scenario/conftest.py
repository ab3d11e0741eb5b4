"""A third-party application for the scenario runner's tests, importable as ``trips_app``.

It serves the travel workflows under another name, with no record seeder of its own (so
scenario files use the generic ``{key, workflow, state}`` records), a directory factory
that records each store it is built over, and a tour.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from scenario_app_texts import APP_MODULE, GENERIC


@pytest.fixture
def trips_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """Write ``trips_app.py`` (and its tour) into a directory on ``sys.path``; import it."""
    home = tmp_path / "app"
    home.mkdir()
    (home / "trips_app.py").write_text(APP_MODULE, encoding="utf-8")
    (home / "tour.yaml").write_text(GENERIC, encoding="utf-8")
    monkeypatch.syspath_prepend(str(home))
    sys.modules.pop("trips_app", None)
    module = importlib.import_module("trips_app")
    yield module
    sys.modules.pop("trips_app", None)
