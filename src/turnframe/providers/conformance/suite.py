"""The pytest base class of the provider conformance suite.

Subclass :class:`ProviderConformance`, set ``target`` and pytest collects one test per
case (the class is not named ``Test*``, so it is never collected by itself). All cases
of a class run in one event loop against one loopback server, once per class; each
test then reports its own case. A case the vendor cannot have (declared by its
fixture) and a target whose extra is missing are skipped with the reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import anyio
import pytest

from turnframe.providers.conformance.runner import CASES, CaseResult, Target, run_target
from turnframe.providers.conformance.server import LoopbackServer

__all__ = ["ProviderConformance"]


class ProviderConformance:
    """Every conformance case for one adapter; subclass it and set :attr:`target`."""

    target: ClassVar[Target]
    cases: ClassVar[tuple[str, ...] | None] = None
    """Run only these cases (default: all)."""

    @pytest.fixture(scope="class")
    @classmethod
    def loopback_server(cls) -> Iterator[LoopbackServer]:
        """The scripted fake, bound to 127.0.0.1 on an ephemeral port."""
        with LoopbackServer() as server:
            yield server

    @pytest.fixture(scope="class")
    @classmethod
    def conformance_results(cls, loopback_server: LoopbackServer) -> dict[str, CaseResult]:
        """Every case's result for :attr:`target`, run once for the class."""
        chosen = list(cls.cases) if cls.cases else None
        results = anyio.run(run_target, cls.target, loopback_server, chosen)
        return {r.case: r for r in results}

    @pytest.mark.parametrize("case", list(CASES))
    def test_conformance(self, case: str, conformance_results: dict[str, CaseResult]) -> None:
        """The adapter's normalized outcome for ``case`` is the one every adapter must give."""
        if case not in conformance_results:
            pytest.skip("not selected in this class's cases")
        result = conformance_results[case]
        if result.status == "skip":
            pytest.skip(result.detail)
        if result.status == "n/a":
            pytest.skip(f"not applicable: {result.detail}")
        assert result.status == "pass", f"{self.target.name} / {case}: {result.detail}"
