"""The provider conformance suite: every adapter, the same cases, real SDKs.

See docs/architecture.md "Providers".

* :mod:`.server`: the loopback fake speaking each vendor's wire format from fixtures;
* :mod:`.runner`: the cases and a runner that needs no pytest (the CLI uses it);
* :mod:`.targets`: the built-in adapters and profiles as targets;
* :mod:`.table`: the compatibility table, generated from a run's results;
* :class:`ProviderConformance` (in :mod:`.suite`, imported on first use so that this
  package never loads pytest by itself): the pytest base class an adopter subclasses
  for their own adapter::

      from turnframe.providers.conformance import ProviderConformance, Target

      class TestMyAdapter(ProviderConformance):
          target = Target(name="mine", dialects=("openai_chat",), extra="", make=..., ...)
"""

from __future__ import annotations

import importlib
from typing import Any

from turnframe.providers.conformance.runner import (
    CASES,
    FIXTURES,
    CaseFailed,
    CaseResult,
    Target,
    run_case,
    run_target,
)
from turnframe.providers.conformance.server import LoopbackServer, RecordedRequest

__all__ = [
    "CASES",
    "FIXTURES",
    "CaseFailed",
    "CaseResult",
    "LoopbackServer",
    "ProviderConformance",
    "RecordedRequest",
    "Target",
    "run_case",
    "run_target",
]


def __getattr__(name: str) -> Any:
    if name == "ProviderConformance":
        # Loaded on demand: the suite imports pytest, which the CLI must not need.
        return importlib.import_module("turnframe.providers.conformance.suite").ProviderConformance
    raise AttributeError(name)
